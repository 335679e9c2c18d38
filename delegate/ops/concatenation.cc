// CONCATENATION (and PACK: ops/pack.h) of any number of parts along
// Node::axis (negative: from the end).
#include "ops/op_registry.h"
#include "ops/pack.h"
#include "ops/rule_helpers.h"
#include "ops/shape_rules.h"

namespace fd {
namespace {

std::string rule(const Graph& g, const Node& node) {
  std::vector<Shape> parts;
  for (int t : node.inputs) parts.push_back(g.tensors[t].shape);
  parts = concatenation_parts(std::move(parts), node.axis, node.params.get());
  if (static_cast<int>(g.tensors[node.outputs[0]].shape.size()) > kMaxRank)
    return "rank above " + std::to_string(kMaxRank);
  const auto expect = concatenation_shape(parts, node.axis);
  if (!expect) return "inputs do not fit along axis " + std::to_string(node.axis);
  return output_legality(g, node, expect);
}

}  // namespace

extern const AnchorInfo kConcatenationInfo = {
    "CONCATENATION", Pattern::kView, kFamilyConv | kFamilyTransformer, 1, -1, false, false, false,
    /*stands_alone=*/true, rule, nullptr, nullptr,
};

}  // namespace fd
