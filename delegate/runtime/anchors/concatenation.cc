// CONCATENATION (and PACK): its output seen as rows (the axes before the joined
// one), each row the parts' rows side by side (ops/concatenation.h). A part whose
// producer writes it in place (AnchorFolds::in_place) is there already; the others are copied.
#include <cstring>

#include "ops/concatenation.h"
#include "runtime/anchors/anchor_op.h"

namespace fd {
namespace {

struct InPlace : StepState {
  std::vector<bool> parts;  // per part: written by its producer
};

// Bound: where each part's rows go, and the parts of this run.
struct Parts : BoundState {
  std::vector<ConcatSlice> slices;
  mutable std::vector<const float*> given;
  std::shared_ptr<const BoundState> clone() const override { return std::make_shared<Parts>(*this); }
};

const std::vector<bool>& in_place(const AnchorStep& s) { return static_cast<const InPlace&>(*s.state).parts; }
const Parts& parts(const BoundAnchor& a) { return static_cast<const Parts&>(*a.state); }

void make(const Graph&, const Node&, const Kernels&, const AnchorFolds& folds, AnchorStep& a) {
  auto written = std::make_shared<InPlace>();
  written->parts = folds.in_place;
  a.state = std::move(written);
}

bool bind(BoundAnchor& b, const std::vector<Shape>& given, std::string* error) {
  const auto layout = concatenation_layout(given, params_as<ConcatenationParams>(b.step.params));
  if (!layout || given.size() != in_place(b.step).size()) {
    *error = "the parts of CONCATENATION do not fit: " + b.step.params->describe();
    return false;
  }
  b.output = layout->output;
  b.n = layout->slices[0].stride;  // an output row
  auto p = std::make_shared<Parts>();
  p->slices = layout->slices;
  b.state = std::move(p);
  return true;
}

void before_run(const BoundAnchor& a, const float* const* inputs) {
  parts(a).given.assign(inputs, inputs + parts(a).slices.size());
}

void run(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  const Parts& p = parts(a);
  for (size_t i = 0; i < p.slices.size(); ++i) {
    if (in_place(a.step)[i]) continue;
    const ConcatSlice& s = p.slices[i];
    for (int64_t r = 0; r < count; ++r)
      std::memcpy(out + r * s.stride + s.offset, p.given[i] + (first + r) * s.len, s.len * sizeof(float));
  }
}

std::string describe(const AnchorStep& s) {
  int written = 0;
  for (bool w : in_place(s)) written += w;
  return s.params->describe() + ", " + std::to_string(written) + " of " + std::to_string(in_place(s).size()) +
         " parts written in place";
}

}  // namespace

extern const AnchorOpDef kConcatenationAnchor = {
    "Concatenation", /*clamps=*/false, make, bind, before_run, run, /*run_tile=*/nullptr,
    /*depth=*/nullptr, describe, /*run_panels=*/nullptr, /*panels=*/nullptr,
};

}  // namespace fd
