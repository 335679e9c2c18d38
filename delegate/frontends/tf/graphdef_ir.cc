#include "frontends/tf/graphdef_ir.h"

#include <algorithm>
#include <cstring>
#include <deque>

#include "frontends/tf/tf_names.h"
#include "frontends/tf/tf_ops.h"
#include "frontends/tf/tf_patterns.h"
#include "ir/shape.h"
#include "ops/shape_rules.h"
#include "runtime/constant_nodes.h"
#include "tensorflow/core/framework/graph.pb.h"
#include "tensorflow/core/framework/node_def.pb.h"
#include "tensorflow/core/framework/tensor.pb.h"
#include "tensorflow/core/framework/tensor_shape.pb.h"

namespace fd {

namespace {

std::string node_of(const std::string& input) {
  const std::string name = input[0] == '^' ? input.substr(1) : input;
  const std::string canon = canonical_tensor_name(name);
  return canon.substr(0, canon.rfind(':'));
}

int output_index(const std::string& canon) { return std::stoi(canon.substr(canon.rfind(':') + 1)); }

// Node indices in an order where each node follows its inputs (data and
// control); empty if the graph has a cycle (v1 control flow) or dangling inputs.
std::vector<int> topological_order(const tensorflow::GraphDef& gd) {
  std::map<std::string, int> index;
  for (int i = 0; i < gd.node_size(); ++i) index[gd.node(i).name()] = i;
  std::vector<int> pending(gd.node_size(), 0);
  std::vector<std::vector<int>> readers(gd.node_size());
  for (int i = 0; i < gd.node_size(); ++i)
    for (const std::string& in : gd.node(i).input()) {
      auto it = index.find(node_of(in));
      if (it == index.end()) return {};
      readers[it->second].push_back(i);
      ++pending[i];
    }
  std::deque<int> ready;
  for (int i = 0; i < gd.node_size(); ++i)
    if (!pending[i]) ready.push_back(i);
  std::vector<int> order;
  while (!ready.empty()) {
    const int i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (int r : readers[i])
      if (--pending[r] == 0) ready.push_back(r);
  }
  if (order.size() != static_cast<size_t>(gd.node_size())) order.clear();
  return order;
}

// A Const's float32 / int32 / int64 values (tensor_content, or a typed list,
// one value meaning all); false for other types or inconsistent sizes.
bool constant_values(const tensorflow::TensorProto& p, Tensor* t) {
  const int width = p.dtype() == tensorflow::DT_FLOAT || p.dtype() == tensorflow::DT_INT32 ? 4 : 8;
  if (p.dtype() != tensorflow::DT_FLOAT && p.dtype() != tensorflow::DT_INT32 && p.dtype() != tensorflow::DT_INT64)
    return false;
  const int64_t count = num_elements(t->shape);
  std::vector<uint8_t> bytes(count * width);
  if (!p.tensor_content().empty()) {
    if (p.tensor_content().size() != bytes.size()) return false;
    std::memcpy(bytes.data(), p.tensor_content().data(), bytes.size());
  } else {
    const int listed = p.dtype() == tensorflow::DT_FLOAT   ? p.float_val_size()
                       : p.dtype() == tensorflow::DT_INT32 ? p.int_val_size()
                                                           : p.int64_val_size();
    if (count > 0 && (listed == 0 || listed > count)) return false;
    for (int64_t i = 0; i < count; ++i) {
      const int k = static_cast<int>(std::min<int64_t>(i, listed - 1));
      const float f = p.dtype() == tensorflow::DT_FLOAT ? p.float_val(k) : 0.f;
      const int32_t v32 = p.dtype() == tensorflow::DT_INT32 ? p.int_val(k) : 0;
      const int64_t v64 = p.dtype() == tensorflow::DT_INT64 ? p.int64_val(k) : 0;
      std::memcpy(bytes.data() + i * width, width == 8 ? static_cast<const void*>(&v64)
                                            : p.dtype() == tensorflow::DT_FLOAT ? static_cast<const void*>(&f)
                                                                                : static_cast<const void*>(&v32), width);
    }
  }
  t->data = ConstantData::copy_of(bytes.data(), bytes.size());
  return true;
}

}  // namespace

DType dtype_from_tf(int tf_type) {
  switch (tf_type) {
    case tensorflow::DT_FLOAT: return DType::kF32;
    case tensorflow::DT_HALF: return DType::kF16;
    case tensorflow::DT_INT8: return DType::kI8;
    case tensorflow::DT_UINT8: return DType::kU8;
    case tensorflow::DT_INT32: return DType::kI32;
    case tensorflow::DT_INT64: return DType::kI64;
    case tensorflow::DT_BOOL: return DType::kBool;
    default: return DType::kOther;
  }
}

namespace {

// An IR tensor from what shape inference knows (see the header for unknown dims).
Tensor tensor_from_info(const TfOutputInfo* info) {
  Tensor t;
  if (!info || !info->rank_known) {
    t.dtype = info ? info->dtype : DType::kOther;
    t.has_dynamic_shape = true;
    return t;
  }
  t.dtype = info->dtype;
  if (!info->planned.empty() && info->planned.size() == info->dims.size()) {
    t.shape = info->planned;
    return t;
  }
  t.shape = info->dims;
  for (size_t i = 0; i < t.shape.size(); ++i) {
    if (t.shape[i] >= 0) continue;
    if (i != 0 || t.shape.size() < 2) t.has_dynamic_shape = true;
    t.shape[i] = 1;
  }
  return t;
}

class Translator {
 public:
  Translator(const tensorflow::GraphDef& gd, const TfOutputInfos& infos) : gd_(gd), infos_(infos) {}
  GraphDefIr run(const std::set<std::string>& preserve);

 private:
  int tensor(const std::string& canon);
  void add_const(const tensorflow::NodeDef& d);
  void add_node(int index);
  bool add_pattern(int index);
  bool tensordot_fits(int root, const TfPattern& p) const;
  bool add_tensordot(int index, const TfPattern& p);
  void skip_shared_rows();
  void add_translation(int index, const tensorflow::NodeDef& d, const std::vector<int>& inputs,
                       const std::vector<int>& outputs);
  void add_preserve_node(const std::set<std::string>& preserve);
  int outputs_of(const tensorflow::NodeDef& d) const;
  bool on_cpu(const tensorflow::NodeDef& d) const;

  const tensorflow::GraphDef& gd_;
  const TfOutputInfos& infos_;
  void mark_stable(const tensorflow::NodeDef& d, const std::vector<int>& inputs, const std::vector<int>& outputs);
  void weights_as_constants(Node& n);
  int placeholder_of(int variable);

  std::map<std::string, int> referenced_outputs_;  // node name -> 1 + the highest output index read
  std::set<int> stable_;  // tensors weights may be read from at run time
  std::set<int> variables_;  // of those, the values of variables (ReadVariableOp, views of them)
  std::map<int, int> placeholder_of_;  // variable tensor -> the constant an elementwise node reads
  std::map<int, TfPattern> patterns_;  // by root GraphDef index
  std::set<int> absorbed_;             // nodes inside a pattern, not its root
  GraphDefIr ir_;
};

int Translator::tensor(const std::string& canon) {
  auto it = ir_.tensor_of.find(canon);
  if (it != ir_.tensor_of.end()) return it->second;
  const std::string node = canon.substr(0, canon.rfind(':'));
  const int k = output_index(canon);
  auto info = infos_.find(node);
  const bool known = info != infos_.end() && k < static_cast<int>(info->second.size());
  ir_.graph.tensors.push_back(tensor_from_info(known ? &info->second[k] : nullptr));
  const int t = static_cast<int>(ir_.graph.tensors.size()) - 1;
  ir_.tensor_name.resize(t + 1);  // tensors a translation added have no name
  ir_.tensor_name[t] = canon;
  ir_.tensor_of[canon] = t;
  return t;
}

int Translator::outputs_of(const tensorflow::NodeDef& d) const {
  auto info = infos_.find(d.name());
  auto ref = referenced_outputs_.find(d.name());
  const int known = info == infos_.end() ? 0 : static_cast<int>(info->second.size());
  return std::max(known, ref == referenced_outputs_.end() ? 0 : ref->second);
}

bool Translator::on_cpu(const tensorflow::NodeDef& d) const {
  return d.device().empty() || d.device().find("CPU") != std::string::npos;
}

void Translator::add_const(const tensorflow::NodeDef& d) {
  const int t = tensor(d.name() + ":0");
  Tensor& x = ir_.graph.tensors[t];
  auto value = d.attr().find("value");
  if (value == d.attr().end()) return;
  const tensorflow::TensorProto& p = value->second.tensor();
  x.shape.clear();
  for (const auto& dim : p.tensor_shape().dim()) x.shape.push_back(dim.size());
  x.dtype = dtype_from_tf(p.dtype());
  x.has_dynamic_shape = false;
  x.is_constant = constant_values(p, &x);
}

// A Tensordot pattern's shapes: input [..., k] (or dims that make up k, as
// attention's heads) whose rows the MatMul takes, the root's output [..., n]
// (the same leading dims) its rows reshaped back; shapes computed from an
// unknown batch compare as at batch 1.
bool Translator::tensordot_fits(int root, const TfPattern& p) const {
  auto dims = [&](const std::string& input) -> const Shape* {
    const std::string canon = canonical_tensor_name(input);
    auto it = infos_.find(node_of(canon));
    const int k = output_index(canon);
    if (it == infos_.end() || k >= static_cast<int>(it->second.size()) || !it->second[k].rank_known) return nullptr;
    const TfOutputInfo& info = it->second[k];
    return info.planned.empty() ? &info.dims : &info.planned;  // a computed shape: as at batch 1
  };
  const Shape *x = dims(p.input), *rows = dims(gd_.node(p.matmul).input(0)), *out = dims(gd_.node(root).name());
  const Shape* mm = dims(gd_.node(p.matmul).name());
  if (!x || !rows || !out || !mm || x->size() < 2 || rows->size() != 2 || mm->size() != 2) return false;
  if (std::any_of(x->begin(), x->end(), [](int64_t d) { return d < 0; })) return false;
  return fully_connected_shape(*x, {mm->back(), rows->back()}, true) == *out;
}

// Reshapes to rows that several Tensordots share, read by nothing else: no IR
// node (each Tensordot reads the input itself); TF drops them after the rewrite.
void Translator::skip_shared_rows() {
  std::map<std::string, bool> only_patterns;
  for (const auto& [root, p] : patterns_)
    if (p.shared_rows >= 0 && on_cpu(gd_.node(root))) only_patterns[gd_.node(p.shared_rows).name()] = true;
  for (int i = 0; i < gd_.node_size(); ++i)
    for (const std::string& in : gd_.node(i).input()) {
      auto it = only_patterns.find(in[0] == '^' ? in.substr(1) : node_of(canonical_tensor_name(in)));
      if (it != only_patterns.end() && !absorbed_.count(i)) it->second = false;
    }
  for (const auto& [name, skip] : only_patterns)
    if (skip) ir_.skipped.insert(name);
}

// The root of a pattern (tf_patterns.h) on the CPU: its one IR node.
bool Translator::add_pattern(int index) {
  auto p = patterns_.find(index);
  const tensorflow::NodeDef& d = gd_.node(index);
  if (p == patterns_.end() || !on_cpu(d)) return false;
  if (p->second.matmul >= 0) return add_tensordot(index, p->second);
  Node n;
  n.id = index;
  n.name = std::string(ew_name(p->second.op));
  n.kind = OpKind::kElementwise;
  n.ew = p->second.op;
  n.inputs = {tensor(canonical_tensor_name(p->second.input))};
  for (int k = 0; k < outputs_of(d); ++k) n.outputs.push_back(tensor(d.name() + ":" + std::to_string(k)));
  if (n.outputs.size() != 1) return false;
  ir_.absorbed[index] = p->second.absorbed;
  ir_.node_index.push_back(index);
  ir_.graph.nodes.push_back(std::move(n));
  return true;
}

// A Tensordot as one FULLY_CONNECTED keeping the input's leading dims (opaque
// if the MatMul does not translate: TF then keeps all three nodes).
bool Translator::add_tensordot(int index, const TfPattern& p) {
  const tensorflow::NodeDef& m = gd_.node(p.matmul);
  const std::vector<int> inputs = {tensor(canonical_tensor_name(p.input)), tensor(canonical_tensor_name(m.input(1)))};
  add_translation(index, m, inputs, {tensor(gd_.node(index).name() + ":0")});
  ir_.absorbed[index] = p.absorbed;
  return true;
}

void Translator::add_node(int index) {
  const tensorflow::NodeDef& d = gd_.node(index);
  if (d.op() == "Const") return add_const(d);
  if (add_pattern(index)) return;
  std::vector<int> inputs;
  bool control = false;
  for (const std::string& in : d.input()) {
    if (in[0] == '^') control = true;
    else inputs.push_back(tensor(canonical_tensor_name(in)));
  }
  if (d.op() == "Identity" && !control && inputs.size() == 1 && !ir_.tensor_of.count(d.name() + ":0")) {
    ir_.tensor_of[d.name() + ":0"] = inputs[0];
    ir_.aliases.insert(d.name());
    return;
  }
  std::vector<int> outputs;
  for (int k = 0; k < outputs_of(d); ++k) outputs.push_back(tensor(d.name() + ":" + std::to_string(k)));
  mark_stable(d, inputs, outputs);
  add_translation(index, d, inputs, outputs);
}

// The IR nodes of `d` (GraphDef node `index`, or the root of a pattern that
// `d` translates) reading `inputs`, writing `outputs`: its translation, else
// one opaque node (with the reason it stays).
void Translator::add_translation(int index, const tensorflow::NodeDef& d, const std::vector<int>& inputs,
                                 const std::vector<int>& outputs) {
  std::vector<Node> nodes;
  const TfWeights weights{&stable_, &ir_.run_time_weights};
  const std::string why =
      on_cpu(d) ? translate_tf_node(d, inputs, outputs, weights, &ir_.graph, &nodes) : "not on the CPU";
  if (!why.empty()) {
    nodes.assign(1, Node{});
    nodes[0].inputs = inputs;
    nodes[0].outputs = outputs;
  }
  for (Node& n : nodes) {
    n.id = index;
    if (n.name.empty()) n.name = d.op();  // a translation may name the nodes it adds (a fused activation)
    if (!why.empty()) ir_.declined[static_cast<int>(ir_.graph.nodes.size())] = why;
    weights_as_constants(n);
    ir_.node_index.push_back(index);
    ir_.graph.nodes.push_back(std::move(n));
    if (ir_.graph.nodes.back().kind == OpKind::kConstant)
      compute_constant_node(&ir_.graph, static_cast<int>(ir_.graph.nodes.size()) - 1);
  }
}

// The constant a variable's elementwise readers read: filled at run time.
int Translator::placeholder_of(int variable) {
  auto it = placeholder_of_.find(variable);
  if (it != placeholder_of_.end()) return it->second;
  const TfWeights weights{&stable_, &ir_.run_time_weights};
  const Shape shape = ir_.graph.tensors[variable].shape;
  return placeholder_of_[variable] = run_time_placeholder(&ir_.graph, variable, WeightLayout::kAsIs, shape, weights);
}

// Elementwise math on weights alone (constants, variables: a batch norm's
// vectors) becomes a constant node, computed whenever the weights are packed,
// so that the planner sees constants (and folds them into the convolution).
// Other elementwise nodes read a variable as a constant filled at run time.
void Translator::weights_as_constants(Node& n) {
  if (n.kind != OpKind::kElementwise) return;
  bool weights_only = true, reads_variable = false;
  for (int t : n.inputs) {
    reads_variable = reads_variable || variables_.count(t);
    weights_only = weights_only && (variables_.count(t) || ir_.graph.tensors[t].is_constant);
  }
  if (!reads_variable && !weights_only) return;
  Node trial = n;
  for (int& t : trial.inputs)
    if (variables_.count(t)) t = placeholder_of(t);
  if (!weights_only) {
    n = std::move(trial);
    return;
  }
  if (!computes_constant(ir_.graph, trial)) return;
  trial.kind = OpKind::kConstant;
  n = std::move(trial);
}

// Outputs of variables and arguments with a static float32 shape: values that
// change rarely, if at all, so weights may be packed from them.
// So are views of them (a bias reshaped for broadcasting, then squeezed).
void Translator::mark_stable(const tensorflow::NodeDef& d, const std::vector<int>& inputs,
                             const std::vector<int>& outputs) {
  const bool source = d.op() == "ReadVariableOp" || d.op() == "_Arg" || d.op() == "Placeholder";
  const bool view = d.op() == "Reshape" || d.op() == "Squeeze" || d.op() == "ExpandDims";
  if (!source && !(view && !inputs.empty() && stable_.count(inputs[0]))) return;
  auto info = infos_.find(d.name());
  if (info == infos_.end() || outputs.size() != 1 || info->second.size() != 1) return;
  const TfOutputInfo& o = info->second[0];
  bool all_known = o.rank_known && o.dtype == DType::kF32;
  for (int64_t dim : o.dims) all_known = all_known && dim >= 0;
  if (!all_known) return;
  stable_.insert(outputs[0]);
  if (d.op() == "ReadVariableOp" || (view && variables_.count(inputs[0]))) variables_.insert(outputs[0]);
}

// An opaque reader of every output of the preserved nodes.
void Translator::add_preserve_node(const std::set<std::string>& preserve) {
  Node n;
  n.name = "_preserve";
  for (const tensorflow::NodeDef& d : gd_.node()) {
    if (!preserve.count(d.name())) continue;
    for (int k = 0; k < std::max(1, outputs_of(d)); ++k) {
      auto it = ir_.tensor_of.find(d.name() + ":" + std::to_string(k));
      if (it != ir_.tensor_of.end()) n.inputs.push_back(it->second);
    }
  }
  if (n.inputs.empty()) return;
  n.id = -1;
  ir_.node_index.push_back(-1);
  ir_.graph.nodes.push_back(std::move(n));
}

GraphDefIr Translator::run(const std::set<std::string>& preserve) {
  const std::vector<int> order = topological_order(gd_);
  if (order.empty() && gd_.node_size() > 0) {
    ir_.error = "the graph has cycles (v1 control flow) or inputs from nodes it does not hold";
    return std::move(ir_);
  }
  for (const tensorflow::NodeDef& d : gd_.node())
    for (const std::string& in : d.input()) {
      const std::string canon = canonical_tensor_name(in);
      if (canon.empty()) continue;
      int& n = referenced_outputs_[node_of(canon)];
      n = std::max(n, output_index(canon) + 1);
    }
  patterns_ = find_tf_patterns(gd_);
  for (auto it = patterns_.begin(); it != patterns_.end();)
    it = it->second.matmul >= 0 && !tensordot_fits(it->first, it->second) ? patterns_.erase(it) : std::next(it);
  for (const auto& [root, p] : patterns_)
    if (on_cpu(gd_.node(root))) absorbed_.insert(p.absorbed.begin(), p.absorbed.end());
  skip_shared_rows();
  for (int i : order)
    if (!absorbed_.count(i) && !ir_.skipped.count(gd_.node(i).name())) add_node(i);
  add_preserve_node(preserve);
  ir_.tensor_name.resize(ir_.graph.tensors.size());
  return std::move(ir_);
}

}  // namespace

GraphDefIr graph_from_graphdef(const tensorflow::GraphDef& gd, const TfOutputInfos& infos,
                               const std::set<std::string>& preserve) {
  return Translator(gd, infos).run(preserve);
}

}  // namespace fd
