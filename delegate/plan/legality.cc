// Legality: whether a node can run fused at all, or why not.
#include <algorithm>
#include <string>

#include "ir/shape.h"
#include "ops/op_classes.h"
#include "ops/quantized.h"
#include "plan/planner.h"

namespace fd {
namespace {

// "fusion family 'conv' is disabled", or of several families.
std::string families_disabled(uint32_t families) {
  static const std::pair<uint32_t, const char*> kNames[] = {{kFamilyElementwise, "elementwise"},
                                                             {kFamilyFullyConnected, "fully_connected"},
                                                             {kFamilyConv, "conv"},
                                                             {kFamilyTransformer, "transformer"},
                                                             {kFamilyInt8Conv, "int8_conv"}};
  std::vector<std::string> names;
  for (const auto& [family, name] : kNames)
    if (families & family) names.push_back(std::string("'") + name + "'");
  if (names.size() == 1) return "fusion family " + names[0] + " is disabled";
  std::string s = "fusion families " + names[0];
  for (size_t i = 1; i < names.size(); ++i) s += (i + 1 < names.size() ? ", " : " and ") + names[i];
  return s + " are disabled";
}

// Ops that bind to an input shape known only at run time (a matmul against
// constant weights reads rows of k floats from an input of any shape, a
// RESHAPE to a shape of one inferred dimension, EXPAND_DIMS, SQUEEZE): their
// registry row says which.
bool takes_run_time_shapes(const Node& node) {
  const AnchorInfo& a = anchor_info(node.anchor);
  return node.kind == OpKind::kAnchor && a.takes_run_time_shapes && a.takes_run_time_shapes(node);
}

// Every run-time input (constant weights have their own rules) and the output
// float32 of static shape, or of a shape known at run time where the input's is.
std::string dtype_legality(const Graph& g, const Node& node) {
  const size_t data_inputs = anchor_info(node.anchor).has(kConstantWeights) ? 1 : node.inputs.size();
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

// An anchor: its family on, the arity its registry row gives, an activation
// it can fuse (row ops and CONCATENATION: none), float32, then its own rules.
std::string anchor_legality(const Graph& g, const Node& node, uint32_t families) {
  const AnchorInfo& info = anchor_info(node.anchor);
  if (!(families & info.families)) return families_disabled(info.families);
  const int n = static_cast<int>(node.inputs.size());
  if (node.outputs.size() != 1 || n < info.min_inputs || (info.max_inputs >= 0 && n > info.max_inputs))
    return node.name + " has an unexpected number of inputs or outputs";
  const bool fuses_activation = info.has(kConstantWeights) || is_pool(node.anchor);
  if (node.act == Activation::kUnsupported || (!fuses_activation && node.act != Activation::kNone))
    return "fused activation of " + node.name + " is not supported";
  if (info.read_params && !node.params) return node.name + " without its parameters";
  if (is_int8_node(g, node))
    return node.anchor == AnchorOp::kConv2D && !(families & kFamilyInt8Conv)
               ? "int8 " + node.name + ": fusedelegate's kernels run it slower than XNNPACK's so far (fusions "
                 "int8_conv claims it)"
               : q8_anchor_rule(g, node);
  if (std::string d = dtype_legality(g, node); !d.empty()) return d;
  return info.rule(g, node);
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
  if (node.kind == OpKind::kPad)  // a PAD or MIRROR_PAD: its row's rule (ops/pad.cc)
    return families & kFamilyConv ? anchor_info(AnchorOp::kPad).rule(g, node) : "fusion family 'conv' is disabled";
  if (node.kind != OpKind::kElementwise) return "unsupported op " + node.name;
  if (!(families & kFamilyElementwise)) return "fusion family 'elementwise' is disabled";
  if (node.act == Activation::kUnsupported)
    return "fused activation of " + node.name + " is not supported";
  if (node.outputs.size() != 1 || static_cast<int>(node.inputs.size()) != ew_arity(node.ew))
    return node.name + " has an unexpected number of inputs or outputs";
  if (is_int8_node(g, node)) return q8_elementwise_rule(g, node);
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
