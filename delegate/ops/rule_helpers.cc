#include "ops/rule_helpers.h"

namespace fd {

std::string output_legality(const Graph& g, const Node& node, const std::optional<Shape>& expect) {
  const Shape& in = g.tensors[node.inputs[0]].shape;
  if (!expect) return node.name + " does not fit its input " + to_string(in);
  const Tensor& o = g.tensors[node.outputs[0]];
  bool fits = o.shape.size() == expect->size();
  for (size_t d = 0; fits && d < o.shape.size(); ++d)
    fits = o.shape[d] == (*expect)[d] || (o.signature.size() == o.shape.size() && o.signature[d] == -1);
  if (!fits) return "output shape " + to_string(o.shape) + " is not the expected " + to_string(*expect);
  return "";
}

std::string weights_legality(const Graph& g, const Node& node, size_t rank, int n_axis) {
  const Tensor& w = g.tensors[node.inputs[1]];
  if (!w.is_f32() || !w.is_constant || w.data.empty() || w.shape.size() != rank || num_elements(w.shape) <= 0)
    return "weights are not a constant float32 tensor of rank " + std::to_string(rank);
  if (node.inputs.size() == 3) {
    const Tensor& b = g.tensors[node.inputs[2]];
    if (!b.is_f32() || !b.is_constant || b.data.empty() || b.shape != Shape{w.shape[n_axis]})
      return "bias is not a constant float32 [n] vector";
  }
  return "";
}

std::string row_input_legality(const Graph& g, const Node& node) {
  const Shape& in = g.tensors[node.inputs[0]].shape;
  if (in.empty() || static_cast<int>(in.size()) > kMaxRank) return "input rank is 0 or above " + std::to_string(kMaxRank);
  if (num_elements(in) == 0) return "empty input";
  return "";
}

}  // namespace fd
