// BATCH_MATMUL: [..., m, k] x [..., k, n], both run-time values (ops/batch_matmul.h).
#include "ops/batch_matmul.h"

#include "ops/op_registry.h"
#include "ops/rule_helpers.h"
#include "ops/shape_rules.h"

namespace fd {

std::string BatchMatMulParams::describe() const {
  return std::string(adj_x ? "adj_x" : "") + (adj_x && adj_y ? ", " : "") + (adj_y ? "adj_y" : "");
}

bool BatchMatMulParams::write(WireWriter& w) const {
  w.flag(adj_x);
  w.flag(adj_y);
  return true;
}

std::shared_ptr<const BatchMatMulParams> batch_matmul_params(bool adj_x, bool adj_y) {
  auto p = std::make_shared<BatchMatMulParams>();
  p->adj_x = adj_x;
  p->adj_y = adj_y;
  return p;
}

namespace {

std::string rule(const Graph& g, const Node& node) {
  if (std::string why = row_input_legality(g, node); !why.empty()) return why;
  const auto& p = params_as<BatchMatMulParams>(node.params);
  const Shape& a = g.tensors[node.inputs[0]].shape;
  return output_legality(g, node, batch_matmul_shape(a, g.tensors[node.inputs[1]].shape, p.adj_x, p.adj_y));
}

std::shared_ptr<const OpParams> read(WireReader& r) {
  const bool adj_x = r.flag();
  return batch_matmul_params(adj_x, r.flag());
}

}  // namespace

extern const AnchorInfo kBatchMatMulInfo = {
    "BATCH_MATMUL", Pattern::kMatmul, kFamilyTransformer, 2, 2, kRowOp | kFoldsOperandTranspose, rule, nullptr, read,
};

}  // namespace fd
