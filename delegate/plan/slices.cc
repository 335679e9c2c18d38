// Slice writes: a claimed producer whose output only a CONCATENATION reads
// writes it straight into its slice of the concatenation's output.
#include <algorithm>

#include "ops/op_classes.h"
#include "plan/passes.h"

namespace fd {
namespace {

// Whether node `p` runs as a value of its own group that can be stored strided:
// claimed, not folded into an anchor, and not itself a concatenation.
bool writes_its_output(const Graph& g, const FusionPlan& plan, int p) {
  if (p < 0 || plan.group_of[p] < 0) return false;
  const Node& node = g.nodes[p];
  if (node.kind != OpKind::kElementwise && node.kind != OpKind::kAnchor) return false;
  if (node.kind == OpKind::kAnchor && stands_alone(node.anchor)) return false;
  for (const Fold& f : plan.folds)
    if (std::count(f.nodes.begin(), f.nodes.end(), p)) return false;
  return true;
}

}  // namespace

std::vector<SliceWrite> find_slice_writes(const Graph& g, const GraphIndex& index, const FusionPlan& plan) {
  std::vector<SliceWrite> writes;
  for (size_t c = 0; c < g.nodes.size(); ++c) {
    const Node& node = g.nodes[c];
    if (plan.group_of[c] < 0 || node.kind != OpKind::kAnchor || !anchor_info(node.anchor).has(kPartsInPlace)) continue;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const int t = node.inputs[i];
      const int p = index.producer[t];
      if (index.readers[t] != 1 || !writes_its_output(g, plan, p)) continue;
      writes.push_back({static_cast<int>(c), static_cast<int>(i), p});
    }
  }
  return writes;
}

}  // namespace fd
