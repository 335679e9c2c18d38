// PAD (PADV2, MIRROR_PAD) whose output must be stored; else it folds into the
// convolution or pool that reads it. A 1x1 window (window.cc) whose border
// pixels point at the pad value or, mirrored, into the input: copies rows.
#include <cstring>

#include "runtime/anchors/anchor_op.h"

namespace fd {
namespace {

bool bind(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  if (!bind_window(b, inputs[0], 1, 1, ConvParams{}, error)) return false;
  b.n = b.geo.channels;
  b.output = window_output(b);
  return true;
}

void run(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  for (int64_t i = 0; i < count; ++i) std::memcpy(out + i * a.n, a.rows[first + i], a.n * sizeof(float));
}

std::string describe(const AnchorStep& s) {  // the PAD itself, not a fold
  if (!s.pad.any()) return "copy";
  return "pad " + std::to_string(s.pad.top) + "," + std::to_string(s.pad.bottom) + "," + std::to_string(s.pad.left) +
         "," + std::to_string(s.pad.right) + ", copy";
}

}  // namespace

const AnchorOpDef kPadAnchor = {
    "Pad", /*clamps=*/false, /*make=*/nullptr, bind, point_window_rows, run, /*run_tile=*/nullptr,
    /*depth=*/nullptr, describe, /*gemm_panels=*/false,
};

}  // namespace fd
