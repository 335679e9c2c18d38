#include "plan/planner.h"

#include "plan/passes.h"

namespace fd {

FusionPlan plan_fusion(const Graph& g, const PlannerOptions& opts) {
  const int n = static_cast<int>(g.nodes.size());
  const GraphIndex index(g);
  FusionPlan plan;
  plan.group_of.assign(n, -1);
  plan.reason.assign(n, "");
  std::vector<bool> legal(n);
  for (int i = 0; i < n; ++i) {
    plan.reason[i] = node_legality(g, g.nodes[i], opts.families);
    legal[i] = plan.reason[i].empty();
  }
  plan.rounds_as_builtin = find_builtin_rounding(g, index);
  FoldSet folds = find_folds(g, index, plan.rounds_as_builtin, legal, plan.reason);
  apply_policy(g, index, group_nodes(g, index, legal, folds), opts, &plan);
  claim_siblings_together(g, &plan);
  for (Fold& f : folds.folds)  // the folds of claimed anchors
    if (plan.group_of[f.anchor] >= 0) plan.folds.push_back(std::move(f));
  plan.slice_writes = find_slice_writes(g, index, plan);
  find_rewrites(g, index, &plan);
  return plan;
}

}  // namespace fd
