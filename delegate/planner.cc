#include "planner.h"

#include <algorithm>
#include <cstdint>

#include "conv.h"
#include "shape.h"

namespace fd {
namespace {

// A fixed-size set of node positions.
class NodeSet {
 public:
  explicit NodeSet(size_t n) : words_((n + 63) / 64, 0) {}
  void add(int i) { words_[i / 64] |= uint64_t{1} << (i % 64); }
  bool has(int i) const { return words_[i / 64] >> (i % 64) & 1; }
  void add_all(const NodeSet& o) {
    for (size_t w = 0; w < words_.size(); ++w) words_[w] |= o.words_[w];
  }
  bool intersects(const NodeSet& o) const {
    for (size_t w = 0; w < words_.size(); ++w)
      if (words_[w] & o.words_[w]) return true;
    return false;
  }

 private:
  std::vector<uint64_t> words_;
};

// Per tensor: the node that writes it (-1: none), and how many node inputs read it.
std::vector<int> producers(const Graph& g) {
  std::vector<int> p(g.tensors.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int t : g.nodes[i].outputs) p[t] = static_cast<int>(i);
  return p;
}
std::vector<int> reader_counts(const Graph& g) {
  std::vector<int> r(g.tensors.size(), 0);
  for (const Node& node : g.nodes)
    for (int t : node.inputs) ++r[t];
  return r;
}

}  // namespace

namespace {

// Weights [n, k] (FULLY_CONNECTED), [oc, kh, kw, ic] (CONV_2D) or [1, kh, kw, c]
// (DEPTHWISE_CONV_2D), constant; an optional constant bias [n].
std::string weights_legality(const Graph& g, const Node& node) {
  const Tensor& w = g.tensors[node.inputs[1]];
  const size_t rank = node.anchor == AnchorOp::kFullyConnected ? 2 : 4;
  if (!w.is_float32 || !w.is_constant || !w.data || w.shape.size() != rank || num_elements(w.shape) <= 0)
    return "weights are not a constant float32 tensor of rank " + std::to_string(rank);
  if (node.anchor == AnchorOp::kDepthwiseConv2D && w.shape[0] != 1) return "depthwise filter is not [1, kh, kw, c]";
  const int64_t n = node.anchor == AnchorOp::kDepthwiseConv2D ? w.shape[3] : w.shape[0];
  if (node.inputs.size() == 3) {
    const Tensor& b = g.tensors[node.inputs[2]];
    if (!b.is_float32 || !b.is_constant || !b.data || b.shape != Shape{n})
      return "bias is not a constant float32 [n] vector";
  }
  return "";
}

// BATCH_MATMUL, SOFTMAX, last-axis MEAN, RESHAPE, TRANSPOSE: run-time inputs of
// static shape, the output the shape the op gives.
std::string row_op_legality(const Graph& g, const Node& node, uint32_t families) {
  if (!(families & kFamilyTransformer)) return "fusion family 'transformer' is disabled";
  const size_t arity = node.anchor == AnchorOp::kBatchMatMul ? 2 : 1;
  if (node.inputs.size() != arity || node.outputs.size() != 1)
    return node.name + " has an unexpected number of inputs or outputs";
  if (node.act != Activation::kNone) return "fused activation of " + node.name + " is not supported";
  for (int t : node.inputs) {
    if (!g.tensors[t].is_float32) return "dtype: input is not float32";
    if (g.tensors[t].has_dynamic_shape) return "dynamic shape: input shape known only at run time";
  }
  const Tensor& o = g.tensors[node.outputs[0]];
  if (!o.is_float32 || o.has_dynamic_shape) return "output is not a static float32 tensor";
  const Shape& in = g.tensors[node.inputs[0]].shape;
  if (in.empty() || static_cast<int>(in.size()) > kMaxRank) return "input rank is 0 or above " + std::to_string(kMaxRank);
  if (num_elements(in) == 0) return "empty input";
  std::optional<Shape> expect;
  switch (node.anchor) {
    case AnchorOp::kBatchMatMul:
      expect = batch_matmul_shape(in, g.tensors[node.inputs[1]].shape, node.adj_x, node.adj_y);
      break;
    case AnchorOp::kSoftmax: expect = in; break;
    case AnchorOp::kRowMean: expect = row_mean_shape(in, node.keep_num_dims); break;
    case AnchorOp::kReshape: expect = reshape_shape(in, node.dims); break;
    case AnchorOp::kTranspose: expect = transpose_shape(in, node.dims); break;
    default: break;
  }
  if (!expect) return node.name + " does not fit its input " + to_string(in);
  if (o.shape != *expect) return "output shape " + to_string(o.shape) + " is not the expected " + to_string(*expect);
  return "";
}

std::string anchor_legality(const Graph& g, const Node& node, uint32_t families) {
  if (is_row_op(node.anchor)) return row_op_legality(g, node, families);
  const bool fc = node.anchor == AnchorOp::kFullyConnected;
  if (fc && !(families & kFamilyFullyConnected)) return "fusion family 'fully_connected' is disabled";
  if (!fc && !(families & kFamilyConv)) return "fusion family 'conv' is disabled";
  if (node.act == Activation::kUnsupported) return "fused activation of " + node.name + " is not supported";
  const bool pool = is_pool(node.anchor);
  if (node.outputs.size() != 1 || node.inputs.size() < (pool ? 1u : 2u) || node.inputs.size() > (pool ? 1u : 3u))
    return node.name + " has an unexpected number of inputs or outputs";
  const Tensor& in = g.tensors[node.inputs[0]];
  if (!in.is_float32) return "dtype: input is not float32";
  if (in.has_dynamic_shape) return "dynamic shape: input shape known only at run time";
  const Tensor& o = g.tensors[node.outputs[0]];
  if (!o.is_float32 || o.has_dynamic_shape) return "output is not a static float32 tensor";
  if (pool) {
    if (in.shape.size() != 4) return "input is not 4-D NHWC";
    const bool mean = node.anchor == AnchorOp::kMean;
    std::string error;
    const auto geo = conv_geometry(in.shape, mean ? static_cast<int>(in.shape[1]) : node.conv.window_h,
                                   mean ? static_cast<int>(in.shape[2]) : node.conv.window_w,
                                   mean ? ConvParams{} : node.conv, FoldedPad{}, &error);
    if (!geo) return error;
    const Shape expect = mean && !node.keep_num_dims ? Shape{geo->batch, geo->channels}
                                                     : Shape{geo->batch, geo->out_h, geo->out_w, geo->channels};
    if (o.shape != expect) return "output shape " + to_string(o.shape) + " is not the expected " + to_string(expect);
    return "";
  }
  if (std::string w = weights_legality(g, node); !w.empty()) return w;
  const Tensor& w = g.tensors[node.inputs[1]];
  Shape expect;
  if (fc) {
    const auto out = fully_connected_shape(in.shape, w.shape, node.keep_num_dims);
    if (!out) return "input " + to_string(in.shape) + " does not fit weights " + to_string(w.shape);
    expect = *out;
  } else {
    std::string error;
    const auto geo = conv_geometry(in.shape, static_cast<int>(w.shape[1]), static_cast<int>(w.shape[2]), node.conv,
                                   FoldedPad{}, &error);
    if (!geo) return error;
    const bool fits = node.anchor == AnchorOp::kConv2D ? w.shape[3] == geo->channels
                                                       : w.shape[3] % geo->channels == 0;
    if (!fits) return "input " + to_string(in.shape) + " does not fit filter " + to_string(w.shape);
    expect = {geo->batch, geo->out_h, geo->out_w, w.shape[node.anchor == AnchorOp::kConv2D ? 0 : 3]};
  }
  if (o.shape != expect) return "output shape " + to_string(o.shape) + " is not the expected " + to_string(expect);
  return "";
}

// A PAD is claimed only folded into the convolution that is its one reader.
std::string pad_legality(const Graph& g, const Node& node, uint32_t families) {
  if (!(families & kFamilyConv)) return "fusion family 'conv' is disabled";
  if (node.inputs.size() != 1 || node.outputs.size() != 1) return "PAD without constant paddings";
  const Tensor& in = g.tensors[node.inputs[0]];
  if (!in.is_float32 || in.has_dynamic_shape || in.shape.size() != 4 || node.pads.size() != 8)
    return "PAD of a tensor that is not a static 4-D float32 one";
  for (int64_t p : node.pads)
    if (p < 0) return "negative padding";
  if (node.pads[0] || node.pads[1] || node.pads[6] || node.pads[7]) return "PAD of batch or channels";
  return "";
}

}  // namespace

std::optional<ChannelAffine> input_affine(const Graph& g, int conv) {
  const Node& c = g.nodes[conv];
  if (c.kind != OpKind::kAnchor || c.anchor != AnchorOp::kConv2D || c.inputs.empty()) return std::nullopt;
  const Shape& in = g.tensors[c.inputs[0]].shape;
  if (in.size() != 4 || in.back() <= 0) return std::nullopt;
  const int64_t channels = in.back();
  const std::vector<int> producer = producers(g), readers = reader_counts(g);
  ChannelAffine f;
  f.scale.assign(channels, 1.f);
  f.shift.assign(channels, 0.f);
  std::vector<double> scale(channels, 1.0), shift(channels, 0.0);  // of the chain from here on
  int t = c.inputs[0];
  for (int p = producer[t]; p >= 0 && readers[t] == 1; p = producer[t]) {
    const Node& n = g.nodes[p];
    if (n.kind != OpKind::kElementwise || n.act != Activation::kNone || n.inputs.size() != 2 ||
        (n.ew != EwOp::Mul && n.ew != EwOp::Add && n.ew != EwOp::Sub))
      break;
    const int side = g.tensors[n.inputs[1]].is_constant ? 1 : 0;  // the constant's
    const Tensor& k = g.tensors[n.inputs[side]];
    const Tensor& x = g.tensors[n.inputs[1 - side]];
    const int64_t size = num_elements(k.shape);
    if (!k.is_constant || !k.is_float32 || !k.data || x.is_constant || x.shape != in ||
        (size != 1 && (size != channels || k.shape.back() != channels)))
      break;
    // value = x * a + b, then this chain's own map on top.
    for (int64_t ch = 0; ch < channels; ++ch) {
      const double v = k.data[size == 1 ? 0 : ch];
      double a = 1, b = 0;
      if (n.ew == EwOp::Mul) a = v;
      else if (n.ew == EwOp::Add) b = v;
      else if (side == 1) b = -v;  // x - v
      else a = -1, b = v;          // v - x
      shift[ch] += scale[ch] * b;
      scale[ch] *= a;
    }
    f.nodes.insert(f.nodes.begin(), p);
    t = n.inputs[1 - side];
  }
  if (f.nodes.empty()) return std::nullopt;
  for (int64_t ch = 0; ch < channels; ++ch) {
    if (scale[ch] == 0) return std::nullopt;
    f.scale[ch] = static_cast<float>(scale[ch]);
    f.shift[ch] = static_cast<float>(shift[ch]);
  }
  f.source = t;
  return f;
}

int folded_transpose(const Graph& g, int bmm, int i) {
  const Node& b = g.nodes[bmm];
  if (b.kind != OpKind::kAnchor || b.anchor != AnchorOp::kBatchMatMul || b.inputs.size() != 2) return -1;
  const int t = b.inputs[i];
  if (b.inputs[1 - i] == t) return -1;
  const int producer = producers(g)[t];
  if (producer < 0 || reader_counts(g)[t] != 1) return -1;
  const Node& p = g.nodes[producer];
  if (p.kind != OpKind::kAnchor || p.anchor != AnchorOp::kTranspose || p.inputs.empty()) return -1;
  const size_t rank = p.dims.size();
  if (rank < 2 || rank != g.tensors[p.inputs[0]].shape.size()) return -1;
  if (i == 0 && (b.adj_x || p.dims.back() != static_cast<int64_t>(rank) - 1)) return -1;
  return producer;
}

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

std::string node_legality(const Graph& g, const Node& node, uint32_t families) {
  if (node.kind == OpKind::kAnchor) return anchor_legality(g, node, families);
  if (node.kind == OpKind::kPad) return pad_legality(g, node, families);
  if (node.kind != OpKind::kElementwise) return "unsupported op " + node.name;
  if (!(families & kFamilyElementwise)) return "fusion family 'elementwise' is disabled";
  if (node.act == Activation::kUnsupported)
    return "fused activation of " + node.name + " is not supported";
  if (node.outputs.size() != 1 || static_cast<int>(node.inputs.size()) != ew_arity(node.ew))
    return node.name + " has an unexpected number of inputs or outputs";
  Shape out_shape;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const Tensor& t = g.tensors[node.inputs[i]];
    if (!t.is_float32) return "dtype: input is not float32";
    if (t.has_dynamic_shape) return "dynamic shape: input shape known only at run time";
    if (i == 0) {
      out_shape = t.shape;
    } else if (auto b = broadcast(out_shape, t.shape)) {
      out_shape = *b;
    } else {
      return "inputs " + to_string(out_shape) + " and " + to_string(t.shape) + " do not broadcast";
    }
  }
  if (static_cast<int>(out_shape.size()) > kMaxRank) return "rank above " + std::to_string(kMaxRank);
  const Tensor& out = g.tensors[node.outputs[0]];
  if (!out.is_float32) return "dtype: output is not float32";
  if (out.has_dynamic_shape) return "dynamic shape: output shape known only at run time";
  return "";
}

namespace {

// A group's iteration domain: its largest value's shape, and whether some
// values hold one value per row of it.
struct Domain {
  Shape shape;
  bool rows = false;
};

// The domain of two groups together, or nothing if their values cannot share one.
std::optional<Domain> join_domains(const Domain& a, const Domain& b) {
  if (same_layout(a.shape, b.shape)) return Domain{b.shape, a.rows || b.rows};
  if (is_row_of(a.shape, b.shape) && !a.rows) return Domain{b.shape, true};
  if (is_row_of(b.shape, a.shape) && !b.rows) return Domain{a.shape, true};
  return std::nullopt;
}

}  // namespace

Plan plan_fusion(const Graph& g, const PlannerOptions& opts) {
  const int n = static_cast<int>(g.nodes.size());
  Plan plan;
  plan.group_of.assign(n, -1);
  plan.reason.assign(n, "");

  const std::vector<int> producer = producers(g);

  // ancestors[i]: every node that node i depends on.
  std::vector<NodeSet> ancestors(n, NodeSet(n));
  for (int i = 0; i < n; ++i)
    for (int t : g.nodes[i].inputs)
      if (int p = producer[t]; p >= 0) {
        ancestors[i].add(p);
        ancestors[i].add_all(ancestors[p]);
      }

  std::vector<bool> legal(n);
  for (int i = 0; i < n; ++i) {
    plan.reason[i] = node_legality(g, g.nodes[i], opts.families);
    legal[i] = plan.reason[i].empty();
  }
  // A legal PAD folds into the convolution that is its only reader.
  const std::vector<int> readers = reader_counts(g);
  std::vector<int> reader(g.tensors.size(), -1);  // the last node reading each tensor
  for (int i = 0; i < n; ++i)
    for (int t : g.nodes[i].inputs) reader[t] = i;
  auto is_conv = [&](int i) {  // reads windows of its input: a PAD can fold into it
    return g.nodes[i].kind == OpKind::kAnchor && reads_windows(g.nodes[i].anchor);
  };
  for (int i = 0; i < n; ++i) {
    if (g.nodes[i].kind != OpKind::kPad || !legal[i]) continue;
    const int t = g.nodes[i].outputs[0], r = reader[t];
    if (readers[t] != 1 || !is_conv(r) || !legal[r] || g.nodes[r].inputs[0] != t) {
      plan.reason[i] = "PAD is fused only into a convolution or pool that is its one reader";
      legal[i] = false;
    }
  }

  // A squeeze-excite MUL folds into the CONV_2D or FULLY_CONNECTED that is its
  // one reader when scaling the weights on each run costs no more than a pass
  // over the MUL's output would.
  std::vector<int> scale_of(n, -1);  // per anchor: the MUL folded into it
  std::vector<bool> folded(n, false);
  // A constant per-channel affine chain before a CONV_2D folds into its
  // weights, bias and padding.
  std::vector<std::vector<int>> affine_of(n);
  std::vector<int> affine_source(n, -1);
  for (int i = 0; i < n; ++i) {
    if (!legal[i]) continue;
    const auto f = input_affine(g, i);
    if (!f || !std::all_of(f->nodes.begin(), f->nodes.end(), [&](int m) { return legal[m]; })) continue;
    affine_of[i] = f->nodes;
    affine_source[i] = f->source;
    for (int m : f->nodes) folded[m] = true;
  }
  for (int i = 0; i < n; ++i) {
    if (!affine_of[i].empty()) continue;
    const Node& r = g.nodes[i];
    if (!legal[i] || r.kind != OpKind::kAnchor ||
        (r.anchor != AnchorOp::kConv2D && r.anchor != AnchorOp::kFullyConnected))
      continue;
    const int t = r.inputs[0], p = producer[t];
    if (p < 0 || !legal[p] || readers[t] != 1 || channel_scale_side(g, g.nodes[p]) < 0) continue;
    const Shape& w = g.tensors[r.inputs[1]].shape;
    if (r.anchor == AnchorOp::kFullyConnected && g.tensors[t].shape.back() != w.back()) continue;
    if (num_elements(w) > num_elements(g.tensors[t].shape)) continue;
    scale_of[i] = p;
    folded[p] = true;
  }

  // A TRANSPOSE read only by a BATCH_MATMUL folds into it: no copy.
  std::vector<std::vector<int>> transposes_of(n);
  for (int i = 0; i < n; ++i) {
    if (!legal[i] || g.nodes[i].kind != OpKind::kAnchor || g.nodes[i].anchor != AnchorOp::kBatchMatMul) continue;
    for (int operand = 0; operand < 2; ++operand) {
      const int p = folded_transpose(g, i, operand);
      if (p < 0 || !legal[p]) continue;
      transposes_of[i].push_back(p);
      folded[p] = true;
    }
  }

  // A group is convex when no path leaves it and comes back: no outside
  // producer of a member depends on a member.
  auto convex = [&](const std::vector<int>& members) {
    NodeSet in(n);
    for (int m : members) in.add(m);
    for (int m : members)
      for (int t : g.nodes[m].inputs)
        if (int p = producer[t]; p >= 0 && !in.has(p) && ancestors[p].intersects(in)) return false;
    return true;
  };

  // Two groups that each read the other's values cannot run one after the
  // other: the groups must form a DAG as well.
  std::vector<std::vector<int>> groups;
  std::vector<int> group_of(n, -1);
  std::vector<NodeSet> group_in, group_anc;  // per group: members, and all they depend on
  auto acyclic = [&](const std::vector<int>& members, const std::vector<int>& merged) {
    NodeSet in(n), anc(n);
    for (int m : members) {
      in.add(m);
      anc.add_all(ancestors[m]);
    }
    for (size_t k = 0; k < groups.size(); ++k) {
      if (groups[k].empty() || std::find(merged.begin(), merged.end(), static_cast<int>(k)) != merged.end())
        continue;
      if (group_anc[k].intersects(in) && anc.intersects(group_in[k])) return false;
    }
    return true;
  };

  // Greedy, in execution order: a node joins the groups of its producers when
  // the union has one iteration domain and stays convex and acyclic with the
  // other groups. A group's domain is its largest value's shape; every value has
  // its layout, or holds one value per row of it (a row MEAN and the
  // elementwise ops on its result: a LayerNorm's statistics).
  // An anchor reads its whole input: that input may not be computed in its
  // group (but a PAD folded into it may be, reading from outside), except a row
  // op reading whole rows (SOFTMAX, row MEAN): it reads the group's tile.
  auto anchor_inputs_outside = [&](const std::vector<int>& members) {
    auto inside = [&](int t) {
      const int p = producer[t];
      return p >= 0 && std::find(members.begin(), members.end(), p) != members.end();
    };
    for (int m : members) {
      if (!affine_of[m].empty() && inside(affine_source[m])) return false;  // it reads the chain's source
      if (g.nodes[m].kind != OpKind::kAnchor || reads_tile_rows(g.nodes[m].anchor) || !affine_of[m].empty()) continue;
      for (int t : g.nodes[m].inputs) {
        if (!inside(t)) continue;
        const Node& p = g.nodes[producer[t]];
        if (p.kind != OpKind::kPad && !folded[producer[t]]) return false;
        for (int s : p.inputs)
          if (inside(s)) return false;
      }
    }
    return true;
  };

  // In a domain of rows, the row values (one per row) come from row MEANs of
  // full rows, and from elementwise ops reading nothing else from outside the
  // group but single numbers; a row op reading the tile reads full rows.
  auto fits_rows = [&](const std::vector<int>& members, const Shape& dom) {
    auto inside = [&](int t) {
      return producer[t] >= 0 && std::count(members.begin(), members.end(), producer[t]);
    };
    for (int m : members) {
      const Node& node = g.nodes[m];
      const bool row = is_row_of(g.tensors[node.outputs[0]].shape, dom);
      if (node.kind == OpKind::kAnchor) {
        const bool reads_tile = reads_tile_rows(node.anchor) && inside(node.inputs[0]);
        if (row && node.anchor != AnchorOp::kRowMean) return false;
        if ((row || reads_tile) && !same_layout(g.tensors[node.inputs[0]].shape, dom)) return false;
      } else if (row) {
        if (node.kind != OpKind::kElementwise) return false;
        for (int t : node.inputs)
          if (!inside(t) && num_elements(g.tensors[t].shape) != 1) return false;
      }
    }
    return true;
  };
  std::vector<Domain> group_dom;
  for (int i = 0; i < n; ++i) {
    if (!legal[i] || g.nodes[i].kind == OpKind::kPad || folded[i]) continue;  // they join their anchor
    const Node& node = g.nodes[i];
    Domain dom{g.tensors[node.outputs[0]].shape, false};
    std::vector<int> members = {i};
    std::vector<int> merged;
    if (is_conv(i))
      if (int p = producer[node.inputs[0]]; p >= 0 && g.nodes[p].kind == OpKind::kPad && legal[p])
        members = {p, i};
    if (scale_of[i] >= 0) members = {scale_of[i], i};
    if (!transposes_of[i].empty()) {
      members = transposes_of[i];
      members.push_back(i);
    }
    if (!affine_of[i].empty()) {
      members = affine_of[i];
      members.push_back(i);
    }
    const bool joins = node.kind != OpKind::kAnchor || reads_tile_rows(node.anchor);
    for (int t : joins ? node.inputs : std::vector<int>{}) {
      const int p = producer[t];
      if (p < 0 || group_of[p] < 0) continue;
      const int gp = group_of[p];
      if (std::find(merged.begin(), merged.end(), gp) != merged.end()) continue;
      const std::optional<Domain> joint = join_domains(dom, group_dom[gp]);
      if (!joint) continue;
      std::vector<int> trial = members;
      trial.insert(trial.end(), groups[gp].begin(), groups[gp].end());
      if (joint->rows && !fits_rows(trial, joint->shape)) continue;
      std::vector<int> trial_merged = merged;
      trial_merged.push_back(gp);
      if (!convex(trial) || !acyclic(trial, trial_merged) || !anchor_inputs_outside(trial)) continue;
      members = std::move(trial);
      merged = std::move(trial_merged);
      dom = *joint;
    }
    int target;
    if (merged.empty()) {
      target = static_cast<int>(groups.size());
      groups.emplace_back();
      group_in.emplace_back(n);
      group_anc.emplace_back(n);
      group_dom.emplace_back();
    } else {
      target = merged[0];
      for (size_t k = 1; k < merged.size(); ++k) groups[merged[k]].clear();
    }
    std::sort(members.begin(), members.end());
    groups[target] = members;
    group_dom[target] = dom;
    group_in[target] = NodeSet(n);
    group_anc[target] = NodeSet(n);
    for (int m : members) {
      group_of[m] = target;
      group_in[target].add(m);
      group_anc[target].add_all(ancestors[m]);
    }
  }

  // Policy: an anchored group is worth running alone; a small elementwise group
  // saves no traffic, unless it sits next to an anchored group, whose partition
  // it then joins instead of splitting the model around itself.
  std::vector<bool> keep(groups.size(), false), anchored(groups.size(), false);
  for (size_t k = 0; k < groups.size(); ++k) {
    for (int m : groups[k]) anchored[k] = anchored[k] || g.nodes[m].kind == OpKind::kAnchor;
    keep[k] = anchored[k] || static_cast<int>(groups[k].size()) >= opts.min_nodes_per_group;
  }
  auto touches_anchored = [&](const std::vector<int>& grp) {
    for (int m : grp) {
      for (int t : g.nodes[m].inputs)
        if (int p = producer[t]; p >= 0 && group_of[p] >= 0 && anchored[group_of[p]]) return true;
      for (int t : g.nodes[m].outputs)
        for (int c = 0; c < n; ++c)
          if (group_of[c] >= 0 && anchored[group_of[c]] &&
              std::find(g.nodes[c].inputs.begin(), g.nodes[c].inputs.end(), t) != g.nodes[c].inputs.end())
            return true;
    }
    return false;
  };
  for (size_t k = 0; k < groups.size(); ++k) {
    if (groups[k].empty()) continue;
    if (!keep[k] && !touches_anchored(groups[k])) {
      for (int m : groups[k])
        plan.reason[m] = "policy: a group of " + std::to_string(groups[k].size()) +
                         " node(s) is below min_nodes_per_partition=" + std::to_string(opts.min_nodes_per_group);
      continue;
    }
    for (int m : groups[k]) plan.group_of[m] = static_cast<int>(plan.groups.size());
    plan.groups.push_back(groups[k]);
  }
  return plan;
}

}  // namespace fd
