// Legality: whether a node can run fused at all, or why not.
#include <algorithm>
#include <string>

#include "ir/shape.h"
#include "ops/conv_geometry.h"
#include "ops/dynamic_range.h"
#include "ops/index_view.h"
#include "ops/pack.h"
#include "ops/op_classes.h"
#include "ops/shape_rules.h"
#include "ops/transpose_conv_geometry.h"
#include "plan/planner.h"

namespace fd {
namespace {

// Weights [n, k] (FULLY_CONNECTED), [oc, kh, kw, ic] (CONV_2D, TRANSPOSE_CONV) or [1, kh, kw, c]
// (DEPTHWISE_CONV_2D), constant; an optional constant bias [n].
std::string weights_legality(const Graph& g, const Node& node) {
  const Tensor& w = g.tensors[node.inputs[1]];
  const size_t rank = node.anchor == AnchorOp::kFullyConnected ? 2 : 4;
  if (!w.is_f32() || !w.is_constant || w.data.empty() || w.shape.size() != rank || num_elements(w.shape) <= 0)
    return "weights are not a constant float32 tensor of rank " + std::to_string(rank);
  if (node.anchor == AnchorOp::kDepthwiseConv2D && w.shape[0] != 1) return "depthwise filter is not [1, kh, kw, c]";
  const int64_t n = node.anchor == AnchorOp::kDepthwiseConv2D ? w.shape[3] : w.shape[0];
  if (node.inputs.size() == 3) {
    const Tensor& b = g.tensors[node.inputs[2]];
    if (!b.is_f32() || !b.is_constant || b.data.empty() || b.shape != Shape{n})
      return "bias is not a constant float32 [n] vector";
  }
  return "";
}

// "fusion family 'conv' is disabled", or of several families.
std::string families_disabled(uint32_t families) {
  static const std::pair<uint32_t, const char*> kNames[] = {{kFamilyElementwise, "elementwise"},
                                                             {kFamilyFullyConnected, "fully_connected"},
                                                             {kFamilyConv, "conv"},
                                                             {kFamilyTransformer, "transformer"}};
  std::vector<std::string> names;
  for (const auto& [family, name] : kNames)
    if (families & family) names.push_back(std::string("'") + name + "'");
  if (names.size() == 1) return "fusion family " + names[0] + " is disabled";
  std::string s = "fusion families " + names[0];
  for (size_t i = 1; i < names.size(); ++i) s += (i + 1 < names.size() ? ", " : " and ") + names[i];
  return s + " are disabled";
}

// Ops that bind to an input shape known only at run time (a RESHAPE to a
// computed shape), when the runtime prepares the partition: a matmul against
// constant weights reads rows of k floats from an input of any shape (its
// output rows are then known only at run time too), a RESHAPE to a shape of
// one inferred dimension gives a shape of that dimension open, and
// EXPAND_DIMS and SQUEEZE derive their output from any input.
bool takes_run_time_shapes(const Node& node) {
  const AnchorInfo& a = anchor_info(node.anchor);
  if (node.kind != OpKind::kAnchor) return false;
  if (node.anchor == AnchorOp::kReshape)
    return std::count(node.dims.begin(), node.dims.end(), -1) == 1 &&
           std::count_if(node.dims.begin(), node.dims.end(), [](int64_t d) { return d == 0 || d < -1; }) == 0;
  return (a.pattern == Pattern::kMatmul && a.constant_weights) || relabels(node.anchor);
}

// Every run-time input (constant weights have their own rules) and the output
// float32 of static shape, or of a shape known at run time where the input's is.
std::string dtype_legality(const Graph& g, const Node& node) {
  const size_t data_inputs = anchor_info(node.anchor).constant_weights ? 1 : node.inputs.size();
  bool run_time_input = false;
  for (size_t i = 0; i < data_inputs; ++i) {
    const int t = node.inputs[i];
    if (!g.tensors[t].is_f32()) return "dtype: input is not float32";
    run_time_input = run_time_input || g.tensors[t].has_dynamic_shape;
    if (g.tensors[t].has_dynamic_shape && !takes_run_time_shapes(node))
      return "dynamic shape: input shape known only at run time";
  }
  const Tensor& o = g.tensors[node.outputs[0]];
  if (!o.is_f32() || (o.has_dynamic_shape && !run_time_input)) return "output is not a static float32 tensor";
  return "";
}

// The output the op gives at the planning shapes: the stored shape, but on the
// axes its signature leaves open, where the model stores a placeholder (a run
// sizes them, and binding derives them again).
std::string output_legality(const Tensor& o, const std::optional<Shape>& expect) {
  bool fits = o.shape.size() == expect->size();
  for (size_t d = 0; fits && d < o.shape.size(); ++d)
    fits = o.shape[d] == (*expect)[d] || (o.signature.size() == o.shape.size() && o.signature[d] == -1);
  if (!fits) return "output shape " + to_string(o.shape) + " is not the expected " + to_string(*expect);
  return "";
}

// The index views (ops/index_view.h): their rule fits the input and gives the output.
std::string index_view_legality(const Graph& g, const Node& node) {
  const auto* view = dynamic_cast<const IndexView*>(node.params.get());
  if (!view) return node.name + " without its parameters";
  std::string error;
  const auto map = view->bind(g.tensors[node.inputs[0]].shape, &error);
  if (!map) return error;
  if (static_cast<int>(map->walked.size()) > kMaxRank) return "rank above " + std::to_string(kMaxRank);
  if (std::string why = view->left_because(g.tensors[node.inputs[0]].shape); !why.empty()) return why;
  return output_legality(g.tensors[node.outputs[0]], map->output);
}

// BATCH_MATMUL, SOFTMAX, last-axis MEAN, RESHAPE, EXPAND_DIMS, SQUEEZE, TRANSPOSE, the index
// views: the output the shape the op gives.
std::string row_op_legality(const Graph& g, const Node& node) {
  const Shape& in = g.tensors[node.inputs[0]].shape;
  if (relabels(node.anchor) && g.tensors[node.inputs[0]].has_dynamic_shape) return "";  // fits when bound
  if (in.empty() || static_cast<int>(in.size()) > kMaxRank) return "input rank is 0 or above " + std::to_string(kMaxRank);
  if (num_elements(in) == 0) return "empty input";
  std::optional<Shape> expect;
  switch (node.anchor) {
    case AnchorOp::kBatchMatMul:
      expect = batch_matmul_shape(in, g.tensors[node.inputs[1]].shape, node.adj_x, node.adj_y);
      break;
    case AnchorOp::kSoftmax: expect = in; break;
    case AnchorOp::kRowReduce: expect = row_reduce_shape(in, node.keep_num_dims); break;
    case AnchorOp::kReshape: expect = reshape_shape(in, node.dims); break;
    case AnchorOp::kExpandDims: expect = expand_dims_shape(in, node.axis); break;
    case AnchorOp::kSqueeze: expect = squeeze_shape(in, node.dims); break;
    case AnchorOp::kTranspose: expect = transpose_shape(in, node.dims); break;
    case AnchorOp::kIndexView: return index_view_legality(g, node);
    default: break;
  }
  if (!expect) return node.name + " does not fit its input " + to_string(in);
  return output_legality(g.tensors[node.outputs[0]], expect);
}

// CONCATENATION: parts that fit along its axis.
std::string concatenation_legality(const Graph& g, const Node& node) {
  std::vector<Shape> parts;
  for (int t : node.inputs) parts.push_back(g.tensors[t].shape);
  parts = concatenation_parts(std::move(parts), node.axis, node.params.get());
  const Tensor& o = g.tensors[node.outputs[0]];
  if (static_cast<int>(o.shape.size()) > kMaxRank) return "rank above " + std::to_string(kMaxRank);
  const auto expect = concatenation_shape(parts, node.axis);
  if (!expect) return "inputs do not fit along axis " + std::to_string(node.axis);
  return output_legality(o, expect);
}

// Pools and spatial MEAN: a 4-D NHWC input whose windows give the output.
std::string pool_legality(const Graph& g, const Node& node) {
  const Shape& in = g.tensors[node.inputs[0]].shape;
  if (in.size() != 4) return "input is not 4-D NHWC";
  const bool mean = node.anchor == AnchorOp::kMean;
  std::string error;
  const auto geo = conv_geometry(in, mean ? static_cast<int>(in[1]) : node.conv.window_h,
                                 mean ? static_cast<int>(in[2]) : node.conv.window_w, mean ? ConvParams{} : node.conv,
                                 FoldedPad{}, &error);
  if (!geo) return error;
  const Shape expect = mean && !node.keep_num_dims ? Shape{geo->batch, geo->channels}
                                                   : Shape{geo->batch, geo->out_h, geo->out_w, geo->channels};
  return output_legality(g.tensors[node.outputs[0]], expect);
}

// The resizes: a 4-D NHWC input and the output its size gives.
std::string resize_legality(const Graph& g, const Node& node) {
  const Shape& in = g.tensors[node.inputs[0]].shape;
  const auto expect = resize_shape(in, node.dims);
  if (!expect) return "input " + to_string(in) + " is not 4-D NHWC, or the size is not two positive values";
  if (node.align_corners && node.half_pixel_centers) return "align_corners with half_pixel_centers";
  return output_legality(g.tensors[node.outputs[0]], expect);
}

// FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D: weights that fit the input and give the output.
std::string weighted_legality(const Graph& g, const Node& node) {
  if (std::string w = weights_legality(g, node); !w.empty()) return w;
  const Shape& in = g.tensors[node.inputs[0]].shape;
  const Shape& w = g.tensors[node.inputs[1]].shape;
  if (node.anchor == AnchorOp::kFullyConnected) {
    if (is_dynamic_range_fc(g, node))
      if (std::string why = dynamic_range_fc_legality(g, node); !why.empty()) return why;
    if (g.tensors[node.inputs[0]].has_dynamic_shape) return "";  // takes_run_time_shapes
    const auto out = fully_connected_shape(in, w, node.keep_num_dims);
    if (!out) return "input " + to_string(in) + " does not fit weights " + to_string(w);
    return output_legality(g.tensors[node.outputs[0]], out);
  }
  if (is_dynamic_range_conv(g, node))
    if (std::string why = dynamic_range_conv_legality(g, node); !why.empty()) return why;
  std::string error;
  const auto geo = conv_geometry(in, static_cast<int>(w[1]), static_cast<int>(w[2]), node.conv, FoldedPad{}, &error);
  if (!geo) return error;
  const bool conv = node.anchor == AnchorOp::kConv2D;
  if (!(conv ? w[3] == geo->channels : w[3] % geo->channels == 0))
    return "input " + to_string(in) + " does not fit filter " + to_string(w);
  return output_legality(g.tensors[node.outputs[0]], Shape{geo->batch, geo->out_h, geo->out_w, w[conv ? 0 : 3]});
}

// TRANSPOSE_CONV: a constant output shape, the one the input, stride and
// padding give, and a filter [oc, kh, kw, ic] that fits both.
std::string transpose_conv_legality(const Graph& g, const Node& node) {
  if (std::string w = weights_legality(g, node); !w.empty()) return w;
  if (node.dims.size() != 4)
    return "output_shape is not a constant 4-vector: the output shape is known only at run time";
  const Shape& sig = g.tensors[node.inputs[0]].signature;
  if (std::count(sig.begin(), sig.end(), -1) > 0)
    return "output_shape is a constant while the input's signature " + to_string(sig) + " leaves axes to the run";
  const Shape& in = g.tensors[node.inputs[0]].shape;
  const Shape& w = g.tensors[node.inputs[1]].shape;
  std::string error;
  if (!transpose_conv_geometry(in, static_cast<int>(w[1]), static_cast<int>(w[2]), node.conv, node.dims, &error))
    return error;
  if (in[3] != w[3] || node.dims[3] != w[0])
    return "input " + to_string(in) + " and output_shape " + to_string(node.dims) + " do not fit filter " +
           to_string(w);
  return output_legality(g.tensors[node.outputs[0]], node.dims);
}

// An anchor: its family on, the arity its registry row gives, an activation
// it can fuse (row ops and CONCATENATION: none), float32, then its own rules.
std::string anchor_legality(const Graph& g, const Node& node, uint32_t families) {
  const AnchorInfo& info = anchor_info(node.anchor);
  if (!(families & info.families)) return families_disabled(info.families);
  const int n = static_cast<int>(node.inputs.size());
  if (node.outputs.size() != 1 || n < info.min_inputs || (info.max_inputs >= 0 && n > info.max_inputs))
    return node.name + " has an unexpected number of inputs or outputs";
  const bool fuses_activation = info.constant_weights || is_pool(node.anchor);
  if (node.act == Activation::kUnsupported || (!fuses_activation && node.act != Activation::kNone))
    return "fused activation of " + node.name + " is not supported";
  if (std::string d = dtype_legality(g, node); !d.empty()) return d;
  if (node.anchor == AnchorOp::kConcatenation) return concatenation_legality(g, node);
  if (node.anchor == AnchorOp::kResizeBilinear || node.anchor == AnchorOp::kResizeNearest)
    return resize_legality(g, node);
  if (node.anchor == AnchorOp::kTransposeConv) return transpose_conv_legality(g, node);
  if (info.row_op) return row_op_legality(g, node);
  return is_pool(node.anchor) ? pool_legality(g, node) : weighted_legality(g, node);
}

// A PAD of H and W is claimed only folded into the convolution that is its one
// reader; one of channels (constant) runs on its own (folds.cc).
std::string pad_legality(const Graph& g, const Node& node, uint32_t families) {
  if (!(families & kFamilyConv)) return "fusion family 'conv' is disabled";
  if (node.inputs.size() != 1 || node.outputs.size() != 1) return "PAD without constant paddings";
  const Tensor& in = g.tensors[node.inputs[0]];
  if (!in.is_f32() || in.has_dynamic_shape || in.shape.size() != 4 || node.pads.size() != 8)
    return "PAD of a tensor that is not a static 4-D float32 one";
  for (int64_t p : node.pads)
    if (p < 0) return "negative padding";
  if (node.pads[0] || node.pads[1]) return "PAD of the batch";
  if ((node.pads[6] || node.pads[7]) && node.pad_mode != PadMode::kConstant) return "mirrored PAD of channels";
  return "";
}

// A constant node: one output whose values the front end computed (float32
// for a layer; a DENSIFY's may be float16 or int8 on its way there).
std::string constant_legality(const Graph& g, const Node& node) {
  if (node.outputs.size() != 1) return node.name + " has not one output";
  const Tensor& o = g.tensors[node.outputs[0]];
  if (!o.is_constant || o.data.empty()) return node.name + " whose values the front end did not compute";
  return "";
}

}  // namespace

std::string node_legality(const Graph& g, const Node& node, uint32_t families) {
  if (node.kind == OpKind::kConstant) return constant_legality(g, node);
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
    if (!t.is_f32()) return "dtype: input is not float32";
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
  if (!out.is_f32()) return "dtype: output is not float32";
  if (out.has_dynamic_shape) return "dynamic shape: output shape known only at run time";
  return "";
}

}  // namespace fd
