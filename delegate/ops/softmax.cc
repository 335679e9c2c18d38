// SOFTMAX of each row (the last axis), scaled by beta (ops/softmax.h).
#include "ops/softmax.h"

#include "ops/op_registry.h"
#include "ops/rule_helpers.h"

namespace fd {

std::string SoftmaxParams::describe() const { return beta != 1.f ? "beta " + std::to_string(beta) : ""; }

bool SoftmaxParams::write(WireWriter& w) const {
  w.f32(beta);
  return true;
}

std::shared_ptr<const SoftmaxParams> softmax_params(float beta) {
  auto p = std::make_shared<SoftmaxParams>();
  p->beta = beta;
  return p;
}

namespace {

std::string rule(const Graph& g, const Node& node) {
  if (std::string why = row_input_legality(g, node); !why.empty()) return why;
  return output_legality(g, node, g.tensors[node.inputs[0]].shape);
}

std::shared_ptr<const OpParams> read(WireReader& r) { return softmax_params(r.f32()); }

}  // namespace

extern const AnchorInfo kSoftmaxInfo = {
    "SOFTMAX", Pattern::kRowWise, kFamilyTransformer, 1, 1, kRowOp | kReadsTileRows, rule, nullptr, read,
};

}  // namespace fd
