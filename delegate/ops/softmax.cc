// SOFTMAX of each row (the last axis), scaled by beta (Node::param).
#include "ops/op_registry.h"
#include "ops/rule_helpers.h"

namespace fd {
namespace {

std::string rule(const Graph& g, const Node& node) {
  if (std::string why = row_input_legality(g, node); !why.empty()) return why;
  return output_legality(g, node, g.tensors[node.inputs[0]].shape);
}

}  // namespace

extern const AnchorInfo kSoftmaxInfo = {
    "SOFTMAX", Pattern::kRowWise, kFamilyTransformer, 1, 1, /*constant_weights=*/false, /*row_op=*/true,
    /*reads_tile_rows=*/true, /*stands_alone=*/false, rule, nullptr, nullptr,
};

}  // namespace fd
