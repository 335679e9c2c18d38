// Cost rules: what runs slower fused than in the runtime's own kernels
// (XNNPACK), declined before grouping, so its neighbours group without it.
// Each rule names the benchmarks/policy_cases.py case that measured it.
#include "plan/passes.h"

namespace fd {

std::string cost_rule(const Graph& g, const GraphIndex& /*index*/, const Node& node) {
  if (node.kind == OpKind::kAnchor && node.anchor == AnchorOp::kDepthwiseConv2D) {
    const int64_t n = g.tensors[node.inputs[1]].shape.back();
    const int64_t c = g.tensors[node.inputs[0]].shape.back();
    if (c > 0 && n != c)  // our kernel widens each input pixel per tap (case dw_mult2: 2-8x slower)
      return "cost: depthwise with depth multiplier " + std::to_string(n / c) + " runs faster in the runtime's kernels";
  }
  return "";
}

}  // namespace fd
