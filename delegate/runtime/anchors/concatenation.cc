// CONCATENATION: its output seen as rows (the axes before the joined one),
// each row the parts' rows side by side. A part whose producer writes it in
// place (AnchorStep::in_place) is there already; the others are copied.
#include <cstring>

#include "ops/pack.h"
#include "ops/shape_rules.h"
#include "runtime/anchors/anchor_op.h"

namespace fd {
namespace {

bool bind(BoundAnchor& b, const std::vector<Shape>& given, std::string* error) {
  const std::vector<Shape> inputs = concatenation_parts(given, b.step.axis, b.step.params.get());
  const auto out = concatenation_shape(inputs, b.step.axis);
  if (!out || inputs.size() != b.step.in_place.size()) {
    *error = "the parts of CONCATENATION do not fit along axis " + std::to_string(b.step.axis);
    return false;
  }
  b.output = *out;
  b.slices.clear();
  for (size_t i = 0; i < inputs.size(); ++i)
    b.slices.push_back(concatenation_slice(inputs, b.step.axis, static_cast<int>(i)));
  b.n = b.slices[0].stride;  // an output row
  return true;
}

void before_run(const BoundAnchor& a, const float* const* inputs) { a.parts.assign(inputs, inputs + a.slices.size()); }

void run(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  for (size_t i = 0; i < a.slices.size(); ++i) {
    if (a.step.in_place[i]) continue;
    const ConcatSlice& s = a.slices[i];
    for (int64_t r = 0; r < count; ++r)
      std::memcpy(out + r * s.stride + s.offset, a.parts[i] + (first + r) * s.len, s.len * sizeof(float));
  }
}

std::string describe(const AnchorStep& s) {
  int written = 0;
  for (bool w : s.in_place) written += w;
  return "axis " + std::to_string(s.axis) + (s.params ? ", " + s.params->describe() : "") + ", " + std::to_string(written) + " of " +
         std::to_string(s.in_place.size()) + " parts written in place";
}

}  // namespace

const AnchorOpDef kConcatenationAnchor = {
    "Concatenation", /*clamps=*/false, /*make=*/nullptr, bind, before_run, run, /*run_tile=*/nullptr,
    /*depth=*/nullptr, describe, /*run_panels=*/nullptr, /*panels=*/nullptr,
};

}  // namespace fd
