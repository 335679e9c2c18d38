// The weights a weighted anchor packs, an output map folded in (anchor_op.h).
#include "ir/shape.h"
#include "ops/affine_steps.h"
#include "runtime/anchors/anchor_op.h"

namespace fd {

std::vector<AffineMap> output_channel_map(const Graph& g, const Fold& f, const Shape& out) {
  std::vector<AffineMap> map(out.back());
  for (int m : f.nodes) {
    const Node& n = g.nodes[m];
    const int side = affine_step_x_side(g, n, out);
    if (side < 0) continue;  // the clamp that ends it
    for (int64_t c = 0; c < out.back(); ++c) {
      const AffineMap step = affine_step_map(n, side, affine_step_value(g, n, side, c));
      map[c] = {step.a * map[c].a, step.a * map[c].b + step.b};
    }
  }
  return map;
}

AnchorWeights::AnchorWeights(const Graph& g, const Node& node, const AnchorFolds& folds, bool channels_last,
                             AnchorStep& a) {
  const Tensor& w = g.tensors[node.inputs[1]];
  w_ = &w;
  bias_ = node.inputs.size() > 2 ? g.tensors[node.inputs[2]].f32_data() : nullptr;
  if (!folds.output_affine) return;
  a.output_map = true;
  const std::vector<AffineMap> map = output_channel_map(g, *folds.output_affine, g.tensors[node.outputs[0]].shape);
  const size_t n = map.size(), size = static_cast<size_t>(num_elements(w.shape)), k = size / n;
  const float* floats = w.f32_data();
  w_copy_.resize(size);
  for (size_t i = 0; i < size; ++i)
    w_copy_[i] = static_cast<float>(floats[i] * map[channels_last ? i % n : i / k].a);
  bias_copy_.resize(n);
  for (size_t c = 0; c < n; ++c) bias_copy_[c] = static_cast<float>((bias_ ? bias_[c] : 0.0) * map[c].a + map[c].b);
}

WeightValues AnchorWeights::values() const {
  return w_copy_.empty() ? weight_values(*w_) : WeightValues(w_copy_.data());
}

void qd8_scale_and_bias(const Graph& g, const Node& node, const AnchorFolds& folds, AnchorStep& a,
                        std::vector<float>* scale, std::vector<float>* bias) {
  const Quantization& q = g.tensors[node.inputs[1]].quantization;
  const float* b = node.inputs.size() > 2 ? g.tensors[node.inputs[2]].f32_data() : nullptr;
  scale->resize(a.n);
  bias->assign(a.n, 0.f);
  for (int c = 0; c < a.n; ++c) (*scale)[c] = q.scales[q.per_axis() ? c : 0];
  if (b) bias->assign(b, b + a.n);
  if (!folds.output_affine) return;
  a.output_map = true;  // x * m + s: scale * m, bias * m + s
  const std::vector<AffineMap> map = output_channel_map(g, *folds.output_affine, g.tensors[node.outputs[0]].shape);
  for (int c = 0; c < a.n; ++c) {
    (*scale)[c] = static_cast<float>((*scale)[c] * map[c].a);
    (*bias)[c] = static_cast<float>((*bias)[c] * map[c].a + map[c].b);
  }
}

}  // namespace fd
