// Rewrites: pairs of elementwise ops of one group that run as one kernel op,
// recorded as folds so that the plan shows them and the runtime only follows:
// x * LOGISTIC(x) runs as SWISH(x) (the same arithmetic, one pass), POW(x, 2)
// as SQUARE(x) and POW(x, 0.5) as SQRT(x) (both correctly rounded), and a MUL
// read only by an ADD or SUB runs inside it as one FMA (rounded once, so never
// in a group that rounds as TFLite's builtin kernels). The runtime makes no
// rewrite where the folded node's value must be stored (a partition's output)
// or an output map computes it, nor an FMA of a MUL it runs as a SWISH: both
// are recorded, as the plan cannot know the partition's outputs.
#include <algorithm>

#include "ir/shape.h"
#include "plan/passes.h"

namespace fd {
namespace {

// An elementwise `op` on float32 (an int8 op's arithmetic is its own: no rewrite).
bool is_ew(const Graph& g, const Node& n, EwOp op) {
  return n.kind == OpKind::kElementwise && n.ew == op && g.tensors[n.outputs[0]].is_f32();
}

// The node making input `side` of `reader` if it is the elementwise `op`, in
// the same group, without activation, and `reader` is its one reader; else -1.
int single_use_producer(const Graph& g, const GraphIndex& index, const FusionPlan& plan, int reader, int side,
                        EwOp op) {
  const int t = g.nodes[reader].inputs[side], p = index.producer[t];
  if (p < 0 || index.readers[t] != 1 || plan.group_of[p] != plan.group_of[reader]) return -1;
  return is_ew(g, g.nodes[p], op) && g.nodes[p].act == Activation::kNone ? p : -1;
}

// MUL(x, LOGISTIC(x)), either order.
void find_swish(const Graph& g, const GraphIndex& index, int mul, FusionPlan* plan) {
  const Node& m = g.nodes[mul];
  if (!is_ew(g, m, EwOp::Mul)) return;
  for (int side = 0; side < 2; ++side) {
    const int sig = single_use_producer(g, index, *plan, mul, side, EwOp::Logistic);
    if (sig < 0 || g.nodes[sig].inputs[0] != m.inputs[1 - side]) continue;
    plan->folds.push_back(Fold{FoldKind::kSwish, mul, {sig}, side, -1, {}, {}});
    return;
  }
}

// ADD or SUB reading a MUL: a fold per input that is one, in input order (the
// runtime makes the first it can: a MUL it runs as SWISH is no product).
void find_multiply_add(const Graph& g, const GraphIndex& index, int add, FusionPlan* plan) {
  if (!is_ew(g, g.nodes[add], EwOp::Add) && !is_ew(g, g.nodes[add], EwOp::Sub)) return;
  for (int side = 0; side < 2; ++side) {
    const int mul = single_use_producer(g, index, *plan, add, side, EwOp::Mul);
    if (mul >= 0) plan->folds.push_back(Fold{FoldKind::kMultiplyAdd, add, {mul}, side, -1, {}, {}});
  }
}

// POW(x, c) of a constant scalar c of 2 or 0.5 that does not broadcast x (and
// is not refilled at run time: TF variables, weight math on them).
void find_exact_power(const Graph& g, int pow, FusionPlan* plan) {
  const Node& n = g.nodes[pow];
  if (!is_ew(g, n, EwOp::Pow)) return;
  const Tensor& y = g.tensors[n.inputs[1]];
  if (!y.is_constant || !y.f32_data() || y.values_at_run_time || num_elements(y.shape) != 1 ||
      y.shape.size() > g.tensors[n.inputs[0]].shape.size())
    return;
  const float c = y.f32_data()[0];
  if (c == 2.f || c == 0.5f)
    plan->folds.push_back(Fold{c == 2.f ? FoldKind::kSquare : FoldKind::kSqrt, pow, {}, 1, -1, {}, {}});
}

}  // namespace

void find_rewrites(const Graph& g, const GraphIndex& index, FusionPlan* plan) {
  auto rounded = [&](int pos) {
    return pos < static_cast<int>(plan->rounds_as_builtin.size()) && plan->rounds_as_builtin[pos];
  };
  for (const auto& group : plan->groups)
    for (int pos : group) {
      find_exact_power(g, pos, plan);
      find_swish(g, index, pos, plan);
    }
  for (const auto& group : plan->groups)
    if (std::none_of(group.begin(), group.end(), rounded))
      for (int pos : group) find_multiply_add(g, index, pos, plan);
}

}  // namespace fd
