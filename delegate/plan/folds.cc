// Fold passes: nodes that run inside an anchor of their group instead of on
// their own (a PAD, a squeeze-excite gate, an input normalisation, a TRANSPOSE,
// a DEQUANTIZE of weights).
#include <algorithm>

#include "ir/shape.h"
#include "ops/affine_steps.h"
#include "ops/batch_matmul.h"
#include "ops/dynamic_range.h"
#include "ops/op_classes.h"
#include "ops/pad.h"
#include "ops/transpose.h"
#include "plan/passes.h"

namespace fd {
namespace {

// An anchor whose registry row takes fold `t`.
// (An int8 anchor takes none: its arithmetic is TFLite's integer one.)
bool takes(const Graph& g, const Node& n, Trait t) {
  return n.kind == OpKind::kAnchor && anchor_info(n.anchor).has(t) && g.tensors[n.outputs[0]].is_f32();
}

// A MUL, ADD or SUB of x by a constant k (scalar or per channel) whose values
// are known now: x * a + b per channel, composed onto the map (scale, shift)
// of the rest of the chain. False if the node is not such a step.
bool compose_affine_step(const Graph& g, const Node& n, const Shape& in, std::vector<double>& scale,
                         std::vector<double>& shift, int* x_side) {
  const int side = affine_step_x_side(g, n, in);
  if (side < 0 || g.tensors[n.inputs[1 - side]].values_at_run_time) return false;
  for (int64_t ch = 0; ch < in.back(); ++ch) {
    const AffineMap m = affine_step_map(n, side, affine_step_value(g, n, side, ch));
    shift[ch] += scale[ch] * m.b;
    scale[ch] *= m.a;
  }
  *x_side = side;
  return true;
}

}  // namespace

std::optional<Fold> input_affine(const Graph& g, const GraphIndex& index, int conv) {
  const Node& c = g.nodes[conv];
  // An int8 conv quantizes its input as it is (ops/dynamic_range.h): no map folds into it.
  if (!takes(g, c, kFoldsInputAffine) || c.inputs.empty() || is_dynamic_range_conv(g, c)) return std::nullopt;
  const Shape& in = g.tensors[c.inputs[0]].shape;
  if (in.size() != 4 || in.back() <= 0) return std::nullopt;
  const int64_t channels = in.back();
  std::vector<double> scale(channels, 1.0), shift(channels, 0.0);  // of the chain from here on
  Fold f;
  f.kind = FoldKind::kInputAffine;
  f.anchor = conv;
  int t = c.inputs[0], x_side = 0;
  for (int p = index.producer[t]; p >= 0 && index.readers[t] == 1; p = index.producer[t]) {
    if (!compose_affine_step(g, g.nodes[p], in, scale, shift, &x_side)) break;
    f.nodes.insert(f.nodes.begin(), p);
    t = g.nodes[p].inputs[x_side];
  }
  if (f.nodes.empty()) return std::nullopt;
  for (int64_t ch = 0; ch < channels; ++ch) {
    if (scale[ch] == 0) return std::nullopt;
    f.scale.push_back(static_cast<float>(scale[ch]));
    f.shift.push_back(static_cast<float>(shift[ch]));
  }
  f.source = t;
  return f;
}

std::optional<Fold> input_affine(const Graph& g, int conv) { return input_affine(g, GraphIndex(g), conv); }

int folded_transpose(const Graph& g, const GraphIndex& index, int bmm, int i) {
  const Node& b = g.nodes[bmm];
  if (!takes(g, b, kFoldsOperandTranspose) || b.inputs.size() != 2) return -1;
  const int t = b.inputs[i];
  if (b.inputs[1 - i] == t) return -1;
  const int producer = index.producer[t];
  if (producer < 0 || index.readers[t] != 1) return -1;
  const Node& p = g.nodes[producer];
  const auto* transpose = dynamic_cast<const TransposeParams*>(p.params.get());  // a permutation of the axes
  if (!transpose || p.kind != OpKind::kAnchor || p.inputs.empty() || !b.params) return -1;
  const std::vector<int64_t>& perm = transpose->perm;
  const size_t rank = perm.size();
  if (rank < 2 || rank != g.tensors[p.inputs[0]].shape.size()) return -1;
  if (i == 0 && (params_as<BatchMatMulParams>(b.params).adj_x || perm.back() != static_cast<int64_t>(rank) - 1))
    return -1;
  return producer;
}

int folded_transpose(const Graph& g, int bmm, int i) { return folded_transpose(g, GraphIndex(g), bmm, i); }

int channel_scale_side(const Graph& g, const Node& mul) {
  if (mul.kind != OpKind::kElementwise || mul.ew != EwOp::Mul || mul.act != Activation::kNone ||
      mul.inputs.size() != 2 || mul.outputs.size() != 1)
    return -1;
  const Shape& out = g.tensors[mul.outputs[0]].shape;
  for (int side = 0; side < 2; ++side) {
    const Shape& x = g.tensors[mul.inputs[1 - side]].shape;
    const Shape& v = g.tensors[mul.inputs[side]].shape;
    if (x != out || x.size() < 2 || v.empty() || v.size() > x.size()) continue;
    if (v.back() == x.back() && num_elements(v) == v.back() && num_elements(x) > num_elements(v)) return side;
  }
  return -1;
}

namespace {

void add_fold(FoldSet& s, Fold f) {
  s.into[f.anchor].push_back(static_cast<int>(s.folds.size()));
  for (int m : f.nodes) s.folded[m] = true;
  s.folds.push_back(std::move(f));
}

// A legal PAD folds into the convolution or pool that is its one reader; it is
// claimed only so, unless it pads channels (a residual's shortcut widened to
// the block's channels): that runs on its own, copying rows.
void fold_pads(const Graph& g, const GraphIndex& index, std::vector<bool>& legal, std::vector<std::string>& reason,
               FoldSet& s) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].kind != OpKind::kPad || !legal[i]) continue;
    const auto& pad = params_as<PadParams>(g.nodes[i].params);
    if (pad.pads[6] || pad.pads[7]) continue;  // channels: runs on its own
    const int t = g.nodes[i].outputs[0], r = index.last_reader[t];
    const bool conv = r >= 0 && g.nodes[r].kind == OpKind::kAnchor && reads_windows(g.nodes[r].anchor);
    if (index.readers[t] != 1 || !conv || !legal[r] || g.nodes[r].inputs[0] != t) {
      reason[i] = "PAD is fused only into a convolution or pool that is its one reader";
      legal[i] = false;
      continue;
    }
    // An int8 conv quantizes the padded image: a constant other than 0 would
    // widen its range (0 is in it always, and quantizes to the zero point).
    if (is_dynamic_range_conv(g, g.nodes[r]) && pad.mode == PadMode::kConstant && pad.value != 0) {
      reason[i] = "PAD of a nonzero constant does not fuse into a convolution with int8 weights";
      legal[i] = false;
      continue;
    }
    Fold f;
    f.kind = FoldKind::kPad;
    f.anchor = r;
    f.nodes = {static_cast<int>(i)};
    add_fold(s, std::move(f));
  }
}

// The node whose group `node` runs in: the anchor it folds into, or itself.
int group_host(const FoldSet& s, int node) {
  if (!s.folded[node]) return node;
  for (const Fold& f : s.folds)
    if (std::find(f.nodes.begin(), f.nodes.end(), node) != f.nodes.end()) return f.anchor;
  return node;
}

// The first node reading tensor t (the anchor a folded reader folds into) if it
// has readers and every one is legal, looking through legal constant nodes (a
// DENSIFY before a DEQUANTIZE) to their readers; else -1.
int first_legal_reader(const Graph& g, const FoldSet& s, const std::vector<bool>& legal, int t) {
  int first = -1;
  for (size_t r = 0; r < g.nodes.size(); ++r) {
    const Node& n = g.nodes[r];
    if (std::find(n.inputs.begin(), n.inputs.end(), t) == n.inputs.end()) continue;
    if (!legal[r]) return -1;
    const int reader = n.kind == OpKind::kConstant ? first_legal_reader(g, s, legal, n.outputs[0])
                                                   : group_host(s, static_cast<int>(r));
    if (reader < 0) return -1;
    if (first < 0 || reader < first) first = reader;
  }
  return first;
}

// A constant node (a DEQUANTIZE of float16 weights or of a float16 scalar, a
// DENSIFY of sparse weights) that only claimable nodes read, directly or
// through other constant nodes: layers pack its values as weights, other
// programs read them as the graph holds them; it never runs. It joins the
// first reader's group (a later one's would make the groups depend on each
// other). Else it is left to the runtime (the layers pack them all the same).
void fold_constants(const Graph& g, std::vector<bool>& legal, std::vector<std::string>& reason, FoldSet& s) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].kind != OpKind::kConstant || !legal[i]) continue;
    const int r = first_legal_reader(g, s, legal, g.nodes[i].outputs[0]);
    if (r < 0) {
      reason[i] = g.nodes[i].name + " is fused only where claimed nodes alone read it";
      legal[i] = false;
      continue;
    }
    Fold f;
    f.kind = FoldKind::kConstant;
    f.anchor = r;
    f.nodes = {static_cast<int>(i)};
    add_fold(s, std::move(f));
  }
}

// A squeeze-excite MUL folds into the CONV_2D or FULLY_CONNECTED that is its
// one reader when scaling the weights on each run costs no more than a pass
// over the MUL's output would (not into int8 weights: their input is quantized).
// An output map folded into the same weights stays: the run scales those.
void fold_channel_scales(const Graph& g, const GraphIndex& index, const std::vector<bool>& legal,
                         const std::vector<bool>& rounded, FoldSet& s) {
  auto only_output_maps = [&](size_t i) {
    return std::all_of(s.into[i].begin(), s.into[i].end(),
                       [&](int f) { return s.folds[f].kind == FoldKind::kOutputAffine; });
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& r = g.nodes[i];
    if (!legal[i] || rounded[i] || !only_output_maps(i) ||
        !takes(g, r, kFoldsChannelScale) || is_dynamic_range_fc(g, r) ||
        is_dynamic_range_conv(g, r))
      continue;
    const int t = r.inputs[0], p = index.producer[t];
    if (p < 0 || !legal[p] || s.folded[p] || index.readers[t] != 1) continue;
    const int side = channel_scale_side(g, g.nodes[p]);
    if (side < 0) continue;
    const Shape& w = g.tensors[r.inputs[1]].shape;
    if (g.tensors[t].shape.back() != w.back()) continue;  // one scale per input channel (a row of k)
    if (num_elements(w) > num_elements(g.tensors[t].shape)) continue;
    Fold f;
    f.kind = FoldKind::kChannelScale;
    f.anchor = static_cast<int>(i);
    f.nodes = {p};
    f.operand = side;
    add_fold(s, std::move(f));
  }
}

// A node that clamps: RELU, RELU6, RELU_N1_TO_1 on their own.
bool is_clamp(const Node& n) {
  return n.kind == OpKind::kElementwise && n.act == Activation::kNone &&
         (n.ew == EwOp::Relu || n.ew == EwOp::Relu6 || n.ew == EwOp::ReluN1To1);
}

// Per-channel MUL/ADD/SUB steps by constants after a weighted anchor without
// activation, each the one reader of the value before it, then optionally a
// clamp: they fold into its weights, bias and clamp (batch norms that
// TensorFlow graphs hold unfolded).
void fold_output_affine(const Graph& g, const GraphIndex& index, const std::vector<bool>& legal,
                        const std::vector<bool>& rounded, FoldSet& s) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& a = g.nodes[i];
    if (!legal[i] || rounded[i] || !takes(g, a, kConstantWeights) || a.act != Activation::kNone)
      continue;
    Fold f;
    f.kind = FoldKind::kOutputAffine;
    f.anchor = static_cast<int>(i);
    const Shape& shape = g.tensors[a.outputs[0]].shape;
    for (int t = a.outputs[0]; index.readers[t] == 1;) {
      const int r = index.last_reader[t];
      const Node& n = g.nodes[r];
      if (!legal[r] || s.folded[r]) break;
      const int side = affine_step_x_side(g, n, shape);
      if ((side < 0 || n.inputs[side] != t) && !(is_clamp(n) && n.inputs[0] == t)) break;
      f.nodes.push_back(r);
      t = n.outputs[0];
      if (side < 0) break;  // the clamp ends it
    }
    if (!f.nodes.empty()) add_fold(s, std::move(f));
  }
}

}  // namespace

FoldSet find_folds(const Graph& g, const GraphIndex& index, const std::vector<bool>& rounded,
                   std::vector<bool>& legal, std::vector<std::string>& reason) {
  const int n = static_cast<int>(g.nodes.size());
  FoldSet s;
  s.into.assign(n, {});
  s.folded.assign(n, false);
  fold_pads(g, index, legal, reason, s);
  fold_output_affine(g, index, legal, rounded, s);
  for (int i = 0; i < n; ++i) {  // constant per-channel affine chains before a CONV_2D
    if (!legal[i] || rounded[i]) continue;
    auto f = input_affine(g, index, i);
    if (f && std::all_of(f->nodes.begin(), f->nodes.end(), [&](int m) { return legal[m] && !s.folded[m]; }))
      add_fold(s, std::move(*f));
  }
  fold_channel_scales(g, index, legal, rounded, s);
  for (int i = 0; i < n; ++i) {  // TRANSPOSEs read only by a BATCH_MATMUL: no copy
    if (!legal[i] || !takes(g, g.nodes[i], kFoldsOperandTranspose)) continue;
    for (int operand = 0; operand < 2; ++operand) {
      const int p = folded_transpose(g, index, i, operand);
      if (p < 0 || !legal[p]) continue;
      Fold f;
      f.kind = FoldKind::kTranspose;
      f.anchor = i;
      f.nodes = {p};
      f.operand = operand;
      add_fold(s, std::move(f));
    }
  }
  fold_constants(g, legal, reason, s);  // last: the passes above look for anchors without folds
  return s;
}

}  // namespace fd
