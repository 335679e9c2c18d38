// MEAN, SUM, REDUCE_MAX or REDUCE_MIN over the last axis: each row one value
// (ops/row_reduce.h).
#include "ops/row_reduce.h"

#include "ops/op_registry.h"
#include "ops/rule_helpers.h"
#include "ops/shape_rules.h"

namespace fd {

const char* reduce_name(Reduce r) {
  static const char* const kNames[] = {"mean", "sum", "max", "min"};  // by Reduce
  return kNames[static_cast<int>(r)];
}

std::string RowReduceParams::describe() const {
  return std::string(reduce_name(reduce)) + ", axis " + std::to_string(axis) +
         (keep_dims ? ", keep_dims" : "");
}

bool RowReduceParams::write(WireWriter& w) const {
  w.enumeration(reduce);
  w.i32(axis);
  w.flag(keep_dims);
  return true;
}

std::shared_ptr<const RowReduceParams> row_reduce_params(Reduce reduce, int axis, bool keep_dims) {
  auto p = std::make_shared<RowReduceParams>();
  p->reduce = reduce;
  p->axis = axis;
  p->keep_dims = keep_dims;
  return p;
}

namespace {

std::string rule(const Graph& g, const Node& node) {
  if (std::string why = row_input_legality(g, node); !why.empty()) return why;
  const bool keep = params_as<RowReduceParams>(node.params).keep_dims;
  return output_legality(g, node, row_reduce_shape(g.tensors[node.inputs[0]].shape, keep));
}

std::shared_ptr<const OpParams> read(WireReader& r) {
  const uint8_t reduce = r.u8();
  if (reduce > static_cast<uint8_t>(Reduce::kMin)) r.fail("corrupt: reduction " + std::to_string(reduce) + " out of range");
  const int axis = r.i32();
  return row_reduce_params(static_cast<Reduce>(reduce), axis, r.flag());
}

}  // namespace

extern const AnchorInfo kRowReduceInfo = {
    "MEAN", Pattern::kReduction, kFamilyTransformer, 1, 1, kRowOp | kReadsTileRows | kOneValuePerRow, rule, nullptr,
    read,
};

}  // namespace fd
