// BATCH_MATMUL: its parameters (Node::params).
#pragma once

#include <memory>
#include <string>

#include "ir/op_params.h"

namespace fd {

struct BatchMatMulParams : OpParams {
  bool adj_x = false, adj_y = false;  // an operand's last two axes swapped
  std::string describe() const override;  // "adj_x, adj_y" (each where set)
  bool write(WireWriter& w) const override;
};

std::shared_ptr<const BatchMatMulParams> batch_matmul_params(bool adj_x, bool adj_y);

}  // namespace fd
