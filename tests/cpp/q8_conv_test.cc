// int8 CONV_2D as a layer (runtime/q8_conv.h): where the kernel reads each
// tap's pixel in place (3, 6 or 7 channels read as 4 or 8 against zero
// weights; a dense 1x1 its rows as they are), the outputs equal those of the
// im2col copy bit for bit, and nothing past the input is read (the input ends
// where an unreadable page begins).
#include "runtime/q8_conv.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "ir/shape.h"
#include "ops/conv_geometry.h"
#include "ops/window.h"
#include "qd8_test_util.h"

namespace fd {
namespace {

using test::random_int8;

int add_tensor(Graph& g, Shape shape, DType dtype, std::vector<float> scales, int zp, const void* data = nullptr,
               size_t bytes = 0) {
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.quantization.scales = std::move(scales);
  t.quantization.zero_points.assign(t.quantization.scales.size(), zp);
  if (data) {
    t.is_constant = true;
    t.data = ConstantData::copy_of(data, bytes);
  }
  g.tensors.push_back(t);
  return static_cast<int>(g.tensors.size()) - 1;
}

// Memory whose last `bytes` end where an unreadable page begins.
class Guarded {
 public:
  explicit Guarded(size_t bytes) : page_(static_cast<size_t>(sysconf(_SC_PAGESIZE))) {
    span_ = (bytes + page_ - 1) / page_ * page_ + page_;
    base_ = static_cast<char*>(mmap(nullptr, span_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    mprotect(base_ + span_ - page_, page_, PROT_NONE);
    data_ = reinterpret_cast<int8_t*>(base_ + span_ - page_ - bytes);
  }
  ~Guarded() { munmap(base_, span_); }
  int8_t* data() { return data_; }

 private:
  size_t page_, span_;
  char* base_;
  int8_t* data_;
};

struct Case {
  Shape in;
  int kh, kw, stride;
  bool same;
};

// The layer of case c in the indirect kernel's form and in the scalar kernel's
// (im2col), run over its pixels in blocks of 16 from an input that ends at an
// unreadable page.
void expect_in_place_equals_copied(const Q8GemmKernel& kernel, const Case& c, uint32_t seed) {
  const int ic = static_cast<int>(c.in[3]), oc = 6;
  const std::vector<int8_t> w = random_int8(static_cast<size_t>(oc) * c.kh * c.kw * ic, seed);
  const std::vector<int32_t> bias = {-300, 120, 0, 4000, -7, 55};
  Graph g;
  Node node;
  node.kind = OpKind::kAnchor;
  node.anchor = AnchorOp::kConv2D;
  ConvParams p;
  p.stride_h = p.stride_w = c.stride;
  p.same_padding = c.same;
  node.params = window_op_params(p);
  std::string error;
  const ConvGeometry geo = *conv_geometry(c.in, c.kh, c.kw, p, FoldedPad{}, &error);
  const Shape out{geo.batch, geo.out_h, geo.out_w, oc};
  node.inputs = {add_tensor(g, c.in, DType::kI8, {0.05f}, 5),
                 add_tensor(g, {oc, c.kh, c.kw, ic}, DType::kI8, {0.01f, 0.02f, 0.015f, 0.03f, 0.005f, 0.01f}, 0,
                            w.data(), w.size()),
                 add_tensor(g, {oc}, DType::kI32, {0.f}, 0, bias.data(), bias.size() * sizeof(int32_t))};
  node.outputs = {add_tensor(g, out, DType::kI8, {0.08f}, -3)};
  const Q8Conv in_place(g, node, nullptr, 0, kernel), copied(g, node, nullptr, 0, q8_gemm_kernel_scalar());
  const int64_t pixels = geo.pixels(), size = num_elements(c.in);
  Guarded input(static_cast<size_t>(size));
  const std::vector<int8_t> x = random_int8(size, seed + 1);
  std::memcpy(input.data(), x.data(), x.size());
  std::vector<int8_t> got(pixels * oc), want(pixels * oc);
  for (int64_t first = 0; first < pixels; first += 16) {  // the last pixels' taps in the last block
    const int64_t rows = std::min<int64_t>(16, pixels - first);
    const int8_t* inputs[] = {input.data()};
    in_place.run(inputs, first, rows, got.data() + first * oc);
    copied.run(inputs, first, rows, want.data() + first * oc);
  }
  EXPECT_EQ(got, want) << to_string(c.in) << " " << c.kh << "x" << c.kw << " stride " << c.stride;
}

TEST(Q8Conv, ReadingTapsInPlaceEqualsTheIm2colCopy) {
  const Q8GemmKernel* kernel = q8_gemm_kernel_for("avx512");
  if (!kernel || !q8_gemm_kernel_for_columns(*kernel, 6).ifn[0]) GTEST_SKIP() << "no indirect q8 kernel here";
  const Case cases[] = {{{2, 7, 6, 3}, 3, 3, 1, true},  {{1, 9, 8, 6}, 3, 3, 2, false},
                        {{1, 5, 5, 3}, 1, 1, 1, true},  {{2, 6, 5, 7}, 1, 1, 2, true},
                        {{1, 6, 7, 8}, 3, 3, 1, true},  {{1, 5, 4, 5}, 2, 3, 1, false}};
  uint32_t seed = 7;
  for (const Case& c : cases) expect_in_place_equals_copied(*kernel, c, seed += 2);
}

}  // namespace
}  // namespace fd
