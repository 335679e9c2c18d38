// MEAN, SUM, REDUCE_MAX or REDUCE_MIN over the last axis: their parameters (Node::params).
#pragma once

#include <memory>
#include <string>

#include "ir/op_params.h"
#include "ir/op_types.h"

namespace fd {

struct RowReduceParams : OpParams {
  Reduce reduce = Reduce::kMean;  // how a row becomes one value
  int axis = -1;                  // as the model gives it (negative: from the end): the last at every bind
  bool keep_dims = false;         // the reduced axis stays as 1
  std::string describe() const override;  // "sum, axis -1, keep_dims"
  bool write(WireWriter& w) const override;
};

std::shared_ptr<const RowReduceParams> row_reduce_params(Reduce reduce, int axis, bool keep_dims);

// "mean", "sum", "max", "min".
const char* reduce_name(Reduce r);

}  // namespace fd
