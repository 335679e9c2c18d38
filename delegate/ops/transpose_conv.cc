// TRANSPOSE_CONV: each input pixel spread over a window of the output
// (ops/transpose_conv_geometry.h), filter [oc, kh, kw, ic], to the constant
// output shape Node::dims.
#include <algorithm>

#include "ops/op_registry.h"
#include "ops/rule_helpers.h"
#include "ops/transpose_conv_geometry.h"

namespace fd {
namespace {

std::string rule(const Graph& g, const Node& node) {
  if (std::string w = weights_legality(g, node, 4, 0); !w.empty()) return w;
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
  return output_legality(g, node, node.dims);
}

}  // namespace

extern const AnchorInfo kTransposeConvInfo = {
    "TRANSPOSE_CONV", Pattern::kSpread, kFamilyConv, 2, 3, /*constant_weights=*/true, false, false, false, rule,
    nullptr, nullptr,
};

}  // namespace fd
