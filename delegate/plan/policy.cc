// Policy: an anchored group is worth running alone; a small elementwise group
// saves no traffic, unless it sits next to an anchored group, whose partition
// it then joins instead of splitting the model around itself. So does an
// anchor that moves or reduces values (a pool, MEAN, a resize, a view) alone in
// its group: it saves nothing and runs no faster than the runtime's kernel.
// An int8 group of any size runs as one table pass, no slower than one op of
// XNNPACK's, and XNNPACK leaves some int8 ops (HARD_SWISH) to the slow builtin
// kernels; but an int8 layer with nothing fused into it is left (measured no
// faster than XNNPACK's), and so is an int8 op of two independent inputs
// without the layer computing one of them.
#include <algorithm>

#include "ops/op_classes.h"
#include "ops/quantized.h"
#include "plan/passes.h"

namespace fd {
namespace {

// Whether a member of `group` reads from or feeds a node of an anchored group.
bool touches_anchored(const Graph& g, const GraphIndex& index, const std::vector<int>& group,
                      const std::vector<int>& group_of, const std::vector<bool>& anchored) {
  auto anchored_node = [&](int node) { return node >= 0 && group_of[node] >= 0 && anchored[group_of[node]]; };
  for (int m : group) {
    for (int t : g.nodes[m].inputs)
      if (anchored_node(index.producer[t])) return true;
    for (int out : g.nodes[m].outputs)
      for (size_t c = 0; c < g.nodes.size(); ++c)
        for (int t : g.nodes[c].inputs)
          if (t == out && anchored_node(static_cast<int>(c))) return true;
  }
  return false;
}

// The int8 layer of a group that holds nothing else (PADs folded into it
// aside), or null; but a BATCH_MATMUL: XNNPACK leaves int8 ones to TFLite's
// reference kernel (measured: a quarter of an int8 BERT's time).
const Node* lone_int8_layer(const Graph& g, const std::vector<int>& group) {
  const Node* layer = nullptr;
  for (int m : group) {
    const Node& n = g.nodes[m];
    if (n.kind == OpKind::kPad) continue;
    if (layer || n.kind != OpKind::kAnchor || !is_int8_node(g, n)) return nullptr;
    layer = &n;
  }
  return layer && layer->anchor != AnchorOp::kBatchMatMul ? layer : nullptr;
}

// An int8 op of two independent inputs in a group without the layer computing
// one of them (it would run as it does alone), or null.
const Node* int8_pair_without_layer(const Graph& g, const std::vector<int>& group) {
  auto member = [&](const Node* n) {
    return n && std::find(group.begin(), group.end(), static_cast<int>(n - g.nodes.data())) != group.end();
  };
  for (int m : group) {
    const Node& n = g.nodes[m];
    if (n.kind != OpKind::kElementwise || !is_int8_node(g, n) || !q8_of_two_sources(g, n)) continue;
    if (!member(q8_source_layer(g, n.inputs[0])) && !member(q8_source_layer(g, n.inputs[1]))) return &n;
  }
  return nullptr;
}

// A group of one anchor without weights that is no matrix product.
bool lone_cheap_anchor(const Graph& g, const std::vector<int>& group) {
  if (group.size() != 1 || g.nodes[group[0]].kind != OpKind::kAnchor) return false;
  const AnchorInfo& info = anchor_info(g.nodes[group[0]].anchor);
  return !info.has(kConstantWeights) && info.pattern != Pattern::kMatmul;
}

}  // namespace

void apply_policy(const Graph& g, const GraphIndex& index, const std::vector<std::vector<int>>& groups,
                  const PlannerOptions& opts, FusionPlan* plan) {
  std::vector<int> group_of(g.nodes.size(), -1);
  std::vector<bool> anchored(groups.size(), false);
  for (size_t k = 0; k < groups.size(); ++k)
    for (int m : groups[k]) {
      group_of[m] = static_cast<int>(k);
      anchored[k] = anchored[k] || (g.nodes[m].kind == OpKind::kAnchor && !stands_alone(g.nodes[m].anchor) &&
                                    !lone_cheap_anchor(g, groups[k]));
    }
  for (size_t k = 0; k < groups.size(); ++k) {
    const Node& first = g.nodes[groups[k][0]];
    const bool alone = first.kind == OpKind::kAnchor && stands_alone(first.anchor);
    if ((alone || lone_cheap_anchor(g, groups[k])) && !touches_anchored(g, index, groups[k], group_of, anchored)) {
      plan->reason[groups[k][0]] = "policy: " + first.name + " alone reads from and feeds no claimed anchor";
      continue;
    }
    const auto runs = std::count_if(groups[k].begin(), groups[k].end(),  // constant nodes never run
                                    [&](int m) { return g.nodes[m].kind != OpKind::kConstant; });
    const bool int8 = is_int8_node(g, first);
    if (const Node* layer = lone_int8_layer(g, groups[k])) {
      for (int m : groups[k])
        plan->reason[m] = "policy: an int8 " + layer->name + " alone runs no faster than the runtime's";
      continue;
    }
    if (const Node* pair = int8_pair_without_layer(g, groups[k])) {
      for (int m : groups[k])
        plan->reason[m] = "policy: an int8 " + pair->name +
                          " of two independent inputs runs fused only into the layer making one of them";
      continue;
    }
    const bool big = runs >= opts.min_nodes_per_group || int8;
    if (!anchored[k] && !big && !touches_anchored(g, index, groups[k], group_of, anchored)) {
      for (int m : groups[k])
        plan->reason[m] = "policy: a group of " + std::to_string(runs) +
                          " node(s) is below min_nodes_per_partition=" + std::to_string(opts.min_nodes_per_group);
      continue;
    }
    for (int m : groups[k]) plan->group_of[m] = static_cast<int>(plan->groups.size());
    plan->groups.push_back(groups[k]);
  }
}

}  // namespace fd
