// TRANSPOSE_CONV: its parameters (Node::params): the window's (strides and
// padding; ops/transpose_conv_geometry.h places the taps) and its output shape.
#pragma once

#include <memory>
#include <string>

#include "ir/op_params.h"
#include "ir/shape.h"
#include "ops/window.h"

namespace fd {

struct TransposeConvParams : WindowParams {
  Shape output_shape;  // a constant [n, h, w, c]; empty: computed at run time (declined)
  std::string describe() const override;  // "stride 2x2, ..., to 1,8,8,4"
  bool write(WireWriter& w) const override;
};

std::shared_ptr<const TransposeConvParams> transpose_conv_params(const ConvParams& conv, Shape output_shape);

}  // namespace fd
