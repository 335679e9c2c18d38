// TRANSPOSE: its parameters (Node::params).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/op_params.h"

namespace fd {

struct TransposeParams : OpParams {
  std::vector<int64_t> perm;  // output axis d is input axis perm[d]
  std::string describe() const override;  // "perm 0,2,1"
  bool write(WireWriter& w) const override;
};

std::shared_ptr<const TransposeParams> transpose_params(std::vector<int64_t> perm);

}  // namespace fd
