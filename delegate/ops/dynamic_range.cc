#include "ops/dynamic_range.h"

#include <algorithm>

#include "ir/float_source.h"

namespace fd {

bool is_dynamic_range_fc(const Graph& g, const Node& node) {
  return node.kind == OpKind::kAnchor && node.anchor == AnchorOp::kFullyConnected && node.inputs.size() > 1 &&
         g.tensors[node.inputs[0]].is_f32() && g.tensors[node.inputs[1]].stored_as == DType::kI8;
}

std::string dynamic_range_fc_legality(const Graph& g, const Node& node) {
  const Tensor& w = g.tensors[node.inputs[1]];
  const Quantization& q = w.quantization;
  const Float32Source* source = w.data.float32_source();
  if (!node.asymmetric_quantize_inputs)
    return "FULLY_CONNECTED with int8 weights quantizes its input symmetrically (asymmetric_quantize_inputs off): "
           "not supported";
  if (!source || source->stored_as() != DType::kI8 || w.shape.size() != 2)
    return "FULLY_CONNECTED with int8 weights that are not a constant [n, k] tensor";
  if (q.per_axis() && q.axis != 0) return "FULLY_CONNECTED with int8 weights quantized along their depth";
  if (std::any_of(q.zero_points.begin(), q.zero_points.end(), [](int64_t z) { return z != 0; }))
    return "FULLY_CONNECTED with int8 weights of a nonzero zero point";
  if (w.shape[1] > kDynamicRangeMaxDepth)
    return "FULLY_CONNECTED with int8 weights deeper than " + std::to_string(kDynamicRangeMaxDepth);
  return "";
}

}  // namespace fd
