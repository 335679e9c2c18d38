// CONV_2D: NHWC input, filter [n, kh, kw, c]. A GEMM anchor (gemm_anchor.cc)
// whose rows are the filter's taps (window.cc); with few input channels a row
// is a whole filter row. An input affine map (kInputAffine) folds into the
// weights, bias and padding.
#include "ir/shape.h"
#include "runtime/anchors/anchor_op.h"

namespace fd {
namespace {

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

void make(const Graph& g, const Node& node, const Kernels& kernels, const Fold* affine, AnchorStep& a) {
  const Tensor& w = g.tensors[node.inputs[1]];  // [n, kh, kw, c]
  const float* wd = w.f32_data();
  const float* bias = node.inputs.size() > 2 ? g.tensors[node.inputs[2]].f32_data() : nullptr;
  a.n = static_cast<int>(w.shape[0]);
  const int k = static_cast<int>(num_elements(w.shape) / a.n);
  a.kh = static_cast<int>(w.shape[1]);
  a.kw = static_cast<int>(w.shape[2]);
  std::vector<float> folded_w, folded_bias;
  if (affine) {
    fold_affine(*affine, w.f32_data(), bias, a.n, k, &folded_w, &folded_bias);
    wd = folded_w.data();
    bias = folded_bias.data();
    for (size_t c = 0; c < affine->scale.size(); ++c) a.outside.push_back(-affine->shift[c] / affine->scale[c]);
  }
  pack_gemm_weights(kernels, wd, bias, a.n, k, a);
}

bool bind(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  const AnchorStep& s = b.step;
  if (!bind_window(b, inputs[0], s.kh, s.kw, s.conv, error)) return false;
  const int64_t c = b.geo.channels;
  if (c * b.geo.taps() != s.weights->k) {
    *error = "input " + fd::to_string(inputs[0]) + " does not fit the convolution filter";
    return false;
  }
  b.output = window_output(b);
  b.filter_rows = b.geo.taps() > 1 && c < kMinChannelsInPlace;
  if (!s.outside.empty()) {  // a folded input map: padding taps read the source value it sends to 0
    if (static_cast<int64_t>(s.outside.size()) != c) {
      *error = "the folded input map has " + std::to_string(s.outside.size()) + " channels, the input " +
               std::to_string(c);
      return false;
    }
    b.zero_row = s.outside;
  }
  return true;
}

void before_run(const BoundAnchor& a, const float* const* inputs) {
  if (a.step.scale_input)
    scale_weights_into(*a.step.weights, inputs[1], static_cast<int>(a.geo.channels), &a.scaled);
  point_window_rows(a, inputs);
}

std::string describe(const AnchorStep& s) {
  return describe_window(s) + std::to_string(s.n) + " ch, " + describe_folds(s) + s.gemm->name;
}

}  // namespace

const AnchorOpDef kConv2DAnchor = {
    "Conv2D", /*clamps=*/true, make, bind, before_run, run_gemm_rows, /*run_tile=*/nullptr,
    gemm_depth, describe, /*gemm_panels=*/true,
};

}  // namespace fd
