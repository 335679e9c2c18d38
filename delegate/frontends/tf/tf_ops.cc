#include "frontends/tf/tf_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ir/shape.h"
#include "ops/batch_matmul.h"
#include "ops/concatenation.h"
#include "ops/fully_connected.h"
#include "ops/pool.h"
#include "ops/pad.h"
#include "ops/reshape.h"
#include "ops/row_reduce.h"
#include "ops/softmax.h"
#include "ops/transpose.h"
#include "ops/window.h"
#include "tensorflow/core/framework/node_def.pb.h"

namespace fd {
namespace {

using tensorflow::AttrValue;
using tensorflow::NodeDef;

// ---- Attributes (absent ones read as empty or the given default).
const AttrValue* attr(const NodeDef& d, const char* name) {
  auto it = d.attr().find(name);
  return it == d.attr().end() ? nullptr : &it->second;
}
std::string attr_s(const NodeDef& d, const char* name, const std::string& dflt = "") {
  const AttrValue* a = attr(d, name);
  return a ? a->s() : dflt;
}
std::vector<int64_t> attr_ints(const NodeDef& d, const char* name) {
  const AttrValue* a = attr(d, name);
  return a ? std::vector<int64_t>(a->list().i().begin(), a->list().i().end()) : std::vector<int64_t>{};
}
std::vector<std::string> attr_strings(const NodeDef& d, const char* name) {
  const AttrValue* a = attr(d, name);
  return a ? std::vector<std::string>(a->list().s().begin(), a->list().s().end()) : std::vector<std::string>{};
}
float attr_f(const NodeDef& d, const char* name, float dflt) {
  const AttrValue* a = attr(d, name);
  return a ? a->f() : dflt;
}
bool attr_b(const NodeDef& d, const char* name, bool dflt) {
  const AttrValue* a = attr(d, name);
  return a ? a->b() : dflt;
}
bool is_nhwc(const NodeDef& d) { return attr_s(d, "data_format", "NHWC") == "NHWC"; }
bool is_float(const NodeDef& d, const char* name = "T") {
  const AttrValue* a = attr(d, name);
  return !a || a->type() == tensorflow::DT_FLOAT;
}

// ---- Constants.
const Tensor* constant_f32(const Graph& g, int t) {
  const Tensor& x = g.tensors[t];
  return x.is_constant && x.f32_data() && !x.has_dynamic_shape ? &x : nullptr;
}
// An int32 / int64 constant's values.
bool constant_ints(const Graph& g, int t, std::vector<int64_t>* out) {
  const Tensor& x = g.tensors[t];
  if (!x.is_constant || x.data.empty() || (x.dtype != DType::kI32 && x.dtype != DType::kI64)) return false;
  const size_t width = x.dtype == DType::kI32 ? 4 : 8, count = x.data.size() / width;
  out->clear();
  for (size_t i = 0; i < count; ++i) {
    const auto* p = static_cast<const char*>(x.data.bytes()) + i * width;
    int64_t v = 0;
    if (width == 4) {
      int32_t v32;
      std::memcpy(&v32, p, 4);
      v = v32;
    } else {
      std::memcpy(&v, p, 8);
    }
    out->push_back(v);
  }
  return true;
}
int add_constant(Graph* g, Shape shape, std::vector<float> values) {
  Tensor t;
  t.dtype = DType::kF32;
  t.is_constant = true;
  t.shape = std::move(shape);
  t.data = ConstantData::own(std::move(values));
  g->tensors.push_back(std::move(t));
  return static_cast<int>(g->tensors.size()) - 1;
}
int add_intermediate(Graph* g, int like) {
  Tensor t = g->tensors[like];
  g->tensors.push_back(std::move(t));
  return static_cast<int>(g->tensors.size()) - 1;
}

// ---- Elementwise ops by TF name.
struct EwEntry {
  const char* name;
  EwOp op;
};
constexpr EwEntry kElementwise[] = {
    {"AddV2", EwOp::Add}, {"Add", EwOp::Add}, {"BiasAdd", EwOp::Add}, {"Sub", EwOp::Sub},
    {"Mul", EwOp::Mul}, {"RealDiv", EwOp::Div}, {"Maximum", EwOp::Maximum}, {"Minimum", EwOp::Minimum},
    {"SquaredDifference", EwOp::SquaredDifference}, {"Pow", EwOp::Pow}, {"Relu", EwOp::Relu},
    {"Relu6", EwOp::Relu6}, {"Elu", EwOp::Elu}, {"LeakyRelu", EwOp::LeakyRelu}, {"Sigmoid", EwOp::Logistic},
    {"Tanh", EwOp::Tanh}, {"Exp", EwOp::Exp}, {"Log", EwOp::Log}, {"Sqrt", EwOp::Sqrt}, {"Rsqrt", EwOp::Rsqrt},
    {"Square", EwOp::Square}, {"Neg", EwOp::Neg}, {"Abs", EwOp::Abs}, {"Softplus", EwOp::Softplus},
};
const EwEntry* find_elementwise(const std::string& op) {
  for (const EwEntry& e : kElementwise)
    if (op == e.name) return &e;
  return nullptr;
}

Node elementwise(EwOp op, std::vector<int> inputs, int output, float param = 0.f) {
  Node n;
  n.kind = OpKind::kElementwise;
  n.ew = op;
  n.param = param;
  n.inputs = std::move(inputs);
  n.outputs = {output};
  return n;
}

std::string translate_elementwise(const NodeDef& d, const EwEntry& e, const std::vector<int>& in,
                                  const std::vector<int>& out, std::vector<Node>* nodes) {
  if (!is_float(d)) return "not float32";
  if (static_cast<int>(in.size()) != ew_arity(e.op) || out.size() != 1) return "unexpected inputs or outputs";
  if (d.op() == "BiasAdd" && !is_nhwc(d)) return "BiasAdd not NHWC";
  nodes->push_back(elementwise(e.op, in, out[0], attr_f(d, "alpha", 0.2f)));
  return "";
}

// AddN: a chain of ADDs.
std::string translate_add_n(const NodeDef& d, const std::vector<int>& in, const std::vector<int>& out, Graph* g,
                            std::vector<Node>* nodes) {
  if (!is_float(d) || in.size() < 2 || out.size() != 1) return "not a float32 AddN of two or more";
  int sum = in[0];
  for (size_t i = 1; i < in.size(); ++i) {
    const int next = i + 1 == in.size() ? out[0] : add_intermediate(g, out[0]);
    nodes->push_back(elementwise(EwOp::Add, {sum, in[i]}, next));
    sum = next;
  }
  return "";
}

// ---- Weighted anchors: convolutions and matmuls, with the remapper's fused forms.

// fused_ops of _FusedConv2D / _FusedMatMul: BiasAdd (or, for convolutions,
// FusedBatchNorm), then an activation the anchor takes (Relu, Relu6 after a
// BiasAdd) or one the IR runs after it (*after).
std::string fused_epilogue(const NodeDef& d, bool batch_norm_ok, Node* anchor, EwOp* after, float* alpha) {
  const std::vector<std::string> ops = attr_strings(d, "fused_ops");
  *after = EwOp::kCount;
  *alpha = attr_f(d, "leakyrelu_alpha", 0.2f);
  const bool bn = batch_norm_ok && !ops.empty() && ops[0] == "FusedBatchNorm";
  if (ops.empty() || (ops[0] != "BiasAdd" && !bn) || ops.size() > 2)
    return "fused_ops other than BiasAdd or FusedBatchNorm, then an activation";
  if (ops.size() == 1) return "";
  const std::string& a = ops[1];
  if (a == "Relu" && bn) *after = EwOp::Relu;
  else if (a == "Relu6" && bn) *after = EwOp::Relu6;
  else if (a == "Relu") anchor->act = Activation::kRelu;
  else if (a == "Relu6") anchor->act = Activation::kRelu6;
  else if (a == "Elu") *after = EwOp::Elu;
  else if (a == "LeakyRelu") *after = EwOp::LeakyRelu;
  else if (a == "Tanh") *after = EwOp::Tanh;
  else if (a == "Sigmoid") *after = EwOp::Logistic;
  else if (a == "GeluApproximate") *after = EwOp::GeluTanh;
  else if (a == "GeluExact") *after = EwOp::Gelu;
  else if (a == "_FusedHardSwish") *after = EwOp::HardSwish;  // oneDNN's remapper (CPUs it is on for)
  else return "fused activation " + a;
  return "";
}

// The anchor writing `out` directly, or through the activation `after`.
void emit_anchor(Node anchor, int out, EwOp after, float alpha, Graph* g, std::vector<Node>* nodes) {
  if (after == EwOp::kCount) {
    anchor.outputs = {out};
    nodes->push_back(std::move(anchor));
    return;
  }
  const int mid = add_intermediate(g, out);
  anchor.outputs = {mid};
  nodes->push_back(std::move(anchor));
  nodes->push_back(elementwise(after, {mid}, out, alpha));
  nodes->back().name = ew_name(after);  // the fused activation, as plans and messages name it
}

std::string window_params(const NodeDef& d, const char* window_attr, ConvParams* c) {
  const std::vector<int64_t> strides = attr_ints(d, "strides"), dil = attr_ints(d, "dilations");
  const std::string padding = attr_s(d, "padding");
  if (!is_nhwc(d)) return "data_format is not NHWC";
  if (padding != "SAME" && padding != "VALID") return "padding " + padding;
  if (strides.size() != 4 || strides[0] != 1 || strides[3] != 1) return "strides not [1, h, w, 1]";
  if (!dil.empty() && (dil.size() != 4 || dil[0] != 1 || dil[3] != 1)) return "dilations not [1, h, w, 1]";
  c->stride_h = static_cast<int>(strides[1]);
  c->stride_w = static_cast<int>(strides[2]);
  c->dilation_h = dil.empty() ? 1 : static_cast<int>(dil[1]);
  c->dilation_w = dil.empty() ? 1 : static_cast<int>(dil[2]);
  c->same_padding = padding == "SAME";
  if (window_attr) {
    const std::vector<int64_t> k = attr_ints(d, window_attr);
    if (k.size() != 4 || k[0] != 1 || k[3] != 1) return std::string(window_attr) + " not [1, h, w, 1]";
    c->window_h = static_cast<int>(k[1]);
    c->window_w = static_cast<int>(k[2]);
  }
  return "";
}

// Weights input t in the IR's layout: a new constant from a Const's values, or
// a placeholder filled at run time from a stable tensor, or t itself where it
// is computed from variables in the IR's layout already; -1 if none.
int ir_weights_of(Graph* g, int t, WeightLayout layout, bool depthwise, size_t rank, const TfWeights& w) {
  const Tensor& x = g->tensors[t];
  if (x.shape.size() != rank || x.has_dynamic_shape || !x.is_f32()) return -1;
  const Shape shape = ir_weight_shape(x.shape, layout, depthwise);
  if (x.is_constant && x.values_at_run_time) return layout == WeightLayout::kAsIs && shape == x.shape ? t : -1;
  if (const Tensor* c = constant_f32(*g, t)) return add_constant(g, shape, ir_weights(c->f32_data(), x.shape, layout));
  if (!w.stable || !w.stable->count(t)) return -1;
  return run_time_placeholder(g, t, layout, shape, w);
}

// A batch norm from run-time vectors (variables): s = scale * rsqrt(var + eps),
// shift = offset - mean * s, y = x * s + shift, as elementwise IR nodes.
std::string batch_norm_at_run_time(const std::vector<int>& in, int out, float eps, Graph* g,
                                   std::vector<Node>* nodes) {
  const int e = add_constant(g, {1}, {eps});
  const int var_eps = add_intermediate(g, in[4]), inv = add_intermediate(g, in[4]), s = add_intermediate(g, in[4]);
  const int mean_s = add_intermediate(g, in[4]), shift = add_intermediate(g, in[4]), xs = add_intermediate(g, out);
  nodes->push_back(elementwise(EwOp::Add, {in[4], e}, var_eps));
  nodes->push_back(elementwise(EwOp::Rsqrt, {var_eps}, inv));
  nodes->push_back(elementwise(EwOp::Mul, {in[1], inv}, s));
  nodes->push_back(elementwise(EwOp::Mul, {in[3], s}, mean_s));
  nodes->push_back(elementwise(EwOp::Sub, {in[2], mean_s}, shift));
  nodes->push_back(elementwise(EwOp::Mul, {in[0], s}, xs));
  nodes->push_back(elementwise(EwOp::Add, {xs, shift}, out));
  return "";
}

// An inference batch norm of x by vectors in = {x, scale, offset, mean, variance}:
// y = x * s + (offset - mean * s), s = scale / sqrt(var + eps), a MUL and an ADD
// by vectors computed here from constants, else at run time.
std::string emit_batch_norm(const std::vector<int>& in, int out, float eps, Graph* g, std::vector<Node>* nodes) {
  const Tensor* p[4];
  bool constant = true;
  for (int i = 0; i < 4; ++i) {
    const Tensor& v = g->tensors[in[i + 1]];
    if (!v.is_f32() || v.has_dynamic_shape || v.shape.size() != 1 || v.shape != g->tensors[in[1]].shape)
      return "scale, offset, mean and variance are not float32 vectors of one static shape";
    constant = constant && (p[i] = constant_f32(*g, in[i + 1]));
  }
  if (!constant) return batch_norm_at_run_time(in, out, eps, g, nodes);
  const int64_t c = p[0]->shape[0];
  std::vector<float> scale(c), shift(c);
  for (int64_t i = 0; i < c; ++i) {
    scale[i] = p[0]->f32_data()[i] / std::sqrt(p[3]->f32_data()[i] + eps);
    shift[i] = p[1]->f32_data()[i] - p[2]->f32_data()[i] * scale[i];
  }
  const int s = add_constant(g, {c}, std::move(scale)), b = add_constant(g, {c}, std::move(shift));
  const int mid = add_intermediate(g, out);
  nodes->push_back(elementwise(EwOp::Mul, {in[0], s}, mid));
  nodes->push_back(elementwise(EwOp::Add, {mid, b}, out));
  return "";
}

// FusedBatchNormV3 in inference (its other outputs are not computed).
std::string translate_batch_norm(const NodeDef& d, const std::vector<int>& in, const std::vector<int>& out,
                                 Graph* g, std::vector<Node>* nodes) {
  if (!is_float(d) || !is_float(d, "U")) return "not float32";
  if (attr_b(d, "is_training", true)) return "is_training";
  if (!is_nhwc(d)) return "data_format is not NHWC";
  if (in.size() != 5 || out.empty()) return "unexpected inputs or outputs";
  return emit_batch_norm(in, out[0], attr_f(d, "epsilon", 1e-3f), g, nodes);
}

// Conv2D, DepthwiseConv2dNative and their _Fused forms (filter, then the bias,
// or scale, offset, mean and variance of a FusedBatchNorm run after it).
std::string translate_conv(const NodeDef& d, const std::vector<int>& in, const std::vector<int>& out,
                           const TfWeights& w, Graph* g, std::vector<Node>* nodes) {
  const bool depthwise = d.op().find("Depthwise") != std::string::npos;
  const bool fused = d.op()[0] == '_';
  const std::vector<std::string> ops = fused ? attr_strings(d, "fused_ops") : std::vector<std::string>{};
  const bool bn = !ops.empty() && ops[0] == "FusedBatchNorm";
  Node n;
  n.kind = OpKind::kAnchor;
  n.anchor = depthwise ? AnchorOp::kDepthwiseConv2D : AnchorOp::kConv2D;
  ConvParams window;
  std::string why = is_float(d) ? window_params(d, nullptr, &window) : "not float32";
  if (!why.empty()) return why;
  n.params = window_op_params(window);
  if (in.size() != (!fused ? 2u : bn ? 6u : 3u) || out.size() != 1) return "unexpected inputs or outputs";
  EwOp after = EwOp::kCount;
  float alpha = 0.f;
  if (fused && !(why = fused_epilogue(d, true, &n, &after, &alpha)).empty()) return why;
  const int f = ir_weights_of(g, in[1], depthwise ? WeightLayout::kAsIs : WeightLayout::kHwioToOhwi, depthwise, 4, w);
  const int b = fused && !bn ? ir_weights_of(g, in[2], WeightLayout::kAsIs, false, 1, w) : 0;
  if (f < 0 || b < 0) return "filter or bias is neither a constant nor a variable of static shape";
  n.inputs = {in[0], f};
  if (fused && !bn) n.inputs.push_back(b);
  if (!bn) {
    emit_anchor(std::move(n), out[0], after, alpha, g, nodes);
    return "";
  }
  const int conv = add_intermediate(g, out[0]), normed = after == EwOp::kCount ? out[0] : add_intermediate(g, out[0]);
  n.outputs = {conv};
  nodes->push_back(std::move(n));
  why = emit_batch_norm({conv, in[2], in[3], in[4], in[5]}, normed, attr_f(d, "epsilon", 1e-3f), g, nodes);
  if (why.empty() && after != EwOp::kCount) nodes->push_back(elementwise(after, {normed}, out[0], alpha));
  return why;
}

// MatMul and _FusedMatMul: a FULLY_CONNECTED with weights [out, in].
std::string translate_matmul(const NodeDef& d, const std::vector<int>& in, const std::vector<int>& out,
                             const TfWeights& w, Graph* g, std::vector<Node>* nodes) {
  const bool fused = d.op()[0] == '_';
  if (!is_float(d)) return "not float32";
  if (in.size() != (fused ? 3u : 2u) || out.size() != 1) return "unexpected inputs or outputs";
  if (attr_b(d, "transpose_a", false)) return "transpose_a";
  Node n;
  n.kind = OpKind::kAnchor;
  n.anchor = AnchorOp::kFullyConnected;
  n.params = fully_connected_params(/*keep_num_dims=*/true, false);
  EwOp after = EwOp::kCount;
  float alpha = 0.f;
  std::string why;
  if (fused && !(why = fused_epilogue(d, false, &n, &after, &alpha)).empty()) return why;
  const WeightLayout layout = attr_b(d, "transpose_b", false) ? WeightLayout::kAsIs : WeightLayout::kTranspose;
  const int wt = ir_weights_of(g, in[1], layout, false, 2, w);
  const int b = fused ? ir_weights_of(g, in[2], WeightLayout::kAsIs, false, 1, w) : 0;
  if (wt < 0 || b < 0) return "weights or bias are neither a constant nor a variable of static shape";
  n.inputs = {in[0], wt};
  if (fused) n.inputs.push_back(b);
  emit_anchor(std::move(n), out[0], after, alpha, g, nodes);
  return "";
}

// An anchor node of `op` appended to *nodes, for the caller to set its attributes.
Node& push_anchor(std::vector<Node>* nodes, AnchorOp op, std::vector<int> inputs, const std::vector<int>& outputs) {
  Node& n = nodes->emplace_back();
  n.kind = OpKind::kAnchor;
  n.anchor = op;
  n.inputs = std::move(inputs);
  n.outputs = outputs;
  return n;
}

// ---- Windows and reductions.
std::string translate_pool(const NodeDef& d, const std::vector<int>& in, const std::vector<int>& out,
                           std::vector<Node>* nodes) {
  ConvParams p;
  const std::string why = is_float(d) ? window_params(d, "ksize", &p) : "not float32";
  if (!why.empty()) return why;
  if (in.size() != 1 || out.size() != 1) return "unexpected inputs or outputs";
  push_anchor(nodes, d.op() == "MaxPool" ? AnchorOp::kMaxPool2D : AnchorOp::kAveragePool2D, in, out).params =
      window_op_params(p);
  return "";
}

// MEAN over H and W of NHWC (kMean) or over the last axis (kRowReduce).
std::string translate_mean(const NodeDef& d, const std::vector<int>& in, const std::vector<int>& out, Graph* g,
                           std::vector<Node>* nodes) {
  std::vector<int64_t> axes;
  if (!is_float(d) || in.size() != 2 || out.size() != 1) return "not a float32 MEAN";
  if (!constant_ints(*g, in[1], &axes)) return "axes are not constant";
  const Tensor& x = g->tensors[in[0]];
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (x.has_dynamic_shape || rank == 0) return "input rank unknown";
  for (int64_t& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  AnchorOp op;
  if (rank == 4 && axes == std::vector<int64_t>{1, 2}) op = AnchorOp::kMean;
  else if (axes == std::vector<int64_t>{rank - 1}) op = AnchorOp::kRowReduce;
  else return "axes other than H and W, or the last";
  Node& n = push_anchor(nodes, op, {in[0]}, out);
  const bool keep_dims = attr_b(d, "keep_dims", false);
  if (op == AnchorOp::kMean) n.params = mean_params(keep_dims);
  else n.params = row_reduce_params(Reduce::kMean, -1, keep_dims);  // the last axis
  return "";
}

// ---- Views: Reshape, Transpose, ConcatV2, Pad / PadV2 / MirrorPad; and
// Softmax, BatchMatMul.
// A RESHAPE to a shape computed at run time (a Tensordot's) whose output only
// the batch leaves open: the output's shape, the batch inferred.
bool computed_reshape(const Graph& g, AnchorOp op, int out, std::vector<int64_t>* dims) {
  const Tensor& y = g.tensors[out];
  if (op != AnchorOp::kReshape || y.has_dynamic_shape || y.shape.empty()) return false;
  *dims = y.shape;
  (*dims)[0] = -1;
  return true;
}

std::string translate_view(const NodeDef& d, const std::vector<int>& in, const std::vector<int>& out, Graph* g,
                           std::vector<Node>* nodes) {
  if (!is_float(d) || in.size() != 2 || out.size() != 1) return "not a float32 " + d.op();
  const AnchorOp op = d.op() == "Reshape" ? AnchorOp::kReshape : AnchorOp::kTranspose;
  std::vector<int64_t> dims;
  if (!constant_ints(*g, in[1], &dims) && !computed_reshape(*g, op, out[0], &dims))
    return "shape or permutation is not constant";
  Node& n = push_anchor(nodes, op, {in[0]}, out);
  if (op == AnchorOp::kTranspose) n.params = transpose_params(std::move(dims));
  else n.params = reshape_params(std::move(dims));
  return "";
}

// Squeeze (its squeeze_dims; none: every axis of size 1) and ExpandDims (its
// constant dim), derived from the input's shape at every run.
std::string translate_squeeze(const NodeDef& d, const std::vector<int>& in, const std::vector<int>& out, Graph* g,
                              std::vector<Node>* nodes) {
  if (!is_float(d) || in.empty() || out.size() != 1) return "not a float32 " + d.op();
  if (d.op() == "Squeeze") {
    push_anchor(nodes, AnchorOp::kSqueeze, {in[0]}, out).params = squeeze_params(attr_ints(d, "squeeze_dims"));
    return "";
  }
  std::vector<int64_t> axis;
  if (in.size() != 2 || !constant_ints(*g, in[1], &axis) || axis.size() != 1) return "dim is not a constant";
  push_anchor(nodes, AnchorOp::kExpandDims, {in[0]}, out).params = expand_dims_params(axis[0]);
  return "";
}

std::string translate_pad(const NodeDef& d, const std::vector<int>& in, const std::vector<int>& out, Graph* g,
                          std::vector<Node>* nodes) {
  if (!is_float(d) || in.size() < 2 || in.size() > 3 || out.size() != 1) return "not a float32 pad";
  Node n;
  n.kind = OpKind::kPad;
  std::vector<int64_t> pads;
  if (!constant_ints(*g, in[1], &pads) || pads.size() != 2 * g->tensors[in[0]].shape.size())
    return "paddings are not constant [rank, 2]";
  float value = 0.f;
  if (in.size() == 3) {
    const Tensor* v = constant_f32(*g, in[2]);
    if (!v || num_elements(v->shape) != 1) return "constant_values is not a constant scalar";
    value = v->f32_data()[0];
  }
  PadMode pad_mode = PadMode::kConstant;
  if (d.op() == "MirrorPad") {
    const std::string mode = attr_s(d, "mode");
    if (mode != "REFLECT" && mode != "SYMMETRIC") return "mode " + mode;
    pad_mode = mode == "REFLECT" ? PadMode::kReflect : PadMode::kSymmetric;
  }
  n.params = pad_params(std::move(pads), pad_mode, value);
  n.inputs = {in[0]};
  n.outputs = out;
  nodes->push_back(std::move(n));
  return "";
}

std::string translate_concat(const NodeDef& d, const std::vector<int>& in, const std::vector<int>& out, Graph* g,
                             std::vector<Node>* nodes) {
  std::vector<int64_t> axis;
  if (!is_float(d) || in.size() < 3 || out.size() != 1) return "not a float32 ConcatV2 of two or more";
  if (!constant_ints(*g, in.back(), &axis) || axis.size() != 1) return "axis is not a constant";
  const int64_t rank = static_cast<int64_t>(g->tensors[out[0]].shape.size());
  const int64_t a = axis[0] < 0 ? axis[0] + rank : axis[0];
  if (g->tensors[out[0]].has_dynamic_shape || a < 0 || a >= rank) return "axis outside the output's rank";
  push_anchor(nodes, AnchorOp::kConcatenation, std::vector<int>(in.begin(), in.end() - 1), out).params =
      concatenation_params(static_cast<int>(a), false);
  return "";
}

std::string translate_row_op(const NodeDef& d, const std::vector<int>& in, const std::vector<int>& out,
                             std::vector<Node>* nodes) {
  const bool softmax = d.op() == "Softmax";
  if (softmax ? !is_float(d) : (!is_float(d, "Ta") || !is_float(d, "Tb") || !is_float(d)))
    return "not float32";
  if (in.size() != (softmax ? 1u : 2u) || out.size() != 1) return "unexpected inputs or outputs";
  Node& n = push_anchor(nodes, softmax ? AnchorOp::kSoftmax : AnchorOp::kBatchMatMul, in, out);
  if (softmax) n.params = softmax_params(1.f);
  else n.params = batch_matmul_params(attr_b(d, "adj_x", false), attr_b(d, "adj_y", false));
  return "";
}

std::string translate_tf_anchor(const NodeDef& d, const std::vector<int>& in, const std::vector<int>& out,
                                const TfWeights& w, Graph* g, std::vector<Node>* nodes) {
  const std::string& op = d.op();
  if (op == "Conv2D" || op == "_FusedConv2D" || op == "DepthwiseConv2dNative" || op == "_FusedDepthwiseConv2dNative")
    return translate_conv(d, in, out, w, g, nodes);
  if (op == "MatMul" || op == "_FusedMatMul") return translate_matmul(d, in, out, w, g, nodes);
  if (op == "FusedBatchNormV3") return translate_batch_norm(d, in, out, g, nodes);
  if (op == "AddN") return translate_add_n(d, in, out, g, nodes);
  if (op == "MaxPool" || op == "AvgPool") return translate_pool(d, in, out, nodes);
  if (op == "Mean") return translate_mean(d, in, out, g, nodes);
  if (op == "Reshape" || op == "Transpose") return translate_view(d, in, out, g, nodes);
  if (op == "Squeeze" || op == "ExpandDims") return translate_squeeze(d, in, out, g, nodes);
  if (op == "Pad" || op == "PadV2" || op == "MirrorPad") return translate_pad(d, in, out, g, nodes);
  if (op == "ConcatV2") return translate_concat(d, in, out, g, nodes);
  if (op == "Softmax" || op == "BatchMatMulV2" || op == "BatchMatMulV3") return translate_row_op(d, in, out, nodes);
  return "op not translated";
}

}  // namespace

int run_time_placeholder(Graph* g, int source, WeightLayout layout, const Shape& shape, const TfWeights& w) {
  const int placeholder = add_constant(g, shape, std::vector<float>(num_elements(shape), 0.f));
  g->tensors[placeholder].values_at_run_time = true;
  (*w.run_time)[placeholder] = RunTimeWeight{source, layout};
  return placeholder;
}

std::string translate_tf_node(const NodeDef& d, const std::vector<int>& in, const std::vector<int>& out,
                              const TfWeights& w, Graph* g, std::vector<Node>* nodes) {
  nodes->clear();
  std::string why;
  if (const EwEntry* e = find_elementwise(d.op())) why = translate_elementwise(d, *e, in, out, nodes);
  else why = translate_tf_anchor(d, in, out, w, g, nodes);
  if (!why.empty()) nodes->clear();
  return why;
}

}  // namespace fd
