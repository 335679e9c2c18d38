// Binding a program to the shapes of a run: every value's shape (the anchors
// bound on the way), the domain and its tiles, the slots each step reads and writes.
#include "runtime/program.h"

#include <algorithm>

#include "ir/shape.h"
#include "ops/op_classes.h"
#include "runtime/tiling.h"

namespace fd {
namespace {

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
  if (p.q8) return bind_q8(p, input_shapes, error);
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

// An int8 group: its tables bound to the inputs' shape, which every output has.
std::unique_ptr<BoundProgram> BoundProgram::bind_q8(const Program& p, const std::vector<Shape>& input_shapes,
                                                    std::string* error) {
  auto b = std::unique_ptr<BoundProgram>(new BoundProgram());
  b->q8_ = BoundQ8Program::bind(p.q8, input_shapes, error);
  if (!b->q8_) return nullptr;
  b->total_ = num_elements(b->q8_->shape());
  b->outputs_ = static_cast<int>(p.outputs.size());
  b->output_shapes_.assign(p.outputs.size(), b->q8_->shape());
  b->output_rows_.assign(p.outputs.size(), false);
  b->output_strided_.assign(p.outputs.size(), Strided{});
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
    const int64_t mr = a.row_unit;
    const int64_t n = std::max<int64_t>(1, a.n);
    const int64_t budget = row_len_ > 0 ? tiling().row_tile_floats : tiling().anchor_tile_floats;
    int64_t rows = std::max<int64_t>(mr, budget / n / mr * mr);
    const size_t weight_bytes = a.step.weight_bytes;  // sparse: read once per 16 rows whatever the tile
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

}  // namespace fd
