// CONV_2D and DEPTHWISE_CONV_2D: windows of an NHWC input (ops/conv_geometry.h)
// times constant filters [oc, kh, kw, ic] / [1, kh, kw, c * m] (float32, or
// int8 of dynamic range: ops/dynamic_range.h), plus an optional bias.
#include "ops/conv_geometry.h"
#include "ops/dynamic_range.h"
#include "ops/op_registry.h"
#include "ops/rule_helpers.h"
#include "ops/window.h"

namespace fd {
namespace {

template <bool kDepthwise>
std::string rule(const Graph& g, const Node& node) {
  if (std::string why = weights_legality(g, node, 4, kDepthwise ? 3 : 0); !why.empty()) return why;
  const Shape& in = g.tensors[node.inputs[0]].shape;
  const Shape& w = g.tensors[node.inputs[1]].shape;
  if (kDepthwise && w[0] != 1) return "depthwise filter is not [1, kh, kw, c]";
  if (is_dynamic_range_conv(g, node))
    if (std::string why = dynamic_range_conv_legality(g, node); !why.empty()) return why;
  std::string error;
  const auto geo = conv_geometry(in, static_cast<int>(w[1]), static_cast<int>(w[2]), window_of(node), FoldedPad{}, &error);
  if (!geo) return error;
  if (!(kDepthwise ? w[3] % geo->channels == 0 : w[3] == geo->channels))
    return "input " + to_string(in) + " does not fit filter " + to_string(w);
  return output_legality(g, node, Shape{geo->batch, geo->out_h, geo->out_w, w[kDepthwise ? 3 : 0]});
}

}  // namespace

extern const AnchorInfo kConv2DInfo = {
    "CONV_2D", Pattern::kWindowed, kFamilyConv, 2, 3, kConstantWeights | kFoldsInputAffine | kFoldsChannelScale,
    rule<false>, nullptr, read_window_params,
};

extern const AnchorInfo kDepthwiseConv2DInfo = {
    "DEPTHWISE_CONV_2D", Pattern::kWindowed, kFamilyConv, 2, 3, kConstantWeights, rule<true>, nullptr,
    read_window_params,
};

}  // namespace fd
