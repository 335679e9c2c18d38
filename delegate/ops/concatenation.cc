// CONCATENATION and PACK of any number of parts (ops/concatenation.h).
#include "ops/concatenation.h"

#include "ops/op_registry.h"
#include "ops/rule_helpers.h"
#include "ops/shape_rules.h"

namespace fd {

std::string ConcatenationParams::describe() const {
  return "axis " + std::to_string(axis) + (pack ? ", each part a new axis" : "");
}

bool ConcatenationParams::write(WireWriter& w) const {
  w.i32(axis);
  w.flag(pack);
  return true;
}

std::shared_ptr<const ConcatenationParams> concatenation_params(int axis, bool pack) {
  auto p = std::make_shared<ConcatenationParams>();
  p->axis = axis;
  p->pack = pack;
  return p;
}

namespace {

// The values of one row of `s` joined along `axis`: that axis and those after it.
int64_t row_values(const Shape& s, int axis) {
  int64_t n = 1;
  for (size_t d = axis; d < s.size(); ++d) n *= s[d];
  return n;
}

}  // namespace

std::optional<ConcatLayout> concatenation_layout(std::vector<Shape> parts, const ConcatenationParams& p) {
  if (parts.empty()) return std::nullopt;
  for (Shape& s : parts)  // PACK's: each with an axis of 1 where they are joined
    if (const int at = resolve_axis(p.axis, s.size() + 1); p.pack && at >= 0) s.insert(s.begin() + at, 1);
  const int axis = resolve_axis(p.axis, parts[0].size());
  if (axis < 0) return std::nullopt;
  ConcatLayout layout{parts[0], {}};
  layout.output[axis] = 0;
  int64_t stride = 0;
  for (const Shape& s : parts) {
    if (s.size() != parts[0].size()) return std::nullopt;
    for (size_t d = 0; d < s.size(); ++d)
      if (static_cast<int>(d) != axis && s[d] != parts[0][d]) return std::nullopt;
    layout.output[axis] += s[axis];
    const int64_t rows = num_elements(Shape(s.begin(), s.begin() + axis));
    layout.slices.push_back({rows, row_values(s, axis), /*stride: below*/ 0, /*offset=*/stride});
    stride += row_values(s, axis);
  }
  for (ConcatSlice& slice : layout.slices) slice.stride = stride;
  return layout;
}

namespace {

std::string rule(const Graph& g, const Node& node) {
  const auto& p = params_as<ConcatenationParams>(node.params);
  std::vector<Shape> parts;
  for (int t : node.inputs) parts.push_back(g.tensors[t].shape);
  if (static_cast<int>(g.tensors[node.outputs[0]].shape.size()) > kMaxRank)
    return "rank above " + std::to_string(kMaxRank);
  const auto layout = concatenation_layout(std::move(parts), p);
  if (!layout) return "inputs do not fit along axis " + std::to_string(p.axis);
  return output_legality(g, node, layout->output);
}

std::shared_ptr<const OpParams> read(WireReader& r) {
  const int axis = r.i32();
  return concatenation_params(axis, r.flag());
}

}  // namespace

extern const AnchorInfo kConcatenationInfo = {
    "CONCATENATION", Pattern::kView, kFamilyConv | kFamilyTransformer, 1, -1, kStandsAlone | kPartsInPlace, rule,
    nullptr, read,
};

}  // namespace fd
