// Cost rules: what runs slower fused than in the runtime's own kernels
// (XNNPACK), declined before grouping, so its neighbours group without it.
// Each rule names the benchmarks/policy_cases.py case that measured it.
#include "plan/passes.h"

namespace fd {

std::string cost_rule(const Graph& g, const GraphIndex& index, const Node& node) {
  if (node.kind == OpKind::kAnchor && node.anchor == AnchorOp::kDepthwiseConv2D) {
    const int64_t n = g.tensors[node.inputs[1]].shape.back();
    const int64_t c = g.tensors[node.inputs[0]].shape.back();
    if (c > 0 && n != c)  // our kernel widens each input pixel per tap (case dw_mult2: 2-8x slower)
      return "cost: depthwise with depth multiplier " + std::to_string(n / c) + " runs faster in the runtime's kernels";
  }
  // The runtime's int8 GEMM (activations quantized per row) reads a quarter
  // of the weight bytes: bert_small_dynamic_int8 1.17 -> 1.02x XNNPACK's time.
  // Convolutions stay: declining them was 1.13-1.17x slower (resnet50,
  // mobilenet_v2, yolo_like, dynamic int8). Sparse int8 weights (through a
  // DENSIFY) stay too: XNNPACK does not take them.
  if (node.kind == OpKind::kAnchor && node.anchor == AnchorOp::kFullyConnected && node.inputs.size() > 1 &&
      g.tensors[node.inputs[1]].stored_as == DType::kI8 && index.producer[node.inputs[1]] < 0)
    return "cost: FULLY_CONNECTED with int8 weights runs faster in the runtime's int8 kernels";
  return "";
}

}  // namespace fd
