// TRANSPOSE_CONV: each input pixel spread over a window of the output
// (ops/transpose_conv_geometry.h), filter [oc, kh, kw, ic], to a constant
// output shape (ops/transpose_conv.h).
#include "ops/transpose_conv.h"

#include <algorithm>

#include "ops/index_view.h"
#include "ops/op_registry.h"
#include "ops/rule_helpers.h"
#include "ops/transpose_conv_geometry.h"

namespace fd {

std::string TransposeConvParams::describe() const { return WindowParams::describe() + ", to " + join(output_shape); }

bool TransposeConvParams::write(WireWriter& w) const {
  WindowParams::write(w);
  w.int64s(output_shape);
  return true;
}

std::shared_ptr<const TransposeConvParams> transpose_conv_params(const ConvParams& conv, Shape output_shape) {
  auto p = std::make_shared<TransposeConvParams>();
  p->conv = conv;
  p->output_shape = std::move(output_shape);
  return p;
}

namespace {

std::string rule(const Graph& g, const Node& node) {
  if (std::string w = weights_legality(g, node, 4, 0); !w.empty()) return w;
  const Shape& out = params_as<TransposeConvParams>(node.params).output_shape;
  if (out.size() != 4)
    return "output_shape is not a constant 4-vector: the output shape is known only at run time";
  const Shape& sig = g.tensors[node.inputs[0]].signature;
  if (std::count(sig.begin(), sig.end(), -1) > 0)
    return "output_shape is a constant while the input's signature " + to_string(sig) + " leaves axes to the run";
  const Shape& in = g.tensors[node.inputs[0]].shape;
  const Shape& w = g.tensors[node.inputs[1]].shape;
  std::string error;
  if (!transpose_conv_geometry(in, static_cast<int>(w[1]), static_cast<int>(w[2]), window_of(node), out, &error))
    return error;
  if (in[3] != w[3] || out[3] != w[0])
    return "input " + to_string(in) + " and output_shape " + to_string(out) + " do not fit filter " + to_string(w);
  return output_legality(g, node, out);
}

std::shared_ptr<const OpParams> read(WireReader& r) {
  const ConvParams conv = read_conv_params(r);
  return transpose_conv_params(conv, r.int64s());
}

}  // namespace

extern const AnchorInfo kTransposeConvInfo = {
    "TRANSPOSE_CONV", Pattern::kSpread, kFamilyConv, 2, 3, kConstantWeights, rule, nullptr, read,
};

}  // namespace fd
