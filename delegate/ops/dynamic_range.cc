#include "ops/dynamic_range.h"

#include <algorithm>

#include "ir/float_source.h"
#include "ops/fully_connected.h"
#include "ops/window.h"

namespace fd {

namespace {

bool is_dynamic_range(const Graph& g, const Node& node, AnchorOp op) {
  return node.kind == OpKind::kAnchor && node.anchor == op && node.inputs.size() > 1 &&
         g.tensors[node.inputs[0]].is_f32() && g.tensors[node.inputs[1]].stored_as == DType::kI8;
}

bool any_zero_point(const Quantization& q) {
  return std::any_of(q.zero_points.begin(), q.zero_points.end(), [](int64_t z) { return z != 0; });
}

}  // namespace

bool is_dynamic_range_fc(const Graph& g, const Node& node) {
  return is_dynamic_range(g, node, AnchorOp::kFullyConnected);
}

bool is_dynamic_range_conv(const Graph& g, const Node& node) {
  return is_dynamic_range(g, node, AnchorOp::kConv2D) || is_dynamic_range(g, node, AnchorOp::kDepthwiseConv2D);
}

std::string dynamic_range_fc_legality(const Graph& g, const Node& node) {
  const Tensor& w = g.tensors[node.inputs[1]];
  const Quantization& q = w.quantization;
  const Float32Source* source = w.data.float32_source();
  if (!node.params || !params_as<FullyConnectedParams>(node.params).asymmetric_quantize_inputs)
    return "FULLY_CONNECTED with int8 weights quantizes its input symmetrically (asymmetric_quantize_inputs off): "
           "not supported";
  if (!source || source->stored_as() != DType::kI8 || w.shape.size() != 2)
    return "FULLY_CONNECTED with int8 weights that are not a constant [n, k] tensor";
  if (q.per_axis() && q.axis != 0) return "FULLY_CONNECTED with int8 weights quantized along their depth";
  if (any_zero_point(q)) return "FULLY_CONNECTED with int8 weights of a nonzero zero point";
  if (w.shape[1] > kDynamicRangeMaxDepth)
    return "FULLY_CONNECTED with int8 weights deeper than " + std::to_string(kDynamicRangeMaxDepth);
  return "";
}

namespace {

// DEPTHWISE_CONV_2D's hybrid kernel: per-channel scales along the last axis.
std::string depthwise_legality(const Graph& g, const Node& node) {
  const Tensor& w = g.tensors[node.inputs[1]];
  const Quantization& q = w.quantization;
  const Float32Source* source = w.data.float32_source();
  if (!source || source->stored_as() != DType::kI8 || w.shape.size() != 4 || w.shape[0] != 1)
    return "DEPTHWISE_CONV_2D with int8 weights that are not a constant [1, kh, kw, n] tensor";
  if (q.axis != 3 || static_cast<int64_t>(q.scales.size()) != w.shape[3])
    return "DEPTHWISE_CONV_2D with int8 weights not quantized per output channel";
  if (any_zero_point(q)) return "DEPTHWISE_CONV_2D with int8 weights of a nonzero zero point";
  if (g.tensors[node.inputs[0]].shape.back() != w.shape[3])
    return "DEPTHWISE_CONV_2D with int8 weights and a depth multiplier: not supported";
  if (w.shape[1] * w.shape[2] > kDynamicRangeMaxDepthwiseTaps)
    return "DEPTHWISE_CONV_2D with int8 weights of more than " + std::to_string(kDynamicRangeMaxDepthwiseTaps) +
           " taps";
  return "";
}

}  // namespace

// TFLite's per-channel hybrid CONV_2D (EvalHybridPerChannel) runs where the
// scales differ; one scale for all channels takes EvalHybrid, which quantizes
// the input symmetrically. Dilated ones are declined (not matched against
// TFLite's hybrid kernel here).
std::string dynamic_range_conv_legality(const Graph& g, const Node& node) {
  if (node.anchor == AnchorOp::kDepthwiseConv2D) return depthwise_legality(g, node);
  const Tensor& w = g.tensors[node.inputs[1]];
  const Quantization& q = w.quantization;
  const Float32Source* source = w.data.float32_source();
  if (!source || source->stored_as() != DType::kI8 || w.shape.size() != 4)
    return "CONV_2D with int8 weights that are not a constant [n, kh, kw, c] tensor";
  if (q.scales.size() < 2 || std::all_of(q.scales.begin(), q.scales.end(), [&](float s) { return s == q.scales[0]; }))
    return "CONV_2D with int8 weights of one scale: TFLite's hybrid kernel then quantizes the input "
           "symmetrically (EvalHybrid), not supported";
  if (q.axis != 0 || static_cast<int64_t>(q.scales.size()) != w.shape[0])
    return "CONV_2D with int8 weights not quantized per output channel";
  if (any_zero_point(q)) return "CONV_2D with int8 weights of a nonzero zero point";
  if (window_of(node).dilation_h != 1 || window_of(node).dilation_w != 1)
    return "dilated CONV_2D with int8 weights (not run as TFLite's hybrid kernel)";
  if (w.shape[1] * w.shape[2] * w.shape[3] > kDynamicRangeMaxDepth)
    return "CONV_2D with int8 weights deeper than " + std::to_string(kDynamicRangeMaxDepth);
  return "";
}

}  // namespace fd
