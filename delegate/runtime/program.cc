#include "runtime/program.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <cmath>
#include <set>

#include "ir/shape.h"
#include "ops/op_classes.h"
#include "runtime/memory.h"
#include "runtime/thread_pool.h"
#include "runtime/tiling.h"

namespace fd {
namespace {

EwKernelOp activation_op(Activation a) {
  switch (a) {
    case Activation::kRelu: return EwKernelOp::Relu;
    case Activation::kReluN1To1: return EwKernelOp::ReluN1To1;
    case Activation::kRelu6: return EwKernelOp::Relu6;
    default: return EwKernelOp::kCount;  // the planner declines any other activation
  }
}

// How many instructions read each value, plus two for a value written out, so
// that one is never folded into its reader.
std::vector<int> value_uses(const Program& p) {
  std::vector<int> uses(p.value_count(), 0);
  for (const Instr& in : p.code)
    for (int i = 0; i < in.arity(); ++i) ++uses[in.src[i]];
  for (int v : p.output_values) uses[v] += 2;
  return uses;
}

// The instruction making value v if it is the elementwise `op` and v has exactly one reader.
const Instr* single_use_producer(const Program& p, const std::vector<int>& uses, int v, EwKernelOp op) {
  const int ni = static_cast<int>(p.inputs.size());
  if (v < ni || uses[v] != 1) return nullptr;
  const Instr& in = p.code[v - ni];
  return in.anchor < 0 && in.op == op ? &in : nullptr;
}

// Drops the instructions whose values were folded into their reader, and renumbers.
void drop_folded(Program& p, const std::vector<bool>& folded) {
  const int ni = static_cast<int>(p.inputs.size());
  std::vector<int> remap(p.value_count(), -1);
  for (int i = 0; i < ni; ++i) remap[i] = i;
  std::vector<Instr> code;
  for (size_t k = 0; k < p.code.size(); ++k) {
    const int v = ni + static_cast<int>(k);
    if (folded[v]) continue;
    remap[v] = ni + static_cast<int>(code.size());
    code.push_back(p.code[k]);
  }
  for (Instr& in : code)
    for (int& s : in.src)
      if (s >= 0) s = remap[s];
  for (int& v : p.output_values) v = remap[v];
  p.code = std::move(code);
}

// x * LOGISTIC(x), the logistic read nowhere else, becomes one SWISH(x): one
// pass instead of two (the product rounded once either way). Returns the
// number rewritten.
int fuse_swish(Program& p) {
  std::vector<int> uses = value_uses(p);
  std::vector<bool> folded(p.value_count(), false);
  int fused = 0;
  for (Instr& in : p.code) {
    if (in.anchor >= 0 || in.op != EwKernelOp::Mul) continue;
    for (int side = 0; side < 2; ++side) {
      const Instr* sig = single_use_producer(p, uses, in.src[side], EwKernelOp::Logistic);
      const Instr* as_builtin = single_use_producer(p, uses, in.src[side], EwKernelOp::LogisticAsBuiltin);
      if (!sig) sig = as_builtin;
      if (!sig || sig->src[0] != in.src[1 - side]) continue;
      folded[in.src[side]] = true;
      in = Instr{as_builtin ? EwKernelOp::SwishAsBuiltin : EwKernelOp::Swish, 0.f, {in.src[1 - side]}};
      ++fused;
      break;
    }
  }
  if (fused) drop_folded(p, folded);
  return fused;
}

// MUL feeding only an ADD or SUB becomes one FMA; returns the number rewritten.
int fuse_multiply_add(Program& p) {
  std::vector<int> uses = value_uses(p);
  std::vector<bool> folded(p.value_count(), false);
  int fused = 0;
  for (Instr& in : p.code) {
    if (in.anchor >= 0 || (in.op != EwKernelOp::Add && in.op != EwKernelOp::Sub)) continue;
    for (int side = 0; side < 2; ++side) {
      const int v = in.src[side];
      const Instr* mul = single_use_producer(p, uses, v, EwKernelOp::Mul);
      if (!mul) continue;
      const int other = in.src[1 - side];
      in.op = in.op == EwKernelOp::Add ? EwKernelOp::Fma : side == 0 ? EwKernelOp::Fms : EwKernelOp::Fnma;
      in.src = {mul->src[0], mul->src[1], other};
      ++uses[mul->src[0]];
      ++uses[mul->src[1]];
      uses[v] = 0;
      folded[v] = true;
      ++fused;
      break;
    }
  }
  if (fused) drop_folded(p, folded);
  return fused;
}

}  // namespace

namespace {

FoldedPad folded_pad(const Node& pad) {
  FoldedPad f;  // NHWC: pads[2..3] are H, pads[4..5] are W
  f.top = pad.pads[2];
  f.bottom = pad.pads[3];
  f.left = pad.pads[4];
  f.right = pad.pads[5];
  f.mode = pad.pad_mode;
  f.value = pad.param;
  return f;
}


// The planner's folds of one group, by the anchor they fold into.
struct GroupFolds {
  std::map<int, const Fold*> affine;                   // CONV_2D -> its input map
  std::map<int, std::array<const Node*, 2>> transpose;  // BATCH_MATMUL -> per operand
  std::map<int, std::vector<int>> scaled;              // anchor -> {the MUL's tensor, its per-channel scale}
  std::map<int, const Node*> pad;                      // anchor -> the PAD before it
  std::map<int, const Fold*> output;                   // anchor -> its output map
  std::set<int> outputs;  // of folded nodes: they run only if their output must be stored
  std::set<int> mapped;   // of output maps' nodes: the anchor computes the last, the rest never exist

  GroupFolds(const Graph& g, const std::vector<Fold>& folds, const std::vector<bool>& written) {
    for (const Fold& f : folds) {
      const Node& first = g.nodes[f.nodes[0]];
      if (f.kind == FoldKind::kOutputAffine) {
        add_output_map(g, f, written);
        continue;
      }
      switch (f.kind) {
        case FoldKind::kPad: pad[f.anchor] = &first; break;
        case FoldKind::kTranspose: transpose[f.anchor][f.operand] = &first; break;
        case FoldKind::kChannelScale:
          scaled[f.anchor] = {first.inputs[1 - f.operand], first.inputs[f.operand]};
          break;
        case FoldKind::kInputAffine: affine[f.anchor] = &f; break;
        case FoldKind::kConstant: break;  // the anchor packs the values of its input
        case FoldKind::kOutputAffine: break;
      }
      // An input map runs whole if one of its values must be stored.
      bool stored = false;
      for (int m : f.nodes) stored = stored || written[g.nodes[m].outputs[0]];
      if (f.kind != FoldKind::kInputAffine || !stored)
        for (int m : f.nodes) outputs.insert(g.nodes[m].outputs[0]);
    }
  }

  // An output map folds unless a value before its last must be stored: then its nodes run.
  void add_output_map(const Graph& g, const Fold& f, const std::vector<bool>& written) {
    if (written[g.nodes[f.anchor].outputs[0]]) return;
    for (size_t i = 0; i + 1 < f.nodes.size(); ++i)
      if (written[g.nodes[f.nodes[i]].outputs[0]]) return;
    output[f.anchor] = &f;
    for (int m : f.nodes) mapped.insert(m);
  }
};

class ProgramBuilder {
 public:
  // `folds`: those within the group; the builder keeps them (GroupFolds points into them).
  ProgramBuilder(const Graph& g, std::vector<Fold> folds, const std::vector<bool>& written, const Kernels& kernels,
                 const std::set<int>& in_place, const std::vector<bool>& rounded)
      : g_(g), within_(std::move(folds)), folds_(g, within_, written), written_(written), kernels_(kernels),
        in_place_(in_place), rounded_(rounded) {}
  Program build(const std::vector<int>& group);

 private:
  std::vector<int> reads(int pos, EwOp op) const;
  bool runs(int pos) const {  // a folded node (a PAD too) runs only if its output must be stored
    const Node& node = g_.nodes[pos];
    if (node.kind == OpKind::kConstant) return false;  // the executor copies it out if it must be stored
    if (folds_.mapped.count(pos)) return false;         // its anchor computes it
    return !folds_.outputs.count(node.outputs[0]) || written_[node.outputs[0]];
  }
  EwOp op_of(const Node& node) const;
  AnchorStep anchor_of(int pos) const;
  void emit(int pos, EwOp op);

  const Graph& g_;
  const std::vector<Fold> within_;
  const GroupFolds folds_;
  const std::vector<bool>& written_;
  const Kernels& kernels_;
  const std::set<int>& in_place_;
  const std::vector<bool>& rounded_;
  bool is_rounded(int pos) const { return pos < static_cast<int>(rounded_.size()) && rounded_[pos]; }
  Program p_;
  std::map<int, int> value_of_;  // tensor -> value
};

// The op of the same math that rounds as TFLite's builtin kernel, where ours rounds otherwise.
EwKernelOp as_builtin(EwKernelOp op) {
  if (op == EwKernelOp::Logistic) return EwKernelOp::LogisticAsBuiltin;
  return op == EwKernelOp::Gelu ? EwKernelOp::GeluAsBuiltin : op;
}

// POW with a constant scalar exponent becomes an exact cheaper op.
EwOp ProgramBuilder::op_of(const Node& node) const {
  if (node.kind != OpKind::kElementwise) return EwOp::kCount;
  if (node.ew != EwOp::Pow) return node.ew;
  const Tensor& y = g_.tensors[node.inputs[1]];
  const Shape& x = g_.tensors[node.inputs[0]].shape;
  if (!y.is_constant || !y.f32_data() || num_elements(y.shape) != 1 || y.shape.size() > x.size()) return EwOp::Pow;
  if (y.f32_data()[0] == 2.f) return EwOp::Square;
  if (y.f32_data()[0] == 0.5f) return EwOp::Sqrt;
  return EwOp::Pow;
}

// The tensors a node takes as values; an anchor reads through what folds into it.
std::vector<int> ProgramBuilder::reads(int pos, EwOp op) const {
  const Node& node = g_.nodes[pos];
  if (auto it = folds_.affine.find(pos); it != folds_.affine.end()) return {it->second->source};
  if (node.kind == OpKind::kElementwise) return std::vector<int>(node.inputs.begin(), node.inputs.begin() + ew_arity(op));
  if (node.kind == OpKind::kAnchor && node.anchor == AnchorOp::kConcatenation) return node.inputs;
  if (node.kind == OpKind::kAnchor && node.anchor == AnchorOp::kBatchMatMul) {
    std::vector<int> in = node.inputs;
    if (auto it = folds_.transpose.find(pos); it != folds_.transpose.end())
      for (int i = 0; i < 2; ++i)
        if (it->second[i]) in[i] = it->second[i]->inputs[0];
    return in;
  }
  if (auto it = folds_.scaled.find(pos); it != folds_.scaled.end()) return it->second;
  if (auto it = folds_.pad.find(pos); it != folds_.pad.end()) return {it->second->inputs[0]};
  return {node.inputs[0]};
}

AnchorStep ProgramBuilder::anchor_of(int pos) const {
  const Node& node = g_.nodes[pos];
  auto pad = folds_.pad.find(pos);
  const FoldedPad fp = node.kind == OpKind::kPad ? folded_pad(node)
                       : pad != folds_.pad.end() ? folded_pad(*pad->second)
                                                 : FoldedPad{};
  AnchorFolds folds;
  folds.pad = fp;
  if (auto it = folds_.affine.find(pos); it != folds_.affine.end()) folds.input_affine = it->second;
  if (auto it = folds_.output.find(pos); it != folds_.output.end()) folds.output_affine = it->second;
  folds.scale_input = folds_.scaled.count(pos) > 0;
  folds.rounds_as_builtin = is_rounded(pos);
  AnchorStep a = make_anchor(g_, node, folds, kernels_);
  if (a.op == AnchorOp::kConcatenation)
    for (int t : node.inputs) a.in_place.push_back(in_place_.count(t) > 0);
  if (auto it = folds_.transpose.find(pos); it != folds_.transpose.end())
    for (int i = 0; i < 2; ++i)
      if (it->second[i]) a.operand_perm[i] = it->second[i]->dims;
  return a;
}

// The node's instructions (an anchor, or an op and its fused activation).
void ProgramBuilder::emit(int pos, EwOp op) {
  const Node& node = g_.nodes[pos];
  const int ni = static_cast<int>(p_.inputs.size());
  Instr in{is_rounded(pos) ? as_builtin(kernel_op(op)) : kernel_op(op), node.param, {}};
  for (int t : reads(pos, op)) in.src.push_back(value_of_.at(t));
  if (node.kind != OpKind::kElementwise) {
    in.anchor = static_cast<int>(p_.anchors.size());
    p_.anchors.push_back(anchor_of(pos));
  }
  p_.code.push_back(in);
  if (node.kind == OpKind::kElementwise && node.act != Activation::kNone)
    p_.code.push_back(Instr{activation_op(node.act), 0.f, {ni + static_cast<int>(p_.code.size()) - 1}});
  auto map = folds_.output.find(pos);  // the anchor computes its output map's last value
  const int out = map == folds_.output.end() ? node.outputs[0] : g_.nodes[map->second->nodes.back()].outputs[0];
  value_of_[out] = ni + static_cast<int>(p_.code.size()) - 1;
  if (written_[out]) {
    p_.outputs.push_back(out);
    p_.output_values.push_back(value_of_[out]);
  }
}

Program ProgramBuilder::build(const std::vector<int>& group) {
  std::vector<bool> produced(g_.tensors.size(), false);
  for (int pos : group) {  // a folded PAD's reader reads its input instead; a constant node's, the graph's values
    const int out = g_.nodes[pos].outputs[0];
    const OpKind kind = g_.nodes[pos].kind;
    if ((kind != OpKind::kPad || !folds_.outputs.count(out)) && kind != OpKind::kConstant) produced[out] = true;
  }
  for (int pos : group) {  // the program's inputs: what running nodes read from outside
    if (!runs(pos)) continue;
    for (int t : reads(pos, op_of(g_.nodes[pos]))) {
      if (produced[t] || value_of_.count(t)) continue;
      value_of_[t] = static_cast<int>(p_.inputs.size());
      p_.inputs.push_back(t);
    }
  }
  for (int pos : group)
    if (runs(pos)) emit(pos, op_of(g_.nodes[pos]));
  fuse_swish(p_);
  if (std::none_of(group.begin(), group.end(), [&](int pos) { return is_rounded(pos); })) fuse_multiply_add(p_);
  return std::move(p_);
}

}  // namespace

EwKernelOp kernel_op(EwOp op) {
  switch (op) {
#define FD_LOWER(name, arity) \
  case EwOp::name: return EwKernelOp::name;
    FD_GRAPH_EW_OPS(FD_LOWER)
#undef FD_LOWER
    case EwOp::kCount: break;
  }
  return EwKernelOp::kCount;
}

Program build_program(const Graph& g, const std::vector<int>& group, const std::vector<Fold>& folds,
                      const std::vector<bool>& written, const Kernels& kernels, const std::set<int>& in_place,
                      const std::vector<bool>& rounded) {
  return ProgramBuilder(g, folds_within(folds, group), written, kernels, in_place, rounded).build(group);
}

std::string Program::to_string() const {
  const int ni = static_cast<int>(inputs.size());
  auto name = [&](int v) {
    return v < ni ? "in" + std::to_string(v) + "(t" + std::to_string(inputs[v]) + ")"
                  : "v" + std::to_string(v);
  };
  std::string s;
  for (size_t k = 0; k < code.size(); ++k) {
    const Instr& in = code[k];
    if (in.anchor >= 0) {
      s += "v" + std::to_string(ni + k) + " = " + anchors[in.anchor].to_string() + "(";
    } else {
      s += "v" + std::to_string(ni + k) + " = " + kernel_op_name(in.op) + "(";
    }
    for (int i = 0; i < in.arity(); ++i) s += (i ? ", " : "") + name(in.src[i]);
    s += ")\n";
  }
  for (size_t o = 0; o < outputs.size(); ++o)
    s += "t" + std::to_string(outputs[o]) + " <- " + name(output_values[o]) + "\n";
  return s;
}

namespace {

// Fills a dense tile with n elements of a broadcast input, from linear index t0
// of the (coalesced) domain on. After coalescing, an input's innermost stride is
// 1 (it varies there) or 0 (it is broadcast there).
void gather_tile(const Shape& dom, const Shape& strides, int64_t t0, int64_t n, const float* tensor,
                 float* tile) {
  const int r = static_cast<int>(dom.size());
  int64_t idx[kMaxRank];
  int64_t off = 0;  // of the segment's first element
  for (int d = r - 1; d >= 0; --d) {
    idx[d] = t0 % dom[d];
    t0 /= dom[d];
    off += idx[d] * strides[d];
  }
  const int64_t inner = dom[r - 1];
  const bool varies = strides[r - 1] != 0;
  while (n > 0) {
    const int64_t seg = std::min(n, inner - idx[r - 1]);
    const float* src = tensor + off;
    if (varies) std::copy(src, src + seg, tile);
    else std::fill(tile, tile + seg, *src);
    tile += seg;
    n -= seg;
    off -= idx[r - 1] * strides[r - 1];
    idx[r - 1] = 0;
    for (int d = r - 2; d >= 0; --d) {  // the next index: carry into outer dims
      off += strides[d];
      if (++idx[d] < dom[d]) break;
      off -= dom[d] * strides[d];
      idx[d] = 0;
    }
  }
}

Shape dense_strides(const Shape& dom) {
  Shape s(dom.size());
  int64_t st = 1;
  for (int d = static_cast<int>(dom.size()) - 1; d >= 0; --d) {
    s[d] = st;
    st *= dom[d];
  }
  return s;
}

// Drops size-1 dims and merges neighbours that every operand walks contiguously.
void coalesce(Shape& dom, std::vector<Shape*>& strides) {
  Shape nd;
  std::vector<Shape> ns(strides.size());
  for (size_t d = 0; d < dom.size(); ++d) {
    if (dom[d] == 1) continue;
    bool merge = !nd.empty();
    for (size_t k = 0; merge && k < strides.size(); ++k)
      merge = ns[k].back() == (*strides[k])[d] * dom[d];
    if (merge) {
      nd.back() *= dom[d];
      for (size_t k = 0; k < strides.size(); ++k) ns[k].back() = (*strides[k])[d];
    } else {
      nd.push_back(dom[d]);
      for (size_t k = 0; k < strides.size(); ++k) ns[k].push_back((*strides[k])[d]);
    }
  }
  if (nd.empty()) {
    nd.push_back(1);
    for (auto& s : ns) s.push_back(0);
  }
  dom = nd;
  for (size_t k = 0; k < strides.size(); ++k) *strides[k] = ns[k];
}

// Run in parallel from this many elements, or this many multiply-adds (about
// 10 us of one core): below, waking the pool costs more than it saves.
constexpr int64_t kParallelMinElements = 1 << 14;
constexpr int64_t kParallelMinWork = 1 << 18;
// Tile sizes: runtime/tiling.h. Where weights stream from L3, the tile grows to
// a GEMM row block (kGemmRowBlock rows, shared evenly) so that they stream once
// per block, not once per tile; row programs keep L1 tiles otherwise.

}  // namespace

// The shapes of every value while binding, and which hold one value per row.
struct BoundProgram::Values {
  int ni = 0;                   // program inputs
  std::vector<Shape> shape;     // per value
  std::vector<bool> row_value;  // per value: one value per row of the domain
  Shape dom;                    // the domain, before coalescing
};

namespace {

void report(bool* flag, bool value) {
  if (flag) *flag = value;
}

// Whether every dim of s but the innermost is 0: the input repeats with the inner dim.
bool outer_zero(const Shape& s) {
  for (size_t d = 0; d + 1 < s.size(); ++d)
    if (s[d]) return false;
  return true;
}

// Gives values their slots: program inputs, outputs, then scratch buffers,
// each buffer reused once its value is dead.
class SlotPlan {
 public:
  SlotPlan(const Program& p, int buffers)
      : ni_(static_cast<int>(p.inputs.size())), first_buffer_(ni_ + static_cast<int>(p.outputs.size())),
        buffers_(buffers), last_use_(p.value_count(), -1), slot_(p.value_count(), -1), out_of_(p.value_count(), -1) {
    for (size_t k = 0; k < p.code.size(); ++k)
      for (int s : p.code[k].src) last_use_[s] = static_cast<int>(k);
    for (size_t o = 0; o < p.outputs.size(); ++o) out_of_[p.output_values[o]] = static_cast<int>(o);
    for (int i = 0; i < ni_; ++i) slot_[i] = i;
  }
  int slot(int v) const { return slot_[v]; }
  int buffers() const { return buffers_; }
  int take() {
    if (free_.empty()) return first_buffer_ + buffers_++;
    const int s = free_.back();
    free_.pop_back();
    return s;
  }
  void give(int slot) { free_.push_back(slot); }
  // An output value is computed straight into its output.
  void define(int v) { slot_[v] = out_of_[v] >= 0 ? ni_ + out_of_[v] : take(); }
  // The buffers of the values that instruction k reads for the last time
  // (each once: ADD(v, v) frees v's buffer once) are free.
  void free_dying(const Instr& in, int k) {
    for (size_t i = 0; i < in.src.size(); ++i) {
      const int s = in.src[i];
      const bool repeated = std::find(in.src.begin(), in.src.begin() + i, s) != in.src.begin() + i;
      if (!repeated && s >= ni_ && last_use_[s] == k && slot_[s] >= first_buffer_) give(slot_[s]);
    }
  }

 private:
  const int ni_, first_buffer_;
  int buffers_;
  std::vector<int> last_use_, slot_, out_of_;
  std::vector<int> free_;
};

}  // namespace

std::unique_ptr<BoundProgram> BoundProgram::bind(const Program& p, const std::vector<Shape>& input_shapes,
                                                 const EwTable& table, std::string* error,
                                                 bool* mixed_shapes) {
  auto b = std::unique_ptr<BoundProgram>(new BoundProgram());
  report(mixed_shapes, false);
  if (p.code.empty()) {
    *error = "a program without instructions";
    return nullptr;
  }
  Values v{static_cast<int>(p.inputs.size()), input_shapes, {}, {}};
  if (!b->bind_values(p, v, error, mixed_shapes) || !b->bind_domain(p, v, error, mixed_shapes)) return nullptr;
  for (int value : p.output_values) {
    b->output_shapes_.push_back(v.shape[value]);
    b->output_rows_.push_back(v.row_value[value]);
  }
  b->outputs_ = static_cast<int>(p.outputs.size());
  b->output_strided_.assign(b->outputs_, Strided{});
  const int gathered = b->bind_inputs(p, v);
  b->bind_steps(p, v, table, gathered);
  b->choose_tile();
  return b;
}

// Every value's shape, binding the anchors on the way.
bool BoundProgram::bind_values(const Program& p, Values& v, std::string* error, bool* mixed_shapes) {
  for (const Instr& in : p.code) {
    std::vector<Shape> in_shapes;
    for (int s : in.src) in_shapes.push_back(v.shape[s]);
    if (in.anchor < 0) {
      Shape s = in_shapes[0];
      for (size_t i = 1; i < in_shapes.size(); ++i) {
        auto bs = broadcast(s, in_shapes[i]);
        if (!bs) {
          *error = "shapes " + fd::to_string(s) + " and " + fd::to_string(in_shapes[i]) + " do not broadcast";
          return false;
        }
        s = *bs;
      }
      v.shape.push_back(s);
      continue;
    }
    for (int i = 0; i < in.arity(); ++i) {
      if (in.src[i] >= v.ni && !(i == 0 && reads_tile_rows(p.anchors[in.anchor].op))) {
        *error = "an anchor's input must come from outside the fused group";
        return false;
      }
    }
    bool fold_broken = false;
    auto a = bind_anchor(p.anchors[in.anchor], in_shapes, error, &fold_broken);
    if (!a) {
      report(mixed_shapes, fold_broken);  // node by node, the MUL runs unfolded
      return false;
    }
    v.shape.push_back(a->output);
    anchors_.push_back(std::move(*a));
  }
  return true;
}

// The domain: the largest value's shape, of a rank as high as any shape's so
// that every input broadcasts to it. Every value has its layout or holds one
// value per row of it (is_row_of); one tile loop computes them all.
bool BoundProgram::bind_domain(const Program& p, Values& v, std::string* error, bool* mixed_shapes) {
  Shape dom = v.shape.back();
  for (size_t k = v.ni; k < v.shape.size(); ++k)
    if (num_elements(v.shape[k]) > num_elements(dom)) dom = v.shape[k];
  size_t rank = dom.size();
  for (const Shape& s : v.shape) rank = std::max(rank, s.size());
  dom.insert(dom.begin(), rank - dom.size(), 1);
  v.dom = dom;
  v.row_value.assign(v.shape.size(), false);
  for (size_t k = v.ni; k < v.shape.size(); ++k) {
    v.row_value[k] = !same_layout(v.shape[k], dom) && is_row_of(v.shape[k], dom);
    if (!v.row_value[k] && !same_layout(v.shape[k], dom)) {
      report(mixed_shapes, true);
      *error = "the fused values have different shapes " + fd::to_string(v.shape[k]) + " and " + fd::to_string(dom);
      return false;
    }
  }
  bool by_rows = std::count(v.row_value.begin(), v.row_value.end(), true) > 0;
  for (const Instr& in : p.code) by_rows |= in.anchor >= 0 && in.src[0] >= v.ni;  // a row op reading a tile
  if (by_rows) {
    row_len_ = dom.back();
    if (!rows_read_right(p, v, error)) {
      report(mixed_shapes, true);
      return false;
    }
  }
  if (static_cast<int>(dom.size()) > kMaxRank) {
    *error = "rank " + std::to_string(dom.size()) + " is above " + std::to_string(kMaxRank);
    return false;
  }
  return true;
}

// Row values are read by row ops, and read nothing from outside but scalars.
bool BoundProgram::rows_read_right(const Program& p, const Values& v, std::string* error) {
  for (size_t k = 0; k < p.code.size(); ++k) {
    const Instr& in = p.code[k];
    const int value = v.ni + static_cast<int>(k);
    for (int s : in.src) {
      const bool bad = in.anchor >= 0 ? s >= v.ni && v.row_value[s]
                                      : v.row_value[value] && s < v.ni && num_elements(v.shape[s]) != 1;
      if (bad) {
        *error = "a row value of " + fd::to_string(v.dom) + " reads " + fd::to_string(v.shape[s]);
        return false;
      }
    }
  }
  return true;
}

// Each input read tile by tile gets its strides over the coalesced domain; a
// broadcast one is gathered into a buffer of its own. Returns those buffers.
int BoundProgram::bind_inputs(const Program& p, const Values& v) {
  in_.resize(v.ni);
  std::vector<bool> tiled(v.ni, false);  // read by some elementwise step
  for (const Instr& in : p.code)
    for (int s : in.src)
      if (in.anchor < 0 && s < v.ni) tiled[s] = true;
  std::vector<Shape*> strides;
  for (int i = 0; i < v.ni; ++i) {
    if (!tiled[i]) continue;
    in_[i].strides = broadcast_strides(v.shape[i], v.dom);
    strides.push_back(&in_[i].strides);
  }
  domain_ = v.dom;
  coalesce(domain_, strides);
  total_ = num_elements(domain_);
  const Shape dense = dense_strides(domain_);
  int buffers = 0;
  for (int i = 0; i < v.ni; ++i) {
    if (!tiled[i]) in_[i].mode = Mode::kWhole;
    else if (in_[i].strides != dense) in_[i].buffer = buffers++;
  }
  return buffers;
}

// One step per instruction, with the slots each reads and writes. A step over
// the tile that reads row values takes them as they are (its row kernel).
void BoundProgram::bind_steps(const Program& p, const Values& v, const EwTable& table, int buffers) {
  SlotPlan slots(p, buffers);
  int anchor_index = 0;  // anchors_ are in code order
  for (size_t k = 0; k < p.code.size(); ++k) {
    const Instr& in = p.code[k];
    const int value = v.ni + static_cast<int>(k);
    Step st{in.anchor >= 0 ? nullptr : table.fn[static_cast<int>(in.op)], in.param, {}, -1,
            in.anchor >= 0 ? anchor_index++ : -1};
    st.rows = v.row_value[value];
    st.tile_input = in.anchor >= 0 && in.src[0] >= v.ni;
    st.tail_fn = in.anchor >= 0 ? nullptr : builtin_tail_kernel(in.op);
    const int64_t size = st.rows ? total_ / row_len_ : total_;
    st.tail_from = size - size % kBuiltinPacketFloats;
    for (int s : in.src) st.src.push_back(slots.slot(s));
    int row_operands = 0;
    for (int i = 0; i < in.arity() && !st.rows && in.anchor < 0; ++i) row_operands |= v.row_value[in.src[i]] << i;
    if (row_operands) st.rows_fn = table.rows_fn[static_cast<int>(in.op)][row_operands];
    // Elementwise over the tile may run in place; an anchor may not, nor a step
    // reading row values (its output would overwrite the rows' values it reads).
    const bool in_place = in.anchor < 0 && !row_operands;
    if (in_place) slots.free_dying(in, static_cast<int>(k));
    slots.define(value);
    st.dst = slots.slot(value);
    steps_.push_back(st);
    if (!in_place) slots.free_dying(in, static_cast<int>(k));
  }
  buffers_ = slots.buffers();
}

// Tile: all streams of one tile stay close to L1. A multiple of the inner row
// when some input repeats per row, so that input's tile is gathered only once.
void BoundProgram::choose_tile() {
  const int r = static_cast<int>(domain_.size());
  int streams = buffers_ + outputs_;
  for (auto& op : in_) streams += op.mode == Mode::kDense;
  const int64_t budget = tiling().stream_tile_floats;
  int64_t tile = std::clamp<int64_t>(budget / std::max(streams, 1) / 64 * 64, 512, std::max<int64_t>(512, budget));
  bool row_repeat = false;
  for (auto& op : in_) row_repeat |= op.buffer >= 0 && outer_zero(op.strides) && op.strides[r - 1];
  if (row_repeat && domain_[r - 1] > 0 && domain_[r - 1] <= tile) tile = tile / domain_[r - 1] * domain_[r - 1];
  tile = anchor_tile(tile);
  if (row_len_ > 0) {  // whole rows of the domain
    tile = std::max<int64_t>(1, tile / row_len_) * row_len_;
    if (row_ % row_len_ != 0 || row_ == 0) {
      row_ = row_len_;
      mr_ = 1;
    }
  }
  for (const Step& s : steps_) depth_ += s.anchor >= 0 ? anchors_[s.anchor].depth() : 1;
  tile = std::max<int64_t>(1, std::min(tile, total_));
  tile_ = static_cast<int>(tile);
  const int64_t inner = std::max<int64_t>(1, domain_[r - 1]);  // an empty domain may end in 0
  for (auto& op : in_) {
    if (op.buffer < 0) continue;
    const bool invariant = outer_zero(op.strides) && (op.strides[r - 1] == 0 || tile % inner == 0);
    op.mode = invariant ? Mode::kInvariant : Mode::kGathered;
  }
}

// An anchor reading whole inputs computes whole rows of its output per tile, a
// multiple of its GEMM's rows (row values and row ops follow the domain's rows).
int64_t BoundProgram::anchor_tile(int64_t tile) {
  for (const Step& s : steps_) {
    if (s.anchor < 0 || s.rows || s.tile_input) continue;
    const BoundAnchor& a = anchors_[s.anchor];
    const int64_t mr = a.row_unit     ? a.row_unit
                       : a.step.spmm ? kSpmmRows
                       : a.step.gemm ? a.step.gemm->mr
                       : a.step.qd8  ? a.step.qd8->mr
                                     : 1;
    const int64_t n = std::max<int64_t>(1, a.n);
    const int64_t budget = row_len_ > 0 ? tiling().row_tile_floats : tiling().anchor_tile_floats;
    int64_t rows = std::max<int64_t>(mr, budget / n / mr * mr);
    const size_t weight_bytes = a.step.weights       ? a.step.weights->data.size() * sizeof(float)
                                : a.step.winograd    ? a.step.winograd->bytes()
                                : a.step.qd8_weights ? a.step.qd8_weights->data.size()
                                                     : 0;  // sparse: read once per 16 rows whatever the tile
    if (weight_bytes > tiling().streamed_weights_bytes) {
      const int64_t all = total_ / n;  // 0 at batch 0: one (empty) block
      const int64_t blocks = std::max<int64_t>(1, (all + kGemmRowBlock - 1) / kGemmRowBlock);
      rows = std::max(rows, ((all + blocks - 1) / blocks + mr - 1) / mr * mr);
    }
    tile = rows * n;
    row_ = n;
    mr_ = mr;
  }
  return tile;
}

void BoundProgram::write_output_strided(int o, int64_t len, int64_t stride) {
  output_strided_[o] = Strided{len, stride};
  strided_outputs_ = static_cast<int>(
      std::count_if(output_strided_.begin(), output_strided_.end(), [](const Strided& st) { return st.len > 0; }));
}

void BoundProgram::before_run(const float* const* inputs) const {
  std::vector<const float*> anchor_inputs;
  for (const Step& s : steps_) {
    if (s.anchor < 0 || s.tile_input) continue;
    anchor_inputs.clear();
    for (int slot : s.src) anchor_inputs.push_back(inputs[slot]);
    anchors_[s.anchor].before_run(anchor_inputs.data());
  }
}

void BoundProgram::run(const float* const* inputs, float* const* outputs, ThreadPool* pool) const {
  if (total_ == 0) return;
  before_run(inputs);
  const int workers = pool ? pool->size() : 1;
  if (workers <= 1 || (total_ < kParallelMinElements && total_ * depth_ < kParallelMinWork)) {
    run_range(0, total_, inputs, outputs, 0);
    return;
  }
  // Rows too few to share (a batch-1 FULLY_CONNECTED): the GEMM shares its
  // columns, and its epilogue runs on this thread.
  if (row_ > 0 && total_ / row_ <= mr_ && anchors_.size() == 1 && anchor_panels(anchors_[0]) >= 2 * workers) {
    run_range(0, total_, inputs, outputs, 0, pool);
    return;
  }
  // One chunk per worker, cut at whole tiles; with an anchor at whole blocks of
  // the GEMM's rows, or at single rows where blocks are too few to share evenly.
  int64_t grain = tile_;
  if (row_ > 0) grain = total_ / (row_ * mr_) >= 4 * workers ? row_ * mr_ : row_;
  const int64_t units = (total_ + grain - 1) / grain;
  const int chunks = static_cast<int>(std::min<int64_t>(workers, units));
  pool->parallel_for(chunks, [&](int c) {
    run_range(std::min(total_, units * c / chunks * grain), std::min(total_, units * (c + 1) / chunks * grain),
              inputs, outputs, 0);
  });
}

namespace {

// Elements [first, first + n) of a dense tensor into rows of len elements,
// stride apart, at out.
void store_strided(const float* tile, int64_t first, int64_t n, int64_t len, int64_t stride, float* out) {
  while (n > 0) {
    const int64_t row = first / len, col = first % len;
    const int64_t seg = std::min(n, len - col);
    std::memcpy(out + row * stride + col, tile, seg * sizeof(float));
    tile += seg;
    first += seg;
    n -= seg;
  }
}

}  // namespace

void BoundProgram::run_range(int64_t first, int64_t last, const float* const* in, float* const* out,
                             int64_t origin, ThreadPool* column_pool) const {
  if (first >= last) return;
  const size_t ni = in_.size(), no = outputs_;
  const size_t stride = (tile_ + 15) / 16 * 16;  // keep each buffer 64-byte aligned
  const int scratch_buffers = buffers_ + strided_outputs_;
  thread_local ScratchVector<float> scratch_buffer;
  thread_local std::vector<float*> slot_buffer;
  ScratchVector<float>& scratch = scratch_buffer;  // one thread-local lookup, not one per use
  std::vector<float*>& slots = slot_buffer;
  if (scratch.size() < scratch_buffers * stride + 16) scratch.resize(scratch_buffers * stride + 16);
  float* base = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t{63});
  slots.assign(ni + no + buffers_, nullptr);
  for (int k = 0; k < buffers_; ++k) slots[ni + no + k] = base + k * stride;
  auto buffer = [&](int k) { return slots[ni + no + k]; };
  for (size_t o = 0, j = 0; o < no; ++o)  // a strided output is computed in a buffer of its own
    if (output_strided_[o].len > 0) slots[ni + o] = base + (buffers_ + j++) * stride;

  // An invariant input repeats with the inner dimension, which divides the
  // tile: gathered once if the range starts at a multiple of it, else per tile.
  const bool once = first % domain_.back() == 0;
  for (size_t i = 0; i < ni; ++i)
    if (in_[i].mode == Mode::kInvariant && once)
      gather_tile(domain_, in_[i].strides, first, std::min<int64_t>(tile_, last - first), in[i], buffer(in_[i].buffer));
  for (int64_t t0 = first; t0 < last; t0 += tile_) {
    const int64_t n = std::min<int64_t>(tile_, last - t0);
    for (size_t i = 0; i < ni; ++i) {
      switch (in_[i].mode) {
        case Mode::kDense: slots[i] = const_cast<float*>(in[i]) + t0; break;
        case Mode::kInvariant:
          slots[i] = buffer(in_[i].buffer);
          if (!once) gather_tile(domain_, in_[i].strides, t0, n, in[i], slots[i]);
          break;
        case Mode::kGathered:
          slots[i] = buffer(in_[i].buffer);
          gather_tile(domain_, in_[i].strides, t0, n, in[i], slots[i]);
          break;
        case Mode::kWhole: break;
      }
    }
    for (size_t o = 0; o < no; ++o)
      if (!output_strided_[o].len) slots[ni + o] = out[o] + output_index(o, t0 - origin);
    run_tile(t0, n, slots.data(), column_pool);
    for (size_t o = 0; o < no; ++o) {
      const Strided& st = output_strided_[o];
      if (st.len) store_strided(slots[ni + o], output_index(o, t0 - origin), output_index(o, n), st.len, st.stride, out[o]);
    }
  }
}

// The steps on one tile: elements [t0, t0 + n) of the domain.
void BoundProgram::run_tile(int64_t t0, int64_t n, float* const* slots, ThreadPool* column_pool) const {
  for (const Step& s : steps_) {
    if (s.rows_fn) {
      const size_t arity = s.src.size();
      s.rows_fn(slots[s.src[0]], slots[s.src[1]], arity > 2 ? slots[s.src[2]] : nullptr, slots[s.dst],
                static_cast<size_t>(n / row_len_), static_cast<size_t>(row_len_), s.param);
    } else if (s.tile_input) {  // a row op on the tile's rows
      run_row_op(anchors_[s.anchor], slots[s.src[0]], t0 / row_len_, n / row_len_, slots[s.dst]);
    } else if (s.anchor >= 0 && s.rows) {  // one value per row, from the whole input tensor
      run_anchor(anchors_[s.anchor], t0 / row_len_, n / row_len_, slots[s.dst]);
    } else if (s.anchor >= 0) {  // whole rows of the anchor's output, from the whole input tensor
      run_anchor_rows(anchors_[s.anchor], t0, n, slots[s.dst], column_pool);
    } else {
      run_elementwise(s, s.rows ? t0 / row_len_ : t0, s.rows ? n / row_len_ : n, slots);
    }
  }
}

// Values [first, first + n) of an elementwise step; those from its tail_from on by its tail_fn.
void BoundProgram::run_elementwise(const Step& s, int64_t first, int64_t n, float* const* slots) const {
  const size_t arity = s.src.size();
  auto operand = [&](size_t k, int64_t at) { return k < arity ? slots[s.src[k]] + at : nullptr; };
  const int64_t body = s.tail_fn ? std::clamp<int64_t>(s.tail_from - first, 0, n) : n;
  if (body > 0) s.fn(operand(0, 0), operand(1, 0), operand(2, 0), slots[s.dst], static_cast<size_t>(body), s.param);
  if (body < n)
    s.tail_fn(operand(0, body), operand(1, body), operand(2, body), slots[s.dst] + body, static_cast<size_t>(n - body),
              s.param);
}

// With column_pool, the GEMM's panels are shared over it.
void BoundProgram::run_anchor_rows(const BoundAnchor& a, int64_t t0, int64_t n, float* out,
                                   ThreadPool* column_pool) const {
  if (!column_pool) {
    run_anchor(a, t0 / a.n, n / a.n, out);
    return;
  }
  const int panels = anchor_panels(a), chunks = column_pool->size();
  column_pool->parallel_for(chunks, [&](int c) {
    run_anchor_panels(a, t0 / a.n, n / a.n, panels * c / chunks, panels * (c + 1) / chunks, out);
  });
}

}  // namespace fd
