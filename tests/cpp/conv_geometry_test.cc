// Where each tap of each output pixel of a convolution reads (conv_offsets),
// against the definition written out per tap: the input pixel, else the zero
// padding outside the padded tensor, else the folded PAD's constant.
#include "ops/conv_geometry.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fd {
namespace {

// Along one axis: the input index coordinate v of the padded axis reads, or -1
// (outside: zero padding), or -2 (in the folded PAD).
int64_t reads(int64_t v, int64_t size, int64_t before, int64_t after) {
  if (v < 0 || v >= before + size + after) return -1;
  return v - before >= 0 && v - before < size ? v - before : -2;
}

int32_t expected_offset(const ConvGeometry& g, int64_t b, int64_t oy, int64_t ox, int ky, int kx) {
  const int64_t y = reads(oy * g.p.stride_h + ky * g.p.dilation_h - g.pad_top, g.in_h, g.fold.top, g.fold.bottom);
  const int64_t x = reads(ox * g.p.stride_w + kx * g.p.dilation_w - g.pad_left, g.in_w, g.fold.left, g.fold.right);
  if (y == -1 || x == -1) return kZeroRow;
  if (y == -2 || x == -2) return kPadRow;
  const int64_t row = g.ring_rows ? y % g.ring_rows : y;
  return static_cast<int32_t>(((b * g.in_h + row) * g.in_w + x) * g.channels);
}

void expect_offsets_per_tap(const ConvGeometry& g) {
  const std::vector<int32_t> offsets = conv_offsets(g);
  ASSERT_EQ(offsets.size(), static_cast<size_t>(g.pixels() * g.taps()));
  size_t i = 0;
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t oy = 0; oy < g.out_h; ++oy)
      for (int64_t ox = 0; ox < g.out_w; ++ox)
        for (int ky = 0; ky < g.kh; ++ky)
          for (int kx = 0; kx < g.kw; ++kx, ++i)
            ASSERT_EQ(offsets[i], expected_offset(g, b, oy, ox, ky, kx)) << b << " " << oy << " " << ox << " " << ky << kx;
}

// conv_indirection (computed without the offsets table): every tap's row is
// the input at the tap's offset, else the zero row or the PAD's row.
void expect_rows_per_tap(const ConvGeometry& g) {
  const std::vector<float> input(static_cast<size_t>(g.batch * g.in_h * g.in_w * g.channels));
  const float zero_row[1] = {0.f}, pad_row[1] = {0.f};
  std::vector<const float*> rows(static_cast<size_t>(g.pixels() * g.taps()));
  conv_indirection(g, input.data(), zero_row, pad_row, rows.data());
  size_t i = 0;
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t oy = 0; oy < g.out_h; ++oy)
      for (int64_t ox = 0; ox < g.out_w; ++ox)
        for (int ky = 0; ky < g.kh; ++ky)
          for (int kx = 0; kx < g.kw; ++kx, ++i) {
            const int32_t o = expected_offset(g, b, oy, ox, ky, kx);
            const float* want = o >= 0 ? input.data() + o : o == kZeroRow ? zero_row : pad_row;
            ASSERT_EQ(rows[i], want) << b << " " << oy << " " << ox << " " << ky << kx;
          }
}

// conv_filter_rows: a filter row whose kw taps lie one after another in the
// input (or a single tap) points at its first tap; any other is null, and its
// taps as conv_indirection gives them follow each other in `patched`.
void expect_filter_rows(const ConvGeometry& g) {
  const std::vector<float> input(static_cast<size_t>(g.batch * g.in_h * g.in_w * g.channels));
  const float zero_row[1] = {0.f}, pad_row[1] = {0.f};
  std::vector<const float*> taps(static_cast<size_t>(g.pixels() * g.taps())), rows(g.pixels() * g.kh), patched;
  conv_indirection(g, input.data(), zero_row, pad_row, taps.data());
  conv_filter_rows(g, input.data(), zero_row, pad_row, rows.data(), &patched);
  const auto inside = [&](const float* p) {
    const auto a = reinterpret_cast<uintptr_t>(p), begin = reinterpret_cast<uintptr_t>(input.data());
    return a >= begin && a < begin + input.size() * sizeof(float);
  };
  size_t next = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const float* const* tap = taps.data() + i * g.kw;
    bool side_by_side = true;
    for (int kx = 0; kx < g.kw; ++kx) side_by_side = side_by_side && inside(tap[kx]) && tap[kx] == tap[0] + kx * g.channels;
    if (side_by_side || g.kw == 1) {
      ASSERT_EQ(rows[i], tap[0]) << i;
      continue;
    }
    ASSERT_EQ(rows[i], nullptr) << i;
    for (int kx = 0; kx < g.kw; ++kx) ASSERT_EQ(patched.at(next++), tap[kx]) << i << " " << kx;
  }
  EXPECT_EQ(next, patched.size());
}

std::vector<ConvGeometry> test_geometries() {
  ConvParams same;
  same.same_padding = true;
  ConvParams strided_dilated = same;
  strided_dilated.stride_h = 2;
  strided_dilated.dilation_w = 2;
  FoldedPad pad;
  pad.top = 1;
  pad.left = 2;
  pad.right = 1;
  pad.value = 3.f;
  std::string error;
  std::vector<ConvGeometry> out;
  auto add = [&](const std::optional<ConvGeometry>& g) {
    if (g) out.push_back(*g);
    else ADD_FAILURE() << error;
  };
  for (const ConvParams& p : {same, strided_dilated, ConvParams{}})
    for (const FoldedPad& fold : {FoldedPad{}, pad}) add(conv_geometry({2, 7, 6, 3}, 3, 3, p, fold, &error));
  add(conv_geometry({1, 9, 5, 4}, 3, 3, same, FoldedPad{}, &error));
  out.back().ring_rows = 4;  // a depth-first chain's ring of 4 input rows
  return out;
}

TEST(ConvGeometry, IndirectionRowsPointWhereEachTapReads) {
  for (const ConvGeometry& g : test_geometries()) expect_rows_per_tap(g);
  std::string error;
  const auto dense = conv_geometry({2, 4, 3, 5}, 1, 1, ConvParams{}, FoldedPad{}, &error);  // pixel p reads pixel p
  ASSERT_TRUE(dense && dense->dense()) << error;
  expect_rows_per_tap(*dense);
}

TEST(ConvGeometry, FilterRowsPointInPlaceOrListTheirTaps) {
  std::vector<ConvGeometry> geometries = test_geometries();
  ConvParams same;
  same.same_padding = true;
  std::string error;
  const auto column = conv_geometry({1, 5, 4, 3}, 3, 1, same, FoldedPad{}, &error);  // kw 1: a row is one tap
  ASSERT_TRUE(column) << error;
  geometries.push_back(*column);
  for (const ConvGeometry& g : geometries) expect_filter_rows(g);
}

TEST(ConvGeometry, OffsetsReadWhatEachTapReads) {
  for (const ConvGeometry& g : test_geometries()) expect_offsets_per_tap(g);
}

}  // namespace
}  // namespace fd
