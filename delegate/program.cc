#include "program.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "thread_pool.h"

namespace fd {
namespace {

// POW with a constant scalar exponent becomes an exact cheaper op.
EwOp specialise_pow(const Graph& g, const Node& node) {
  const Tensor& y = g.tensors[node.inputs[1]];
  if (!y.is_constant || !y.data || num_elements(y.shape) != 1) return EwOp::Pow;
  if (y.data[0] == 2.f) return EwOp::Square;
  if (y.data[0] == 0.5f) return EwOp::Sqrt;
  return EwOp::Pow;
}

EwOp activation_op(Activation a) {
  switch (a) {
    case Activation::kRelu: return EwOp::Relu;
    case Activation::kReluN1To1: return EwOp::ReluN1To1;
    default: return EwOp::Relu6;
  }
}

// MUL feeding only an ADD or SUB becomes one FMA; returns the number rewritten.
int fuse_multiply_add(Program& p) {
  const int ni = static_cast<int>(p.inputs.size());
  std::vector<int> uses(p.value_count(), 0);
  for (const Instr& in : p.code)
    for (int s : in.src)
      if (s >= 0) ++uses[s];
  for (int v : p.output_values) uses[v] += 2;  // never fold a value that is written out
  int fused = 0;
  for (Instr& in : p.code) {
    if (in.op != EwOp::Add && in.op != EwOp::Sub) continue;
    for (int side = 0; side < 2; ++side) {
      const int v = in.src[side];
      if (v < ni || uses[v] != 1 || p.code[v - ni].op != EwOp::Mul) continue;
      const Instr& mul = p.code[v - ni];
      const int other = in.src[1 - side];
      in.op = in.op == EwOp::Add ? EwOp::Fma : side == 0 ? EwOp::Fms : EwOp::Fnma;
      in.src[0] = mul.src[0];
      in.src[1] = mul.src[1];
      in.src[2] = other;
      ++uses[mul.src[0]];
      ++uses[mul.src[1]];
      uses[v] = 0;
      ++fused;
      break;
    }
  }
  if (!fused) return 0;
  // Drop the folded MULs and renumber.
  std::vector<int> remap(p.value_count(), -1);
  for (int i = 0; i < ni; ++i) remap[i] = i;
  std::vector<Instr> code;
  for (size_t k = 0; k < p.code.size(); ++k) {
    const int v = ni + static_cast<int>(k);
    if (uses[v] == 0) continue;
    remap[v] = ni + static_cast<int>(code.size());
    code.push_back(p.code[k]);
  }
  for (Instr& in : code)
    for (int& s : in.src)
      if (s >= 0) s = remap[s];
  for (int& v : p.output_values) v = remap[v];
  p.code = std::move(code);
  return fused;
}

}  // namespace

Program build_program(const Graph& g, const std::vector<int>& group,
                      const std::vector<bool>& written) {
  Program p;
  std::map<int, int> value_of;  // tensor -> value
  std::vector<EwOp> ops;
  std::vector<bool> produced(g.tensors.size(), false);
  for (int pos : group) produced[g.nodes[pos].outputs[0]] = true;
  for (int pos : group) {
    const Node& node = g.nodes[pos];
    const EwOp op = node.ew == EwOp::Pow ? specialise_pow(g, node) : node.ew;
    ops.push_back(op);
    for (int i = 0; i < ew_arity(op); ++i) {
      const int t = node.inputs[i];
      if (!produced[t] && !value_of.count(t)) {
        value_of[t] = static_cast<int>(p.inputs.size());
        p.inputs.push_back(t);
      }
    }
  }
  const int ni = static_cast<int>(p.inputs.size());
  for (size_t k = 0; k < group.size(); ++k) {
    const Node& node = g.nodes[group[k]];
    Instr in{ops[k], node.param, {-1, -1, -1}};
    for (int i = 0; i < ew_arity(ops[k]); ++i) in.src[i] = value_of.at(node.inputs[i]);
    p.code.push_back(in);
    if (node.act != Activation::kNone) {
      p.code.push_back(Instr{activation_op(node.act), 0.f, {ni + static_cast<int>(p.code.size()) - 1, -1, -1}});
    }
    const int out = node.outputs[0];
    value_of[out] = ni + static_cast<int>(p.code.size()) - 1;
    if (written[out]) {
      p.outputs.push_back(out);
      p.output_values.push_back(value_of[out]);
    }
  }
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
    s += "v" + std::to_string(ni + k) + " = " + ew_name(code[k].op) + "(";
    for (int i = 0; i < ew_arity(code[k].op); ++i) s += (i ? ", " : "") + name(code[k].src[i]);
    s += ")\n";
  }
  for (size_t o = 0; o < outputs.size(); ++o)
    s += "t" + std::to_string(outputs[o]) + " <- " + name(output_values[o]) + "\n";
  return s;
}

namespace {

// Copies n elements of the (coalesced) domain, from linear index t0 on,
// between a strided tensor and a dense tile buffer.
template <bool kToTile>
void strided_copy(const Shape& dom, const Shape& strides, int64_t t0, int64_t n,
                  float* tensor, float* tile) {
  const int r = static_cast<int>(dom.size());
  int64_t idx[kMaxRank];
  for (int d = r - 1; d >= 0; --d) {
    idx[d] = t0 % dom[d];
    t0 /= dom[d];
  }
  const int64_t inner = dom[r - 1], s = strides[r - 1];
  while (n > 0) {
    int64_t off = 0;
    for (int d = 0; d < r; ++d) off += idx[d] * strides[d];
    const int64_t seg = std::min(n, inner - idx[r - 1]);
    float* p = tensor + off;
    if (kToTile) {
      if (s == 1) std::memcpy(tile, p, seg * sizeof(float));
      else if (s == 0) std::fill(tile, tile + seg, *p);
      else for (int64_t i = 0; i < seg; ++i) tile[i] = p[i * s];
    } else {
      if (s == 1) std::memcpy(p, tile, seg * sizeof(float));
      else if (s == 0) *p = tile[seg - 1];  // all equal along a broadcast dim
      else for (int64_t i = 0; i < seg; ++i) p[i * s] = tile[i];
    }
    tile += seg;
    n -= seg;
    idx[r - 1] = 0;
    for (int d = r - 2; d >= 0 && ++idx[d] == dom[d]; --d) idx[d] = 0;
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

constexpr int64_t kParallelMinElements = 1 << 15;
// All streams of one tile together. Measured on a Zen 5 core (48 KiB L1d, 1 MiB
// L2): 2048-4096-float tiles beat 512-1024 by 10-25% on 5- and 20-op chains.
constexpr int kTileBudgetFloats = 16384;

}  // namespace

std::unique_ptr<BoundProgram> BoundProgram::bind(const Program& p, const std::vector<Shape>& input_shapes,
                                                 const EwTable& table, std::string* error) {
  auto b = std::unique_ptr<BoundProgram>(new BoundProgram());
  const int ni = static_cast<int>(p.inputs.size());
  const int no = static_cast<int>(p.outputs.size());
  std::vector<Shape> shape(input_shapes);
  Shape dom;
  for (const Instr& in : p.code) {
    Shape s = shape[in.src[0]];
    for (int i = 1; i < ew_arity(in.op); ++i) {
      auto bs = broadcast(s, shape[in.src[i]]);
      if (!bs) {
        *error = "shapes " + fd::to_string(s) + " and " + fd::to_string(shape[in.src[i]]) +
                 " do not broadcast";
        return nullptr;
      }
      s = *bs;
    }
    shape.push_back(s);
    auto d = broadcast(dom, s);
    if (!d) {
      *error = "the fused group's values " + fd::to_string(dom) + " and " + fd::to_string(s) +
               " have no common shape";
      return nullptr;
    }
    dom = *d;
  }
  for (int v : p.output_values) b->output_shapes_.push_back(shape[v]);
  if (static_cast<int>(dom.size()) > kMaxRank) {
    *error = "rank " + std::to_string(dom.size()) + " is above " + std::to_string(kMaxRank);
    return nullptr;
  }

  b->in_.resize(ni);
  b->out_.resize(no);
  std::vector<Shape*> all;
  for (int i = 0; i < ni; ++i) {
    b->in_[i].strides = broadcast_strides(shape[i], dom);
    all.push_back(&b->in_[i].strides);
  }
  for (int o = 0; o < no; ++o) {
    b->out_[o].strides = broadcast_strides(shape[p.output_values[o]], dom);
    all.push_back(&b->out_[o].strides);
  }
  coalesce(dom, all);
  b->domain_ = dom;
  b->total_ = num_elements(dom);
  const Shape dense = dense_strides(dom);
  const int r = static_cast<int>(dom.size());
  auto outer_zero = [&](const Shape& s) {
    for (int d = 0; d + 1 < r; ++d)
      if (s[d]) return false;
    return true;
  };

  int buffers = 0;
  for (auto& op : b->in_)
    if (op.strides != dense) op.buffer = buffers++;
  for (auto& op : b->out_) op.mode = op.strides == dense ? Mode::kDense : Mode::kGathered;

  // Slots: inputs, outputs, then buffers. Values get a buffer while live.
  const int nvalues = p.value_count();
  std::vector<int> last_use(nvalues, -1), slot(nvalues, -1), out_of(nvalues, -1);
  for (size_t k = 0; k < p.code.size(); ++k)
    for (int s : p.code[k].src)
      if (s >= 0) last_use[s] = static_cast<int>(k);
  for (int o = 0; o < no; ++o) {
    out_of[p.output_values[o]] = o;
    last_use[p.output_values[o]] = static_cast<int>(p.code.size());  // kept to the end
  }
  for (int i = 0; i < ni; ++i) slot[i] = i;
  std::vector<int> free_buffers;
  auto take_buffer = [&] {
    if (free_buffers.empty()) return buffers++;
    const int buf = free_buffers.back();
    free_buffers.pop_back();
    return buf;
  };
  const int first_buffer_slot = ni + no;
  for (size_t k = 0; k < p.code.size(); ++k) {
    const Instr& in = p.code[k];
    const int v = ni + static_cast<int>(k);
    for (int s : in.src)  // a source dying here may lend its buffer to the result
      if (s >= ni && last_use[s] == static_cast<int>(k) && slot[s] >= first_buffer_slot)
        free_buffers.push_back(slot[s] - first_buffer_slot);
    const int o = out_of[v];
    if (o >= 0 && b->out_[o].mode == Mode::kDense) {
      slot[v] = ni + o;
    } else {
      slot[v] = first_buffer_slot + take_buffer();
      if (o >= 0) b->out_[o].buffer = slot[v] - first_buffer_slot;
    }
    Step st{table.fn[static_cast<int>(in.op)], in.param, {-1, -1, -1}, slot[v]};
    for (int i = 0; i < 3; ++i) st.src[i] = in.src[i] >= 0 ? slot[in.src[i]] : -1;
    b->steps_.push_back(st);
  }
  b->buffers_ = buffers;

  // Tile: all streams of one tile stay close to L1. A multiple of the inner row when
  // some input repeats per row, so that input's tile is gathered only once.
  int streams = buffers;
  for (auto& op : b->in_) streams += op.mode == Mode::kDense;
  for (auto& op : b->out_) streams += op.mode == Mode::kDense;
  int64_t tile = std::clamp<int64_t>(kTileBudgetFloats / std::max(streams, 1) / 64 * 64, 512, 4096);
  bool row_repeat = false;
  for (auto& op : b->in_) row_repeat |= op.buffer >= 0 && outer_zero(op.strides) && op.strides[r - 1];
  if (row_repeat && dom[r - 1] <= tile) tile = tile / dom[r - 1] * dom[r - 1];
  tile = std::max<int64_t>(1, std::min(tile, b->total_));
  b->tile_ = static_cast<int>(tile);
  for (auto& op : b->in_) {
    if (op.buffer < 0) continue;
    const bool invariant = outer_zero(op.strides) && (op.strides[r - 1] == 0 || tile % dom[r - 1] == 0);
    op.mode = invariant ? Mode::kInvariant : Mode::kGathered;
  }
  return b;
}

void BoundProgram::run(const float* const* inputs, float* const* outputs, ThreadPool* pool) const {
  if (total_ == 0) return;
  const int64_t tiles = (total_ + tile_ - 1) / tile_;
  const int workers = pool ? pool->size() : 1;
  if (workers <= 1 || total_ < kParallelMinElements) {
    run_tiles(0, tiles, inputs, outputs);
    return;
  }
  const int chunks = static_cast<int>(std::min<int64_t>(workers, tiles));
  pool->parallel_for(chunks, [&](int c) {
    run_tiles(tiles * c / chunks, tiles * (c + 1) / chunks, inputs, outputs);
  });
}

void BoundProgram::run_tiles(int64_t first, int64_t last, const float* const* in,
                             float* const* out) const {
  const size_t ni = in_.size(), no = out_.size();
  const size_t stride = (tile_ + 15) / 16 * 16;  // keep each buffer 64-byte aligned
  thread_local std::vector<float> scratch;
  thread_local std::vector<float*> slots;
  if (scratch.size() < buffers_ * stride + 16) scratch.resize(buffers_ * stride + 16);
  float* base = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t{63});
  slots.assign(ni + no + buffers_, nullptr);
  for (int k = 0; k < buffers_; ++k) slots[ni + no + k] = base + k * stride;
  auto buffer = [&](int k) { return slots[ni + no + k]; };

  for (size_t i = 0; i < ni; ++i)
    if (in_[i].mode == Mode::kInvariant)
      strided_copy<true>(domain_, in_[i].strides, first * tile_, std::min<int64_t>(tile_, total_ - first * tile_),
                         const_cast<float*>(in[i]), buffer(in_[i].buffer));
  for (int64_t t = first; t < last; ++t) {
    const int64_t t0 = t * tile_;
    const int64_t n = std::min<int64_t>(tile_, total_ - t0);
    for (size_t i = 0; i < ni; ++i) {
      switch (in_[i].mode) {
        case Mode::kDense: slots[i] = const_cast<float*>(in[i]) + t0; break;
        case Mode::kInvariant: slots[i] = buffer(in_[i].buffer); break;
        case Mode::kGathered:
          slots[i] = buffer(in_[i].buffer);
          strided_copy<true>(domain_, in_[i].strides, t0, n, const_cast<float*>(in[i]), slots[i]);
          break;
      }
    }
    for (size_t o = 0; o < no; ++o)
      if (out_[o].mode == Mode::kDense) slots[ni + o] = out[o] + t0;
    for (const Step& s : steps_)
      s.fn(slots[s.src[0]], s.src[1] >= 0 ? slots[s.src[1]] : nullptr,
           s.src[2] >= 0 ? slots[s.src[2]] : nullptr, slots[s.dst], static_cast<size_t>(n), s.param);
    for (size_t o = 0; o < no; ++o)
      if (out_[o].mode == Mode::kGathered)
        strided_copy<false>(domain_, out_[o].strides, t0, n, out[o], buffer(out_[o].buffer));
  }
}

}  // namespace fd
