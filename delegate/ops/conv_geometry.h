// Where a convolution reads its input: output size, its own padding, a PAD
// folded into it, and the indirection rows that point each output pixel's
// kernel taps at input pixels (or at a row of zeros or of the pad constant).
// CONV_2D, DEPTHWISE_CONV_2D and PAD itself (a 1x1 "convolution" that copies)
// all read their input this way: no im2col copy, and padding costs no pass
// over memory.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace fd {

// The window ops' strides, dilation and padding (ops/window.h: their parameters).
struct ConvParams {
  int stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  bool same_padding = false;  // TFLite SAME (else VALID)
  int window_h = 0, window_w = 0;  // pools: the window (convolutions take it from the filter)
};

// A PAD before the convolution, on H and W: before/after amounts, mode, constant.
struct FoldedPad {
  int64_t top = 0, bottom = 0, left = 0, right = 0;
  PadMode mode = PadMode::kConstant;
  float value = 0.f;
  bool any() const { return top || bottom || left || right; }
};

// What every window over an NHWC input has (CONV_2D's and TRANSPOSE_CONV's geometry).
struct WindowDims {
  int64_t batch = 0, in_h = 0, in_w = 0, channels = 0;  // the input (a convolution's: before the folded PAD)
  int64_t out_h = 0, out_w = 0;
  int kh = 1, kw = 1;
};

struct ConvGeometry : WindowDims {
  ConvParams p;
  int64_t pad_top = 0, pad_left = 0;  // the convolution's own (SAME) zero padding
  FoldedPad fold;
  // Non-zero: the input holds only this many rows, input row y at row y % ring_rows
  // (a ring buffer refilled as a depth-first chain moves down the image; batch 1).
  int64_t ring_rows = 0;
  int64_t pixels() const { return batch * out_h * out_w; }
  int taps() const { return kh * kw; }
  bool dense() const;
};

// Whether `input` is 4-D (NHWC) with offsets that fit the int32 indirection
// offsets; else false, and *error says so of `what` ("convolution").
bool indexable_nhwc(const Shape& input, const std::string& what, std::string* error);

// The input's sizes and a kh x kw window (the output's are left 0), or nothing
// if `input` is not indexable_nhwc.
std::optional<WindowDims> window_dims(const Shape& input, int kh, int kw, const std::string& what,
                                      std::string* error);

// The geometry of a kh x kw convolution of an NHWC `input` (0 output rows or
// columns where no window fits: a VALID window over a smaller input), or
// nothing (and *error) if the input is not NHWC or a stride, dilation or window
// is below 1.
std::optional<ConvGeometry> conv_geometry(const Shape& input, int kh, int kw, const ConvParams& p,
                                          const FoldedPad& fold, std::string* error);

// The input rows [first, last) that output rows [y0, y1) read (clipped to the
// input; empty where only padding is read). Batch 1, constant padding.
struct RowRange {
  int64_t first, last;
};
RowRange input_rows(const ConvGeometry& g, int64_t y0, int64_t y1);

// Where tap t of output pixel p reads, for every pixel: offsets[p * taps + t]
// is an input offset in floats, or kZeroRow / kPadRow. Computed once per shape.
constexpr int32_t kZeroRow = -1;  // outside the padded tensor: the convolution's zero padding
constexpr int32_t kPadRow = -2;   // inside a constant PAD
// Empty when the geometry is dense (1x1, stride 1, no padding: pixel p reads pixel p).
std::vector<int32_t> conv_offsets(const ConvGeometry& g);

// Indirection rows of every output pixel: rows[p * taps + t] points at the
// `channels` input floats that tap t of pixel p reads (conv_offsets(g) into
// `input`, else zero_row or pad_row), computed without the offsets table.
void conv_indirection(const ConvGeometry& g, const float* input, const float* zero_row, const float* pad_row,
                      const float** rows);

// The same per filter row (kh rows per output pixel): rows[i] points at filter
// row i's first tap where its kw taps lie one after another in the input (or
// kw is 1), else is null, and its kw tap pointers (as conv_indirection's) are
// appended to `patched`.
void conv_filter_rows(const ConvGeometry& g, const float* input, const float* zero_row, const float* pad_row,
                      const float** rows, std::vector<const float*>* patched);

}  // namespace fd
