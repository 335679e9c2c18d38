// CONCATENATION as an anchor: its output seen as rows (the axes before the
// joined one), each row the parts' rows side by side. A part whose producer
// writes it in place is already there; the others are copied.
#include <cstring>

#include "runtime/anchor.h"

namespace fd {

bool bind_concatenation(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
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
  b.k = b.n;
  return true;
}

void run_concatenation(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  for (size_t i = 0; i < a.slices.size(); ++i) {
    if (a.step.in_place[i]) continue;
    const ConcatSlice& s = a.slices[i];
    for (int64_t r = 0; r < count; ++r)
      std::memcpy(out + r * s.stride + s.offset, a.parts[i] + (first + r) * s.len, s.len * sizeof(float));
  }
}

}  // namespace fd
