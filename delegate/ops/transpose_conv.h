// TRANSPOSE_CONV: its parameters (Node::params) beyond the window's (Node::conv:
// strides and padding; ops/transpose_conv_geometry.h places the taps).
#pragma once

#include <memory>
#include <string>

#include "ir/op_params.h"
#include "ir/shape.h"

namespace fd {

struct TransposeConvParams : OpParams {
  Shape output_shape;  // a constant [n, h, w, c]; empty: computed at run time (declined)
  std::string describe() const override;  // "to 1,8,8,4"
  bool write(WireWriter& w) const override;
};

std::shared_ptr<const TransposeConvParams> transpose_conv_params(Shape output_shape);

}  // namespace fd
