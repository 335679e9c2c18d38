#include "runtime/q8_program.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

#include "ir/shape.h"
#include "ops/quantized.h"
#include "ops/shape_rules.h"
#include "runtime/q8_batch_matmul.h"
#include "runtime/q8_conv.h"
#include "runtime/q8_depthwise.h"
#include "runtime/q8_fully_connected.h"
#include "runtime/q8_quant.h"
#include "runtime/thread_pool.h"

namespace fd {
namespace {

// A value of the group: its table of a source.
struct Expr {
  int src = -1;
  Q8Table table;
};

Q8Op q8_op_of(EwOp op) {
  switch (op) {
#define FD_Q8_CASE(name, arity) \
  case EwOp::name: return Q8Op::name;
    FD_Q8_OPS(FD_Q8_CASE)
#undef FD_Q8_CASE
    default: return Q8Op::kCount;
  }
}

// Entry v of channel c (a table of one channel serves all; none: v itself).
int8_t entry(const Q8Table& t, int c, int v) {
  return t.identity() ? static_cast<int8_t>(v) : t.entries[(t.channels == 1 ? 0 : c) * 256 + v + 128];
}

// The table of `channels` channels whose entry v of channel c is f(c, v).
template <class F>
Q8Table make_table(int channels, F f) {
  Q8Table t;
  t.channels = channels;
  t.entries.resize(static_cast<size_t>(channels) * 256);
  for (int c = 0; c < channels; ++c)
    for (int v = -128; v <= 127; ++v) t.entries[c * 256 + v + 128] = f(c, v);
  return t;
}

// An input of a node: a group value, or a constant (one value, or one per channel).
struct Operand {
  const Expr* expr = nullptr;
  const int8_t* constant = nullptr;
  int channels = 1;
  int8_t at(int c, int v) const {
    return expr ? entry(expr->table, c, v) : constant[channels == 1 ? 0 : c];
  }
};

class Q8Builder {
 public:
  Q8Builder(const Graph& g, const std::vector<int>& inputs, const Q8LayerKernels& kernels)
      : g_(g), kernels_(kernels), sources_(static_cast<int>(inputs.size())) {
    for (int i = 0; i < sources_; ++i) expr_[inputs[i]] = Expr{i, {}};
  }
  void add(const Node& node);
  Q8Program finish(const std::vector<int>& outputs);

 private:
  Operand operand(int t) const;

  void add_layer(const Node& node);

  const Graph& g_;
  Q8LayerKernels kernels_;
  int sources_;
  std::map<int, Expr> expr_;
  std::map<int, const Node*> pad_;  // a folded PAD by its output: the layer reading it reads its input
  Q8Program p_;
};

Operand Q8Builder::operand(int t) const {
  const Tensor& x = g_.tensors[t];
  if (!x.is_constant) return Operand{&expr_.at(t)};
  const int channels = num_elements(x.shape) == 1 ? 1 : static_cast<int>(x.shape.back());
  return Operand{nullptr, static_cast<const int8_t*>(x.data.bytes()), channels};
}

// A node on values of one source (or constants) is a table of it; on two
// sources, or rounding by place where its forms differ on the table, a step
// making a new source.
void Q8Builder::add(const Node& node) {
  if (node.kind == OpKind::kAnchor) return add_layer(node);
  if (node.kind == OpKind::kPad) {  // folded into the layer after it
    pad_[node.outputs[0]] = &node;
    expr_[node.outputs[0]] = expr_.at(node.inputs[0]);
    return;
  }
  const int arity = static_cast<int>(node.inputs.size());
  Q8Quant in[2];
  Operand ops[2];
  for (int i = 0; i < arity; ++i) {
    in[i] = q8_quant_of(g_.tensors[node.inputs[i]]);
    ops[i] = operand(node.inputs[i]);
  }
  const Q8Prepared op = q8_prepare(q8_op_of(node.ew), in, q8_quant_of(g_.tensors[node.outputs[0]]),
                                   q8_activation_of(node.act), node.param);
  int src = -1, channels = 1;
  for (int i = 0; i < arity; ++i) {
    if (ops[i].expr) src = ops[i].expr->src;
    channels = std::max(channels, ops[i].expr ? ops[i].expr->table.channels : ops[i].channels);
  }
  auto table = [&](bool blocked) {
    return make_table(channels, [&](int c, int v) {
      return q8_eval(op, ops[0].at(c, v), arity == 2 ? ops[1].at(c, v) : int8_t{0}, blocked);
    });
  };
  Q8Table t = table(false);
  // (A blocked form with a constant operand does not come: the planner leaves ADD of a constant.)
  const bool values = ops[0].expr && (arity == 1 || ops[1].expr);
  const bool two_sources = values && arity == 2 && ops[0].expr->src != ops[1].expr->src;
  const bool row = q8_has_row_operand(g_, node);  // its row input: a program input as it is
  if (row || two_sources || (values && q8_has_blocked_form(op.op) && table(true).entries != t.entries)) {
    Q8Step step;
    step.op = op;
    step.row = row;
    step.blocked = q8_has_blocked_form(op.op);
    for (int i = 0; i < arity; ++i) {
      step.src[i] = ops[i].expr->src;
      step.table[i] = ops[i].expr->table;
    }
    p_.steps.push_back(std::move(step));
    expr_[node.outputs[0]] = Expr{sources_++, {}};
    return;
  }
  expr_[node.outputs[0]] = Expr{src, std::move(t)};
}

// The group's layer (its first node: it reads a program input as it is).
void Q8Builder::add_layer(const Node& node) {
  Q8Step step;
  step.src[0] = expr_.at(node.inputs[0]).src;
  const auto pad = pad_.find(node.inputs[0]);
  const Node* folded = pad == pad_.end() ? nullptr : pad->second;
  if (node.anchor == AnchorOp::kBatchMatMul) {
    step.src[1] = expr_.at(node.inputs[1]).src;
    step.layer = std::make_shared<const Q8BatchMatMul>(g_, node, step.src[0], step.src[1], *kernels_.matmul);
  } else if (node.anchor == AnchorOp::kConv2D)
    step.layer = std::make_shared<const Q8Conv>(g_, node, folded, step.src[0], *kernels_.gemm);
  else if (node.anchor == AnchorOp::kDepthwiseConv2D)
    step.layer = std::make_shared<const Q8Depthwise>(g_, node, folded, step.src[0], *kernels_.depthwise);
  else
    step.layer = std::make_shared<const Q8FullyConnected>(g_, node, step.src[0], *kernels_.gemm);
  p_.steps.push_back(std::move(step));
  expr_[node.outputs[0]] = Expr{sources_++, {}};
}

Q8Program Q8Builder::finish(const std::vector<int>& outputs) {
  for (int t : outputs) p_.outputs.push_back(Q8Output{expr_.at(t).src, expr_.at(t).table});
  return std::move(p_);
}

// The values a tile's sources and looked-up operands use, per thread.
int8_t* scratch(size_t bytes) {
  thread_local std::vector<int8_t> buffer;
  if (buffer.size() < bytes) buffer.resize(bytes);
  return buffer.data();
}

constexpr int64_t kTile = 4096;                // values per tile
constexpr int64_t kParallelMin = 64 * 1024;    // values below which one thread runs them all

}  // namespace

int Q8Program::channels() const {
  int c = 1;
  for (const Q8Step& s : steps) c = std::max({c, s.table[0].channels, s.table[1].channels});
  for (const Q8Output& o : outputs) c = std::max(c, o.table.channels);
  return c;
}

std::string Q8Program::to_string(int inputs) const {
  auto name = [&](int s) { return s < inputs ? "in" + std::to_string(s) : "s" + std::to_string(s); };
  auto table = [&](const Q8Table& t, int s) { return t.identity() ? name(s) : "table(" + name(s) + ")"; };
  std::string text;
  for (size_t k = 0; k < steps.size(); ++k)
    text += "s" + std::to_string(inputs + k) + " = " + (steps[k].layer ? steps[k].layer->name() : q8_op_name(steps[k].op.op)) +
            (steps[k].blocked ? "/16" : "") +
            "(" + table(steps[k].table[0], steps[k].src[0]) +
            (steps[k].src[1] < 0 ? "" : steps[k].row ? ", rows(" + name(steps[k].src[1]) + ")"
                                                       : ", " + table(steps[k].table[1], steps[k].src[1])) + "); ";
  for (size_t o = 0; o < outputs.size(); ++o)
    text += "out" + std::to_string(o) + " = " + table(outputs[o].table, outputs[o].src) + "; ";
  return text;
}

Q8Program build_q8_program(const Graph& g, const std::vector<int>& group, const std::vector<int>& inputs,
                           const std::vector<int>& outputs, const Q8Kernel& kernel, const Q8LayerKernels& layers) {
  Q8Builder b(g, inputs, layers);
  for (int pos : group) b.add(g.nodes[pos]);
  Q8Program p = b.finish(outputs);
  p.kernel = &kernel;
  return p;
}

// Whether a step other than the layer, or an output, reads program input i as values of the domain.
bool BoundQ8Program::read_as_values(int i) const {
  for (const Q8Step& s : p_->steps)
    if (!s.layer && (s.src[0] == i || (s.src[1] == i && !s.row))) return true;
  for (const Q8Output& o : p_->outputs)
    if (o.src == i) return true;
  return false;
}

bool BoundQ8Program::is_row_input(int i) const {
  for (const Q8Step& s : p_->steps)
    if (s.row && s.src[1] == i) return true;
  return false;
}

// The values' shape: the inputs' (but those of one value per row), or a
// layer's output; the tile whole blocks of its rows.
bool BoundQ8Program::bind_domain(const std::vector<Shape>& inputs, std::string* error) {
  if (!p_->steps.empty() && p_->steps[0].layer) {
    layer_ = p_->steps[0].layer->for_input(inputs);
    if (!layer_) layer_ = p_->steps[0].layer;
  }
  const Q8Layer* layer = layer_.get();
  std::optional<Shape> domain = Shape{};
  for (int i = static_cast<int>(inputs.size()) - 1; i >= 0; --i)
    if (!is_row_input(i)) domain = inputs[i];
  if (layer) domain = layer->output_shape(inputs, error);
  if (!domain) return false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const int k = static_cast<int>(i);
    Shape want = *domain;
    if (is_row_input(k) && !want.empty()) want.back() = 1;
    const bool layer_only = layer && (k == layer->input() || k == layer->second_input()) && !read_as_values(k);
    if (inputs[i] != want && !layer_only) {
      *error = "int8 values of different shapes: " + to_string(want) + " and " + to_string(inputs[i]);
      return false;
    }
  }
  shape_ = *domain;
  total_ = num_elements(shape_);
  const int64_t row = layer ? std::max(layer->channels(), 1) : 1, unit = layer ? layer->block_rows() : 1;
  tile_ = std::max<int64_t>(unit, std::min(kTile, total_) / row / unit * unit) * row;
  return true;
}

std::unique_ptr<BoundQ8Program> BoundQ8Program::bind(std::shared_ptr<const Q8Program> p,
                                                     const std::vector<Shape>& inputs, std::string* error) {
  auto b = std::unique_ptr<BoundQ8Program>(new BoundQ8Program());
  b->p_ = std::move(p);
  b->inputs_ = static_cast<int>(inputs.size());
  if (!b->bind_domain(inputs, error)) return nullptr;
  b->channels_ = b->p_->channels();
  if (b->channels_ > 1 && (b->shape_.empty() || b->shape_.back() != b->channels_)) {
    *error = "int8 tables of " + std::to_string(b->channels_) + " channels for values of shape " + to_string(b->shape_);
    return nullptr;
  }
  return b;
}

void BoundQ8Program::lookup(const Q8Table& t, const int8_t* x, int8_t* y, int64_t first, int64_t n) const {
  if (t.identity()) {
    if (x != y) std::memcpy(y, x, n);
  } else if (t.channels == 1) {
    p_->kernel->lut(t.entries.data(), x, y, n);
  } else {
    for (int64_t i = 0, c = first % channels_; i < n; ++i, c = c + 1 == channels_ ? 0 : c + 1)
      y[i] = t.entries[c * 256 + x[i] + 128];
  }
}

// Values [first, first + n) of a row input: row r's value over its row's part.
const int8_t* BoundQ8Program::spread_rows(const int8_t* rows, int64_t first, int64_t n, int8_t* out) const {
  const int64_t length = shape_.empty() ? 1 : shape_.back();
  for (int64_t i = first; i < first + n;) {
    const int64_t end = std::min(first + n, (i / length + 1) * length);
    std::memset(out + (i - first), rows[i / length], end - i);
    i = end;
  }
  return out;
}

// Values [first, last), tile by tile: each step's source, then the outputs.
void BoundQ8Program::run_range(int64_t first, int64_t last, const int8_t* const* inputs,
                               int8_t* const* outputs) const {
  const size_t steps = p_->steps.size();
  int8_t* buffer = scratch((steps + 2) * tile_);
  int8_t* operand[2] = {buffer + steps * tile_, buffer + (steps + 1) * tile_};
  for (int64_t e = first; e < last; e += tile_) {
    const int64_t n = std::min(tile_, last - e);
    auto source = [&](int s) -> const int8_t* { return s < inputs_ ? inputs[s] + e : buffer + (s - inputs_) * tile_; };
    for (size_t k = 0; k < steps; ++k) {
      const Q8Step& s = p_->steps[k];
      if (s.layer) {  // tiles are whole rows
        const int64_t row = layer_->channels();
        layer_->run(inputs, e / row, n / row, buffer + k * tile_);
        continue;
      }
      const int8_t* x[2] = {nullptr, nullptr};
      for (int i = 0; i < 2 && s.src[i] >= 0; ++i) {
        if (s.row && i == 1) {  // each row's one value, spread over its part of the tile
          x[1] = spread_rows(inputs[s.src[1]], e, n, operand[1]);
          continue;
        }
        x[i] = source(s.src[i]);
        if (!s.table[i].identity()) {
          lookup(s.table[i], x[i], operand[i], e, n);
          x[i] = operand[i];
        }
      }
      const int64_t blocked = s.blocked ? std::clamp<int64_t>(q8_blocked_values(total_) - e, 0, n) : 0;
      p_->kernel->binary(s.op, x[0], x[1], buffer + k * tile_, n, blocked);
    }
    for (size_t o = 0; o < p_->outputs.size(); ++o)
      lookup(p_->outputs[o].table, source(p_->outputs[o].src), outputs[o] + e, e, n);
  }
}

void BoundQ8Program::run(const int8_t* const* inputs, int8_t* const* outputs, ThreadPool* pool) const {
  const int workers = pool ? pool->size() : 1;
  if (workers <= 1 || total_ < kParallelMin) {
    run_range(0, total_, inputs, outputs);
    return;
  }
  const int64_t tiles = (total_ + tile_ - 1) / tile_;
  const int chunks = static_cast<int>(std::min<int64_t>(workers, tiles));
  pool->parallel_for(chunks, [&](int c) {
    run_range(std::min(total_, tiles * c / chunks * tile_), std::min(total_, tiles * (c + 1) / chunks * tile_),
              inputs, outputs);
  });
}

}  // namespace fd
