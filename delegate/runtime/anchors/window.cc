// What the window anchors share (CONV_2D, DEPTHWISE_CONV_2D, the pools, MEAN,
// PAD): the geometry of a window over an NHWC input, and the indirection rows
// that point each tap of each output pixel at its input pixel (or at the row a
// padding tap reads).
#include <cstring>
#include <utility>

#include "runtime/anchors/anchor_op.h"

namespace fd {

bool bind_window(BoundAnchor& b, const Shape& input, int kh, int kw, const ConvParams& p, std::string* error) {
  const auto geo = conv_geometry(input, kh, kw, p, b.step.pad, error);
  if (!geo) return false;
  b.geo = *geo;
  b.offsets.clear();
  b.offsets_due = true;
  b.zero_row.assign(geo->channels, 0.f);
  b.pad_row.assign(geo->channels, b.step.pad.value);
  return true;
}

const std::vector<int32_t>& window_offsets(const BoundAnchor& b) {
  if (b.offsets_due) {
    b.offsets = conv_offsets(b.geo);
    b.offsets_due = false;
  }
  return b.offsets;
}

Shape window_output(const BoundAnchor& b) { return {b.geo.batch, b.geo.out_h, b.geo.out_w, b.n}; }

namespace {

// A filter row (kw taps of kc floats) lying inside the input is one run of kw *
// kc floats: point at it in place. One cut by padding (or dilated) points at a
// patch that point_window_rows refills on every run.
void point_filter_rows(const BoundAnchor& a, const float* input) {
  const int64_t kc = a.geo.channels, kw = a.geo.kw;
  a.rows.resize(static_cast<size_t>(a.geo.pixels()) * a.geo.kh);
  conv_filter_rows(a.geo, input, a.zero_row.data(), a.pad_row.data(), a.rows.data(), &a.patch_taps);
  a.patches.resize(a.patch_taps.size() * kc);
  float* patch = a.patches.data();
  for (const float*& row : a.rows)
    if (!row) row = std::exchange(patch, patch + kw * kc);
}

}  // namespace

void point_window_rows(const BoundAnchor& a, const float* const* inputs) {
  const float* input = inputs[0];
  if (a.rows_for != input || a.rows.empty()) {
    a.rows_for = input;
    if (a.filter_rows) {
      point_filter_rows(a, input);
    } else {
      a.rows.resize(static_cast<size_t>(a.geo.pixels()) * a.geo.taps());
      conv_indirection(a.geo, input, a.zero_row.data(), a.pad_row.data(), a.rows.data());
    }
  }
  for (size_t r = 0; r < a.patch_taps.size(); ++r)  // filter rows cut by padding, copied afresh
    std::memcpy(a.patches.data() + r * a.geo.channels, a.patch_taps[r], a.geo.channels * sizeof(float));
}

int64_t window_depth(const BoundAnchor& a) { return a.geo.taps(); }

void quantize_window_input(const BoundAnchor& a, const float* input) {
  const ConvGeometry& g = a.geo;
  qd8_quantize_images(*a.step.qd8, g.batch, g.in_h * g.in_w * g.channels, input, &a.qd8_images);
  window_offsets(a);
}

Qd8Windows qd8_windows(const BoundAnchor& a) {
  return {a.offsets.empty() ? nullptr : a.offsets.data(), a.geo.taps(), a.geo.channels, a.geo.out_h * a.geo.out_w};
}

std::string describe_window(const AnchorStep& s) {
  return std::to_string(s.kh) + "x" + std::to_string(s.kw) + "/" + std::to_string(s.conv.stride_h) + ", ";
}

}  // namespace fd
