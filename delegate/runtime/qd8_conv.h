// Dynamic-range int8 CONV_2D as TFLite's hybrid kernel computes it
// (conv.cc EvalHybridPerChannel, HybridConvPerChannel): each image of the
// float input quantized once, asymmetrically, as one row of all its H*W*C
// values (kernels/qd8_gemm.h's row quantization); every output pixel's window
// of quantized values (im2col; a padding tap reads the image's zero point, so
// it adds nothing) is a row of the qd8 GEMM, whose sums are scaled back by the
// product of the channel's and the image's scales (kernels/qd8_gemm.h).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/qd8_gemm_driver.h"

namespace fd {

// The quantized images of one run: value i of the input at values + i * row_bytes.
struct Qd8Images {
  int64_t image_size = 0;  // values per image
  int row_bytes = 1;       // the kernel's rows: 1 int8, 2 int16
  ScratchVector<int8_t> values;
  std::vector<Qd8RowParams> params;  // per image
  ScratchVector<float> centered;      // qd8_quantize_images_centered: q - zp
  const int8_t* at(int64_t i) const { return values.data() + i * row_bytes; }
};

// Quantizes `batch` images of image_size floats each (their storage reused).
void qd8_quantize_images(const Qd8GemmKernel& kernel, int64_t batch, int64_t image_size, const float* input,
                         Qd8Images* images);

// Where output pixels read: taps per pixel, channels per tap, offsets[p * taps
// + t] the input value tap t of pixel p starts at (or kZeroRow / kPadRow:
// padding); no offsets: pixel p reads input pixel p (a dense 1x1).
struct Qd8Windows {
  const int32_t* offsets = nullptr;
  int taps = 1;
  int64_t channels = 0;
  int64_t pixels_per_image = 0;  // output pixels
};

// DEPTHWISE_CONV_2D of int8 weights, as TFLite's hybrid kernel on x86
// (depthwise_conv.cc EvalHybridPerChannel, DepthwiseConvHybridGeneral): per
// output pixel and channel acc = sum of (q - zp) * w over the taps inside the
// image, out = clamp((float(acc) * w_scale) * a_scale + bias) for channels
// four at a time, (float(acc) * a_scale) * w_scale for the last channels % 4,
// no fma. The
// float depthwise kernels compute acc exactly from the centered image
// (qd8_quantize_images_centered) and the weights as floats, zero bias and no
// clamp: every partial sum is an integer below 2^24. Then qd8_dw_output.
struct Qd8DwScales {
  std::vector<float> scale, bias;  // per channel
};

// Quantizes `batch` images of image_size floats each into floats q - zp
// (images->centered; images->params per image).
void qd8_quantize_images_centered(const Qd8GemmKernel& kernel, int64_t batch, int64_t image_size, const float* input,
                                  Qd8Images* images);

// `pixels` rows of n sums at out, of one image, made outputs in place.
void qd8_dw_output(const Qd8DwScales& s, Qd8RowParams image, int64_t pixels, int n, float lo, float hi, float* out);

// The GEMM rows of output pixels [first, first + m): read in place where each
// is one whole input pixel of whole groups, else gathered into *rows.
Qd8RowsView qd8_window_rows(const Qd8Images& images, const Qd8Windows& w, int64_t first, int m, Qd8Rows* rows);

}  // namespace fd
