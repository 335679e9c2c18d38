#include "ops/conv_geometry.h"

#include "ir/shape.h"

#include <algorithm>
#include <vector>

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

// Output size (0 where no window fits) and leading padding along one axis.
void axis(int64_t padded, int k, int stride, int dilation, bool same, int64_t* out, int64_t* pad_before) {
  const int64_t span = static_cast<int64_t>(k - 1) * dilation + 1;
  if (same) {
    *out = (padded + stride - 1) / stride;
    *pad_before = std::max<int64_t>(0, (*out - 1) * stride + span - padded) / 2;
  } else {
    *out = padded >= span ? (padded - span) / stride + 1 : 0;
    *pad_before = 0;
  }
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
  if (p.stride_h < 1 || p.stride_w < 1 || p.dilation_h < 1 || p.dilation_w < 1 || kh < 1 || kw < 1) {
    *error = "a convolution's strides, dilations and window must be at least 1";
    return std::nullopt;
  }
  axis(g.in_h + fold.top + fold.bottom, kh, p.stride_h, p.dilation_h, p.same_padding, &g.out_h, &g.pad_top);
  axis(g.in_w + fold.left + fold.right, kw, p.stride_w, p.dilation_w, p.same_padding, &g.out_w, &g.pad_left);
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

// Where each (output row, filter row) reads, as the offset of its input row in
// floats, and each (output column, filter column), as that of its pixel in the
// row: once per geometry. Negative: kZero or kPadValue.
struct TapSources {
  std::vector<int64_t> ys, xs;
  std::vector<char> side_by_side;  // per output column: its kw taps inside the row, one after another
};

TapSources tap_sources(const ConvGeometry& g) {
  TapSources s{std::vector<int64_t>(g.out_h * g.kh), std::vector<int64_t>(g.out_w * g.kw),
               std::vector<char>(g.out_w)};
  const int64_t row_floats = g.in_w * g.channels;
  for (int64_t oy = 0; oy < g.out_h; ++oy)
    for (int ky = 0; ky < g.kh; ++ky) {
      const int64_t y = source(oy * g.p.stride_h + ky * g.p.dilation_h - g.pad_top, g.in_h, g.fold.top, g.fold.bottom,
                               g.fold.mode);
      s.ys[oy * g.kh + ky] = y < 0 ? y : (g.ring_rows ? y % g.ring_rows : y) * row_floats;
    }
  for (int64_t ox = 0; ox < g.out_w; ++ox) {
    int64_t* x = s.xs.data() + ox * g.kw;
    bool side_by_side = true;
    for (int kx = 0; kx < g.kw; ++kx) {
      const int64_t v = source(ox * g.p.stride_w + kx * g.p.dilation_w - g.pad_left, g.in_w, g.fold.left,
                               g.fold.right, g.fold.mode);
      x[kx] = v < 0 ? v : v * g.channels;
      side_by_side = side_by_side && x[kx] >= 0 && x[kx] == x[0] + kx * g.channels;
    }
    s.side_by_side[ox] = side_by_side;
  }
  return s;
}

// The offset tap (y, x) of the image at `image` reads; zero padding wins over
// the PAD's constant.
int64_t tap_offset(int64_t image, int64_t y, int64_t x) {
  return (y | x) >= 0 ? image + y + x : y == kZero || x == kZero ? kZero : kPadValue;
}

// Calls put_row(image, y, x, side_by_side) for every filter row of every
// output pixel in order: the image's offset, the row's y, its kw taps' x.
template <class PutRow>
void each_filter_row(const ConvGeometry& g, PutRow put_row) {
  const TapSources s = tap_sources(g);
  const int64_t image_floats = g.in_h * g.in_w * g.channels;
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t oy = 0; oy < g.out_h; ++oy)
      for (int64_t ox = 0; ox < g.out_w; ++ox)
        for (int ky = 0; ky < g.kh; ++ky)
          put_row(b * image_floats, s.ys[oy * g.kh + ky], s.xs.data() + ox * g.kw, s.side_by_side[ox] != 0);
}

struct TapPointers {
  const float *input, *zero_row, *pad_row;
  const float* operator()(int64_t offset) const {
    return offset >= 0 ? input + offset : offset == kZero ? zero_row : pad_row;
  }
};

}  // namespace

std::vector<int32_t> conv_offsets(const ConvGeometry& g) {
  if (g.dense()) return {};
  std::vector<int32_t> offsets(static_cast<size_t>(g.pixels()) * g.taps());
  int32_t* o = offsets.data();
  each_filter_row(g, [&](int64_t image, int64_t y, const int64_t* x, bool) {
    for (int kx = 0; kx < g.kw; ++kx) *o++ = static_cast<int32_t>(tap_offset(image, y, x[kx]));
  });
  return offsets;
}

void conv_indirection(const ConvGeometry& g, const float* input, const float* zero_row, const float* pad_row,
                      const float** rows) {
  if (g.dense()) {  // pixel p reads pixel p
    for (int64_t i = 0; i < g.pixels(); ++i) rows[i] = input + i * g.channels;
    return;
  }
  const TapPointers at{input, zero_row, pad_row};
  const int kw = g.kw;
  each_filter_row(g, [&](int64_t image, int64_t y, const int64_t* x, bool side_by_side) {
    if (y >= 0 && side_by_side)  // most rows: every tap inside the input
      for (int kx = 0; kx < kw; ++kx) rows[kx] = input + image + y + x[kx];
    else
      for (int kx = 0; kx < kw; ++kx) rows[kx] = at(tap_offset(image, y, x[kx]));
    rows += kw;
  });
}

void conv_filter_rows(const ConvGeometry& g, const float* input, const float* zero_row, const float* pad_row,
                      const float** rows, std::vector<const float*>* patched) {
  const TapPointers at{input, zero_row, pad_row};
  patched->clear();
  each_filter_row(g, [&](int64_t image, int64_t y, const int64_t* x, bool side_by_side) {
    if (y >= 0 && side_by_side) {
      *rows++ = input + image + y + x[0];
    } else if (g.kw == 1) {
      *rows++ = at(tap_offset(image, y, x[0]));
    } else {
      *rows++ = nullptr;
      for (int kx = 0; kx < g.kw; ++kx) patched->push_back(at(tap_offset(image, y, x[kx])));
    }
  });
}

}  // namespace fd
