// PAD (PADV2, MIRROR_PAD) whose output must be stored, or that pads channels;
// else it folds into the convolution or pool that reads it. A 1x1 window
// (window.cc) whose border pixels point at the pad value or, mirrored, into
// the input: copies rows, each widened by the channels padded before and after.
#include <algorithm>
#include <cstring>

#include "ops/pad.h"
#include "runtime/anchors/anchor_op.h"

namespace fd {
namespace {

// Channels added before and after each pixel's.
int64_t front(const AnchorStep& s) { return params_as<PadParams>(s.params).pads[6]; }
int64_t back(const AnchorStep& s) { return params_as<PadParams>(s.params).pads[7]; }

bool bind(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  if (!bind_window(b, inputs[0], 1, 1, ConvParams{}, error)) return false;
  b.n = b.geo.channels + front(b.step) + back(b.step);
  b.output = window_output(b);
  return true;
}

void run(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  const int64_t c = a.geo.channels, before = front(a.step), after = back(a.step);
  for (int64_t i = 0; i < count; ++i, out += a.n) {
    std::fill(out, out + before, a.step.pad.value);
    std::memcpy(out + before, a.rows[first + i], c * sizeof(float));
    std::fill(out + before + c, out + before + c + after, a.step.pad.value);
  }
}

std::string describe(const AnchorStep& s) {  // the PAD itself, not a fold
  std::string t;
  if (s.pad.any())
    t += "pad " + std::to_string(s.pad.top) + "," + std::to_string(s.pad.bottom) + "," + std::to_string(s.pad.left) +
         "," + std::to_string(s.pad.right) + ", ";
  if (front(s) || back(s)) t += "channels " + std::to_string(front(s)) + "," + std::to_string(back(s)) + ", ";
  return t + "copy";
}

}  // namespace

extern const AnchorOpDef kPadAnchor = {
    "Pad", /*clamps=*/false, /*make=*/nullptr, bind, point_window_rows, run, /*run_tile=*/nullptr,
    /*depth=*/nullptr, describe, /*run_panels=*/nullptr, /*panels=*/nullptr,
};

}  // namespace fd
