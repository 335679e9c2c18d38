// BATCH_MATMUL: [..., m, k] x [..., k, n], both run-time values (adj_x /
// adj_y in Node: an operand's last two axes swapped).
#include "ops/op_registry.h"
#include "ops/rule_helpers.h"
#include "ops/shape_rules.h"

namespace fd {
namespace {

std::string rule(const Graph& g, const Node& node) {
  if (std::string why = row_input_legality(g, node); !why.empty()) return why;
  const Shape& a = g.tensors[node.inputs[0]].shape;
  return output_legality(g, node, batch_matmul_shape(a, g.tensors[node.inputs[1]].shape, node.adj_x, node.adj_y));
}

}  // namespace

extern const AnchorInfo kBatchMatMulInfo = {
    "BATCH_MATMUL", Pattern::kMatmul, kFamilyTransformer, 2, 2, /*constant_weights=*/false, /*row_op=*/true,
    /*reads_tile_rows=*/false, /*stands_alone=*/false, rule, nullptr, nullptr,
};

}  // namespace fd
