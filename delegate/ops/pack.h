// PACK: a CONCATENATION whose parts each gain an axis of 1 where they are
// joined (Node::params a PackParams; the node's axis is that axis, negative:
// from the end of the output). The concatenation's rule, step and in-place
// writes read the parts through concatenation_parts.
#pragma once

#include <memory>
#include <vector>

#include "ir/graph.h"
#include "ir/op_params.h"

namespace fd {

struct PackParams : OpParams {
  std::string describe() const override { return "each part a new axis"; }
};

std::shared_ptr<const OpParams> pack_params();

// The parts' shapes as the concatenation joins them along `axis`: PACK's each
// with an axis of 1 inserted there; any other concatenation's as they are.
std::vector<Shape> concatenation_parts(std::vector<Shape> parts, int axis, const OpParams* params);

}  // namespace fd
