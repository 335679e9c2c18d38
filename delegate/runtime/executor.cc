#include "runtime/executor.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>

#include "ir/shape.h"
#include "ops/op_classes.h"
#include "ops/concatenation.h"
#include "ops/reshape.h"
#include "ops/shape_rules.h"
#include "runtime/tiling.h"

namespace fd {
namespace {

// Which group (index into `groups`) produces each tensor the groups output at
// run time (a constant node's values are there before anything runs).
std::map<int, int> group_of_output(const Graph& g, const std::vector<std::vector<int>>& groups) {
  std::map<int, int> of;
  for (size_t k = 0; k < groups.size(); ++k)
    for (int pos : groups[k])
      if (g.nodes[pos].kind != OpKind::kConstant) of[g.nodes[pos].outputs[0]] = static_cast<int>(k);
  return of;
}

// Orders the groups so each runs after the groups it reads from. Groups that
// still depend on each other (the planner prevents it; this is a guard) run
// node by node, in execution order.
std::vector<std::vector<int>> order_groups(const Graph& g, const std::vector<std::vector<int>>& groups) {
  const std::map<int, int> producer = group_of_output(g, groups);
  std::vector<std::vector<int>> ordered;
  std::vector<bool> done(groups.size(), false);
  size_t placed = 0;
  for (bool progress = true; progress && placed < groups.size();) {
    progress = false;
    for (size_t k = 0; k < groups.size(); ++k) {
      if (done[k]) continue;
      bool ready = true;
      for (int pos : groups[k])
        for (int t : g.nodes[pos].inputs)
          if (auto it = producer.find(t); it != producer.end() && it->second != static_cast<int>(k))
            ready &= done[it->second];
      if (!ready) continue;
      done[k] = progress = true;
      ++placed;
      ordered.push_back(groups[k]);
    }
  }
  std::vector<int> rest;
  for (size_t k = 0; k < groups.size(); ++k)
    if (!done[k]) rest.insert(rest.end(), groups[k].begin(), groups[k].end());
  std::sort(rest.begin(), rest.end());
  for (int pos : rest) ordered.push_back({pos});
  return ordered;
}

// A group's value reaches memory when the partition exports it or another
// group reads it.
std::vector<bool> written_tensors(const Graph& g, const std::vector<std::vector<int>>& groups,
                                  const std::set<int>& exported) {
  const std::map<int, int> producer = group_of_output(g, groups);
  std::vector<bool> written(g.tensors.size(), false);
  for (int t : exported) written[t] = true;
  for (size_t k = 0; k < groups.size(); ++k)
    for (int pos : groups[k])
      for (int t : g.nodes[pos].inputs)
        if (auto it = producer.find(t); it != producer.end() && it->second != static_cast<int>(k)) written[t] = true;
  return written;
}

}  // namespace

Executor::Executor(std::shared_ptr<const Graph> graph, const std::vector<std::vector<int>>& groups,
                   const std::vector<Fold>& folds, std::set<int> exported, const Kernels& kernels,
                   const std::vector<SliceWrite>& slice_writes, std::vector<bool> rounds_as_builtin)
    : graph_(std::move(graph)), kernels_(kernels), exported_(std::move(exported)),
      rounded_(std::move(rounds_as_builtin)) {
  groups_ = order_groups(*graph_, groups);
  for (const auto& members : groups_)  // constant nodes never run; an exported one is copied out
    for (int pos : members)
      if (graph_->nodes[pos].kind == OpKind::kConstant && exported_.count(graph_->nodes[pos].outputs[0]))
        constant_exports_.push_back(graph_->nodes[pos].outputs[0]);
  // A partition may cut constant nodes off from their layer: nothing to run.
  const Graph& g = *graph_;
  groups_.erase(std::remove_if(groups_.begin(), groups_.end(), [&](const auto& m) { return g.only_constants(m); }),
                groups_.end());
  for (const auto& members : groups_)
    for (int pos : members)
      if (g.nodes[pos].shape_input >= 0) shape_checks_.push_back({pos, {}});
  written_ = written_tensors(*graph_, groups_, exported_);
  find_in_place(slice_writes);
  for (const auto& members : groups_)
    planned_.push_back(build_program(*graph_, members, folds, written_, kernels_, in_place_tensors(), rounded_));
  for (const Fold& f : folds)
    if (f.nodes.empty()) node_folds_.push_back(f);
}

std::set<int> Executor::in_place_tensors() const {
  std::set<int> tensors;
  for (const auto& [t, concat] : in_place_) tensors.insert(t);
  return tensors;
}

// The plan's slice writes whose producer and CONCATENATION both run here, of
// a part no one outside reads.
void Executor::find_in_place(const std::vector<SliceWrite>& slice_writes) {
  std::set<int> here;
  for (const auto& members : groups_) here.insert(members.begin(), members.end());
  for (const SliceWrite& w : slice_writes) {
    const int t = graph_->nodes[w.concat].inputs[w.operand];
    if (here.count(w.concat) && here.count(w.producer) && !exported_.count(t)) in_place_[t] = w.concat;
  }
}

Shape Executor::shape_of(const TensorHost& host, int t) const {
  auto it = owned_shape_.find(t);
  return it != owned_shape_.end() ? it->second : host.shape(t);
}

// Each part written in place learns where its rows go: the program computing
// it stores them strided into the CONCATENATION's output. It then owns no buffer.
void Executor::bind_slices(const TensorHost& host) {
  slice_of_.clear();
  for (const auto& [t, c] : in_place_) {
    const Node& concat = graph_->nodes[c];
    std::vector<Shape> parts;
    for (int part : concat.inputs) parts.push_back(shape_of(host, part));
    const auto layout = concatenation_layout(std::move(parts), params_as<ConcatenationParams>(concat.params));
    const size_t i = std::find(concat.inputs.begin(), concat.inputs.end(), t) - concat.inputs.begin();
    if (!layout) continue;  // the program's bind says why
    const ConcatSlice slice = layout->slices[i];
    slice_of_[t] = Slice{concat.outputs[0], slice.offset};
    for (size_t k = 0; k < programs_.size(); ++k)
      for (size_t o = 0; o < programs_[k].outputs.size(); ++o)
        if (programs_[k].outputs[o] == t && slice.rows > 1 && slice.len < slice.stride)
          bound_[k]->write_output_strided(static_cast<int>(o), slice.len, slice.stride);
  }
  for (const auto& [t, slice] : slice_of_) owned_shape_.erase(t);
}

std::vector<int64_t> Executor::strip_rows() const {
  std::vector<int64_t> rows(labels_.size(), 0);
  for (const DepthFirstChain& c : chains_)
    for (int k = c.first(); k < c.first() + c.size(); ++k) rows[k] = c.strip_rows();
  return rows;
}

// Binds p and records its outputs' shapes; false if p cannot run (mixed: the
// group's values no longer share one shape, and no error is reported).
bool Executor::bind(TensorHost& host, const Program& p, const std::vector<int>& nodes, bool* mixed) {
  std::vector<Shape> shapes;
  for (int t : p.inputs) shapes.push_back(shape_of(host, t));
  std::string error;
  auto b = BoundProgram::bind(p, shapes, *kernels_.ew, &error, mixed);
  if (!b) {
    if (!mixed || !*mixed) host.error(error);
    return false;
  }
  for (size_t o = 0; o < p.outputs.size(); ++o) {
    const int t = p.outputs[o];
    const Shape& s = b->output_shapes()[o];
    if (!exported_.count(t)) owned_shape_[t] = s;
    else if (host.shape(t) != s && !host.resize(t, s)) return false;
  }
  programs_.push_back(p);
  bound_.push_back(std::move(b));
  std::string label;
  for (int pos : nodes) label += (label.empty() ? "" : "+") + graph_->nodes[pos].name;
  labels_.push_back(label);
  return true;
}

// The group's planned program, or after a resize that left its values of
// different shapes, one program per node.
bool Executor::bind_group(TensorHost& host, size_t k) {
  bool mixed = false;
  if (bind(host, planned_[k], groups_[k], &mixed)) return true;
  if (!mixed) return false;
  for (int pos : groups_[k]) {
    if (graph_->nodes[pos].kind == OpKind::kConstant) continue;  // its anchor packs it
    std::vector<bool> written = written_;
    written[graph_->nodes[pos].outputs[0]] = true;
    if (!bind(host, build_program(*graph_, {pos}, node_folds_, written, kernels_, in_place_tensors(), rounded_),
              {pos}, nullptr))
      return false;
  }
  return true;
}

bool Executor::prepare(TensorHost& host, int threads) {
  programs_.clear();
  bound_.clear();
  labels_.clear();
  owned_shape_.clear();  // refilled below before any program reads it
  for (size_t k = 0; k < groups_.size(); ++k)
    if (!bind_group(host, k)) return false;
  for (ShapeCheck& c : shape_checks_) c.input = shape_of(host, graph_->nodes[c.node].inputs[0]);
  threads_ = threads;
  bind_slices(host);
  chains_ = DepthFirstChain::find(programs_, bound_, exported_, tiling().depth_first_min_bytes,
                                 tiling().depth_first_budget_bytes, threads);
  for (const DepthFirstChain& c : chains_)  // the tensors between links live in the chain's rings
    for (int k = c.first(); k + 1 < c.first() + c.size(); ++k) owned_shape_.erase(programs_[k].outputs[0]);
  find_aliases();
  assign_buffers();
  return true;
}

// A lone RESHAPE (EXPAND_DIMS, SQUEEZE) of an owned tensor into an owned
// tensor does not run: its output is its input's buffer under another shape.
void Executor::find_aliases() {
  alias_of_.clear();
  skipped_.assign(programs_.size(), false);
  for (size_t k = 0; k < programs_.size(); ++k) {
    const Program& p = programs_[k];
    const bool reshape = p.code.size() == 1 && p.code[0].anchor >= 0 && relabels(p.anchors[0].op);
    if (reshape && owned_shape_.count(p.inputs[0]) && owned_shape_.count(p.outputs[0])) {
      alias_of_[p.outputs[0]] = p.inputs[0];
      skipped_[k] = true;
    }
  }
}

// Gives each owned tensor a buffer, reusing the buffers of tensors no later
// program reads (a program's outputs never share with its inputs). A chain runs
// its programs interleaved: what any of them reads stays live to its end.
void Executor::assign_buffers() {
  std::vector<size_t> end(programs_.size());
  for (size_t k = 0; k < end.size(); ++k) end[k] = k;
  for (const DepthFirstChain& c : chains_)
    for (int k = c.first(); k < c.first() + c.size(); ++k) end[k] = c.first() + c.size() - 1;
  auto root = [&](int t) {  // the tensor whose buffer t uses
    for (auto it = alias_of_.find(t); it != alias_of_.end(); it = alias_of_.find(t)) t = it->second;
    return t;
  };
  std::map<int, size_t> last_read;  // by root
  for (size_t k = 0; k < programs_.size(); ++k)
    for (int t : programs_[k].inputs) last_read[root(t)] = std::max(last_read[root(t)], end[k]);
  std::vector<int> free(buffers_.size());  // buffer indices: the last binding's, reused
  std::iota(free.begin(), free.end(), 0);
  owned_.clear();
  for (size_t k = 0; k < programs_.size(); ++k) {
    if (skipped_[k]) continue;
    for (int t : programs_[k].outputs) {  // a part written in place: its whole's buffer, from its first part on
      auto slice = slice_of_.find(t);
      const int home = slice != slice_of_.end() ? slice->second.whole : t;
      auto shape = owned_shape_.find(home);
      if (shape != owned_shape_.end() && !owned_.count(home)) owned_[home] = take_buffer(free, num_elements(shape->second));
    }
    std::set<int> dying;
    for (int t : programs_[k].inputs)
      if (owned_.count(root(t)) && last_read[root(t)] == k) dying.insert(root(t));
    for (int t : dying) free.push_back(owned_[t]);
  }
  for (const auto& [t, source] : alias_of_) owned_[t] = owned_.at(root(source));
  release_unowned_buffers();
}

size_t Executor::owned_floats() const {
  size_t floats = 0;
  for (const auto& b : buffers_) floats += b.capacity();
  return floats;
}

// Frees the storage of buffers no tensor took (a resize to smaller shapes).
void Executor::release_unowned_buffers() {
  std::vector<bool> owned(buffers_.size(), false);
  for (const auto& [t, b] : owned_) owned[b] = true;
  for (size_t b = 0; b < buffers_.size(); ++b)
    if (!owned[b]) decltype(buffers_)::value_type().swap(buffers_[b]);
}

// The smallest free buffer that holds `need` floats, else the largest one,
// grown, else a new one.
int Executor::take_buffer(std::vector<int>& free, size_t need) {
  auto size = [&](std::vector<int>::iterator it) { return buffers_[*it].size(); };
  auto best = free.end();
  for (auto it = free.begin(); it != free.end(); ++it)
    if (size(it) >= need && (best == free.end() || size(it) < size(best))) best = it;
  for (auto it = free.begin(); best == free.end() && it != free.end(); ++it)
    if (best == free.end() || size(it) > size(best)) best = it;
  int b;
  if (best == free.end()) {
    b = static_cast<int>(buffers_.size());
    buffers_.emplace_back();
  } else {
    b = *best;
    free.erase(best);
  }
  if (buffers_[b].size() < need) buffers_[b].resize(need);
  return b;
}

float* Executor::data(const TensorHost& host, int t) {
  // A constant's values as the graph holds them (a claimed DEQUANTIZE's, which the host never computes).
  if (const Tensor& c = graph_->tensors[t]; c.is_constant && c.f32_data()) return const_cast<float*>(c.f32_data());
  if (auto slice = slice_of_.find(t); slice != slice_of_.end())
    return data(host, slice->second.whole) + slice->second.offset;
  auto it = owned_.find(t);
  return it != owned_.end() ? buffers_[it->second].data() : host.data(t);
}

// Each RESHAPE bound to its signature: the shape its input computed this run
// gives the output it was bound to.
bool Executor::shapes_computed_as_bound(TensorHost& host) const {
  for (const ShapeCheck& c : shape_checks_) {
    const Node& n = graph_->nodes[c.node];
    const auto values = host.ints(n.shape_input);
    const std::vector<int64_t>& signature = params_as<ReshapeParams>(n.params).shape;
    const auto bound = reshape_shape(c.input, signature);
    if (values && reshape_shape(c.input, *values) == bound) continue;
    host.error(n.name + " computed a shape other than its signature " + fd::to_string(signature) +
               " gives: the model was resized past its signature");
    return false;
  }
  return true;
}

bool Executor::invoke(TensorHost& host, ThreadPool* pool, double* seconds) {
  if (!shapes_computed_as_bound(host)) return false;
  const std::function<float*(int)> data = [&](int t) { return this->data(host, t); };
  for (int t : constant_exports_) {  // a folded constant node does not run
    const Tensor& c = graph_->tensors[t];
    std::memcpy(host.data(t), c.f32_data(), num_elements(c.shape) * sizeof(float));
  }
  size_t next_chain = 0;
  for (size_t k = 0; k < programs_.size(); ++k) {
    if (next_chain < chains_.size() && chains_[next_chain].first() == static_cast<int>(k)) {
      const DepthFirstChain& c = chains_[next_chain++];
      c.run(programs_, bound_, data, seconds ? seconds + k : nullptr, pool);
      k += c.size() - 1;
      continue;
    }
    if (skipped_[k]) continue;  // an alias
    const Program& p = programs_[k];
    in_.clear();
    out_.clear();
    for (int t : p.inputs) in_.push_back(data(t));
    for (int t : p.outputs) out_.push_back(data(t));
    const auto t0 = seconds ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    bound_[k]->run(in_.data(), out_.data(), pool);
    if (seconds) seconds[k] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  return true;
}

}  // namespace fd
