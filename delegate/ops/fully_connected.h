// FULLY_CONNECTED: its parameters (Node::params).
#pragma once

#include <memory>
#include <string>

#include "ir/op_params.h"

namespace fd {

struct FullyConnectedParams : OpParams {
  bool keep_num_dims = false;  // the output keeps the input's leading axes
  // int8 weights and a float input (ops/dynamic_range.h): TFLite's hybrid
  // kernel quantizes each input row asymmetrically (true) or symmetrically.
  bool asymmetric_quantize_inputs = false;
  std::string describe() const override;  // "keep_num_dims, asymmetric_quantize_inputs" (each where set)
  bool write(WireWriter& w) const override;
};

std::shared_ptr<const FullyConnectedParams> fully_connected_params(bool keep_num_dims, bool asymmetric_quantize_inputs);

}  // namespace fd
