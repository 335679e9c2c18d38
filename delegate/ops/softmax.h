// SOFTMAX of each row (the last axis): its parameters (Node::params).
#pragma once

#include <memory>
#include <string>

#include "ir/op_params.h"

namespace fd {

struct SoftmaxParams : OpParams {
  float beta = 1.f;  // exp(beta (x - max)) / sum
  std::string describe() const override;  // "beta 0.5" ("" at 1)
  bool write(WireWriter& w) const override;
};

std::shared_ptr<const SoftmaxParams> softmax_params(float beta);

}  // namespace fd
