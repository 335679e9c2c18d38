// Grouping: greedy, in execution order. A node joins the groups of its
// producers when the union has one iteration domain and stays convex and
// acyclic with the other groups. A group's domain is its largest value's
// shape; every value has its layout, or holds one value per row of it (a row
// MEAN and the elementwise ops on its result: a LayerNorm's statistics).
#include <algorithm>
#include <optional>

#include "ir/shape.h"
#include "ops/op_classes.h"
#include "ops/quantized.h"
#include "plan/passes.h"

namespace fd {
namespace {

struct Domain {
  Shape shape;
  bool rows = false;  // some values hold one value per row of shape
};

// The domain of two groups together, or nothing if their values cannot share one.
std::optional<Domain> join_domains(const Domain& a, const Domain& b) {
  if (same_layout(a.shape, b.shape)) return Domain{b.shape, a.rows || b.rows};
  if (is_row_of(a.shape, b.shape) && !a.rows) return Domain{b.shape, true};
  if (is_row_of(b.shape, a.shape) && !b.rows) return Domain{a.shape, true};
  return std::nullopt;
}

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

class Grouper {
 public:
  Grouper(const Graph& g, const GraphIndex& index, const FoldSet& folds)
      : g_(g), ix_(index), folds_(folds), n_(static_cast<int>(g.nodes.size())), group_of_(n_, -1) {}
  void add(int node);
  std::vector<std::vector<int>>& groups() { return groups_; }

 private:
  bool inside(const std::vector<int>& members, int t) const {
    return ix_.producer[t] >= 0 && contains(members, ix_.producer[t]);
  }
  bool alone(const std::vector<int>& members) const {  // a group no node may join
    for (int m : members)
      if (g_.nodes[m].kind == OpKind::kAnchor && stands_alone(g_.nodes[m].anchor)) return true;
    return false;
  }
  bool convex(const std::vector<int>& members) const;
  bool acyclic(const std::vector<int>& members, const std::vector<int>& merged) const;
  bool anchor_inputs_outside(const std::vector<int>& members) const;
  bool fits_rows(const std::vector<int>& members, const Shape& dom) const;
  bool int8_layer_first(const std::vector<int>& members) const;
  bool has_source_layer(const Node& pair, const std::vector<int>& members) const;
  bool may_merge(const std::vector<int>& trial, const std::vector<int>& merged, const Domain& dom) const;
  void place(std::vector<int> members, const std::vector<int>& merged, const Domain& dom);

  const Graph& g_;
  const GraphIndex& ix_;
  const FoldSet& folds_;
  const int n_;
  std::vector<int> group_of_;
  std::vector<std::vector<int>> groups_;
  std::vector<NodeSet> group_in_, group_anc_;  // per group: members, and all they depend on
  std::vector<Domain> group_dom_;
  std::vector<bool> closed_;  // an int8 op of two sources without its layer: left, and no node joins it
};

// No path leaves the group and comes back: no outside producer of a member
// depends on a member.
bool Grouper::convex(const std::vector<int>& members) const {
  NodeSet in(n_);
  for (int m : members) in.add(m);
  for (int m : members)
    for (int t : g_.nodes[m].inputs)
      if (int p = ix_.producer[t]; p >= 0 && !in.has(p) && ix_.ancestors[p].intersects(in)) return false;
  return true;
}

// Two groups that each read the other's values cannot run one after the
// other: the groups must form a DAG as well.
bool Grouper::acyclic(const std::vector<int>& members, const std::vector<int>& merged) const {
  NodeSet in(n_), anc(n_);
  for (int m : members) {
    in.add(m);
    anc.add_all(ix_.ancestors[m]);
  }
  for (size_t k = 0; k < groups_.size(); ++k) {
    if (groups_[k].empty() || contains(merged, static_cast<int>(k))) continue;
    if (group_anc_[k].intersects(in) && anc.intersects(group_in_[k])) return false;
  }
  return true;
}

// An anchor reads its whole input: that input may not be computed in its
// group (but a node folded into it may be, reading from outside; a constant
// node, made before anything runs, from anywhere), except a row op reading
// whole rows (SOFTMAX, row MEAN): it reads the group's tile.
bool Grouper::anchor_inputs_outside(const std::vector<int>& members) const {
  for (int m : members) {
    const Node& node = g_.nodes[m];
    bool affine = false;
    for (int f : folds_.into[m]) {
      const Fold& fold = folds_.folds[f];
      if (fold.kind != FoldKind::kInputAffine) continue;
      affine = true;
      if (inside(members, fold.source)) return false;  // it reads the chain's source
    }
    const bool whole = node.kind == OpKind::kPad || (node.kind == OpKind::kAnchor && !reads_tile_rows(node.anchor));
    if (!whole || affine) continue;
    for (int t : node.inputs) {
      if (!inside(members, t)) continue;
      const Node& p = g_.nodes[ix_.producer[t]];
      if (!folds_.folded[ix_.producer[t]]) return false;
      if (p.kind == OpKind::kConstant) continue;  // made once from constants (a DENSIFY's output too)
      for (int s : p.inputs)
        if (inside(members, s)) return false;
    }
  }
  return true;
}

// In a domain of rows, the row values (one per row) come from row MEANs of
// full rows, and from elementwise ops reading nothing else from outside the
// group but single numbers; a row op reading the tile reads full rows.
bool Grouper::fits_rows(const std::vector<int>& members, const Shape& dom) const {
  for (int m : members) {
    const Node& node = g_.nodes[m];
    const bool row = is_row_of(g_.tensors[node.outputs[0]].shape, dom);
    if (node.kind == OpKind::kAnchor) {
      const bool reads_tile = reads_tile_rows(node.anchor) && inside(members, node.inputs[0]);
      if (row && !anchor_info(node.anchor).has(kOneValuePerRow)) return false;
      if ((row || reads_tile) && !same_layout(g_.tensors[node.inputs[0]].shape, dom)) return false;
    } else if (row) {
      if (node.kind != OpKind::kElementwise) return false;
      for (int t : node.inputs)
        if (!inside(members, t) && num_elements(g_.tensors[t].shape) != 1) return false;
    }
  }
  return true;
}

// An int8 group runs its layer first (runtime/q8_program.h): one layer, and
// no member before it but the PADs folded into it.
bool Grouper::int8_layer_first(const std::vector<int>& members) const {
  int layer = -1, first = n_;
  for (int m : members) {
    const Node& node = g_.nodes[m];
    if (!is_int8_node(g_, node) || node.kind == OpKind::kPad) continue;
    if (node.kind != OpKind::kAnchor) {
      first = std::min(first, m);
    } else if (layer >= 0) {
      return false;
    } else {
      layer = m;
    }
  }
  return layer < first;
}

// Whether members hold the int8 layer computing an input of `pair` (an op of
// two sources runs only in that layer's group: plan/policy.cc).
bool Grouper::has_source_layer(const Node& pair, const std::vector<int>& members) const {
  for (int t : pair.inputs) {
    const Node* layer = q8_source_layer(g_, t);
    if (layer && contains(members, static_cast<int>(layer - g_.nodes.data()))) return true;
  }
  return false;
}

bool Grouper::may_merge(const std::vector<int>& trial, const std::vector<int>& merged, const Domain& dom) const {
  if (dom.rows && !fits_rows(trial, dom.shape)) return false;
  return convex(trial) && acyclic(trial, merged) && anchor_inputs_outside(trial) && int8_layer_first(trial);
}

// A node with the nodes folded into it joins the groups of its producers
// that it can; an anchor joins none (it reads its inputs whole) but a row op
// reading whole rows.
void Grouper::add(int i) {
  const Node& node = g_.nodes[i];
  Domain dom{g_.tensors[node.outputs[0]].shape, false};
  std::vector<int> members, merged;
  for (int f : folds_.into[i])  // constant nodes join once groups are made (group_nodes)
    if (folds_.folds[f].kind != FoldKind::kConstant)
      members.insert(members.end(), folds_.folds[f].nodes.begin(), folds_.folds[f].nodes.end());
  members.push_back(i);
  const bool joins = node.kind != OpKind::kAnchor || reads_tile_rows(node.anchor);
  const bool pair = node.kind == OpKind::kElementwise && is_int8_node(g_, node) && q8_of_two_sources(g_, node);
  std::vector<int> inputs = joins ? node.inputs : std::vector<int>{};
  if (is_int8_node(g_, node))  // the latest producer first: a residual ADD joins the layer just before it
    std::stable_sort(inputs.begin(), inputs.end(), [&](int a, int b) { return ix_.producer[a] > ix_.producer[b]; });
  for (int t : inputs) {
    const int p = ix_.producer[t];
    if (p < 0 || group_of_[p] < 0 || contains(merged, group_of_[p])) continue;
    const int gp = group_of_[p];
    if (alone(groups_[gp]) || closed_[gp] || is_int8_node(g_, g_.nodes[groups_[gp][0]]) != is_int8_node(g_, node))
      continue;
    if (pair && !has_source_layer(node, groups_[gp])) continue;
    const std::optional<Domain> joint = join_domains(dom, group_dom_[gp]);
    if (!joint || (joint->rows && is_int8_node(g_, node))) continue;  // int8 values have one layout
    std::vector<int> trial = members;
    trial.insert(trial.end(), groups_[gp].begin(), groups_[gp].end());
    std::vector<int> trial_merged = merged;
    trial_merged.push_back(gp);
    if (!may_merge(trial, trial_merged, *joint)) continue;
    members = std::move(trial);
    merged = std::move(trial_merged);
    dom = *joint;
  }
  const bool closed = pair && !has_source_layer(node, members);
  place(std::move(members), merged, dom);
  closed_[group_of_[i]] = closed;
}

void Grouper::place(std::vector<int> members, const std::vector<int>& merged, const Domain& dom) {
  int target;
  if (merged.empty()) {
    target = static_cast<int>(groups_.size());
    groups_.emplace_back();
    group_in_.emplace_back(n_);
    group_anc_.emplace_back(n_);
    group_dom_.emplace_back();
    closed_.push_back(false);
  } else {
    target = merged[0];
    for (size_t k = 1; k < merged.size(); ++k) groups_[merged[k]].clear();
  }
  std::sort(members.begin(), members.end());
  groups_[target] = members;
  group_dom_[target] = dom;
  group_in_[target] = NodeSet(n_);
  group_anc_[target] = NodeSet(n_);
  for (int m : members) {
    group_of_[m] = target;
    group_in_[target].add(m);
    group_anc_[target].add_all(ix_.ancestors[m]);
  }
}

}  // namespace

std::vector<std::vector<int>> group_nodes(const Graph& g, const GraphIndex& index, const std::vector<bool>& legal,
                                          const FoldSet& folds) {
  Grouper grouper(g, index, folds);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (legal[i] && !folds.folded[i]) grouper.add(static_cast<int>(i));  // PADs left legal run on their own
  std::vector<std::vector<int>> out;
  for (auto& members : grouper.groups())
    if (!members.empty()) out.push_back(std::move(members));
  // A constant node, made before anything runs, joins the group of the node it folds into.
  for (const Fold& f : folds.folds) {
    if (f.kind != FoldKind::kConstant) continue;
    for (auto& members : out) {
      if (std::find(members.begin(), members.end(), f.anchor) == members.end()) continue;
      members.insert(members.end(), f.nodes.begin(), f.nodes.end());
      std::sort(members.begin(), members.end());
    }
  }
  return out;
}

}  // namespace fd
