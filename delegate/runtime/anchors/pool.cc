// The pools: MAX_POOL_2D, AVERAGE_POOL_2D, and MEAN over H and W (one VALID
// window covering the image). Windows of an NHWC input (window.cc) reduced by
// the pool micro-kernel; n is the input's channels.
#include <algorithm>
#include <cmath>

#include "ops/pool.h"
#include "runtime/anchors/anchor_op.h"

namespace fd {
namespace {

void make(const Graph&, const Node&, const Kernels& kernels, const AnchorFolds&, AnchorStep& a) {
  a.kh = a.conv.window_h;  // MEAN: 0, the input's size, known when bound
  a.kw = a.conv.window_w;
  a.dw = kernels.dw;
}

// A pool's window over `input`: n is the input's channels, the output NHWC.
bool bind_window_of_channels(BoundAnchor& b, const Shape& input, int kh, int kw, const ConvParams& p,
                             std::string* error) {
  if (!bind_window(b, input, kh, kw, p, error)) return false;
  b.n = b.geo.channels;
  b.output = window_output(b);
  return true;
}

// Bound (average pools, MEAN): per output pixel, its window's pixels inside the input.
struct PixelCounts : BoundState {
  std::vector<float> per_pixel;
};

// An average counts only the window's pixels inside the input.
void count_pixels(BoundAnchor& b) {
  const int taps = b.geo.taps();
  auto counts = std::make_shared<PixelCounts>();
  counts->per_pixel.assign(b.geo.pixels(), static_cast<float>(taps));
  const std::vector<int32_t>& offsets = window_offsets(b);
  for (size_t i = 0; i < offsets.size(); ++i) counts->per_pixel[i / taps] -= offsets[i] == kZeroRow;
  b.state = std::move(counts);
}

bool bind_max(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  const AnchorStep& s = b.step;
  if (!bind_window_of_channels(b, inputs[0], s.kh, s.kw, s.conv, error)) return false;
  b.zero_row.assign(b.geo.channels, -INFINITY);  // a max pool never takes a padding tap
  return true;
}

bool bind_average(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  const AnchorStep& s = b.step;
  if (!bind_window_of_channels(b, inputs[0], s.kh, s.kw, s.conv, error)) return false;
  count_pixels(b);
  return true;
}

// MEAN over H and W: one window of the image's size. An image of no pixels has
// a window of no taps, whose mean is 0 / 0 (NaN) as in TFLite.
bool bind_mean(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  const Shape& input = inputs[0];
  if (input.size() != 4) {
    *error = "MEAN input must be 4-D NHWC";
    return false;
  }
  const int h = static_cast<int>(input[1]), w = static_cast<int>(input[2]);
  if (h == 0 || w == 0) {  // one pixel out of a window of no taps
    b.geo = ConvGeometry{};
    static_cast<WindowDims&>(b.geo) = *window_dims(input, 0, 0, "MEAN", error);
    b.geo.out_h = b.geo.out_w = 1;
    b.n = b.geo.channels;
    b.output = window_output(b);
  } else if (bind_window_of_channels(b, input, h, w, ConvParams{}, error)) {
    count_pixels(b);
  } else {
    return false;
  }
  if (!params_as<MeanParams>(b.step.params).keep_dims) b.output = {b.geo.batch, b.n};
  return true;
}

void before_mean(const BoundAnchor& a, const float* const* inputs) {
  if (a.geo.taps() > 0) point_window_rows(a, inputs);
}

void run(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  if (a.geo.taps() == 0) return std::fill(out, out + count * a.n, NAN);  // MEAN of no pixels
  const int taps = a.row_taps();
  const auto* counts = static_cast<const PixelCounts*>(a.state.get());  // max pools: none
  a.step.dw->pool(static_cast<int>(count), static_cast<int>(a.n), taps, a.rows.data() + first * taps,
                  counts ? counts->per_pixel.data() + first : nullptr, out, a.step.lo, a.step.hi);
}

std::string describe_pool(const AnchorStep& s) { return describe_window(s) + describe_folds(s) + "pool"; }
std::string describe_mean(const AnchorStep& s) { return describe_folds(s) + "pool"; }

}  // namespace

extern const AnchorOpDef kMaxPool2DAnchor = {
    "MaxPool2D", /*clamps=*/true, make, bind_max, point_window_rows, run, /*run_tile=*/nullptr,
    window_depth, describe_pool, /*run_panels=*/nullptr, /*panels=*/nullptr,
};

extern const AnchorOpDef kAveragePool2DAnchor = {
    "AveragePool2D", /*clamps=*/true, make, bind_average, point_window_rows, run, /*run_tile=*/nullptr,
    window_depth, describe_pool, /*run_panels=*/nullptr, /*panels=*/nullptr,
};

extern const AnchorOpDef kMeanAnchor = {
    "Mean", /*clamps=*/false, make, bind_mean, before_mean, run, /*run_tile=*/nullptr,
    window_depth, describe_mean, /*run_panels=*/nullptr, /*panels=*/nullptr,
};

}  // namespace fd
