// FULLY_CONNECTED: rows of the input times constant weights [n, k] (float32,
// or int8 of dynamic range: ops/dynamic_range.h), plus an optional bias
// (ops/fully_connected.h).
#include "ops/fully_connected.h"

#include "ops/dynamic_range.h"
#include "ops/op_registry.h"
#include "ops/rule_helpers.h"
#include "ops/shape_rules.h"

namespace fd {

std::string FullyConnectedParams::describe() const {
  return std::string(keep_num_dims ? "keep_num_dims" : "") + (keep_num_dims && asymmetric_quantize_inputs ? ", " : "") +
         (asymmetric_quantize_inputs ? "asymmetric_quantize_inputs" : "");
}

bool FullyConnectedParams::write(WireWriter& w) const {
  w.flag(keep_num_dims);
  w.flag(asymmetric_quantize_inputs);
  return true;
}

std::shared_ptr<const FullyConnectedParams> fully_connected_params(bool keep_num_dims, bool asymmetric_quantize_inputs) {
  auto p = std::make_shared<FullyConnectedParams>();
  p->keep_num_dims = keep_num_dims;
  p->asymmetric_quantize_inputs = asymmetric_quantize_inputs;
  return p;
}

namespace {

std::string rule(const Graph& g, const Node& node) {
  if (std::string w = weights_legality(g, node, 2, 0); !w.empty()) return w;
  if (is_dynamic_range_fc(g, node))
    if (std::string why = dynamic_range_fc_legality(g, node); !why.empty()) return why;
  if (g.tensors[node.inputs[0]].has_dynamic_shape) return "";  // rows of k from any input (takes_run_time_shapes)
  const Shape& in = g.tensors[node.inputs[0]].shape;
  const Shape& w = g.tensors[node.inputs[1]].shape;
  const auto out = fully_connected_shape(in, w, params_as<FullyConnectedParams>(node.params).keep_num_dims);
  if (!out) return "input " + to_string(in) + " does not fit weights " + to_string(w);
  return output_legality(g, node, out);
}

std::shared_ptr<const OpParams> read(WireReader& r) {
  const bool keep_num_dims = r.flag();
  return fully_connected_params(keep_num_dims, r.flag());
}

}  // namespace

extern const AnchorInfo kFullyConnectedInfo = {
    "FULLY_CONNECTED", Pattern::kMatmul, kFamilyFullyConnected, 2, 3, kConstantWeights | kFoldsChannelScale, rule,
    always, read,
};

}  // namespace fd
