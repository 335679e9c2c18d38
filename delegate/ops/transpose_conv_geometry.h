// Where TRANSPOSE_CONV reads and writes, as TFLite defines it: input pixel
// (iy, ix) times filter tap (ky, kx) adds to output pixel
// (iy * stride_h - pad_top + ky, ix * stride_w - pad_left + kx) when that lies
// inside the output. The padding is TFLite's for a forward convolution of the
// output's size (ComputePaddingHeightWidth with the output as the image).
//
// Seen from the output, a pixel's phase along an axis, (o + pad) % stride,
// fixes which filter taps reach it: tap j of phase r is filter index
// r + j * stride and reads input coordinate (o + pad) / stride - j. So each
// phase pair is a stride-1 convolution with its own subset of the taps, and
// no multiply-add is wasted on the zeros a dilated input would hold.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ops/conv_geometry.h"

namespace fd {

struct TransposeConvGeometry : WindowDims {
  int stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_left = 0;  // output rows and columns cut off before the first
  int phases() const { return stride_h * stride_w; }
  int row_phase(int64_t oy) const { return static_cast<int>((oy + pad_top) % stride_h); }
  int taps(int ry, int rx) const;  // phase_pair_taps of this filter and stride
};

// The geometry of a kh x kw TRANSPOSE_CONV of an NHWC `input` to `output`
// ([batch, out_h, out_w, channels out]), or nothing (and *error) if the output
// is not the size the input, stride and padding give (the sizes TFLite's
// padding rule reads back as the input's).
std::optional<TransposeConvGeometry> transpose_conv_geometry(const Shape& input, int kh, int kw, const ConvParams& p,
                                                             const Shape& output, std::string* error);

// Filter taps along one axis that phase r reads: r, r + stride, ... below k.
inline int phase_taps(int k, int stride, int r) { return r < k ? (k - 1 - r) / stride + 1 : 0; }

// The taps output phase pair (ry, rx) reads, jy * (taps along W) + jx: a phase
// that no tap reaches (stride above the filter) reads one tap of zeros, so that
// it still gets its bias.
int phase_pair_taps(int kh, int kw, int stride_h, int stride_w, int ry, int rx);

// The first output column of phase rx (its columns are stride_w apart).
int64_t first_column(const TransposeConvGeometry& g, int rx);

// Where each output pixel's taps read, in floats from the input's start, or
// kZeroRow (conv_geometry.h) outside the input. Pixels are ordered by output
// row (batch, oy), then by phase along W, then by column; each has
// phase_pair_taps entries, tap jy * (taps along W) + jx. *row_phase_starts
// gets, per output row and W phase (row * stride_w + rx), the index of its
// first pixel's first tap.
std::vector<int32_t> transpose_conv_offsets(const TransposeConvGeometry& g, std::vector<int64_t>* row_phase_starts);

}  // namespace fd
