// RESHAPE, EXPAND_DIMS and SQUEEZE: the same floats under another shape (row_ops.cc),
// each derived from the input's shape of the run by its own rule: copies rows.
#include <cstring>

#include "ops/reshape.h"
#include "ops/shape_rules.h"
#include "runtime/anchors/anchor_op.h"

namespace fd {
namespace {

bool bind_reshape(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  return bind_row_output(b, reshape_shape(inputs[0], params_as<ReshapeParams>(b.step.params).shape), inputs, error);
}

bool bind_expand_dims(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  return bind_row_output(b, expand_dims_shape(inputs[0], params_as<ExpandDimsParams>(b.step.params).axis), inputs, error);
}

bool bind_squeeze(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  return bind_row_output(b, squeeze_shape(inputs[0], params_as<SqueezeParams>(b.step.params).axes), inputs, error);
}

void run(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  std::memcpy(out, a.src + first * a.n, count * a.n * sizeof(float));
}

std::string describe(const AnchorStep& s) { return describe_folds(s) + "copy"; }

}  // namespace

extern const AnchorOpDef kReshapeAnchor = {
    "Reshape", /*clamps=*/false, /*make=*/nullptr, bind_reshape, read_whole_input, run, /*run_tile=*/nullptr,
    /*depth=*/nullptr, describe, /*run_panels=*/nullptr, /*panels=*/nullptr,
};

extern const AnchorOpDef kExpandDimsAnchor = {
    "ExpandDims", /*clamps=*/false, /*make=*/nullptr, bind_expand_dims, read_whole_input, run, /*run_tile=*/nullptr,
    /*depth=*/nullptr, describe, /*run_panels=*/nullptr, /*panels=*/nullptr,
};

extern const AnchorOpDef kSqueezeAnchor = {
    "Squeeze", /*clamps=*/false, /*make=*/nullptr, bind_squeeze, read_whole_input, run, /*run_tile=*/nullptr,
    /*depth=*/nullptr, describe, /*run_panels=*/nullptr, /*panels=*/nullptr,
};

}  // namespace fd
