// RESHAPE, EXPAND_DIMS and SQUEEZE: the same values in the same order under
// another shape (Node::dims, Node::axis), derived again at every bind.
#include <algorithm>

#include "ops/op_registry.h"
#include "ops/rule_helpers.h"
#include "ops/shape_rules.h"

namespace fd {
namespace {

enum class Relabel { kReshape, kExpandDims, kSqueeze };

template <Relabel kOp>
std::string rule(const Graph& g, const Node& node) {
  if (g.tensors[node.inputs[0]].has_dynamic_shape) return "";  // fits when bound (takes_run_time_shapes)
  if (std::string why = row_input_legality(g, node); !why.empty()) return why;
  const Shape& in = g.tensors[node.inputs[0]].shape;
  if (kOp == Relabel::kReshape) return output_legality(g, node, reshape_shape(in, node.dims));
  if (kOp == Relabel::kExpandDims) return output_legality(g, node, expand_dims_shape(in, node.axis));
  return output_legality(g, node, squeeze_shape(in, node.dims));
}

// A shape of one inferred axis (no 0s) takes any input of a fitting size.
bool reshape_takes_run_time_shapes(const Node& node) {
  return std::count(node.dims.begin(), node.dims.end(), -1) == 1 &&
         std::count_if(node.dims.begin(), node.dims.end(), [](int64_t d) { return d == 0 || d < -1; }) == 0;
}

constexpr uint32_t kRows = kFamilyTransformer;

}  // namespace

extern const AnchorInfo kReshapeInfo = {
    "RESHAPE", Pattern::kRelabel, kRows, 1, 1, false, true, false, false,
    rule<Relabel::kReshape>, reshape_takes_run_time_shapes, nullptr,
};

extern const AnchorInfo kExpandDimsInfo = {
    "EXPAND_DIMS", Pattern::kRelabel, kRows, 1, 1, false, true, false, false, rule<Relabel::kExpandDims>, always, nullptr,
};

extern const AnchorInfo kSqueezeInfo = {
    "SQUEEZE", Pattern::kRelabel, kRows, 1, 1, false, true, false, false, rule<Relabel::kSqueeze>, always, nullptr,
};

}  // namespace fd
