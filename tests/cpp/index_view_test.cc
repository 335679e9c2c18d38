// The index views (ops/index_view.h): each op's rule against values written
// out by hand or by its definition, bound again at other sizes, refusing what
// TFLite's kernels refuse; and the runtime step over any range of rows.
#include "ops/index_view.h"

#include <gtest/gtest.h>

#include <numeric>

#include "ir/shape.h"
#include "runtime/anchor.h"

namespace fd {
namespace {

// The input's values 0, 1, 2, ... gathered by the step, its rows run in
// pieces of `piece` rows: the input offset of each output value.
std::vector<float> run_view(const std::shared_ptr<const IndexView>& view, const Shape& in, Shape* out_shape,
                            int64_t piece = 1) {
  AnchorStep s;
  s.op = AnchorOp::kIndexView;
  s.params = view;
  std::string error;
  auto b = bind_anchor(s, {in}, &error);
  EXPECT_TRUE(b) << error;
  if (!b) return {};
  *out_shape = b->output;
  std::vector<float> src(num_elements(in));
  std::iota(src.begin(), src.end(), 0.f);
  const float* inputs[] = {src.data()};
  b->before_run(inputs);
  std::vector<float> out(num_elements(b->output), -1.f);
  const int64_t rows = b->n ? static_cast<int64_t>(out.size()) / b->n : 0;
  for (int64_t r = 0; r < rows; r += piece) run_anchor(*b, r, std::min(piece, rows - r), out.data() + r * b->n);
  return out;
}

TEST(IndexView, SliceOfEachAxisAndToTheEnd) {
  Shape out;
  const auto v = run_view(slice_view({1, 0, 2}, {1, -1, 2}), {2, 3, 5}, &out);
  EXPECT_EQ(out, (Shape{1, 3, 2}));
  EXPECT_EQ(v, (std::vector<float>{17, 18, 22, 23, 27, 28}));
  std::string error;
  EXPECT_FALSE(slice_view({1, 0, 4}, {1, -1, 2})->bind({2, 3, 5}, &error));  // 4 + 2 > 5
  EXPECT_NE(error.find("does not fit"), std::string::npos);
}

TEST(IndexView, StridedSliceAsPythonSlices) {
  Shape out;
  // x[1:, ::-2, -4:5:3] of a [3, 5, 6]: rows 1 and 2, indices 4, 2, 0, then index 2 alone.
  StridedSliceSpec s{{1, 0, -4}, {0, 0, 5}, {1, -2, 3}, /*begin_mask=*/2, /*end_mask=*/3, 0};
  const auto v = run_view(strided_slice_view(s), {3, 5, 6}, &out);
  EXPECT_EQ(out, (Shape{2, 3, 1}));
  std::vector<float> expect;
  for (int i : {1, 2})
    for (int j : {4, 2, 0}) expect.push_back(i * 30 + j * 6 + 2);
  EXPECT_EQ(v, expect);
  // Ends past the axis are clamped; a begin past it walks nothing.
  StridedSliceSpec far{{0, 9}, {2, 20}, {1, 1}, 0, 0, 0};
  std::string error;
  const auto walked = strided_slice_view(far)->bind({2, 4}, &error);
  ASSERT_TRUE(walked) << error;
  EXPECT_EQ(walked->output, (Shape{2, 0}));
}

TEST(IndexView, StridedSliceShrinksAxesAndRefusesAScalar) {
  Shape out;
  StridedSliceSpec s{{0, -1, 0}, {0, 0, 0}, {1, 1, 1}, 1 | 4, 1 | 4, /*shrink=*/2};
  const auto v = run_view(strided_slice_view(s), {2, 3, 2}, &out);
  EXPECT_EQ(out, (Shape{2, 2}));
  EXPECT_EQ(v, (std::vector<float>{4, 5, 10, 11}));
  std::string error;
  EXPECT_FALSE(strided_slice_view({{0}, {0}, {1}, 0, 0, 1})->bind({3}, &error));
  EXPECT_FALSE(strided_slice_view({{3, 0}, {0, 0}, {1, 1}, 0, 2, 1})->bind({3, 2}, &error));  // row 3 of 3
}

TEST(IndexView, GatherOfAMatrixOfIndicesBoundAtEachSize) {
  Shape out;
  const auto view = gather_view(-1, {2, 2}, {2, 0, 1, 1});
  const auto v = run_view(view, {2, 3}, &out, 3);
  EXPECT_EQ(out, (Shape{2, 2, 2}));
  EXPECT_EQ(v, (std::vector<float>{2, 0, 1, 1, 5, 3, 4, 4}));
  std::string error;
  EXPECT_FALSE(view->bind({2, 2}, &error));  // index 2 past an axis of 2: TFLite's kernel fails too
  EXPECT_TRUE(view->bind({0, 3}, &error));
}

TEST(IndexView, SplitPartsSizedAtEachBind) {
  Shape out;
  EXPECT_EQ(run_view(split_view(1, {}, 2, 1, false), {2, 4}, &out), (std::vector<float>{2, 3, 6, 7}));
  EXPECT_EQ(out, (Shape{2, 2}));
  const auto rest = split_view(-1, {1, -1, 2}, 3, 1, false);  // SPLIT_V: the -1 takes what 1 and 2 leave
  EXPECT_EQ(run_view(rest, {1, 6}, &out), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(run_view(rest, {1, 3}, &out), (std::vector<float>{}));
  EXPECT_EQ(out, (Shape{1, 0}));
  EXPECT_EQ(run_view(split_view(0, {}, 3, 2, true), {3, 2}, &out), (std::vector<float>{4, 5}));  // UNPACK
  EXPECT_EQ(out, (Shape{2}));
  std::string error;
  EXPECT_FALSE(split_view(1, {}, 3, 0, false)->bind({2, 4}, &error));  // 4 is no 3 equal parts
  EXPECT_FALSE(rest->bind({1, 2}, &error));                              // 1 + 2 > 2
  EXPECT_FALSE(split_view(0, {}, 3, 0, true)->bind({4, 2}, &error));     // UNPACK of 3 from 4
}

TEST(IndexView, TileRepeatsEachAxis) {
  Shape out;
  const auto v = run_view(tile_view({2, 2}), {1, 3}, &out, 2);
  EXPECT_EQ(out, (Shape{2, 6}));
  EXPECT_EQ(v, (std::vector<float>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}));
}

// DEPTH_TO_SPACE by its definition: out[b, y, x, c] = in[b, y / k, x / k, ((y % k) * k + x % k) * C + c];
// SPACE_TO_DEPTH is its inverse.
TEST(IndexView, DepthToSpaceAndBack) {
  const int64_t k = 2, n = 2, h = 3, w = 2, c = 3;
  Shape out;
  const auto v = run_view(depth_to_space_view(k), {n, h, w, c * k * k}, &out, 5);
  ASSERT_EQ(out, (Shape{n, h * k, w * k, c}));
  size_t i = 0;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < h * k; ++y)
      for (int64_t x = 0; x < w * k; ++x)
        for (int64_t ch = 0; ch < c; ++ch, ++i)
          ASSERT_EQ(v[i], ((b * h + y / k) * w + x / k) * c * k * k + ((y % k) * k + x % k) * c + ch) << i;
  Shape back;
  const auto u = run_view(space_to_depth_view(k), out, &back, 4);
  ASSERT_EQ(back, (Shape{n, h, w, c * k * k}));
  std::vector<float> d2s_of(u.size());
  for (size_t j = 0; j < u.size(); ++j) d2s_of[static_cast<size_t>(v[static_cast<size_t>(u[j])])] = static_cast<float>(j);
  for (size_t j = 0; j < u.size(); ++j) EXPECT_EQ(d2s_of[j], static_cast<float>(j));  // the identity
  // Pixels of fewer than 64 channels out, and SPACE_TO_DEPTH, are left to the runtime's
  // kernels (measured as fast or faster there).
  EXPECT_NE(depth_to_space_view(2)->left_because({1, 4, 4, 12}), "");
  EXPECT_EQ(depth_to_space_view(2)->left_because({1, 4, 4, 256}), "");
  EXPECT_NE(space_to_depth_view(2)->left_because({1, 4, 4, 64}), "");
  std::string error;
  EXPECT_FALSE(space_to_depth_view(2)->bind({1, 3, 4, 1}, &error));
  EXPECT_FALSE(depth_to_space_view(2)->bind({1, 3, 4, 6}, &error));
}

TEST(IndexView, EmptyInputsAndOutputs) {
  Shape out;
  EXPECT_TRUE(run_view(slice_view({0, 0}, {-1, 2}), {0, 3}, &out).empty());
  EXPECT_EQ(out, (Shape{0, 2}));
  EXPECT_TRUE(run_view(tile_view({3, 0}), {2, 2}, &out).empty());
  EXPECT_EQ(out, (Shape{6, 0}));
}

}  // namespace
}  // namespace fd
