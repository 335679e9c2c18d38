// MEAN, SUM, REDUCE_MAX or REDUCE_MIN over the last axis (Node::reduce,
// Node::axis, Node::keep_num_dims): each row one value.
#include "ops/op_registry.h"
#include "ops/rule_helpers.h"
#include "ops/shape_rules.h"

namespace fd {
namespace {

std::string rule(const Graph& g, const Node& node) {
  if (std::string why = row_input_legality(g, node); !why.empty()) return why;
  return output_legality(g, node, row_reduce_shape(g.tensors[node.inputs[0]].shape, node.keep_num_dims));
}

}  // namespace

extern const AnchorInfo kRowReduceInfo = {
    "MEAN", Pattern::kReduction, kFamilyTransformer, 1, 1, /*constant_weights=*/false, /*row_op=*/true,
    /*reads_tile_rows=*/true, /*stands_alone=*/false, rule, nullptr, nullptr,
};

}  // namespace fd
