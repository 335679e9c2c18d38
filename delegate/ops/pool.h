// MEAN over H and W: its parameters (Node::params). The pools' windows are
// WindowParams (ops/window.h).
#pragma once

#include <memory>
#include <string>

#include "ir/op_params.h"

namespace fd {

struct MeanParams : OpParams {
  bool keep_dims = false;  // the output stays [n, 1, 1, c] (else [n, c])
  std::string describe() const override { return keep_dims ? "keep_dims" : ""; }
  bool write(WireWriter& w) const override;
};

std::shared_ptr<const MeanParams> mean_params(bool keep_dims);

}  // namespace fd
