#include "ir/serialize.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "ir/shape.h"
#include "ir/wire.h"

namespace fd {
namespace {

constexpr char kMagic[8] = {'F', 'D', 'P', 'A', 'R', 'T', 0, 0};
constexpr size_t kHeaderBytes = sizeof(kMagic) + 4 + 8 + 8;

uint64_t fnv1a(const char* p, size_t n) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<uint8_t>(p[i])) * 1099511628211ull;
  return h;
}

// Whether a byte read back names a value of its enum. Each switch lists every
// value with no default, so a value added to an enum is a -Wswitch warning
// here, and strings holding it are refused, until it is listed. Enums are
// stored by number: append new values (inserting one renumbers the rest:
// raise kPartitionFormatVersion).
bool known(DType v) {
  switch (v) {
    case DType::kF32: case DType::kF16: case DType::kI8: case DType::kU8:
    case DType::kI32: case DType::kI64: case DType::kBool: case DType::kOther: return true;
  }
  return false;
}
bool known(OpKind v) {
  switch (v) {
    case OpKind::kElementwise: case OpKind::kAnchor: case OpKind::kPad: case OpKind::kConstant:
    case OpKind::kOpaque:
      return true;
  }
  return false;
}
bool known(EwOp v) { return v <= EwOp::kCount; }  // kCount: not an elementwise node
bool known(AnchorOp v) {
  switch (v) {
    case AnchorOp::kFullyConnected: case AnchorOp::kConv2D: case AnchorOp::kDepthwiseConv2D:
    case AnchorOp::kMaxPool2D: case AnchorOp::kAveragePool2D: case AnchorOp::kMean: case AnchorOp::kPad:
    case AnchorOp::kBatchMatMul: case AnchorOp::kSoftmax: case AnchorOp::kRowReduce: case AnchorOp::kReshape:
    case AnchorOp::kTranspose: case AnchorOp::kConcatenation: case AnchorOp::kResizeBilinear:
    case AnchorOp::kResizeNearest: case AnchorOp::kTransposeConv: case AnchorOp::kExpandDims:
    case AnchorOp::kSqueeze: return true;
    case AnchorOp::kIndexView: return false;  // its parameters (Node::params) are not written: TF makes none
  }
  return false;
}
bool known(Activation v) {
  switch (v) {
    case Activation::kNone: case Activation::kRelu: case Activation::kReluN1To1: case Activation::kRelu6:
    case Activation::kUnsupported: return true;
  }
  return false;
}
bool known(FoldKind v) {
  switch (v) {
    case FoldKind::kPad: case FoldKind::kChannelScale: case FoldKind::kInputAffine: case FoldKind::kTranspose:
    case FoldKind::kConstant: case FoldKind::kOutputAffine: case FoldKind::kSwish: case FoldKind::kMultiplyAdd:
    case FoldKind::kSquare: case FoldKind::kSqrt: return true;
  }
  return false;
}

// An enum stored as a byte (every enum of the IR is uint8_t-based, so any
// byte converts), checked by known().
template <class E>
E read_enum(WireReader& r, const char* what) {
  const uint8_t v = r.u8();
  if (!known(static_cast<E>(v))) r.fail(std::string("corrupt: ") + what + " " + std::to_string(v) + " out of range");
  return static_cast<E>(v);
}

// Every field of each struct is named by a structured binding, in writing and
// in reading: a field added to the IR stops this file compiling until it is
// serialised too (and kPartitionFormatVersion raised). An op's own parameters
// are written and read by its OpParams::write and its registry row's reader
// (ops/), each beside its struct; serialize_test round-trips every op's.

void write_quantization(WireWriter& w, const Quantization& q) {
  const auto& [scales, zero_points, axis] = q;
  w.floats(scales);
  w.int64s(zero_points);
  w.i32(axis);
}

void read_quantization(WireReader& r, Quantization& q) {
  auto& [scales, zero_points, axis] = q;
  scales = r.floats();
  zero_points = r.int64s();
  axis = r.i32();
}

void write_tensor(WireWriter& w, const Tensor& t) {
  const auto& [dtype, is_constant, has_dynamic_shape, shape, signature, quantization, data, stored_as,
               values_at_run_time] = t;
  w.enumeration(dtype);
  w.enumeration(stored_as);
  w.flag(is_constant);
  w.flag(values_at_run_time);
  w.flag(has_dynamic_shape);
  w.int64s(shape);
  w.int64s(signature);
  write_quantization(w, quantization);
  w.flag(!data.empty());
  if (data.empty()) return;
  w.u64(data.size());
  w.raw(data.bytes(), data.size());
}

void read_tensor(WireReader& r, Tensor& t) {
  auto& [dtype, is_constant, has_dynamic_shape, shape, signature, quantization, data, stored_as, values_at_run_time] = t;
  dtype = read_enum<DType>(r, "dtype");
  stored_as = read_enum<DType>(r, "dtype");
  is_constant = r.flag();
  values_at_run_time = r.flag();
  has_dynamic_shape = r.flag();
  shape = r.int64s();
  signature = r.int64s();
  read_quantization(r, quantization);
  if (!r.flag()) return;
  const uint64_t size = r.u64();
  if (const char* p = r.raw(size)) data = ConstantData::copy_of(p, size);
}

// The op whose parameters a node holds (ops/op_registry.h: its reader): an
// anchor's, or a PAD's (kind kPad).
std::optional<AnchorOp> params_op(const Node& n) {
  if (n.kind == OpKind::kAnchor) return n.anchor;
  if (n.kind == OpKind::kPad) return AnchorOp::kPad;
  return std::nullopt;
}

// `tensor`: original tensor index -> new one.
void write_node(WireWriter& w, const Node& n, const std::map<int, int>& tensor) {
  const auto& [id, name, kind, ew, anchor, act, param, shape_input, params, inputs, outputs] = n;
  w.i32(id);
  w.str(name);
  w.enumeration(kind);
  w.enumeration(ew);
  w.enumeration(anchor);
  w.enumeration(act);
  w.f32(param);
  w.i32(shape_input < 0 ? -1 : tensor.at(shape_input));
  // An anchor's or a PAD's own parameters, if it has them (read back by its op's reader).
  if (params_op(n)) w.flag(params != nullptr);
  if (params_op(n) && params && !params->write(w)) w.u8(0xff);  // parameters that do not travel: they fail to read
  for (const std::vector<int>* list : {&inputs, &outputs}) {
    std::vector<int> renumbered;
    for (int t : *list) renumbered.push_back(tensor.at(t));
    w.ints(renumbered);
  }
}

void read_node(WireReader& r, ParamsReader read_params, Node& n) {
  auto& [id, name, kind, ew, anchor, act, param, shape_input, params, inputs, outputs] = n;
  params = nullptr;
  id = r.i32();
  name = r.str();
  kind = read_enum<OpKind>(r, "op kind");
  ew = read_enum<EwOp>(r, "elementwise op");
  anchor = read_enum<AnchorOp>(r, "anchor op");
  act = read_enum<Activation>(r, "activation");
  param = r.f32();
  shape_input = r.i32();
  if (const auto op = params_op(n); op && r.flag()) {
    params = read_params(*op, r);
    if (!params) r.fail("corrupt: parameters for an op that has none");
  }
  inputs = r.ints();
  outputs = r.ints();
}

// `node`, `tensor`: original position / index -> new one (source -1 stays).
void write_fold(WireWriter& w, const Fold& f, const std::map<int, int>& node, const std::map<int, int>& tensor) {
  const auto& [kind, anchor, nodes, operand, source, scale, shift] = f;
  w.enumeration(kind);
  w.i32(node.at(anchor));
  std::vector<int> renumbered;
  for (int m : nodes) renumbered.push_back(node.at(m));
  w.ints(renumbered);
  w.i32(operand);
  w.i32(source < 0 ? source : tensor.at(source));
  w.floats(scale);
  w.floats(shift);
}

void read_fold(WireReader& r, Fold& f) {
  auto& [kind, anchor, nodes, operand, source, scale, shift] = f;
  kind = read_enum<FoldKind>(r, "fold kind");
  anchor = r.i32();
  nodes = r.ints();
  operand = r.i32();
  source = r.i32();
  scale = r.floats();
  shift = r.floats();
}

// Original position -> new, for the sorted `kept` positions.
std::map<int, int> renumbering(const std::set<int>& kept) {
  std::map<int, int> to;
  for (int k : kept) to.emplace(k, static_cast<int>(to.size()));
  return to;
}

// The groups' nodes, and the tensors they (and the folds within) touch.
void touched(const Graph& g, const std::vector<std::vector<int>>& groups, const std::vector<Fold>& folds,
             std::set<int>* nodes, std::set<int>* tensors) {
  for (const auto& group : groups) nodes->insert(group.begin(), group.end());
  for (int pos : *nodes) {
    tensors->insert(g.nodes[pos].inputs.begin(), g.nodes[pos].inputs.end());
    tensors->insert(g.nodes[pos].outputs.begin(), g.nodes[pos].outputs.end());
    if (g.nodes[pos].shape_input >= 0) tensors->insert(g.nodes[pos].shape_input);
  }
  for (const Fold& f : folds)
    if (f.source >= 0) tensors->insert(f.source);
}

// The payload after a checked header, or null (and *error set).
const char* payload_of(const std::string& bytes, size_t* size, std::string* error) {
  if (bytes.size() < kHeaderBytes) {
    *error = "truncated: " + std::to_string(bytes.size()) + " bytes, shorter than the header";
    return nullptr;
  }
  if (std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    *error = "not a fused partition (bad magic)";
    return nullptr;
  }
  WireReader r(bytes.data() + sizeof(kMagic), kHeaderBytes - sizeof(kMagic));
  const uint32_t version = r.u32();
  const uint64_t length = r.u64(), hash = r.u64();
  const char* payload = bytes.data() + kHeaderBytes;
  const uint64_t present = bytes.size() - kHeaderBytes;
  if (version != kPartitionFormatVersion)
    *error = "format version " + std::to_string(version) + ", this build reads " +
             std::to_string(kPartitionFormatVersion);
  else if (length != present)
    *error = (length > present ? "truncated: " : "corrupt: ") + std::string("the header announces ") +
             std::to_string(length) + " payload bytes, " + std::to_string(present) + " follow";
  else if (fnv1a(payload, present) != hash)
    *error = "corrupt: the payload does not match its checksum";
  if (!error->empty()) return nullptr;
  *size = present;
  return payload;
}

// The fewest bytes a tensor, node or fold takes (all lists empty): bounds
// what a corrupt count may allocate.
constexpr size_t kMinTensorBytes = 3 + 4 + 4 + (4 + 4 + 4) + 1;
// A node: id, name, 4 enums, param, shape_input, inputs, outputs (its op's own parameters may add bytes).
constexpr size_t kMinNodeBytes = 4 + 4 + 4 + 4 + 4 + 4 + 4;
constexpr size_t kMinFoldBytes = 1 + 4 + 4 + 4 + 4 + 4 + 4;

void read_payload(WireReader& r, ParamsReader read_params, PartitionGraph* p) {
  p->graph.tensors.resize(r.count(kMinTensorBytes));
  for (Tensor& t : p->graph.tensors) read_tensor(r, t);
  p->graph.nodes.resize(r.count(kMinNodeBytes));
  for (Node& n : p->graph.nodes) read_node(r, read_params, n);
  p->groups.resize(r.count(4));
  for (auto& group : p->groups) group = r.ints();
  p->folds.resize(r.count(kMinFoldBytes));
  for (Fold& f : p->folds) read_fold(r, f);
  p->slice_writes.resize(r.count(12));
  for (SliceWrite& w : p->slice_writes) {
    auto& [concat, operand, producer] = w;
    for (int* v : {&concat, &operand, &producer}) *v = r.i32();
  }
  p->tensor_origin = r.ints();
  p->node_origin = r.ints();
  if (r.ok() && !r.at_end()) r.fail("corrupt: bytes left after the partition");
}

// Elements of a shape, or -1 if a dimension is negative or the count implausible.
int64_t checked_elements(const Shape& s) {
  constexpr int64_t kMax = int64_t{1} << 40;
  int64_t n = 1;
  for (int64_t d : s) {
    if (d < 0 || d > kMax || (d > 0 && n > kMax / d)) return -1;
    n *= d;
  }
  return n;
}

// Run-time shapes may hold -1 (unknown); a float32 constant's must be whole
// and match its bytes.
std::string tensor_error(const Tensor& t) {
  for (int64_t d : t.shape)
    if (d < -1) return "shape " + to_string(t.shape);
  if (!t.is_f32() || t.data.empty()) return "";
  const int64_t n = checked_elements(t.shape);
  if (n < 0) return "float32 constant of shape " + to_string(t.shape);
  if (t.data.size() != static_cast<uint64_t>(n) * sizeof(float))
    return "float32 constant of " + std::to_string(t.data.size()) + " bytes for shape " + to_string(t.shape);
  return "";
}

std::string node_error(const Node& n, size_t tensors) {
  for (const std::vector<int>* list : {&n.inputs, &n.outputs})
    for (int t : *list)
      if (t < 0 || static_cast<size_t>(t) >= tensors) return "tensor " + std::to_string(t) + " out of range";
  if (n.outputs.empty()) return "no output";
  if (n.kind == OpKind::kElementwise && n.ew == EwOp::kCount) return "elementwise without its op";
  return "";
}

// A rewrite (kSwish, kMultiplyAdd): the program reads both inputs of the node
// it folds into and of its folded node, which are elementwise. A power folds
// no node into an elementwise node.
std::string rewrite_error(const Fold& f, const Graph& g) {
  auto binary = [&](int pos) {
    return pos >= 0 && static_cast<size_t>(pos) < g.nodes.size() && g.nodes[pos].kind == OpKind::kElementwise &&
           g.nodes[pos].inputs.size() >= 2;
  };
  if (is_power(f))
    return binary(f.anchor) && g.nodes[f.anchor].ew == EwOp::Pow && f.nodes.empty()
               ? ""
               : "a power fold that is not into a POW, or folds nodes";
  if (f.kind != FoldKind::kSwish && f.kind != FoldKind::kMultiplyAdd) return "";
  if (!binary(f.anchor) || f.nodes.empty() || (f.kind == FoldKind::kMultiplyAdd && !binary(f.nodes[0])))
    return "a rewrite of nodes that are not elementwise ops of two inputs";
  return "";
}

// What the program builder relies on when it reads a fold.
std::string fold_error(const Fold& f, const Graph& g) {
  if (std::string e = rewrite_error(f, g); !e.empty() || is_power(f)) return e;
  auto in_range = [](int i, size_t n) { return i >= 0 && static_cast<size_t>(i) < n; };
  if (!in_range(f.anchor, g.nodes.size())) return "anchor out of range";
  if (f.nodes.empty()) return "no folded nodes";
  for (int m : f.nodes)
    if (!in_range(m, g.nodes.size())) return "folded node out of range";
  if (f.operand < 0 || f.operand > 1) return "operand out of range";
  if (f.source != -1 && !in_range(f.source, g.tensors.size())) return "source out of range";
  if (f.kind == FoldKind::kInputAffine && (f.source < 0 || f.scale.size() != f.shift.size()))
    return "input map without a source, or scales and shifts of different lengths";
  const size_t inputs = f.kind == FoldKind::kChannelScale ? 2 : 1;
  if (g.nodes[f.nodes[0]].inputs.size() < inputs) return "its first node lacks inputs";
  return "";
}

// Whether indices, sizes and links are consistent; "" if so.
std::string partition_error(const PartitionGraph& p) {
  const Graph& g = p.graph;
  const std::string bad = "inconsistent partition: ";
  for (size_t t = 0; t < g.tensors.size(); ++t)
    if (std::string e = tensor_error(g.tensors[t]); !e.empty()) return bad + "tensor " + std::to_string(t) + ": " + e;
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (std::string e = node_error(g.nodes[n], g.tensors.size()); !e.empty())
      return bad + "node " + std::to_string(n) + ": " + e;
  for (const auto& group : p.groups)
    for (int pos : group)
      if (pos < 0 || static_cast<size_t>(pos) >= g.nodes.size()) return bad + "group node out of range";
  for (size_t k = 0; k < p.folds.size(); ++k)
    if (std::string e = fold_error(p.folds[k], g); !e.empty()) return bad + "fold " + std::to_string(k) + ": " + e;
  for (const SliceWrite& w : p.slice_writes) {
    auto node = [&](int i) { return i >= 0 && static_cast<size_t>(i) < g.nodes.size(); };
    if (!node(w.concat) || !node(w.producer) || w.operand < 0 ||
        static_cast<size_t>(w.operand) >= g.nodes[w.concat].inputs.size())
      return bad + "slice write out of range";
  }
  if (p.tensor_origin.size() != g.tensors.size() || p.node_origin.size() != g.nodes.size())
    return bad + "origins do not match the tensor and node counts";
  return "";
}

std::string with_header(const std::string& payload) {
  WireWriter w;
  w.raw(kMagic, sizeof(kMagic));
  w.u32(kPartitionFormatVersion);
  w.u64(payload.size());
  w.u64(fnv1a(payload.data(), payload.size()));
  w.raw(payload.data(), payload.size());
  return std::move(w.out());
}

}  // namespace

std::string serialize_partition(const Graph& g, const std::vector<std::vector<int>>& groups,
                                const std::vector<Fold>& folds, const std::vector<SliceWrite>& slice_writes) {
  std::set<int> nodes, tensors;
  touched(g, groups, {}, &nodes, &tensors);
  const std::vector<Fold> kept = folds_within(folds, std::vector<int>(nodes.begin(), nodes.end()));
  touched(g, {}, kept, &nodes, &tensors);
  const std::map<int, int> node = renumbering(nodes), tensor = renumbering(tensors);
  WireWriter w;
  w.u32(static_cast<uint32_t>(tensors.size()));
  for (int t : tensors) write_tensor(w, g.tensors[t]);
  w.u32(static_cast<uint32_t>(nodes.size()));
  for (int pos : nodes) write_node(w, g.nodes[pos], tensor);
  w.u32(static_cast<uint32_t>(groups.size()));
  for (const auto& group : groups) {
    std::vector<int> renumbered;
    for (int pos : group) renumbered.push_back(node.at(pos));
    w.ints(renumbered);
  }
  w.u32(static_cast<uint32_t>(kept.size()));
  for (const Fold& f : kept) write_fold(w, f, node, tensor);
  std::vector<SliceWrite> writes;  // those between the groups
  for (const SliceWrite& s : slice_writes)
    if (nodes.count(s.concat) && nodes.count(s.producer)) writes.push_back({node.at(s.concat), s.operand, node.at(s.producer)});
  w.u32(static_cast<uint32_t>(writes.size()));
  for (const SliceWrite& s : writes) {
    const auto& [concat, operand, producer] = s;
    for (int v : {concat, operand, producer}) w.i32(v);
  }
  w.ints(std::vector<int>(tensors.begin(), tensors.end()));
  w.ints(std::vector<int>(nodes.begin(), nodes.end()));
  return with_header(w.out());
}

std::optional<PartitionGraph> parse_partition(const std::string& bytes, ParamsReader read_params,
                                             std::string* error) {
  error->clear();
  size_t size = 0;
  const char* payload = payload_of(bytes, &size, error);
  if (!payload) return std::nullopt;
  WireReader r(payload, size);
  PartitionGraph p;
  read_payload(r, read_params, &p);
  *error = r.ok() ? partition_error(p) : r.error();
  if (!error->empty()) return std::nullopt;
  return p;
}

}  // namespace fd
