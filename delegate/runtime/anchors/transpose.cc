// TRANSPOSE: a permutation of the axes (row_ops.cc). Each output row gathers
// n floats at its stride in the input.
#include <cstring>

#include "ir/shape.h"
#include "ops/shape_rules.h"
#include "ops/transpose.h"
#include "runtime/anchors/anchor_op.h"

namespace fd {
namespace {

// Bound: per output axis, its stride in the input.
struct Strides : BoundState {
  Shape of_output;
};

bool bind(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  const Shape& in = inputs[0];
  const std::vector<int64_t>& perm = params_as<TransposeParams>(b.step.params).perm;
  if (!bind_row_output(b, transpose_shape(in, perm), inputs, error)) return false;
  const Shape strides = broadcast_strides(in, in);
  auto bound = std::make_shared<Strides>();
  for (int64_t p : perm) bound->of_output.push_back(strides[p]);
  b.state = std::move(bound);
  return true;
}

void run(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  const int r = static_cast<int>(a.output.size());
  const Shape& strides = static_cast<const Strides&>(*a.state).of_output;
  const int64_t inner_stride = strides[r - 1];
  int64_t idx[kMaxRank] = {};
  for (int d = r - 2; d >= 0; --d) {  // the first row's output coordinates
    idx[d] = first % a.output[d];
    first /= a.output[d];
  }
  for (int64_t i = 0; i < count; ++i, out += a.n) {
    int64_t off = 0;
    for (int d = 0; d + 1 < r; ++d) off += idx[d] * strides[d];
    const float* in = a.src + off;
    if (inner_stride == 1) std::memcpy(out, in, a.n * sizeof(float));
    else
      for (int64_t j = 0; j < a.n; ++j) out[j] = in[j * inner_stride];
    for (int d = r - 2; d >= 0 && ++idx[d] == a.output[d]; --d) idx[d] = 0;
  }
}

std::string describe(const AnchorStep& s) { return describe_folds(s) + "copy"; }

}  // namespace

extern const AnchorOpDef kTransposeAnchor = {
    "Transpose", /*clamps=*/false, /*make=*/nullptr, bind, read_whole_input, run, /*run_tile=*/nullptr,
    /*depth=*/nullptr, describe, /*run_panels=*/nullptr, /*panels=*/nullptr,
};

}  // namespace fd
