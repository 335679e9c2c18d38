// RESHAPE: the same floats under another shape (row_ops.cc): copies rows.
#include <cstring>

#include "ops/shape_rules.h"
#include "runtime/anchors/anchor_op.h"

namespace fd {
namespace {

bool bind(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  return bind_row_output(b, reshape_shape(inputs[0], b.step.dims), inputs, error);
}

void run(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  std::memcpy(out, a.src + first * a.n, count * a.n * sizeof(float));
}

std::string describe(const AnchorStep& s) { return describe_folds(s) + "copy"; }

}  // namespace

const AnchorOpDef kReshapeAnchor = {
    "Reshape", /*clamps=*/false, /*make=*/nullptr, bind, read_whole_input, run, /*run_tile=*/nullptr,
    /*depth=*/nullptr, describe, /*run_panels=*/nullptr, /*panels=*/nullptr,
};

}  // namespace fd
