#include "ops/transpose_conv_geometry.h"

#include <algorithm>

#include "ir/shape.h"
#include "ops/conv_geometry.h"

namespace fd {
namespace {

// Along one axis: the output rows cut off before the first, for an output of
// `out` from an input of `in`; false where TFLite's rule (ComputeOutSize with
// the output as the image) reads `out` back as another input size.
bool axis(int64_t in, int64_t out, int k, int stride, bool same, int64_t* pad) {
  const int64_t implied = same ? (out + stride - 1) / stride : (out + stride - k) / stride;
  if (in < 1 || out < 1 || implied != in) return false;
  *pad = std::max<int64_t>(0, (in - 1) * stride + k - out) / 2;
  return true;
}

// The taps of one output pixel of phases (ry, rx) whose first taps read input
// (qy, qx) of image b, appended to *offsets.
void add_pixel_taps(const TransposeConvGeometry& g, int64_t b, int ry, int64_t qy, int rx, int64_t qx,
                    std::vector<int32_t>* offsets) {
  const int ty = phase_taps(g.kh, g.stride_h, ry), tx = phase_taps(g.kw, g.stride_w, rx);
  if (ty * tx == 0) {
    offsets->push_back(kZeroRow);
    return;
  }
  for (int jy = 0; jy < ty; ++jy)
    for (int jx = 0; jx < tx; ++jx) {
      const int64_t iy = qy - jy, ix = qx - jx;
      const bool inside = iy >= 0 && iy < g.in_h && ix >= 0 && ix < g.in_w;
      offsets->push_back(inside ? static_cast<int32_t>(((b * g.in_h + iy) * g.in_w + ix) * g.channels) : kZeroRow);
    }
}

}  // namespace

std::optional<TransposeConvGeometry> transpose_conv_geometry(const Shape& input, int kh, int kw, const ConvParams& p,
                                                             const Shape& output, std::string* error) {
  const auto dims = window_dims(input, kh, kw, "TRANSPOSE_CONV", error);
  if (!dims) return std::nullopt;
  if (output.size() != 4) {
    *error = "TRANSPOSE_CONV output must be 4-D NHWC";
    return std::nullopt;
  }
  TransposeConvGeometry g;
  static_cast<WindowDims&>(g) = *dims;
  g.out_h = output[1];
  g.out_w = output[2];
  g.stride_h = p.stride_h;
  g.stride_w = p.stride_w;
  if (kh < 1 || kw < 1 || p.stride_h < 1 || p.stride_w < 1 || g.channels < 1 || output[3] < 1 ||
      output[0] != input[0] || !axis(g.in_h, g.out_h, kh, p.stride_h, p.same_padding, &g.pad_top) ||
      !axis(g.in_w, g.out_w, kw, p.stride_w, p.same_padding, &g.pad_left)) {
    *error = "output " + to_string(output) + " is not what input " + to_string(input) +
             " gives at this stride and padding";
    return std::nullopt;
  }
  return g;
}

int phase_pair_taps(int kh, int kw, int stride_h, int stride_w, int ry, int rx) {
  return std::max(1, phase_taps(kh, stride_h, ry) * phase_taps(kw, stride_w, rx));
}

int TransposeConvGeometry::taps(int ry, int rx) const { return phase_pair_taps(kh, kw, stride_h, stride_w, ry, rx); }

int64_t first_column(const TransposeConvGeometry& g, int rx) {
  return ((rx - g.pad_left) % g.stride_w + g.stride_w) % g.stride_w;
}

std::vector<int32_t> transpose_conv_offsets(const TransposeConvGeometry& g, std::vector<int64_t>* row_phase_starts) {
  std::vector<int32_t> offsets;
  row_phase_starts->clear();
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t oy = 0; oy < g.out_h; ++oy) {
      const int ry = g.row_phase(oy);
      const int64_t qy = (oy + g.pad_top) / g.stride_h;
      for (int rx = 0; rx < g.stride_w; ++rx) {
        row_phase_starts->push_back(static_cast<int64_t>(offsets.size()));
        for (int64_t ox = first_column(g, rx); ox < g.out_w; ox += g.stride_w)
          add_pixel_taps(g, b, ry, qy, rx, (ox + g.pad_left) / g.stride_w, &offsets);
      }
    }
  return offsets;
}

}  // namespace fd
