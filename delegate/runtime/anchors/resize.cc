// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR of an NHWC input to the size
// of its ResizeParams (ops/resize.h), as TFLite's reference kernels place the samples: each output pixel
// is a weighted sum of taps (4 input pixels, or 1), run by the interpolation
// micro-kernel through indirection rows, like a convolution's window.
#include <algorithm>
#include <cmath>

#include "ops/resize.h"
#include "runtime/anchors/anchor_op.h"

namespace fd {
namespace {

// What binding derives: per output pixel, its taps' weights (BoundAnchor::offsets: their pixels).
struct Taps : BoundState {
  std::vector<float> weights;
};

// Input per output along one axis: TFLite's scale.
float axis_scale(int64_t in, int64_t out, bool align_corners) {
  return align_corners && out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                  : static_cast<float>(in) / static_cast<float>(out);
}

struct Sample {
  int64_t lo, hi;  // the two input positions
  float frac;      // the weight of hi (lo's is 1 - frac)
};

// Bilinear: output position v of an axis of `out` over one of `in`.
Sample bilinear_sample(int64_t v, int64_t in, int64_t out, const ResizeParams& s) {
  const float scale = axis_scale(in, out, s.align_corners);
  const float x = s.half_pixel_centers ? (static_cast<float>(v) + 0.5f) * scale - 0.5f : static_cast<float>(v) * scale;
  const int64_t lo = std::max<int64_t>(static_cast<int64_t>(std::floor(x)), 0);
  const int64_t hi = std::min<int64_t>(static_cast<int64_t>(std::ceil(x)), in - 1);
  return {lo, hi, x - static_cast<float>(lo)};
}

// Nearest: output position v's input position.
Sample nearest_sample(int64_t v, int64_t in, int64_t out, const ResizeParams& s) {
  const float x = (static_cast<float>(v) + (s.half_pixel_centers ? 0.5f : 0.f)) * axis_scale(in, out, s.align_corners);
  int64_t at = std::min<int64_t>(static_cast<int64_t>(s.align_corners ? std::round(x) : std::floor(x)), in - 1);
  if (s.half_pixel_centers) at = std::max<int64_t>(at, 0);
  return {at, at, 0.f};
}

// Offsets (in floats) and weights of every output pixel's taps.
void bind_taps(BoundAnchor& b, const Shape& in, bool bilinear) {
  const int64_t n = in[0], h = in[1], w = in[2], c = in[3], oh = b.output[1], ow = b.output[2];
  auto sample = bilinear ? bilinear_sample : nearest_sample;
  const auto& p = params_as<ResizeParams>(b.step.params);
  auto taps = std::make_shared<Taps>();
  b.offsets.clear();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t y = 0; y < oh; ++y) {
      const Sample sy = sample(y, h, oh, p);
      for (int64_t x = 0; x < ow; ++x) {
        const Sample sx = sample(x, w, ow, p);
        auto pixel = [&](int64_t py, int64_t px) { return static_cast<int32_t>(((i * h + py) * w + px) * c); };
        b.offsets.push_back(pixel(sy.lo, sx.lo));
        taps->weights.push_back((1 - sy.frac) * (1 - sx.frac));
        if (!bilinear) continue;
        for (auto [py, px, weight] : {std::tuple{sy.hi, sx.lo, sy.frac * (1 - sx.frac)},
                                      std::tuple{sy.lo, sx.hi, (1 - sy.frac) * sx.frac},
                                      std::tuple{sy.hi, sx.hi, sy.frac * sx.frac}}) {
          b.offsets.push_back(pixel(py, px));
          taps->weights.push_back(weight);
        }
      }
    }
  b.state = std::move(taps);
}

template <bool kBilinear>
bool bind(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  const auto out = resize_shape(inputs[0], params_as<ResizeParams>(b.step.params));
  if (!out || num_elements(inputs[0]) >= (int64_t{1} << 31)) {
    *error = "input " + fd::to_string(inputs[0]) + " does not fit the resize";
    return false;
  }
  if ((inputs[0][1] == 0 || inputs[0][2] == 0) && num_elements(*out) > 0) {  // TFLite reads out of bounds there
    *error = "a resize of an image of no pixels " + fd::to_string(inputs[0]) + " to " + fd::to_string(*out);
    return false;
  }
  b.output = *out;
  b.n = (*out)[3];
  bind_taps(b, inputs[0], kBilinear);
  return true;
}

int taps(const BoundAnchor& a) { return a.step.op == AnchorOp::kResizeBilinear ? 4 : 1; }

void point_rows(const BoundAnchor& a, const float* const* inputs) {
  if (a.rows_for == inputs[0] && !a.rows.empty()) return;
  a.rows_for = inputs[0];
  a.rows.resize(a.offsets.size());
  for (size_t i = 0; i < a.offsets.size(); ++i) a.rows[i] = inputs[0] + a.offsets[i];
}

void run(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  const int t = taps(a);
  a.step.dw->interp(static_cast<int>(count), static_cast<int>(a.n), t, a.rows.data() + first * t,
                    static_cast<const Taps&>(*a.state).weights.data() + first * t, out);
}

void make(const Graph&, const Node&, const Kernels& kernels, const AnchorFolds&, AnchorStep& a) { a.dw = kernels.dw; }

int64_t depth(const BoundAnchor& a) { return taps(a); }

std::string describe(const AnchorStep& s) {
  return s.params->describe() + ", interp";
}

}  // namespace

extern const AnchorOpDef kResizeBilinearAnchor = {
    "ResizeBilinear", /*clamps=*/false, make, bind<true>, point_rows, run, /*run_tile=*/nullptr,
    depth, describe, /*run_panels=*/nullptr, /*panels=*/nullptr,
};

extern const AnchorOpDef kResizeNearestAnchor = {
    "ResizeNearest", /*clamps=*/false, make, bind<false>, point_rows, run, /*run_tile=*/nullptr,
    depth, describe, /*run_panels=*/nullptr, /*panels=*/nullptr,
};

}  // namespace fd
