// DEPTHWISE_CONV_2D: NHWC input, filter [1, kh, kw, n], n = c * multiplier;
// output channel j reads input channel j / multiplier (a multiplier > 1: the
// input widened to n channels once per run, then read as multiplier 1). Its
// rows are the filter's taps (window.cc), run by the depthwise micro-kernels.
// Int8 weights of a float input (multiplier 1) run as TFLite's hybrid kernel
// (runtime/qd8_conv.h): each image quantized once before the run.
#include <algorithm>
#include <cmath>

#include "ir/float_source.h"
#include "ir/shape.h"
#include "ops/dynamic_range.h"
#include "runtime/anchors/anchor_op.h"

namespace fd {
namespace {

// Made, for int8 weights: their scales and the bias, for qd8_dw_output.
struct Qd8Scales : StepState {
  std::shared_ptr<const Qd8DwScales> of_channels;
};

// Bound: a depth multiplier > 1 and this run's input widened to the n output
// channels (channel j holds input channel j / m), which the window then reads.
struct Widened : BoundState {
  int64_t multiplier = 1;
  mutable std::vector<float, HugePageAllocator<float>> input;
  std::shared_ptr<const BoundState> clone() const override { return std::make_shared<Widened>(*this); }
};

const Widened& widened(const BoundAnchor& a) { return static_cast<const Widened&>(*a.state); }

// Int8 weights: as floats (exact) with a zero bias for the float kernels,
// their scales and the bias kept for qd8_dw_output (runtime/qd8_conv.h).
void make_qd8(const Graph& g, const Node& node, const Kernels& kernels, const AnchorFolds& folds, AnchorStep& a) {
  const Tensor& w = g.tensors[node.inputs[1]];
  const int8_t* values = w.data.float32_source()->i8_values();
  const int64_t size = num_elements(w.shape);
  const std::vector<float> floats(values, values + size), zeros(a.n, 0.f);
  auto scales = std::make_shared<Qd8DwScales>();
  qd8_scale_and_bias(g, node, folds, a, &scales->scale, &scales->bias);
  a.qd8 = kernels.qd8_gemm;
  auto made = std::make_shared<Qd8Scales>();
  made->of_channels = std::move(scales);
  a.state = std::move(made);
  a.dw = kernels.dw;
  auto packed = std::make_shared<PackedWeights>();
  pack_weights_into(WeightValues(floats.data()), 1, a.n, zeros.data(), a.n, static_cast<int>(size / a.n), a.dw->cb,
                    false, packed.get());
  a.weights = std::move(packed);
}

void make(const Graph& g, const Node& node, const Kernels& kernels, const AnchorFolds& folds, AnchorStep& a) {
  const Tensor& w = g.tensors[node.inputs[1]];  // [1, kh, kw, n]: channel c's tap t at t * n + c
  a.n = static_cast<int>(w.shape.back());
  a.kh = static_cast<int>(w.shape[1]);
  a.kw = static_cast<int>(w.shape[2]);
  if (is_dynamic_range_conv(g, node) && kernels.qd8_gemm) return make_qd8(g, node, kernels, folds, a);
  const AnchorWeights weights(g, node, folds, true, a);
  const int k = static_cast<int>(num_elements(w.shape) / a.n);
  a.dw = anchor_kernels(kernels, folds).dw;
  auto packed = std::make_shared<PackedWeights>();
  pack_weights_into(weights.values(), 1, a.n, weights.bias(), a.n, k, a.dw->cb, false, packed.get());
  a.weights = std::move(packed);
}

// The window reads the input widened to the n output channels (for a depth
// multiplier > 1, before_run widens it).
bool bind(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  const AnchorStep& s = b.step;
  const Shape& input = inputs[0];
  if (input.size() != 4 || input[3] < 1 || s.n % input[3] != 0 || (s.qd8 && s.n != input[3])) {
    *error = "input " + fd::to_string(input) + " does not fit the convolution filter" +
             (s.qd8 ? " of int8 weights (depth multiplier 1)" : "");
    return false;
  }
  Shape widened = input;
  widened[3] = s.n;
  if (!bind_window(b, widened, s.kh, s.kw, s.conv, error)) return false;
  auto bound = std::make_shared<Widened>();
  bound->multiplier = s.n / input[3];
  bound->input.resize(bound->multiplier > 1 ? static_cast<size_t>(num_elements(widened)) : 0);
  b.reads_whole_input = bound->multiplier > 1 || s.qd8;  // widened, or quantized, before the run
  b.state = std::move(bound);
  b.output = window_output(b);
  return true;
}

// Each of `pixels` pixels' c channels, each repeated m times.
void widen_channels(const float* in, int64_t pixels, int64_t c, int64_t m, float* out) {
  for (int64_t p = 0; p < pixels * c; ++p, out += m)
    for (int64_t r = 0; r < m; ++r) out[r] = in[p];
}

// Output pixels [first, first + count) by pieces of output rows; two whole
// rows of one image at once where the kernel can.
void run_by_rows(const BoundAnchor& a, DwRowKernel by_row, const float* const* rows, int64_t first, int64_t count,
                 float lo, float hi, float* out) {
  const AnchorStep& s = a.step;
  const int taps = a.row_taps();
  // Two rows share input rows only at vertical stride and dilation 1 (and that
  // kernel goes along rows at stride 1).
  const bool vertical_1 = a.geo.p.stride_h == 1 && a.geo.p.dilation_h == 1;
  const DwRow2Kernel by_two_rows = taps == 9 && vertical_1 && a.geo.p.stride_w == 1 ? s.dw->row2_3x3 : nullptr;
  const int64_t w = a.geo.out_w;
  for (int64_t p = first, end = first + count; p < end;) {
    if (by_two_rows && p % w == 0 && end - p >= 2 * w && (p / w) % a.geo.out_h + 1 < a.geo.out_h) {
      const int64_t i = p - first;
      by_two_rows(static_cast<int>(w), static_cast<int>(a.n), rows + i * taps, rows + (i + w) * taps,
                  s.weights->data.data(), out + i * a.n, out + (i + w) * a.n, lo, hi);
      p += 2 * w;
      continue;
    }
    const int64_t width = std::min(end - p, a.geo.out_w - p % a.geo.out_w);
    by_row(static_cast<int>(width), static_cast<int>(a.n), rows + (p - first) * taps, s.weights->data.data(),
           out + (p - first) * a.n, lo, hi);
    p += width;
  }
}

// A depth multiplier: the windows read the widened input. Int8 weights: the
// centered images.
void before_run(const BoundAnchor& a, const float* const* inputs) {
  if (const Widened& w = widened(a); w.multiplier > 1) {
    widen_channels(inputs[0], a.geo.batch * a.geo.in_h * a.geo.in_w, a.n / w.multiplier, w.multiplier,
                   w.input.data());
    const float* input = w.input.data();
    return point_window_rows(a, &input);
  }
  if (!a.step.qd8) return point_window_rows(a, inputs);
  const ConvGeometry& g = a.geo;
  qd8_quantize_images_centered(*a.step.qd8, g.batch, g.in_h * g.in_w * g.channels, inputs[0], &a.qd8_images);
  const float* centered = a.qd8_images.centered.data();
  point_window_rows(a, &centered);
}

// Output pixels [first, first + count) through the float kernels, clamped to [lo, hi].
void run_float(const BoundAnchor& a, int64_t first, int64_t count, float lo, float hi, float* out) {
  const AnchorStep& s = a.step;
  const int taps = a.row_taps();
  const float* const* rows = a.rows.data() + first * taps;
  const DwRowKernel by_row =
      a.geo.kh == a.geo.kw && a.geo.p.dilation_w == 1 ? s.dw->row_for_taps(taps, a.geo.p.stride_w) : nullptr;
  if (by_row) {
    run_by_rows(a, by_row, rows, first, count, lo, hi, out);
    return;
  }
  s.dw->for_taps(taps)(static_cast<int>(count), static_cast<int>(a.n), taps, rows, s.weights->data.data(), out, lo,
                       hi);
}

// Int8 weights: the exact sums, then the outputs of each image's pixels.
void run(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  const AnchorStep& s = a.step;
  if (!s.qd8) return run_float(a, first, count, s.lo, s.hi, out);
  run_float(a, first, count, -INFINITY, INFINITY, out);
  const int64_t per_image = a.geo.out_h * a.geo.out_w;
  for (int64_t p = first, end = first + count; p < end;) {
    const int64_t image = p / per_image, last = std::min(end, (image + 1) * per_image);
    qd8_dw_output(*static_cast<const Qd8Scales&>(*s.state).of_channels, a.qd8_images.params[image], last - p, static_cast<int>(a.n), s.lo, s.hi,
                  out + (p - first) * a.n);
    p = last;
  }
}

std::string describe(const AnchorStep& s) {
  return describe_window(s) + std::to_string(s.n) + " ch, " + describe_folds(s) + s.dw->name +
         (s.qd8 ? std::string(", input quantized as ") + s.qd8->name + "'s" : "");
}

}  // namespace

extern const AnchorOpDef kDepthwiseConv2DAnchor = {
    "DepthwiseConv2D", /*clamps=*/true, make, bind, before_run, run, /*run_tile=*/nullptr,
    window_depth, describe, /*run_panels=*/nullptr, /*panels=*/nullptr,
};

}  // namespace fd
