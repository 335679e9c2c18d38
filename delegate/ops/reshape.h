// RESHAPE, EXPAND_DIMS and SQUEEZE: their parameters (Node::params), each
// output shape derived from the input's at every bind by its rule below.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/op_params.h"

namespace fd {

struct ReshapeParams : OpParams {
  // The new shape (one -1 may be inferred). To a shape computed at run time
  // (Node::shape_input): the output's signature, which the run must agree with.
  std::vector<int64_t> shape;
  std::string describe() const override;  // "to 1,-1,4"
  bool write(WireWriter& w) const override;
};

struct ExpandDimsParams : OpParams {
  int64_t axis = 0;  // where the new axis goes (negative: from the end, -1 appends)
  std::string describe() const override;
  bool write(WireWriter& w) const override;
};

struct SqueezeParams : OpParams {
  std::vector<int64_t> axes;  // those dropped (negative: from the end); none: every axis of 1
  std::string describe() const override;
  bool write(WireWriter& w) const override;
};

std::shared_ptr<const ReshapeParams> reshape_params(std::vector<int64_t> shape);
std::shared_ptr<const ExpandDimsParams> expand_dims_params(int64_t axis);
std::shared_ptr<const SqueezeParams> squeeze_params(std::vector<int64_t> axes);

}  // namespace fd
