// Dynamic-range int8 convolutions' input (runtime/qd8_conv.h): images
// quantized one by one, and each output pixel's window of quantized values
// (im2col, padding the image's zero point) on every ISA, against the windows
// gathered by hand from the quantized image.
#include "runtime/qd8_conv.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "kernels/cpu.h"
#include "ops/conv_geometry.h"
#include "qd8_test_util.h"

namespace fd {
namespace {

using test::every_qd8_kernel;
using test::random_floats;

// Value i of a row of `row_bytes`-wide values.
int value_at(const int8_t* row, int row_bytes, int64_t i) {
  if (row_bytes == 1) return row[i];
  int16_t wide;
  std::memcpy(&wide, row + 2 * i, sizeof wide);
  return wide;
}

// Each image quantized as one row (the scalar reference's qd8_quantize_rows).
std::vector<int> reference_values(const std::vector<float>& x, int64_t batch, int64_t image,
                                  std::vector<Qd8RowParams>* params) {
  const Qd8GemmKernel& scalar = *kernels_for("scalar")->qd8_gemm;
  std::vector<int> q;
  for (int64_t b = 0; b < batch; ++b) {
    Qd8Rows rows;
    qd8_quantize_rows(scalar, 1, static_cast<int>(image), x.data() + b * image, image, &rows);
    for (int64_t i = 0; i < image; ++i) q.push_back(value_at(rows.values.data(), 1, i));
    params->push_back(rows.params[0]);
  }
  return q;
}

// The windows of pixels [first, first + m), gathered by hand: pixel p's tap t
// reads the input at offsets[p * taps + t] (padding: the zero point).
void expect_windows(const Qd8GemmKernel& kernel, const ConvGeometry& g, int64_t first, int m) {
  const int64_t image = g.in_h * g.in_w * g.channels, pixels = g.out_h * g.out_w;
  const auto x = random_floats(g.batch * image, static_cast<uint32_t>(image + first), -1.f, 3.f);
  std::vector<Qd8RowParams> params;
  const std::vector<int> q = reference_values(x, g.batch, image, &params);
  Qd8Images images;
  qd8_quantize_images(kernel, g.batch, image, x.data(), &images);
  const std::vector<int32_t> offsets = conv_offsets(g);
  const Qd8Windows w{offsets.empty() ? nullptr : offsets.data(), g.taps(), g.channels, pixels};
  Qd8Rows rows;
  const Qd8RowsView view = qd8_window_rows(images, w, first, m, &rows);
  ASSERT_EQ(view.m, m);
  const int64_t k = g.taps() * g.channels, padded = (k + kQd8Group - 1) / kQd8Group * kQd8Group;
  for (int i = 0; i < m; ++i) {
    const int64_t p = first + i;
    const Qd8RowParams want = params[p / pixels];
    ASSERT_EQ(view.params[i].scale, want.scale) << kernel.name;
    ASSERT_EQ(view.params[i].zero_point, want.zero_point) << kernel.name;
    const int8_t* row = static_cast<const int8_t*>(view.values) + i * view.stride;
    for (int64_t d = 0; d < padded; ++d) {
      const int64_t t = d / g.channels, c = d % g.channels;
      const int64_t at = d >= k ? -1 : offsets.empty() ? p * g.channels + c : offsets[p * g.taps() + t];
      const int expect = d >= k ? 0 : at < 0 ? want.zero_point : q[at + (offsets.empty() ? 0 : c)];
      ASSERT_EQ(value_at(row, kernel.row_bytes, d), expect) << kernel.name << " pixel " << p << " depth " << d;
    }
  }
}

// 3x3 SAME at strides 1 and 2 (padding on every side), 5x5 VALID, a folded
// PAD of zeros, a dense 1x1 of 8 channels (read in place) and of 3 (gathered:
// not whole groups); two images, ranges of pixels across them.
TEST(Qd8Conv, WindowsHoldTheQuantizedTapsAndTheZeroPointInPadding) {
  ConvParams same, strided;
  same.same_padding = strided.same_padding = true;
  strided.stride_h = strided.stride_w = 2;
  FoldedPad pad;
  pad.top = pad.left = 1;
  pad.bottom = 2;
  struct G {
    Shape in;
    int k;
    ConvParams p;
    FoldedPad fold;
  };
  const G geometries[] = {{{2, 7, 6, 5}, 3, same, {}},     {{2, 7, 6, 3}, 3, strided, {}}, {{2, 9, 8, 4}, 5, {}, {}},
                          {{2, 5, 6, 6}, 3, {}, pad},      {{2, 4, 5, 8}, 1, {}, {}},      {{2, 4, 5, 3}, 1, {}, {}}};
  for (const G& gg : geometries) {
    std::string error;
    const auto g = conv_geometry(gg.in, gg.k, gg.k, gg.p, gg.fold, &error);
    ASSERT_TRUE(g) << error;
    const int64_t pixels = g->pixels();
    for (const auto* kernel : every_qd8_kernel())
      for (const auto& [first, m] : {std::pair<int64_t, int>{0, static_cast<int>(pixels)}, {3, 7},
                                     {pixels / 2 - 2, 5}}) {
        expect_windows(*kernel, *g, first, m);
        if (testing::Test::HasFatalFailure()) return;
      }
  }
}

// The outputs of a depthwise convolution's exact sums, each product rounded
// (TFLite's DepthwiseConvHybridGeneral): channels four at a time (sum * w) * a,
// the last n % 4 (sum * a) * w; then the bias and the clamp.
TEST(Qd8Conv, DepthwiseOutputsScaleTheSumsAsTFLite) {
  const int n = 6;
  const Qd8DwScales s{{0.01f, 0.003f, 0.7f, 0.0131f, 0.0093f, 0.217f}, {0.5f, -0.25f, 0.f, 0.125f, -1.f, 2.f}};
  const Qd8RowParams image{0.0123f, 5};
  std::vector<float> out = {1234.f, -77.f, 3.f, 0.f, 65000.f, -1.f, 713.f, -4099.f, 31.f, 2047.f, -294.f, -298.f};
  const std::vector<float> sums = out;
  qd8_dw_output(s, image, 2, n, -1.f, 6.f, out.data());
  int orders_differ[2] = {0, 0};  // in the channels taken four at a time, in the rest
  for (int i = 0; i < 12; ++i) {
    const int c = i % n;
    const float by_channel = sums[i] * s.scale[c] * image.scale, by_image = sums[i] * image.scale * s.scale[c];
    orders_differ[c < 4 ? 0 : 1] += by_channel != by_image;
    const float want = c < 4 ? by_channel : by_image;
    EXPECT_EQ(out[i], std::min(6.f, std::max(-1.f, want + s.bias[c]))) << i;
  }
  EXPECT_GT(orders_differ[0], 0) << "no input tells the two orders apart in the first four channels";
  EXPECT_GT(orders_differ[1], 0) << "no input tells the two orders apart in the last two";
}

}  // namespace
}  // namespace fd
