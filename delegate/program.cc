#include "program.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <set>

#include "planner.h"
#include "thread_pool.h"

#include <cmath>

namespace fd {
namespace {

// POW with a constant scalar exponent becomes an exact cheaper op.
EwOp specialise_pow(const Graph& g, const Node& node) {
  const Tensor& y = g.tensors[node.inputs[1]];
  const Shape& x = g.tensors[node.inputs[0]].shape;
  if (!y.is_constant || !y.data || num_elements(y.shape) != 1 || y.shape.size() > x.size()) return EwOp::Pow;
  if (y.data[0] == 2.f) return EwOp::Square;
  if (y.data[0] == 0.5f) return EwOp::Sqrt;
  return EwOp::Pow;
}

EwOp activation_op(Activation a) {
  switch (a) {
    case Activation::kRelu: return EwOp::Relu;
    case Activation::kReluN1To1: return EwOp::ReluN1To1;
    case Activation::kRelu6: return EwOp::Relu6;
    default: return EwOp::kCount;  // the planner declines any other activation
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
const Instr* single_use_producer(const Program& p, const std::vector<int>& uses, int v, EwOp op) {
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
// pass instead of two. Returns the number rewritten.
int fuse_swish(Program& p) {
  std::vector<int> uses = value_uses(p);
  std::vector<bool> folded(p.value_count(), false);
  int fused = 0;
  for (Instr& in : p.code) {
    if (in.anchor >= 0 || in.op != EwOp::Mul) continue;
    for (int side = 0; side < 2; ++side) {
      const Instr* sig = single_use_producer(p, uses, in.src[side], EwOp::Logistic);
      if (!sig || sig->src[0] != in.src[1 - side]) continue;
      folded[in.src[side]] = true;
      in = Instr{EwOp::Swish, 0.f, {in.src[1 - side], -1, -1}};
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
    if (in.anchor >= 0 || (in.op != EwOp::Add && in.op != EwOp::Sub)) continue;
    for (int side = 0; side < 2; ++side) {
      const int v = in.src[side];
      const Instr* mul = single_use_producer(p, uses, v, EwOp::Mul);
      if (!mul) continue;
      const int other = in.src[1 - side];
      in.op = in.op == EwOp::Add ? EwOp::Fma : side == 0 ? EwOp::Fms : EwOp::Fnma;
      in.src[0] = mul->src[0];
      in.src[1] = mul->src[1];
      in.src[2] = other;
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

}  // namespace

Program build_program(const Graph& g, const std::vector<int>& group, const std::vector<bool>& written,
                      const Kernels& kernels) {
  Program p;
  std::map<int, int> value_of;  // tensor -> value
  std::map<int, const Node*> pad_of;  // a PAD's output -> the PAD, folded into its reader
  std::vector<EwOp> ops;
  std::vector<bool> produced(g.tensors.size(), false);
  // A CONV_2D whose input is a constant affine chain of the group reads the
  // chain's source and folds the chain into its weights. The chain runs only
  // if one of its values must be stored (then all of it).
  std::map<int, ChannelAffine> affine_of;  // conv position -> its chain
  std::set<int> in_chain, folded_outputs;  // chain nodes; folded nodes' outputs
  for (int pos : group) {
    auto f = input_affine(g, pos);
    auto in_group = [&](int m) { return std::find(group.begin(), group.end(), m) != group.end(); };
    if (!f || !std::all_of(f->nodes.begin(), f->nodes.end(), in_group)) continue;
    const bool stored =
        std::any_of(f->nodes.begin(), f->nodes.end(), [&](int m) { return written[g.nodes[m].outputs[0]]; });
    for (int m : f->nodes) {
      in_chain.insert(m);
      if (!stored) folded_outputs.insert(g.nodes[m].outputs[0]);
    }
    affine_of[pos] = std::move(*f);
  }
  // A TRANSPOSE of the group that a BATCH_MATMUL reads folds into it: the
  // product reads the TRANSPOSE's input through permuted strides.
  std::map<int, std::array<const Node*, 2>> transpose_of;  // BATCH_MATMUL position -> per operand
  for (int pos : group) {
    for (int i = 0; i < 2; ++i) {
      const int t = folded_transpose(g, pos, i);
      if (t < 0 || std::find(group.begin(), group.end(), t) == group.end()) continue;
      transpose_of[pos][i] = &g.nodes[t];
      folded_outputs.insert(g.nodes[t].outputs[0]);
    }
  }
  // A channel-scale MUL's output -> its tensor and its per-channel scale. The
  // MUL folds into a CONV_2D or FULLY_CONNECTED of the group that reads it.
  std::map<int, std::vector<int>> scale_of;
  for (int pos : group) {
    const Node& node = g.nodes[pos];
    if (node.kind == OpKind::kPad) pad_of[node.outputs[0]] = &node;
    else produced[node.outputs[0]] = true;
    if (const int side = channel_scale_side(g, node); side >= 0 && !in_chain.count(pos))
      scale_of[node.outputs[0]] = {node.inputs[1 - side], node.inputs[side]};
  }
  auto scales_into = [&](const Node& node) {  // an anchor reading a MUL it folds
    return node.kind == OpKind::kAnchor &&
           (node.anchor == AnchorOp::kConv2D || node.anchor == AnchorOp::kFullyConnected) &&
           scale_of.count(node.inputs[0]);
  };
  for (int pos : group)
    if (scales_into(g.nodes[pos])) folded_outputs.insert(g.nodes[pos].inputs[0]);
  // The tensors a node takes as values; an anchor reads through a folded PAD
  // or MUL (the MUL's tensor, then its per-channel scale).
  auto reads = [&](int pos, EwOp op) {
    const Node& node = g.nodes[pos];
    if (auto it = affine_of.find(pos); it != affine_of.end()) return std::vector<int>{it->second.source};
    if (node.kind == OpKind::kElementwise)
      return std::vector<int>(node.inputs.begin(), node.inputs.begin() + ew_arity(op));
    if (node.kind == OpKind::kAnchor && node.anchor == AnchorOp::kBatchMatMul) {
      std::vector<int> in = node.inputs;
      if (auto it = transpose_of.find(pos); it != transpose_of.end())
        for (int i = 0; i < 2; ++i)
          if (it->second[i]) in[i] = it->second[i]->inputs[0];
      return in;
    }
    if (scales_into(node)) return scale_of.at(node.inputs[0]);
    auto it = pad_of.find(node.inputs[0]);
    return std::vector<int>{it != pad_of.end() && node.kind == OpKind::kAnchor ? it->second->inputs[0]
                                                                              : node.inputs[0]};
  };
  // A folded PAD or MUL runs only if its output must be stored.
  auto runs = [&](const Node& node) {
    const bool folds = node.kind == OpKind::kPad || folded_outputs.count(node.outputs[0]);
    return !folds || written[node.outputs[0]];
  };
  for (int pos : group) {
    const Node& node = g.nodes[pos];
    const EwOp op = node.kind != OpKind::kElementwise ? EwOp::kCount
                    : node.ew == EwOp::Pow           ? specialise_pow(g, node)
                                                     : node.ew;
    ops.push_back(op);
    if (!runs(node)) continue;
    for (int t : reads(pos, op)) {
      if (!produced[t] && !value_of.count(t)) {
        value_of[t] = static_cast<int>(p.inputs.size());
        p.inputs.push_back(t);
      }
    }
  }
  const int ni = static_cast<int>(p.inputs.size());
  for (size_t k = 0; k < group.size(); ++k) {
    const Node& node = g.nodes[group[k]];
    if (!runs(node)) continue;
    Instr in{ops[k], node.param, {-1, -1, -1}};
    const std::vector<int> srcs = reads(group[k], ops[k]);
    for (size_t i = 0; i < srcs.size(); ++i) in.src[i] = value_of.at(srcs[i]);
    if (node.kind != OpKind::kElementwise) {
      auto it = pad_of.find(node.inputs[0]);
      const bool folds = node.kind == OpKind::kAnchor && it != pad_of.end();
      const FoldedPad pad = node.kind == OpKind::kPad ? folded_pad(node) : folds ? folded_pad(*it->second)
                                                                                 : FoldedPad{};
      in.anchor = static_cast<int>(p.anchors.size());
      auto affine = affine_of.find(group[k]);
      p.anchors.push_back(make_anchor(g, node, pad, kernels, affine != affine_of.end() ? &affine->second : nullptr));
      p.anchors.back().scale_input = scales_into(node);
      if (auto it = transpose_of.find(group[k]); it != transpose_of.end())
        for (int i = 0; i < 2; ++i)
          if (it->second[i]) p.anchors.back().operand_perm[i] = it->second[i]->dims;
      p.code.push_back(in);
    } else {
      p.code.push_back(in);
      if (node.act != Activation::kNone) {
        p.code.push_back(Instr{activation_op(node.act), 0.f, {ni + static_cast<int>(p.code.size()) - 1, -1, -1}});
      }
    }
    const int out = node.outputs[0];
    value_of[out] = ni + static_cast<int>(p.code.size()) - 1;
    if (written[out]) {
      p.outputs.push_back(out);
      p.output_values.push_back(value_of[out]);
    }
  }
  fuse_swish(p);
  fuse_multiply_add(p);
  return p;
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
      s += "v" + std::to_string(ni + k) + " = " + ew_name(in.op) + "(";
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
  for (int d = r - 1; d >= 0; --d) {
    idx[d] = t0 % dom[d];
    t0 /= dom[d];
  }
  const int64_t inner = dom[r - 1];
  while (n > 0) {
    int64_t off = 0;
    for (int d = 0; d < r; ++d) off += idx[d] * strides[d];
    const int64_t seg = std::min(n, inner - idx[r - 1]);
    if (strides[r - 1]) std::memcpy(tile, tensor + off, seg * sizeof(float));
    else std::fill(tile, tile + seg, tensor[off]);
    tile += seg;
    n -= seg;
    idx[r - 1] = 0;
    for (int d = r - 2; d >= 0 && ++idx[d] == dom[d]; --d) idx[d] = 0;
  }
}

// Each of rows values repeated len times.
void expand_rows(const float* values, int64_t rows, int64_t len, float* out) {
  for (int64_t r = 0; r < rows; ++r) std::fill(out + r * len, out + (r + 1) * len, values[r]);
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
// All streams of one tile together: 16 KiB, a third of L1d. On an Intel Xeon
// (48 KiB L1d, 2 MiB L2) anchor_bench's chain of 6 unary ops ran at 91% of
// memcpy's bandwidth with it and 72% with 64 KiB (past L1), swish 75% and 57%;
// a Zen 5 core had preferred 2048-4096-float tiles, which 64 KiB gives.
constexpr int kTileBudgetFloats = 4096;
// An anchor's output tile: its epilogue then reads it from L2.
constexpr int kAnchorTileFloats = 16384;
// ... or, where the epilogue computes row statistics (a LayerNorm: ten passes
// over the tile), from L1: BERT 4% faster than with the tile above.
constexpr int kRowTileFloats = 4096;
// Weights above kStreamedWeightsBytes (gemm.h): the tile grows to a GEMM row
// block (kGemmRowBlock rows, shared evenly) so that they stream from L3 once per
// block, not once per tile. ResNet-50 8% faster (its 7x7 and 14x14 layers: 1-9
// MiB of weights for 49 or 196 rows); BERT's row programs keep L1 tiles.

}  // namespace

std::unique_ptr<BoundProgram> BoundProgram::bind(const Program& p, const std::vector<Shape>& input_shapes,
                                                 const EwTable& table, std::string* error,
                                                 bool* mixed_shapes) {
  auto b = std::unique_ptr<BoundProgram>(new BoundProgram());
  const int ni = static_cast<int>(p.inputs.size());
  const int no = static_cast<int>(p.outputs.size());
  if (mixed_shapes) *mixed_shapes = false;
  // Every value's shape, then the domain they all share.
  std::vector<Shape> shape(input_shapes);
  for (const Instr& in : p.code) {
    if (in.anchor >= 0) {
      std::vector<Shape> anchor_inputs;
      for (int i = 0; i < in.arity(); ++i) {
        if (in.src[i] >= ni && !(i == 0 && reads_tile_rows(p.anchors[in.anchor].op))) {
          *error = "an anchor's input must come from outside the fused group";
          return nullptr;
        }
        anchor_inputs.push_back(shape[in.src[i]]);
      }
      auto a = bind_anchor(p.anchors[in.anchor], anchor_inputs, error);
      if (!a) return nullptr;
      shape.push_back(a->output);
      b->anchors_.push_back(std::move(*a));
      continue;
    }
    Shape s = shape[in.src[0]];
    for (int i = 1; i < ew_arity(in.op); ++i) {
      auto bs = broadcast(s, shape[in.src[i]]);
      if (!bs) {
        *error = "shapes " + fd::to_string(s) + " and " + fd::to_string(shape[in.src[i]]) + " do not broadcast";
        return nullptr;
      }
      s = *bs;
    }
    shape.push_back(s);
  }
  // The domain: the largest value's shape. Every value has its layout or holds
  // one value per row of it (is_row_of); one tile loop computes them all.
  Shape dom = shape.back();
  for (size_t v = ni; v < shape.size(); ++v)
    if (num_elements(shape[v]) > num_elements(dom)) dom = shape[v];
  size_t rank = dom.size();  // as high as any shape's, so every input broadcasts to it
  for (const Shape& s : shape) rank = std::max(rank, s.size());
  dom.insert(dom.begin(), rank - dom.size(), 1);
  std::vector<bool> row_value(shape.size(), false);
  for (size_t v = ni; v < shape.size(); ++v) {
    row_value[v] = !same_layout(shape[v], dom) && is_row_of(shape[v], dom);
    if (!row_value[v] && !same_layout(shape[v], dom)) {
      if (mixed_shapes) *mixed_shapes = true;
      *error = "the fused values have different shapes " + fd::to_string(shape[v]) + " and " + fd::to_string(dom);
      return nullptr;
    }
  }
  bool by_rows = std::count(row_value.begin(), row_value.end(), true) > 0;
  for (const Instr& in : p.code) by_rows |= in.anchor >= 0 && in.src[0] >= ni;  // a row op reading a tile
  if (by_rows) {
    b->row_len_ = dom.back();
    for (size_t k = 0; k < p.code.size(); ++k) {  // row values are read by row ops and from scalar inputs
      const Instr& in = p.code[k];
      const int v = ni + static_cast<int>(k);
      for (int i = 0; i < in.arity(); ++i) {
        const int s = in.src[i];
        const bool bad = in.anchor >= 0 ? s >= ni && row_value[s]
                                        : row_value[v] && s < ni && num_elements(shape[s]) != 1;
        if (bad) {
          if (mixed_shapes) *mixed_shapes = true;
          *error = "a row value of " + fd::to_string(dom) + " reads " + fd::to_string(shape[s]);
          return nullptr;
        }
      }
    }
  }
  if (static_cast<int>(dom.size()) > kMaxRank) {
    *error = "rank " + std::to_string(dom.size()) + " is above " + std::to_string(kMaxRank);
    return nullptr;
  }
  for (int o = 0; o < no; ++o) {
    b->output_shapes_.push_back(shape[p.output_values[o]]);
    b->output_rows_.push_back(row_value[p.output_values[o]]);
  }
  b->outputs_ = no;

  b->in_.resize(ni);
  std::vector<bool> tiled(ni, false);  // read tile by tile by some elementwise step
  for (const Instr& in : p.code)
    for (int i = 0; in.anchor < 0 && i < in.arity(); ++i)
      if (in.src[i] < ni) tiled[in.src[i]] = true;
  std::vector<Shape*> strides;
  for (int i = 0; i < ni; ++i) {
    if (!tiled[i]) continue;
    b->in_[i].strides = broadcast_strides(shape[i], dom);
    strides.push_back(&b->in_[i].strides);
  }
  coalesce(dom, strides);
  b->domain_ = dom;
  b->total_ = num_elements(dom);
  const Shape dense = dense_strides(dom);
  const int r = static_cast<int>(dom.size());
  auto outer_zero = [&](const Shape& s) {
    for (int d = 0; d + 1 < r; ++d)
      if (s[d]) return false;
    return true;
  };

  // A broadcast input is gathered into a buffer of its own.
  int buffers = 0;
  for (int i = 0; i < ni; ++i) {
    if (!tiled[i]) b->in_[i].mode = Mode::kWhole;
    else if (b->in_[i].strides != dense) b->in_[i].buffer = buffers++;
  }

  // Slots: inputs, outputs, then buffers. An output value is computed straight
  // into the output; other values hold a buffer while they are live.
  const int nvalues = p.value_count();
  std::vector<int> last_use(nvalues, -1), slot(nvalues, -1), out_of(nvalues, -1);
  for (size_t k = 0; k < p.code.size(); ++k)
    for (int s : p.code[k].src)
      if (s >= 0) last_use[s] = static_cast<int>(k);
  for (int o = 0; o < no; ++o) out_of[p.output_values[o]] = o;
  for (int i = 0; i < ni; ++i) slot[i] = i;
  std::vector<int> free_buffers;
  const int first_buffer_slot = ni + no;
  int anchor_index = 0;  // anchors_ are in code order
  auto take_buffer = [&] {
    if (free_buffers.empty()) return first_buffer_slot + buffers++;
    const int s = first_buffer_slot + free_buffers.back();
    free_buffers.pop_back();
    return s;
  };
  for (size_t k = 0; k < p.code.size(); ++k) {
    const Instr& in = p.code[k];
    const int v = ni + static_cast<int>(k);
    Step st{in.anchor >= 0 ? nullptr : table.fn[static_cast<int>(in.op)], in.param, {-1, -1, -1}, -1,
            in.anchor >= 0 ? anchor_index++ : -1};
    st.rows = row_value[v];
    st.tile_input = in.anchor >= 0 && in.src[0] >= ni;
    for (int i = 0; i < 3; ++i) st.src[i] = in.src[i] >= 0 ? slot[in.src[i]] : -1;
    // A row value read by a step over whole rows is first repeated along them.
    std::vector<int> expanded;
    for (int i = 0; i < in.arity() && !st.rows; ++i) {
      if (!row_value[in.src[i]]) continue;
      Step ex{nullptr, 0.f, {slot[in.src[i]], -1, -1}, take_buffer(), -1};
      ex.expand = true;
      b->steps_.push_back(ex);
      st.src[i] = ex.dst;
      expanded.push_back(ex.dst - first_buffer_slot);
    }
    // A source dying here lends its buffer to the result (elementwise: in place is
    // safe). Each distinct source once: Add(v, v) frees v's buffer once.
    for (int i = 0; i < 3 && in.anchor < 0; ++i) {
      const int s = in.src[i];
      const bool repeated = (i > 0 && in.src[0] == s) || (i > 1 && in.src[1] == s);
      if (s >= ni && !repeated && last_use[s] == static_cast<int>(k) && slot[s] >= first_buffer_slot)
        free_buffers.push_back(slot[s] - first_buffer_slot);
    }
    slot[v] = out_of[v] >= 0 ? ni + out_of[v] : take_buffer();
    st.dst = slot[v];
    b->steps_.push_back(st);
    free_buffers.insert(free_buffers.end(), expanded.begin(), expanded.end());
    // An anchor's sources die after it (no lending: it may not run in place).
    for (int i = 0; i < 3 && in.anchor >= 0; ++i) {
      const int s = in.src[i];
      if (s >= ni && last_use[s] == static_cast<int>(k) && slot[s] >= first_buffer_slot)
        free_buffers.push_back(slot[s] - first_buffer_slot);
    }
  }
  b->buffers_ = buffers;

  // Tile: all streams of one tile stay close to L1. A multiple of the inner row when
  // some input repeats per row, so that input's tile is gathered only once.
  int streams = buffers + no;
  for (auto& op : b->in_) streams += op.mode == Mode::kDense;
  int64_t tile = std::clamp<int64_t>(kTileBudgetFloats / std::max(streams, 1) / 64 * 64, 512, 4096);
  bool row_repeat = false;
  for (auto& op : b->in_) row_repeat |= op.buffer >= 0 && outer_zero(op.strides) && op.strides[r - 1];
  if (row_repeat && dom[r - 1] <= tile) tile = tile / dom[r - 1] * dom[r - 1];
  for (const Step& s : b->steps_) {  // whole output rows, a multiple of the GEMM's rows
    if (s.anchor < 0 || s.rows || s.tile_input) continue;  // those follow the domain's rows
    const BoundAnchor& a = b->anchors_[s.anchor];
    const int64_t mr = a.step.gemm ? a.step.gemm->mr : 1;
    const int64_t n = std::max<int64_t>(1, a.n);
    const int64_t budget = b->row_len_ > 0 ? kRowTileFloats : kAnchorTileFloats;
    int64_t rows = std::max<int64_t>(mr, budget / n / mr * mr);
    if (b->row_len_ == 0 && a.step.weights && a.step.weights->data.size() * sizeof(float) > kStreamedWeightsBytes) {
      const int64_t all = b->total_ / n, blocks = (all + kGemmRowBlock - 1) / kGemmRowBlock;
      rows = std::max(rows, ((all + blocks - 1) / blocks + mr - 1) / mr * mr);
    }
    tile = rows * n;
    b->row_ = n;
    b->mr_ = mr;
  }
  if (b->row_len_ > 0) {  // whole rows of the domain
    tile = std::max<int64_t>(1, tile / b->row_len_) * b->row_len_;
    if (b->row_ % b->row_len_ != 0 || b->row_ == 0) {
      b->row_ = b->row_len_;
      b->mr_ = 1;
    }
  }
  for (const Step& s : b->steps_) b->depth_ += s.anchor >= 0 ? b->anchors_[s.anchor].depth() : 1;
  tile = std::max<int64_t>(1, std::min(tile, b->total_));
  b->tile_ = static_cast<int>(tile);
  for (auto& op : b->in_) {
    if (op.buffer < 0) continue;
    const bool invariant = outer_zero(op.strides) && (op.strides[r - 1] == 0 || tile % dom[r - 1] == 0);
    op.mode = invariant ? Mode::kInvariant : Mode::kGathered;
  }
  return b;
}

void BoundProgram::before_run(const float* const* inputs) const {
  for (const Step& s : steps_) {
    if (s.anchor < 0 || s.tile_input) continue;
    const float* anchor_inputs[2] = {inputs[s.src[0]], s.src[1] >= 0 ? inputs[s.src[1]] : nullptr};
    anchors_[s.anchor].before_run(anchor_inputs);
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

void BoundProgram::run_range(int64_t first, int64_t last, const float* const* in, float* const* out,
                             int64_t origin, ThreadPool* column_pool) const {
  if (first >= last) return;
  const size_t ni = in_.size(), no = outputs_;
  const size_t stride = (tile_ + 15) / 16 * 16;  // keep each buffer 64-byte aligned
  thread_local std::vector<float> scratch_buffer;
  thread_local std::vector<float*> slot_buffer;
  std::vector<float>& scratch = scratch_buffer;  // one thread-local lookup, not one per use
  std::vector<float*>& slots = slot_buffer;
  if (scratch.size() < buffers_ * stride + 16) scratch.resize(buffers_ * stride + 16);
  float* base = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t{63});
  slots.assign(ni + no + buffers_, nullptr);
  for (int k = 0; k < buffers_; ++k) slots[ni + no + k] = base + k * stride;
  auto buffer = [&](int k) { return slots[ni + no + k]; };

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
    for (size_t o = 0; o < no; ++o) slots[ni + o] = out[o] + (output_rows_[o] ? (t0 - origin) / row_len_ : t0 - origin);
    for (const Step& s : steps_) {
      if (s.expand) {
        expand_rows(slots[s.src[0]], n / row_len_, row_len_, slots[s.dst]);
        continue;
      }
      if (s.tile_input) {  // a row op on the tile's rows
        run_row_op(anchors_[s.anchor], slots[s.src[0]], n / row_len_, slots[s.dst]);
        continue;
      }
      if (s.anchor >= 0 && s.rows) {  // one value per row, from the whole input tensor
        run_anchor(anchors_[s.anchor], t0 / row_len_, n / row_len_, slots[s.dst]);
        continue;
      }
      if (s.anchor >= 0) {  // whole rows of the anchor's output, from the whole input tensor
        const BoundAnchor& a = anchors_[s.anchor];
        if (column_pool) {
          const int panels = anchor_panels(a), chunks = column_pool->size();
          column_pool->parallel_for(chunks, [&](int c) {
            run_anchor_panels(a, t0 / a.n, n / a.n, panels * c / chunks, panels * (c + 1) / chunks, slots[s.dst]);
          });
        } else {
          run_anchor(a, t0 / a.n, n / a.n, slots[s.dst]);
        }
        continue;
      }
      s.fn(slots[s.src[0]], s.src[1] >= 0 ? slots[s.src[1]] : nullptr,
           s.src[2] >= 0 ? slots[s.src[2]] : nullptr, slots[s.dst], static_cast<size_t>(s.rows ? n / row_len_ : n),
           s.param);
    }
  }
}

}  // namespace fd
