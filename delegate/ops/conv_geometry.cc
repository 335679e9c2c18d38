#include "ops/conv_geometry.h"

#include "ir/shape.h"

#include <algorithm>

namespace fd {
namespace {

constexpr int64_t kZero = kZeroRow;
constexpr int64_t kPadValue = kPadRow;

// The input index that coordinate v of the padded axis reads.
int64_t source(int64_t v, int64_t size, int64_t before, int64_t after, PadMode mode) {
  if (v < 0 || v >= before + size + after) return kZero;
  const int64_t x = v - before;
  if (x >= 0 && x < size) return x;
  switch (mode) {
    case PadMode::kReflect: return x < 0 ? -x : 2 * (size - 1) - x;
    case PadMode::kSymmetric: return x < 0 ? -x - 1 : 2 * size - 1 - x;
    case PadMode::kConstant: break;
  }
  return kPadValue;
}

// Output size and leading padding along one axis; false if nothing fits.
bool axis(int64_t padded, int k, int stride, int dilation, bool same, int64_t* out, int64_t* pad_before) {
  const int64_t span = static_cast<int64_t>(k - 1) * dilation + 1;
  if (same) {
    *out = (padded + stride - 1) / stride;
    *pad_before = std::max<int64_t>(0, (*out - 1) * stride + span - padded) / 2;
  } else {
    *out = padded >= span ? (padded - span) / stride + 1 : 0;
    *pad_before = 0;
  }
  return *out > 0;
}

}  // namespace

bool indexable_nhwc(const Shape& input, const std::string& what, std::string* error) {
  if (input.size() != 4) {
    *error = what + " input must be 4-D NHWC";
    return false;
  }
  if (num_elements(input) >= (int64_t{1} << 31)) {
    *error = what + " input has 2^31 elements or more";
    return false;
  }
  return true;
}

std::optional<WindowDims> window_dims(const Shape& input, int kh, int kw, const std::string& what,
                                      std::string* error) {
  if (!indexable_nhwc(input, what, error)) return std::nullopt;
  WindowDims d;
  d.batch = input[0];
  d.in_h = input[1];
  d.in_w = input[2];
  d.channels = input[3];
  d.kh = kh;
  d.kw = kw;
  return d;
}

std::optional<ConvGeometry> conv_geometry(const Shape& input, int kh, int kw, const ConvParams& p,
                                          const FoldedPad& fold, std::string* error) {
  const auto dims = window_dims(input, kh, kw, "convolution", error);
  if (!dims) return std::nullopt;
  ConvGeometry g;
  static_cast<WindowDims&>(g) = *dims;
  g.p = p;
  g.fold = fold;
  if (fold.mode != PadMode::kConstant) {  // a mirror may reach at most one pixel short of the far edge
    const int64_t limit_h = g.in_h - (fold.mode == PadMode::kReflect), limit_w = g.in_w - (fold.mode == PadMode::kReflect);
    if (std::max(fold.top, fold.bottom) > limit_h || std::max(fold.left, fold.right) > limit_w) {
      *error = "mirror padding is larger than the input allows";
      return std::nullopt;
    }
  }
  if (p.stride_h < 1 || p.stride_w < 1 || p.dilation_h < 1 || p.dilation_w < 1 || g.channels < 1 ||
      !axis(g.in_h + fold.top + fold.bottom, kh, p.stride_h, p.dilation_h, p.same_padding, &g.out_h, &g.pad_top) ||
      !axis(g.in_w + fold.left + fold.right, kw, p.stride_w, p.dilation_w, p.same_padding, &g.out_w, &g.pad_left)) {
    *error = "input " + std::to_string(g.in_h) + "x" + std::to_string(g.in_w) + " gives an empty convolution output";
    return std::nullopt;
  }
  return g;
}

bool ConvGeometry::dense() const {
  return kh == 1 && kw == 1 && p.stride_h == 1 && p.stride_w == 1 && out_h == in_h && out_w == in_w && !fold.any() &&
         !ring_rows;
}

RowRange input_rows(const ConvGeometry& g, int64_t y0, int64_t y1) {
  const int64_t top = g.pad_top + g.fold.top;
  const int64_t first = std::clamp<int64_t>(y0 * g.p.stride_h - top, 0, g.in_h);
  const int64_t last = std::clamp<int64_t>((y1 - 1) * g.p.stride_h + (g.kh - 1) * g.p.dilation_h - top + 1, 0, g.in_h);
  return {first, std::max(first, last)};
}

namespace {

// Calls put(offset) for every tap of every output pixel in order, offset as
// conv_offsets gives it. Not for a dense geometry.
template <class Put>
void each_tap_offset(const ConvGeometry& g, Put put) {
  // Where each (output row, filter row) reads, as the offset of its input row in
  // floats, and each (output column, filter column), as that of its pixel in the
  // row: once. Negative: kZero or kPadValue.
  const int64_t row_floats = g.in_w * g.channels;
  std::vector<int64_t> ys(g.out_h * g.kh), xs(g.out_w * g.kw);
  for (int64_t oy = 0; oy < g.out_h; ++oy)
    for (int ky = 0; ky < g.kh; ++ky) {
      const int64_t y = source(oy * g.p.stride_h + ky * g.p.dilation_h - g.pad_top, g.in_h, g.fold.top, g.fold.bottom,
                               g.fold.mode);
      ys[oy * g.kh + ky] = y < 0 ? y : (g.ring_rows ? y % g.ring_rows : y) * row_floats;
    }
  for (int64_t ox = 0; ox < g.out_w; ++ox)
    for (int kx = 0; kx < g.kw; ++kx) {
      const int64_t x = source(ox * g.p.stride_w + kx * g.p.dilation_w - g.pad_left, g.in_w, g.fold.left,
                               g.fold.right, g.fold.mode);
      xs[ox * g.kw + kx] = x < 0 ? x : x * g.channels;
    }
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t oy = 0; oy < g.out_h; ++oy)
      for (int64_t ox = 0; ox < g.out_w; ++ox)
        for (int ky = 0; ky < g.kh; ++ky) {
          const int64_t y = ys[oy * g.kh + ky], row = b * g.in_h * row_floats + y;
          const int64_t* x = xs.data() + ox * g.kw;
          for (int kx = 0; kx < g.kw; ++kx)  // zero padding wins over the PAD's constant
            put((y | x[kx]) >= 0                 ? static_cast<int32_t>(row + x[kx])
                : y == kZero || x[kx] == kZero ? kZeroRow
                                               : kPadRow);
        }
}

}  // namespace

std::vector<int32_t> conv_offsets(const ConvGeometry& g) {
  if (g.dense()) return {};
  std::vector<int32_t> offsets(static_cast<size_t>(g.pixels()) * g.taps());
  int32_t* o = offsets.data();
  each_tap_offset(g, [&o](int32_t v) { *o++ = v; });
  return offsets;
}

void conv_indirection(const ConvGeometry& g, const float* input, const float* zero_row, const float* pad_row,
                      const float** rows) {
  if (g.dense()) {  // pixel p reads pixel p
    for (int64_t i = 0; i < g.pixels(); ++i) rows[i] = input + i * g.channels;
    return;
  }
  each_tap_offset(g, [&](int32_t o) { *rows++ = o >= 0 ? input + o : o == kZeroRow ? zero_row : pad_row; });
}

}  // namespace fd
