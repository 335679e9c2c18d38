// CONV_2D: NHWC input, filter [n, kh, kw, c]. A GEMM anchor (gemm_anchor.cc)
// whose rows are the filter's taps (window.cc); with few input channels a row
// is a whole filter row. A 3x3 filter at stride 1, dilated or not, runs in
// Winograd form (conv2d_winograd.cc). An input affine map (kInputAffine) folds
// into the weights, bias and padding. Int8 weights of a float input run through
// the qd8 GEMM as TFLite's hybrid kernel does (runtime/qd8_conv.h): each image
// quantized once before the run, the windows gathered from it.
#include <algorithm>

#include "ir/shape.h"
#include "ops/dynamic_range.h"
#include "runtime/anchors/anchor_op.h"

namespace fd {
namespace {

// Made: the GEMM's weights (GemmStep), or them in Winograd form, and what the folds asked for.
struct ConvStep : GemmStep {
  // Of kernels.rounded: summed as TFLite's builtin GEMM, its last n % 4 columns
  // too (redo_last_columns_as_builtin), one output pixel as its GEMV.
  bool builtin_order = false;
  // 3x3 at stride 1: the filter in Winograd form (AnchorStep::weights then null).
  std::shared_ptr<const WinogradWeights> winograd;
  const WinogradKernel* winograd_kernel = nullptr;
  // A folded input affine map: per input channel, the value its padding taps
  // read (the source value that the map sends to 0). Else empty.
  std::vector<float> outside;
};

const ConvStep& conv_step(const AnchorStep& s) { return static_cast<const ConvStep&>(*s.state); }

// Below this many input channels a convolution reads whole filter rows, not taps.
constexpr int64_t kMinChannelsInPlace = 16;

// Weights [n, taps, c] and bias of a convolution reading source * scale + shift
// (per channel c) rewritten to read source: w * scale, and bias plus w * shift
// summed (in double).
void fold_affine(const Fold& f, const float* w, const float* bias, int n, int k, std::vector<float>* w_out,
                 std::vector<float>* bias_out) {
  const size_t c = f.scale.size();
  w_out->resize(static_cast<size_t>(n) * k);
  bias_out->resize(n);
  for (int o = 0; o < n; ++o) {
    double sum = bias ? bias[o] : 0.0;
    for (int i = 0; i < k; ++i) {
      const float v = w[static_cast<size_t>(o) * k + i];
      (*w_out)[static_cast<size_t>(o) * k + i] = v * f.scale[i % c];
      sum += static_cast<double>(v) * f.shift[i % c];
    }
    (*bias_out)[o] = static_cast<float>(sum);
  }
}

// A larger dilation d keeps the direct form: a run's tiles take 2 d whole
// output rows, and where d nears the output's size most tiles lack their
// partner rows and columns (16 products for 1 output, against 9).
constexpr int kMaxWinogradDilation = 4;

// 3x3 at stride 1 (dilated or not), of channels enough to fill the vectors
// (fewer read whole filter rows), its weights fixed (not scaled per run).
bool takes_winograd(const Kernels& kernels, const AnchorStep& a, int c) {
  const ConvParams& p = a.conv;
  return kernels.winograd && a.kh == 3 && a.kw == 3 && p.stride_h == 1 && p.stride_w == 1 &&
         p.dilation_h <= kMaxWinogradDilation && p.dilation_w <= kMaxWinogradDilation && c >= kMinChannelsInPlace &&
         !a.scale_input;
}

// Float weights, with an input map (kInputAffine) taken in: packed for the
// GEMM, the sparse GEMM or in Winograd form.
void make_float(const Graph& g, const Node& node, const Kernels& kernels, const AnchorFolds& folds, AnchorStep& a,
                ConvStep& made) {
  // Where an int8-weight layer quantizes the output: sums as TFLite's builtin kernel.
  const Kernels& picked = anchor_kernels(kernels, folds);
  const AnchorWeights weights(g, node, folds, false, a);
  WeightValues wd = weights.values();
  const float* bias = weights.bias();
  const Fold* affine = folds.input_affine;
  const int k = static_cast<int>(num_elements(g.tensors[node.inputs[1]].shape) / a.n);
  std::vector<float> folded_w, folded_bias;
  if (affine) {
    fold_affine(*affine, weights.floats(), bias, a.n, k, &folded_w, &folded_bias);
    wd = WeightValues(folded_w.data());
    bias = folded_bias.data();
    for (size_t c = 0; c < affine->scale.size(); ++c) made.outside.push_back(-affine->shift[c] / affine->scale[c]);
  }
  const int c = k / (a.kh * a.kw);
  if (!takes_winograd(picked, a, c)) {
    pack_gemm_weights(picked, wd, bias, a.n, k, a, made);
    made.builtin_order = &picked != &kernels && !made.sparse;
    return;
  }
  if (pack_sparse_gemm_weights(picked, wd, bias, a.n, k, a, made)) return;  // fewer products than Winograd's
  a.gemm = &gemm_for(picked, a.n);
  made.winograd = winograd_weights(wd, bias, a.n, c, a.gemm->nr);
  made.winograd_kernel = picked.winograd;
  a.weight_bytes = made.winograd->bytes();
}

void make(const Graph& g, const Node& node, const Kernels& kernels, const AnchorFolds& folds, AnchorStep& a) {
  const Tensor& w = g.tensors[node.inputs[1]];  // [n, kh, kw, c]
  a.n = static_cast<int>(w.shape[0]);
  a.kh = static_cast<int>(w.shape[1]);
  a.kw = static_cast<int>(w.shape[2]);
  auto made = std::make_shared<ConvStep>();
  if (is_dynamic_range_conv(g, node) && kernels.qd8_gemm && !folds.scale_input && !folds.input_affine)
    pack_qd8_weights(g, node, kernels, folds, a, *made);
  else
    make_float(g, node, kernels, folds, a, *made);
  a.state = std::move(made);
}

bool bind(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  const AnchorStep& s = b.step;
  const ConvStep& conv = conv_step(s);
  if (!bind_window(b, inputs[0], s.kh, s.kw, s.conv, error)) return false;
  const int64_t c = b.geo.channels;
  const int64_t k = conv.winograd ? 9 * conv.winograd->c : gemm_depth(s);
  if (c * b.geo.taps() != k) {
    *error = "input " + fd::to_string(inputs[0]) + " does not fit the convolution filter";
    return false;
  }
  b.output = window_output(b);
  b.filter_rows = b.geo.taps() > 1 && c < kMinChannelsInPlace && !s.qd8;
  b.reads_whole_input = s.qd8 != nullptr;  // each image quantized before the run
  bind_gemm_row_unit(b);
  if (conv.winograd && b.geo.out_w > 0) b.row_unit = 2 * s.conv.dilation_h * b.geo.out_w;  // whole tile rows
  b.reads_past_rows = conv.winograd != nullptr;
  if (!conv.outside.empty()) {  // a folded input map: padding taps read the source value it sends to 0
    if (static_cast<int64_t>(conv.outside.size()) != c) {
      *error = "the folded input map has " + std::to_string(conv.outside.size()) + " channels, the input " +
               std::to_string(c);
      return false;
    }
    b.zero_row = conv.outside;
  }
  return true;
}

// Int8 weights: the input's images quantized, the windows' offsets made (both
// here, before the tiles run in parallel).
void before_run(const BoundAnchor& a, const float* const* inputs) {
  if (a.step.qd8) return quantize_window_input(a, inputs[0]);
  if (a.step.scale_input) scale_gemm_weights(a, inputs[1], static_cast<int>(a.geo.channels));
  point_window_rows(a, inputs);
}

// Output pixels [first, first + count) through the qd8 GEMM, a block of
// gathered windows at a time (per thread).
void run_qd8_panels(const BoundAnchor& a, int64_t first, int64_t count, int first_panel, int last_panel,
                    float* out) {
  const Qd8GemmKernel& kernel = *a.step.qd8;
  const Qd8Windows windows = qd8_windows(a);
  const Qd8PackedWeights& weights = *gemm_step(a.step).qd8_weights;
  const int64_t block = qd8_rows_per_block(kernel, weights.k);
  thread_local Qd8Rows rows;
  for (int64_t r = first; r < first + count; r += block) {
    const int m = static_cast<int>(std::min(block, first + count - r));
    const Qd8RowsView view = qd8_window_rows(a.qd8_images, windows, r, m, &rows);
    qd8_gemm(kernel, weights, view, out + (r - first) * a.n, a.n, a.step.lo, a.step.hi, first_panel,
             last_panel);
  }
}

// Summed as TFLite's builtin kernels: one output pixel by their GEMV, else the
// last n % 4 columns redone in their order.
void run_builtin_order_panels(const BoundAnchor& a, int64_t first, int64_t count, int first_panel, int last_panel,
                              float* out) {
  const int taps = a.row_taps();
  const PackedWeights& w = gemm_weights(a);
  if (a.geo.pixels() == 1 && count == 1)
    return gemm_one_row_as_builtin(*a.step.gemm, w, taps, a.rows.data() + first * taps, out, a.step.lo, a.step.hi,
                                   first_panel, last_panel);
  run_gemm_panels(a, first, count, first_panel, last_panel, out);
  if (a.n % 4 && (last_panel < 0 || last_panel >= w.panels()))
    redo_last_columns_as_builtin(w, a.geo.pixels(), first, count, taps, a.rows.data(), out, a.n, a.step.lo,
                                 a.step.hi);
}

void run_panels(const BoundAnchor& a, int64_t first, int64_t count, int first_panel, int last_panel, float* out) {
  const ConvStep& s = conv_step(a.step);
  if (a.step.qd8) run_qd8_panels(a, first, count, first_panel, last_panel, out);
  else if (s.winograd)
    run_winograd_panels(a, *s.winograd_kernel, *s.winograd, first, count, first_panel, last_panel, out);
  else if (s.builtin_order) run_builtin_order_panels(a, first, count, first_panel, last_panel, out);
  else run_gemm_panels(a, first, count, first_panel, last_panel, out);
}

void run(const BoundAnchor& a, int64_t first, int64_t count, float* out) { run_panels(a, first, count, 0, -1, out); }

int panels(const BoundAnchor& a) {
  const ConvStep& s = conv_step(a.step);
  return s.winograd ? s.winograd->u[0].panels() : gemm_panels(a);
}

int64_t depth(const BoundAnchor& a) {
  const ConvStep& s = conv_step(a.step);
  return s.winograd ? 4 * s.winograd->c : gemm_depth(a.step);
}

std::string describe(const AnchorStep& s) {
  const ConvStep& conv = conv_step(s);
  const std::string kernel =
      conv.winograd ? std::string(conv.winograd_kernel->name) + ", " + s.gemm->name : gemm_kernel_name(s);
  return describe_window(s) + std::to_string(s.n) + " ch, " + describe_folds(s) +
         (conv.outside.empty() ? "" : "input map folded, ") + kernel;
}

}  // namespace

extern const AnchorOpDef kConv2DAnchor = {
    "Conv2D", /*clamps=*/true, make, bind, before_run, run, /*run_tile=*/nullptr,
    depth, describe, run_panels, panels,
};

}  // namespace fd
