// RESHAPE, EXPAND_DIMS and SQUEEZE: the same values in the same order under
// another shape (ops/reshape.h), derived again at every bind.
#include "ops/reshape.h"

#include <algorithm>

#include "ops/index_view.h"
#include "ops/op_registry.h"
#include "ops/rule_helpers.h"
#include "ops/shape_rules.h"

namespace fd {

std::string ReshapeParams::describe() const { return "to " + join(shape); }
std::string ExpandDimsParams::describe() const { return "axis " + std::to_string(axis); }
std::string SqueezeParams::describe() const { return axes.empty() ? "every 1" : "axes " + join(axes); }

bool ReshapeParams::write(WireWriter& w) const {
  w.int64s(shape);
  return true;
}
bool ExpandDimsParams::write(WireWriter& w) const {
  w.i64(axis);
  return true;
}
bool SqueezeParams::write(WireWriter& w) const {
  w.int64s(axes);
  return true;
}

std::shared_ptr<const ReshapeParams> reshape_params(std::vector<int64_t> shape) {
  auto p = std::make_shared<ReshapeParams>();
  p->shape = std::move(shape);
  return p;
}
std::shared_ptr<const ExpandDimsParams> expand_dims_params(int64_t axis) {
  auto p = std::make_shared<ExpandDimsParams>();
  p->axis = axis;
  return p;
}
std::shared_ptr<const SqueezeParams> squeeze_params(std::vector<int64_t> axes) {
  auto p = std::make_shared<SqueezeParams>();
  p->axes = std::move(axes);
  return p;
}

namespace {

std::optional<Shape> reshaped(const Shape& in, const Node& node) {
  return reshape_shape(in, params_as<ReshapeParams>(node.params).shape);
}
std::optional<Shape> expanded(const Shape& in, const Node& node) {
  return expand_dims_shape(in, params_as<ExpandDimsParams>(node.params).axis);
}
std::optional<Shape> squeezed(const Shape& in, const Node& node) {
  return squeeze_shape(in, params_as<SqueezeParams>(node.params).axes);
}

template <std::optional<Shape> (*kShape)(const Shape&, const Node&)>
std::string rule(const Graph& g, const Node& node) {
  if (g.tensors[node.inputs[0]].has_dynamic_shape) return "";  // fits when bound (takes_run_time_shapes)
  if (std::string why = row_input_legality(g, node); !why.empty()) return why;
  return output_legality(g, node, kShape(g.tensors[node.inputs[0]].shape, node));
}

// A shape of one inferred axis (no 0s) takes any input of a fitting size.
bool reshape_takes_run_time_shapes(const Node& node) {
  const std::vector<int64_t>& s = params_as<ReshapeParams>(node.params).shape;
  return std::count(s.begin(), s.end(), -1) == 1 &&
         std::count_if(s.begin(), s.end(), [](int64_t d) { return d == 0 || d < -1; }) == 0;
}

std::shared_ptr<const OpParams> read_reshape(WireReader& r) { return reshape_params(r.int64s()); }
std::shared_ptr<const OpParams> read_expand_dims(WireReader& r) { return expand_dims_params(r.i64()); }
std::shared_ptr<const OpParams> read_squeeze(WireReader& r) { return squeeze_params(r.int64s()); }

constexpr uint32_t kRows = kFamilyTransformer;

}  // namespace

extern const AnchorInfo kReshapeInfo = {
    "RESHAPE", Pattern::kRelabel, kRows, 1, 1, kRowOp, rule<reshaped>, reshape_takes_run_time_shapes, read_reshape,
};

extern const AnchorInfo kExpandDimsInfo = {
    "EXPAND_DIMS", Pattern::kRelabel, kRows, 1, 1, kRowOp, rule<expanded>, always, read_expand_dims,
};

extern const AnchorInfo kSqueezeInfo = {
    "SQUEEZE", Pattern::kRelabel, kRows, 1, 1, kRowOp, rule<squeezed>, always, read_squeeze,
};

}  // namespace fd
