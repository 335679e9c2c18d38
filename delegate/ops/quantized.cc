#include "ops/quantized.h"

#include <algorithm>
#include <cmath>

#include "ir/shape.h"
#include "ops/batch_matmul.h"
#include "ops/fully_connected.h"
#include "ops/shape_rules.h"
#include "ops/window.h"

namespace fd {
namespace {

// A constant of one value, or of one value per channel of `out` (ones before the last axis).
bool per_channel_or_scalar(const Shape& c, const Shape& out) {
  if (num_elements(c) == 1) return c.size() <= out.size();
  if (c.empty() || c.size() > out.size() || out.empty() || c.back() != out.back()) return false;
  for (size_t i = 0; i + 1 < c.size(); ++i)
    if (c[i] != 1) return false;
  return true;
}

// The node writing tensor t, or null (a model input).
const Node* producer(const Graph& g, int t) {
  for (const Node& n : g.nodes)
    if (!n.outputs.empty() && n.outputs[0] == t) return &n;
  return nullptr;
}

// The one run-time tensor t depends on through int8 ops whose values are
// tables of it (ops of one run-time input, or of two of the same source), or t.
std::string local_rule(const Graph& g, const Node& node);

int q8_source(const Graph& g, int t) {
  const Node* n = producer(g, t);
  if (!n || n->kind != OpKind::kElementwise || g.tensors[t].dtype != DType::kI8 || !local_rule(g, *n).empty())
    return t;
  int source = -1;
  for (int in : n->inputs) {
    if (g.tensors[in].is_constant) continue;
    const int s = q8_source(g, in);
    if (source >= 0 && s != source) return t;
    source = s;
  }
  return source >= 0 ? source : t;
}

// SQUARED_DIFFERENCE's second input of one value per row of the output
// (LayerNorm's x - mean: TFLite's broadcast loop runs the same arithmetic).
bool row_operand(const Node& node, const Shape& x, const Shape& out) {
  if (node.ew != EwOp::SquaredDifference || x.size() != out.size() || out.empty() || x.back() != 1) return false;
  return std::equal(x.begin(), x.end() - 1, out.begin());
}

// ADD's and SUB's output multiplier, 2 max(input scales) / (2^20 output scale),
// below 1 (TFLite's Prepare requires it of ADD; SUB's Eval shifts by a negative amount past it).
bool rescales_down(const Graph& g, const Node& node) {
  const float s0 = g.tensors[node.inputs[0]].quantization.scales[0];
  const float s1 = g.tensors[node.inputs[1]].quantization.scales[0];
  const float out = g.tensors[node.outputs[0]].quantization.scales[0];
  return static_cast<double>(2 * std::max(s0, s1)) / static_cast<double>((1 << 20) * out) < 1.0;
}

// SQUARED_DIFFERENCE's output multiplier, (2 max(input scales))^2 / (2^14 output scale), below 1.
bool squares_down(const Graph& g, const Node& node) {
  const double twice_max = 2 * std::max(g.tensors[node.inputs[0]].quantization.scales[0],
                                        g.tensors[node.inputs[1]].quantization.scales[0]);
  const double out = g.tensors[node.outputs[0]].quantization.scales[0];
  return twice_max * twice_max / ((1 << 14) * out) < 1.0;
}

}  // namespace

bool is_q8_tensor(const Tensor& t) {
  const Quantization& q = t.quantization;
  return t.dtype == DType::kI8 && q.scales.size() == 1 && q.zero_points.size() == 1 && q.scales[0] > 0.f &&
         std::isfinite(q.scales[0]) && q.zero_points[0] >= -128 && q.zero_points[0] <= 127;
}

bool has_q8_form(EwOp op) {
  switch (op) {
    case EwOp::Add: case EwOp::Sub: case EwOp::Mul: case EwOp::Maximum: case EwOp::Minimum: case EwOp::Prelu:
    case EwOp::SquaredDifference:
    case EwOp::Relu: case EwOp::Relu6: case EwOp::ReluN1To1: case EwOp::Relu0To1: case EwOp::LeakyRelu:
    case EwOp::Logistic: case EwOp::Tanh: case EwOp::Elu: case EwOp::Gelu: case EwOp::GeluTanh: case EwOp::Exp:
    case EwOp::Log: case EwOp::HardSwish: case EwOp::Abs: case EwOp::Quantize:
      return true;
    default:
      return false;
  }
}

namespace {

// The rule but for how the inputs' values relate.
std::string local_rule(const Graph& g, const Node& node) {
  if (!has_q8_form(node.ew)) return std::string("int8 ") + ew_name(node.ew) + " is not supported";
  const Tensor& out = g.tensors[node.outputs[0]];
  if (!is_q8_tensor(out)) return "int8: output quantization is not one scale and zero point";
  if (out.has_dynamic_shape) return "dynamic shape: output shape known only at run time";
  if (static_cast<int>(out.shape.size()) > kMaxRank) return "rank above " + std::to_string(kMaxRank);
  if (node.act == Activation::kUnsupported) return "fused activation of " + node.name + " is not supported";
  if (node.ew == EwOp::LeakyRelu && !(node.param >= 0.f))
    return "int8 LEAKY_RELU of a negative alpha: the runtimes round it differently";
  bool runs = false;
  for (int t : node.inputs) {
    const Tensor& x = g.tensors[t];
    if (!is_q8_tensor(x)) return "int8: an input is not int8 of one scale and zero point";
    if (x.is_constant) {
      if (node.ew == EwOp::Add)
        return "int8 ADD of a constant: TFLite's broadcast kernels round it by the value's place";
      if (x.data.empty() || x.values_at_run_time || !per_channel_or_scalar(x.shape, out.shape))
        return "int8: a constant input is not one value or one per channel";
      continue;
    }
    if (x.has_dynamic_shape || (x.shape != out.shape && !(row_operand(node, x.shape, out.shape) && runs)))
      return "int8: a run-time input does not have the output's shape";
    runs = true;
  }
  if (!runs) return "int8: every input is a constant";
  if (node.ew == EwOp::SquaredDifference && !squares_down(g, node))
    return "int8 SQUARED_DIFFERENCE of an output multiplier of 1 or more (TFLite's Prepare fails)";
  if ((node.ew == EwOp::Add || node.ew == EwOp::Sub) && !rescales_down(g, node))
    return "int8 ADD/SUB of an output scale under the inputs' / 2^19: TFLite's kernel shifts by a negative "
           "amount there (undefined)";
  return "";
}

}  // namespace

bool q8_has_row_operand(const Graph& g, const Node& node) {
  return node.inputs.size() == 2 && !g.tensors[node.inputs[1]].is_constant &&
         g.tensors[node.inputs[1]].shape != g.tensors[node.outputs[0]].shape;
}

bool q8_of_two_sources(const Graph& g, const Node& node) {
  const bool two_values = node.inputs.size() == 2 && !g.tensors[node.inputs[0]].is_constant &&
                          !g.tensors[node.inputs[1]].is_constant && !q8_has_row_operand(g, node);
  return two_values && q8_source(g, node.inputs[0]) != q8_source(g, node.inputs[1]);
}

const Node* q8_source_layer(const Graph& g, int t) {
  const Node* p = producer(g, q8_source(g, t));
  return p && p->kind == OpKind::kAnchor && is_int8_node(g, *p) ? p : nullptr;
}

std::string q8_elementwise_rule(const Graph& g, const Node& node) {
  if (std::string why = local_rule(g, node); !why.empty()) return why;
  // An op of two independent inputs runs TFLite's arithmetic on 32-bit lanes: on the CPUs
  // measured, slower than XNNPACK's loops (docs/ops.md) alone, but free of a pass over
  // memory in the tile of the layer computing one of them (a residual ADD).
  if (!q8_of_two_sources(g, node)) return "";
  for (int t : node.inputs)
    if (q8_source_layer(g, t)) return "";
  return "int8: an op of two independent inputs, neither from a layer (slower than XNNPACK's alone)";
}

namespace {

// Int8 weights of `rank` axes, zero point 0, one scale or one per output channel (axis `axis`).
std::string q8_weights_rule(const Tensor& w, size_t rank, int axis = 0) {
  const Quantization& q = w.quantization;
  if (!w.is_constant || w.data.empty() || w.dtype != DType::kI8 || w.shape.size() != rank || q.scales.empty())
    return "int8 layer: weights are not a constant int8 tensor of " + std::to_string(rank) + " axes";
  if (q.scales.size() != 1 && (q.axis != axis || static_cast<int64_t>(q.scales.size()) != w.shape[axis]))
    return "int8 layer: weight scales are not one, or one per output channel";
  for (size_t i = 0; i < q.scales.size(); ++i)
    if (!(q.scales[i] > 0.f) || (i < q.zero_points.size() && q.zero_points[i] != 0))
      return "int8 layer: weights of a zero point or a scale not positive";
  return "";
}

std::string q8_bias_rule(const Graph& g, const Node& node, int64_t n) {
  if (node.inputs.size() < 3 || node.inputs[2] < 0) return "";
  const Tensor& b = g.tensors[node.inputs[2]];
  if (!b.is_constant || b.data.empty() || b.dtype != DType::kI32 || b.shape != Shape{n})
    return "int8 layer: bias is not a constant int32 vector";
  return "";
}

std::string q8_fully_connected_rule(const Graph& g, const Node& node) {
  const Tensor& w = g.tensors[node.inputs[1]];
  if (std::string why = q8_weights_rule(w, 2); !why.empty()) return why;
  const Shape& in = g.tensors[node.inputs[0]].shape;
  const auto shape = fully_connected_shape(in, w.shape, params_as<FullyConnectedParams>(node.params).keep_num_dims);
  if (!shape || *shape != g.tensors[node.outputs[0]].shape)
    return "int8 FULLY_CONNECTED: input " + to_string(in) + " does not fit";
  return q8_bias_rule(g, node, w.shape[0]);
}

// CONV_2D (filter [oc, kh, kw, ic], scales on axis 0) or DEPTHWISE_CONV_2D
// ([1, kh, kw, ic * multiplier], scales on axis 3).
std::string q8_conv_rule(const Graph& g, const Node& node) {
  const bool depthwise = node.anchor == AnchorOp::kDepthwiseConv2D;
  const Tensor& w = g.tensors[node.inputs[1]];
  if (std::string why = q8_weights_rule(w, 4, depthwise ? 3 : 0); !why.empty()) return why;
  if (depthwise && w.shape[0] != 1) return "int8 DEPTHWISE_CONV_2D: filter is not [1, kh, kw, c]";
  const Shape& in = g.tensors[node.inputs[0]].shape;
  std::string error;
  const int kh = static_cast<int>(w.shape[1]), kw = static_cast<int>(w.shape[2]);
  const auto geo = conv_geometry(in, kh, kw, window_of(node), FoldedPad{}, &error);
  if (!geo) return error;
  const int64_t oc = w.shape[depthwise ? 3 : 0];
  const bool fits = depthwise ? oc % geo->channels == 0 : w.shape[3] == geo->channels;
  if (!fits || Shape{geo->batch, geo->out_h, geo->out_w, oc} != g.tensors[node.outputs[0]].shape)
    return "int8 " + node.name + ": input " + to_string(in) + " does not fit filter " + to_string(w.shape);
  return q8_bias_rule(g, node, oc);
}

// BATCH_MATMUL of two run-time int8 tensors of the same batch axes (no
// broadcast), lhs not transposed (adj_x), a depth whose sums fit int32.
std::string q8_batch_matmul_rule(const Graph& g, const Node& node) {
  const Shape& l = g.tensors[node.inputs[0]].shape;
  const Shape& r = g.tensors[node.inputs[1]].shape;
  const auto& p = params_as<BatchMatMulParams>(node.params);
  if (g.tensors[node.inputs[0]].is_constant || g.tensors[node.inputs[1]].is_constant)
    return "int8 BATCH_MATMUL of a constant operand is not supported yet";
  if (p.adj_x) return "int8 BATCH_MATMUL of a transposed left side (adj_x) is not supported yet";
  if (l.size() > 4) return "int8 BATCH_MATMUL of rank above 4";
  const std::optional<Shape> out = q8_batch_matmul_shape(l, r, p.adj_y);
  if (!out) return "int8 BATCH_MATMUL: operands " + to_string(l) + " x " + to_string(r) +
                   " of different batch axes (a broadcast) or depths, or a depth above 32768, are not supported";
  if (*out != g.tensors[node.outputs[0]].shape) return "int8 BATCH_MATMUL: output shape does not fit";
  return "";
}

}  // namespace

std::optional<Shape> q8_batch_matmul_shape(const Shape& lhs, const Shape& rhs, bool adj_y) {
  const size_t r = lhs.size();
  if (r < 2 || rhs.size() != r || !std::equal(lhs.begin(), lhs.end() - 2, rhs.begin())) return std::nullopt;
  const int64_t k = lhs[r - 1], n = adj_y ? rhs[r - 2] : rhs[r - 1];
  if ((adj_y ? rhs[r - 1] : rhs[r - 2]) != k || k > 32768) return std::nullopt;
  Shape out(lhs.begin(), lhs.end() - 1);
  out.push_back(n);
  return out;
}

std::string q8_anchor_rule(const Graph& g, const Node& node) {
#if !defined(__x86_64__)
  return "int8 layers: TFLite's ARM kernels round once, which the runtime does not yet";
#endif
  const bool conv = node.anchor == AnchorOp::kConv2D || node.anchor == AnchorOp::kDepthwiseConv2D;
  const bool matmul = node.anchor == AnchorOp::kBatchMatMul;
  if (node.anchor != AnchorOp::kFullyConnected && !conv && !matmul)
    return "int8 " + node.name + " is not supported yet";
  const Tensor& in = g.tensors[node.inputs[0]];
  const Tensor& out = g.tensors[node.outputs[0]];
  if (!is_q8_tensor(in) || !is_q8_tensor(out)) return "int8: input or output not int8 of one scale and zero point";
  if (in.has_dynamic_shape || out.has_dynamic_shape) return "dynamic shape: known only at run time";
  if (node.act == Activation::kUnsupported) return "fused activation of " + node.name + " is not supported";
  if (matmul && !is_q8_tensor(g.tensors[node.inputs[1]]))
    return "int8: right side not int8 of one scale and zero point";
  if (matmul) return q8_batch_matmul_rule(g, node);
  return conv ? q8_conv_rule(g, node) : q8_fully_connected_rule(g, node);
}

}  // namespace fd
