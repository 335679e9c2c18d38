// TRANSPOSE: output axis d is input axis perm[d] (Node::dims), any rank.
#include "ops/op_registry.h"
#include "ops/rule_helpers.h"
#include "ops/shape_rules.h"

namespace fd {
namespace {

std::string rule(const Graph& g, const Node& node) {
  if (std::string why = row_input_legality(g, node); !why.empty()) return why;
  return output_legality(g, node, transpose_shape(g.tensors[node.inputs[0]].shape, node.dims));
}

}  // namespace

extern const AnchorInfo kTransposeInfo = {
    "TRANSPOSE", Pattern::kView, kFamilyTransformer, 1, 1, false, /*row_op=*/true, false, false, rule, nullptr, nullptr,
};

}  // namespace fd
