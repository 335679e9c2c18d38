// The planner's passes, in the order plan_fusion runs them: legality (per
// node), folds, grouping, policy. Internal to plan/.
#pragma once

#include <string>
#include <vector>

#include "ir/fusion_plan.h"
#include "ir/graph.h"
#include "plan/graph_index.h"
#include "plan/planner.h"

namespace fd {

// Per node: whether a dynamic-range layer quantizes its output, directly or
// through other nodes (FusionPlan::rounds_as_builtin).
std::vector<bool> find_builtin_rounding(const Graph& g, const GraphIndex& index);

// The folds of a graph and, per node, the folds into it (indices into folds).
struct FoldSet {
  std::vector<Fold> folds;
  std::vector<std::vector<int>> into;  // per node
  std::vector<bool> folded;            // per node: folded into an anchor
};

// Finds every fold among legal nodes. A PAD that cannot fold (it runs only
// folded) becomes illegal, with its reason in reason[]. No map or scale folds
// into an anchor that rounds as the builtin kernels (`rounded`).
FoldSet find_folds(const Graph& g, const GraphIndex& index, const std::vector<bool>& rounded,
                   std::vector<bool>& legal, std::vector<std::string>& reason);

// Greedy grouping of the legal nodes, folded nodes with their anchors.
std::vector<std::vector<int>> group_nodes(const Graph& g, const GraphIndex& index, const std::vector<bool>& legal,
                                          const FoldSet& folds);

// Keeps the groups worth running; fills plan.groups, group_of and the
// policy's reasons.
void apply_policy(const Graph& g, const GraphIndex& index, const std::vector<std::vector<int>>& groups,
                  const PlannerOptions& opts, FusionPlan* plan);

// Leaves every group that holds a node whose sibling (a node of the same
// front-end op, Node::id) is left, until none does; groups renumbered.
void claim_siblings_together(const Graph& g, FusionPlan* plan);

// The producers that write their output straight into their slice of a
// claimed CONCATENATION (plan.slice_writes).
std::vector<SliceWrite> find_slice_writes(const Graph& g, const GraphIndex& index, const FusionPlan& plan);

// rewrites.cc: the elementwise pairs of a group that run as one kernel op
// (FoldKind::kSwish, kMultiplyAdd) and the POWs that run as a cheaper exact op
// (kSquare, kSqrt), as folds appended to plan.folds.
void find_rewrites(const Graph& g, const GraphIndex& index, FusionPlan* plan);

// The index-reading forms of input_affine and folded_transpose.
std::optional<Fold> input_affine(const Graph& g, const GraphIndex& index, int conv);
int folded_transpose(const Graph& g, const GraphIndex& index, int bmm, int i);

}  // namespace fd
