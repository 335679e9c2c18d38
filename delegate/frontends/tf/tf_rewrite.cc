#include "frontends/tf/tf_rewrite.h"

#include <algorithm>
#include <optional>

#include "frontends/tf/tf_names.h"
#include "ir/serialize.h"
#include "ops/op_registry.h"
#include "tensorflow/core/framework/node_def.pb.h"

namespace fd {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

namespace {

std::string node_name_of(const std::string& canon) { return canon.substr(0, canon.rfind(':')); }

class Partitioner {
 public:
  Partitioner(const Graph& g, const FusionPlan& plan);
  // Lists of indices into plan.groups: partitions that exchange a tensor merge
  // while their union stays convex (no path leaves it and comes back).
  std::vector<std::vector<int>> run() const;

 private:
  bool connected(const std::set<int>& a, const std::set<int>& b) const;
  bool convex(const std::set<int>& nodes) const;

  const Graph& g_;
  const FusionPlan& plan_;
  std::map<int, std::vector<int>> readers_;  // tensor -> reading positions
};

Partitioner::Partitioner(const Graph& g, const FusionPlan& plan) : g_(g), plan_(plan) {
  for (size_t pos = 0; pos < g.nodes.size(); ++pos)
    for (int t : g.nodes[pos].inputs) readers_[t].push_back(static_cast<int>(pos));
}

// Whether one set of nodes reads a tensor the other computes.
bool Partitioner::connected(const std::set<int>& a, const std::set<int>& b) const {
  auto reads_from = [&](const std::set<int>& readers, const std::set<int>& producers) {
    std::set<int> produced;
    for (int pos : producers) produced.insert(g_.nodes[pos].outputs.begin(), g_.nodes[pos].outputs.end());
    for (int pos : readers)
      for (int t : g_.nodes[pos].inputs)
        if (produced.count(t)) return true;
    return false;
  };
  return reads_from(a, b) || reads_from(b, a);
}

bool Partitioner::convex(const std::set<int>& nodes) const {
  const int last = *nodes.rbegin();  // nodes are in execution order: none after it leads back
  std::vector<int> todo;
  std::set<int> seen;
  auto visit_readers = [&](int pos) {
    for (int t : g_.nodes[pos].outputs) {
      auto it = readers_.find(t);
      if (it == readers_.end()) continue;
      for (int r : it->second)
        if (!nodes.count(r) && r < last && seen.insert(r).second) todo.push_back(r);
    }
  };
  for (int pos : nodes) visit_readers(pos);
  while (!todo.empty()) {
    const int pos = todo.back();
    todo.pop_back();
    for (int t : g_.nodes[pos].outputs) {
      auto it = readers_.find(t);
      if (it == readers_.end()) continue;
      for (int r : it->second)
        if (nodes.count(r)) return false;
    }
    visit_readers(pos);
  }
  return true;
}

std::vector<std::vector<int>> Partitioner::run() const {
  std::vector<std::vector<int>> parts;
  std::vector<std::set<int>> nodes;
  for (size_t k = 0; k < plan_.groups.size(); ++k) {
    parts.push_back({static_cast<int>(k)});
    nodes.emplace_back(plan_.groups[k].begin(), plan_.groups[k].end());
  }
  for (bool merged_any = true; merged_any;) {  // groups are not in data order: merge until nothing joins
    merged_any = false;
    for (size_t p = 0; p < parts.size(); ++p)
      for (size_t q = p + 1; q < parts.size(); ++q) {
        if (!connected(nodes[p], nodes[q])) continue;
        std::set<int> merged = nodes[p];
        merged.insert(nodes[q].begin(), nodes[q].end());
        if (!convex(merged)) continue;
        parts[p].insert(parts[p].end(), parts[q].begin(), parts[q].end());
        nodes[p] = std::move(merged);
        parts.erase(parts.begin() + q);
        nodes.erase(nodes.begin() + q);
        merged_any = true;
        --q;
      }
  }
  return parts;
}

// The graph as the rewrite of one group sees it: nodes by name, their readers
// (data or control), the group's members and the nodes that must stay.
struct GraphView {
  std::map<std::string, const NodeDef*> by_name;
  std::map<std::string, std::vector<std::string>> readers;
  const std::set<std::string>& members;
  const std::set<std::string>& preserve;
};

// A run-time weight as the fused node reads it.
struct WeightInput {
  std::string input;               // the tensor it reads
  std::string source;              // the tensor the group's nodes read (input, or views of it)
  std::vector<std::string> views;  // the nodes from source back to input; they go with the group
  int tensor;
  WeightLayout layout;
};

// Whether only the group (or `next`, the view reading it) reads node `name`.
bool read_only_by_group(const GraphView& g, const std::string& name, const std::string& next) {
  auto it = g.readers.find(name);
  if (it == g.readers.end() || g.preserve.count(name)) return false;
  for (const std::string& r : it->second)
    if (!g.members.count(r) && r != next) return false;
  return true;
}

// Weights read as they are (layout kAsIs) through views (Reshape, Squeeze,
// ExpandDims) that only the group reads hold the viewed tensor's values in
// its order: the fused node reads that tensor, and the views, with shape
// constants only they read, go with the group (TF would run them on every call).
void skip_views(const GraphView& g, WeightInput* w) {
  static const std::set<std::string> kViews = {"Reshape", "Squeeze", "ExpandDims"};
  std::string next;
  while (w->layout == WeightLayout::kAsIs) {
    const std::string name = node_name_of(w->input);
    auto it = g.by_name.find(name);
    if (it == g.by_name.end() || w->input != name + ":0" || !kViews.count(it->second->op())) return;
    const NodeDef& view = *it->second;
    if (view.input_size() < 1 || view.input(0)[0] == '^' || !read_only_by_group(g, name, next)) return;
    w->views.push_back(name);
    for (int i = 1; i < view.input_size(); ++i) {
      const std::string shape = node_name_of(canonical_tensor_name(view.input(i)));
      auto c = g.by_name.find(shape);
      if (c != g.by_name.end() && c->second->op() == "Const" && read_only_by_group(g, shape, name))
        w->views.push_back(shape);
    }
    w->input = canonical_tensor_name(view.input(0));
    next = name;
  }
}

// A node the fused node reads (`inputs`: its data inputs so far, or a
// weight's) stays: a weight whose views hold it reads its source instead (no
// views), until no weight's views hold a node read.
void keep_read_views(const std::set<std::string>& inputs, std::vector<WeightInput>* weights) {
  for (bool changed = true; changed;) {
    changed = false;
    std::set<std::string> read = inputs;
    for (const WeightInput& w : *weights) read.insert(node_name_of(w.input));
    for (WeightInput& w : *weights)
      if (std::any_of(w.views.begin(), w.views.end(), [&](const std::string& v) { return read.count(v) > 0; })) {
        w.input = w.source;
        w.views.clear();
        changed = true;
      }
  }
}

// Removes the named nodes from gd, keeping the others' order.
void remove_nodes(const std::set<std::string>& names, GraphDef* gd) {
  auto* nodes = gd->mutable_node();
  int kept = 0;
  for (int r = 0; r < nodes->size(); ++r) {
    if (names.count(nodes->Get(r).name())) continue;
    if (kept != r) nodes->SwapElements(kept, r);
    ++kept;
  }
  nodes->DeleteSubrange(kept, nodes->size() - kept);
}

}  // namespace

std::vector<std::vector<int>> partitions_of(const Graph& g, const FusionPlan& plan) {
  return Partitioner(g, plan).run();
}


Rewriter::Rewriter(const GraphDef& original, GraphDef* gd, const GraphDefIr& ir, const FusionPlan& plan,
                   const TfOutputInfos& infos, const std::set<std::string>& preserve, const std::string& options)
    : gd_(gd), ir_(ir), plan_(plan), infos_(infos), preserve_(preserve), options_(options) {
  for (const NodeDef& d : original.node()) {
    names_.push_back(d.name());
    original_[d.name()] = &d;
  }
  for (size_t pos = 0; pos < ir.node_index.size(); ++pos) positions_of_[ir.node_index[pos]].push_back(pos);
  serial_ = ir.graph;
  producer_.assign(ir.graph.tensors.size(), -1);
  for (size_t pos = 0; pos < ir.graph.nodes.size(); ++pos)
    for (int t : ir.graph.nodes[pos].outputs) producer_[t] = static_cast<int>(pos);
  for (const auto& [t, source] : ir.run_time_weights) {
    serial_.tensors[t].is_constant = false;
    serial_.tensors[t].data = ConstantData();
  }
  for (const Node& n : ir.graph.nodes)  // the kernel computes them once it has the weights
    if (n.kind == OpKind::kConstant) {
      serial_.tensors[n.outputs[0]].is_constant = false;
      serial_.tensors[n.outputs[0]].data = ConstantData();
    }
}

// The TF nodes of the group, each wholly inside it (all its IR nodes).
std::string Rewriter::members_of(const std::vector<int>& group, std::set<std::string>* members) const {
  const std::set<int> in_group(group.begin(), group.end());
  for (int pos : group) {
    const int index = ir_.node_index[pos];
    if (index < 0) return "the group holds the preserve node";
    for (int other : positions_of_.at(index))
      if (!in_group.count(other)) return "the group holds only part of node " + names_[index];
    members->insert(names_[index]);
    if (auto a = ir_.absorbed.find(index); a != ir_.absorbed.end())
      for (int inside : a->second) members->insert(names_[inside]);
  }
  return "";
}

// The group's run-time inputs: tensors its nodes read that it does not
// compute, less constants (the partition holds them).
std::string Rewriter::inputs_of(const std::vector<int>& group, const std::set<int>& produced,
                                std::vector<int>* in) const {
  for (int pos : group)
    for (int t : ir_.graph.nodes[pos].inputs) {
      const Tensor& x = ir_.graph.tensors[t];
      if (produced.count(t) || (x.is_constant && !x.data.empty())) continue;
      if (std::find(in->begin(), in->end(), t) != in->end()) continue;
      if (ir_.tensor_name[t].empty()) return "it reads a value inside another node's translation";
      if (!x.is_f32()) return "it reads a tensor that is not float32";
      in->push_back(t);
    }
  return in->empty() ? "it has no run-time input" : "";
}

// The group's outputs: what nodes outside read of its members (and the
// first output of each preserved member). A skipped node (a shared Reshape to
// rows) that only members read is not outside: it goes once they do.
std::string Rewriter::outputs_of(const std::set<std::string>& members, const std::set<int>& produced,
                                 std::vector<int>* out) const {
  std::set<int> read;
  auto need = [&](const std::string& canon) {
    auto it = ir_.tensor_of.find(canon);
    if (it == ir_.tensor_of.end() || !produced.count(it->second)) return "output " + canon + " is read outside";
    read.insert(it->second);
    return std::string();
  };
  const auto read_by = readers();
  auto only_members_read = [&](const std::string& name) {
    auto it = read_by.find(name);
    return it == read_by.end() ||
           std::all_of(it->second.begin(), it->second.end(), [&](const std::string& r) { return members.count(r) > 0; });
  };
  for (const NodeDef& d : gd_->node()) {
    if (members.count(d.name()) || (ir_.skipped.count(d.name()) && only_members_read(d.name()))) continue;
    for (const std::string& input : d.input()) {
      const std::string canon = canonical_tensor_name(input);
      if (canon.empty() || !members.count(node_name_of(canon))) continue;
      const std::string why = need(canon);
      if (!why.empty()) return why;
    }
  }
  for (const std::string& m : members) {
    if (!preserve_.count(m)) continue;
    auto info = infos_.find(m);
    if (info != infos_.end() && info->second.size() > 1) return "preserved node " + m + " has several outputs";
    const std::string why = need(m + ":0");
    if (!why.empty()) return why;
  }
  out->assign(read.begin(), read.end());
  return out->empty() ? "nothing outside reads it" : "";
}

// Whether a path leads from the members, through nodes outside, to a node the
// fused node reads (data or control): a cycle once they are one node. Edges
// into members the fused node does not keep (a computed reshape's shape) do
// not count.
bool Rewriter::creates_cycle(const std::set<std::string>& members, const NodeDef& fused) const {
  std::set<std::string> entries;
  for (const std::string& input : fused.input())
    entries.insert(input[0] == '^' ? input.substr(1) : node_name_of(canonical_tensor_name(input)));
  std::map<std::string, std::vector<std::string>> readers = this->readers();
  std::vector<std::string> todo;
  std::set<std::string> seen;
  for (const std::string& m : members)
    for (const std::string& r : readers[m])
      if (!members.count(r) && seen.insert(r).second) todo.push_back(r);
  while (!todo.empty()) {
    const std::string n = todo.back();
    todo.pop_back();
    if (entries.count(n)) return true;
    for (const std::string& r : readers[n])
      if (!members.count(r) && seen.insert(r).second) todo.push_back(r);
  }
  return false;
}

std::string Rewriter::unique_name(const std::string& base) const {
  std::set<std::string> taken;
  for (const NodeDef& d : gd_->node()) taken.insert(d.name());
  std::string name = base;
  for (int i = 1; taken.count(name); ++i) name = base + "_" + std::to_string(i);
  return name;
}

// The members' control inputs from outside, as the fused node's.
void Rewriter::control_inputs(const std::set<std::string>& members, NodeDef* fused) const {
  std::set<std::string> added;
  for (const NodeDef& d : gd_->node()) {
    if (!members.count(d.name())) continue;
    for (const std::string& input : d.input()) {
      if (input[0] != '^' || members.count(input.substr(1))) continue;
      if (added.insert(input).second) fused->add_input(input);
    }
  }
}

void Rewriter::output_shapes(const std::vector<int>& out, NodeDef* fused) const {
  auto* list = (*fused->mutable_attr())["output_shapes"].mutable_list();
  for (int t : out) {
    const std::string& canon = ir_.tensor_name[t];
    auto info = infos_.find(node_name_of(canon));
    const int k = std::stoi(canon.substr(canon.rfind(':') + 1));
    tensorflow::TensorShapeProto* shape = list->add_shape();
    if (info == infos_.end() || k >= static_cast<int>(info->second.size()) || !info->second[k].rank_known) {
      shape->set_unknown_rank(true);
      continue;
    }
    for (int64_t d : info->second[k].dims) shape->add_dim()->set_size(d);
  }
}

// Node name -> the nodes reading it (data or control), in the graph as it is now.
std::map<std::string, std::vector<std::string>> Rewriter::readers() const {
  std::map<std::string, std::vector<std::string>> r;
  for (const NodeDef& d : gd_->node())
    for (const std::string& input : d.input()) {
      const std::string canon = canonical_tensor_name(input);
      r[canon.empty() ? input.substr(1) : node_name_of(canon)].push_back(d.name());
    }
  return r;
}

// The run-time weights the group's anchors read, as the fused node's weight
// inputs (the views they skip join *members); "" or why they cannot be read.
std::string Rewriter::weight_inputs(const std::vector<int>& group, const std::map<int, int>& renumbered,
                                    std::set<std::string>* members, NodeDef* fused) const {
  GraphView graph{{}, readers(), *members, preserve_};
  for (const NodeDef& d : gd_->node()) graph.by_name[d.name()] = &d;
  std::vector<WeightInput> weights;
  std::set<int> seen;
  for (int pos : group)
    for (int t : ir_.graph.nodes[pos].inputs) {
      auto w = ir_.run_time_weights.find(t);
      if (w == ir_.run_time_weights.end() || !seen.insert(t).second) continue;
      const std::string& source = ir_.tensor_name[w->second.source];
      if (source.empty()) return "weights read from a value inside another node's translation";
      for (int member : group)
        for (int t2 : ir_.graph.nodes[member].outputs)
          if (t2 == w->second.source) return "weights computed inside the group";
      auto it = rewired_.find(source);
      const std::string input = it != rewired_.end() ? it->second : source;
      weights.push_back({input, input, {}, t, w->second.layout});
      skip_views(graph, &weights.back());
    }
  std::set<std::string> data_inputs;
  for (const std::string& input : fused->input()) data_inputs.insert(node_name_of(canonical_tensor_name(input)));
  keep_read_views(data_inputs, &weights);
  auto& attrs = *fused->mutable_attr();
  attrs["weight_tensors"].mutable_list();
  attrs["weight_layouts"].mutable_list();
  for (const WeightInput& w : weights) {
    fused->add_input(w.input);
    attrs["weight_tensors"].mutable_list()->add_i(renumbered.at(w.tensor));
    attrs["weight_layouts"].mutable_list()->add_i(static_cast<int>(w.layout));
    members->insert(w.views.begin(), w.views.end());
  }
  attrs["W"].set_i(static_cast<int64_t>(weights.size()));
  return "";
}

// The constant nodes another partition holds (or none) whose values the
// group reads, directly or through each other: the partition computes its own
// copies when it packs its weights. In execution order.
std::vector<int> Rewriter::constants_made_outside(const std::vector<int>& group) const {
  std::set<int> in_group(group.begin(), group.end()), found;
  std::vector<int> todo = group;
  while (!todo.empty()) {
    const int pos = todo.back();
    todo.pop_back();
    for (int t : ir_.graph.nodes[pos].inputs) {
      const int p = producer_[t];
      if (p < 0 || in_group.count(p) || ir_.graph.nodes[p].kind != OpKind::kConstant) continue;
      if (found.insert(p).second) todo.push_back(p);
    }
  }
  return std::vector<int>(found.begin(), found.end());
}

// The FdFusedPartition node for the group; "" or why it cannot be made.
std::string Rewriter::fused_node(const std::vector<std::vector<int>>& groups, std::set<std::string>* members,
                                 const std::vector<int>& in, const std::vector<int>& out, NodeDef* fused) const {
  std::vector<int> group;  // every node, in execution order
  std::vector<Fold> folds;
  for (const std::vector<int>& g : groups) {
    group.insert(group.end(), g.begin(), g.end());
    for (const Fold& f : folds_within(plan_.folds, g)) folds.push_back(f);
  }
  std::vector<std::vector<int>> with_constants = groups;
  const std::vector<int> outside = constants_made_outside(group);
  if (!outside.empty()) with_constants.push_back(outside);  // a group that never runs: computed at packing
  group.insert(group.end(), outside.begin(), outside.end());
  std::sort(group.begin(), group.end());
  std::vector<SliceWrite> writes;
  const std::set<int> in_group(group.begin(), group.end());
  for (const SliceWrite& w : plan_.slice_writes)
    if (in_group.count(w.concat) && in_group.count(w.producer)) writes.push_back(w);
  const std::string bytes = serialize_partition(serial_, with_constants, folds, writes);
  std::string error;
  const std::optional<PartitionGraph> part = parse_partition(bytes, read_anchor_params, &error);
  if (!part) return "the partition does not serialize: " + error;
  std::map<int, int> renumbered;
  for (size_t i = 0; i < part->tensor_origin.size(); ++i) renumbered[part->tensor_origin[i]] = static_cast<int>(i);
  const NodeDef& first = *original_.at(names_[ir_.node_index[group[0]]]);
  fused->set_name(unique_name(names_[ir_.node_index[group.back()]] + "/fd_fused"));
  fused->set_op("FdFusedPartition");
  fused->set_device(first.device());
  auto& attrs = *fused->mutable_attr();
  for (int t : in) {
    auto it = rewired_.find(ir_.tensor_name[t]);
    fused->add_input(it != rewired_.end() ? it->second : ir_.tensor_name[t]);
    attrs["input_tensors"].mutable_list()->add_i(renumbered.at(t));
  }
  const std::string why = weight_inputs(group, renumbered, members, fused);  // the outside constants' weights too
  if (!why.empty()) return why;
  control_inputs(*members, fused);
  for (int t : out) attrs["output_tensors"].mutable_list()->add_i(renumbered.at(t));
  attrs["N"].set_i(static_cast<int64_t>(in.size()));
  attrs["M"].set_i(static_cast<int64_t>(out.size()));
  attrs["partition"].set_s(bytes);
  attrs["options"].set_s(options_);
  // The TF nodes it replaces, for `fusedelegate plan --tf` (an internal attr: no op-def change).
  for (const std::string& m : *members) attrs["_fd_fused_nodes"].mutable_list()->add_s(m);
  output_shapes(out, fused);
  return "";
}

// Removes the members, adds the fused node (and an Identity per preserved
// member) and rewires every reader of a member to it.
void Rewriter::replace(const std::set<std::string>& members, const NodeDef& fused, const std::vector<int>& out) {
  std::map<std::string, std::string> to;  // "member:k" -> "fused:i"
  for (size_t i = 0; i < out.size(); ++i) to[ir_.tensor_name[out[i]]] = fused.name() + ":" + std::to_string(i);
  remove_nodes(members, gd_);
  for (NodeDef& d : *gd_->mutable_node())
    for (std::string& input : *d.mutable_input()) {
      if (input[0] == '^' && members.count(input.substr(1))) input = "^" + fused.name();
      else if (auto it = to.find(canonical_tensor_name(input)); it != to.end()) input = it->second;
    }
  *gd_->add_node() = fused;
  for (const std::string& m : members) {
    if (!preserve_.count(m)) continue;
    NodeDef* id = gd_->add_node();
    id->set_name(m);
    id->set_op("Identity");
    id->set_device(fused.device());
    id->add_input(to.at(m + ":0"));
    (*id->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  }
  for (const auto& [from, into] : to) rewired_[from] = into;
}

// Nodes of no computation that only members read (data or control): Identity
// nodes the translation saw through, reading a member, and Const nodes (their
// values are in the partition; their control inputs, e.g. from constant
// folding, would else lead from the fused node back to it). They go with it.
void Rewriter::absorb_identities(std::set<std::string>* members) const {
  for (bool grew = true; grew;) {
    grew = false;
    std::map<std::string, bool> only_members;  // candidate -> read by members only (so far)
    for (const NodeDef& d : gd_->node())
      for (const std::string& input : d.input()) {
        const std::string from = input[0] == '^' ? input.substr(1) : node_name_of(canonical_tensor_name(input));
        auto orig = original_.find(from);
        if (orig == original_.end() || members->count(from)) continue;
        if (!ir_.aliases.count(from) && orig->second->op() != "Const") continue;
        auto it = only_members.emplace(from, true).first;
        it->second = it->second && members->count(d.name());
      }
    for (const auto& [name, inside] : only_members) {
      const NodeDef* d = original_.at(name);
      const bool reads_member = d->op() == "Const" || members->count(node_name_of(canonical_tensor_name(d->input(0))));
      if (inside && reads_member && !preserve_.count(name)) grew = members->insert(name).second || grew;
    }
  }
}

void Rewriter::drop_unread_skipped() {
  const auto read = readers();
  std::set<std::string> drop;
  for (const std::string& name : ir_.skipped)
    if (!read.count(name) && !preserve_.count(name)) drop.insert(name);
  remove_nodes(drop, gd_);
}

std::string Rewriter::fuse(const std::vector<std::vector<int>>& groups) {
  std::vector<int> group;
  for (const std::vector<int>& g : groups) group.insert(group.end(), g.begin(), g.end());
  std::set<std::string> members;
  std::set<int> produced;
  for (int pos : group)
    for (int t : ir_.graph.nodes[pos].outputs) produced.insert(t);
  std::vector<int> in, out;
  std::string why = members_of(group, &members);
  if (why.empty()) absorb_identities(&members);
  if (why.empty()) why = inputs_of(group, produced, &in);
  if (why.empty()) why = outputs_of(members, produced, &out);
  NodeDef fused;
  if (why.empty()) why = fused_node(groups, &members, in, out, &fused);
  if (why.empty() && creates_cycle(members, fused)) why = "a path leads from the group back into it";
  if (why.empty()) replace(members, fused, out);
  return why;
}

}  // namespace fd
