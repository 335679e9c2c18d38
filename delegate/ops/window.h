// The window ops' parameters (Node::params): CONV_2D, DEPTHWISE_CONV_2D,
// MAX_POOL_2D and AVERAGE_POOL_2D hold a WindowParams; TRANSPOSE_CONV one
// with its output shape (ops/transpose_conv.h).
#pragma once

#include <memory>
#include <string>

#include "ir/op_params.h"
#include "ir/wire.h"
#include "ops/conv_geometry.h"

namespace fd {

struct WindowParams : OpParams {
  ConvParams conv;  // strides, dilation, padding; the pools' window
  std::string describe() const override;  // "stride 2x2, same"
  bool write(WireWriter& w) const override;
};

std::shared_ptr<const WindowParams> window_op_params(const ConvParams& conv);

// The node's window (a window op's parameters; a node of another op: the default).
const ConvParams& window_of(const Node& node);

// For the window ops' files: what WindowParams::write wrote.
ConvParams read_conv_params(WireReader& r);
std::shared_ptr<const OpParams> read_window_params(WireReader& r);

}  // namespace fd
