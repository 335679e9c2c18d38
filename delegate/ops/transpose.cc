// TRANSPOSE: a permutation of the axes, any rank (ops/transpose.h).
#include "ops/transpose.h"

#include "ops/index_view.h"
#include "ops/op_registry.h"
#include "ops/rule_helpers.h"
#include "ops/shape_rules.h"

namespace fd {

std::string TransposeParams::describe() const { return "perm " + join(perm); }

bool TransposeParams::write(WireWriter& w) const {
  w.int64s(perm);
  return true;
}

std::shared_ptr<const TransposeParams> transpose_params(std::vector<int64_t> perm) {
  auto p = std::make_shared<TransposeParams>();
  p->perm = std::move(perm);
  return p;
}

namespace {

std::string rule(const Graph& g, const Node& node) {
  if (std::string why = row_input_legality(g, node); !why.empty()) return why;
  const auto& p = params_as<TransposeParams>(node.params);
  return output_legality(g, node, transpose_shape(g.tensors[node.inputs[0]].shape, p.perm));
}

std::shared_ptr<const OpParams> read(WireReader& r) { return transpose_params(r.int64s()); }

}  // namespace

extern const AnchorInfo kTransposeInfo = {
    "TRANSPOSE", Pattern::kView, kFamilyTransformer, 1, 1, kRowOp, rule, nullptr, read,
};

}  // namespace fd
