#include "runtime/qd8_conv.h"

#include <algorithm>
#include <cstring>

namespace fd {

void qd8_quantize_images(const Qd8GemmKernel& kernel, int64_t batch, int64_t image_size, const float* input,
                         Qd8Images* images) {
  images->image_size = image_size;
  images->row_bytes = kernel.row_bytes;
  // Each image's quantization pads it with zeros to whole groups; the next
  // image, quantized after it, overwrites them.
  images->values.resize(static_cast<size_t>(batch * image_size + kQd8Group) * kernel.row_bytes);
  images->params.resize(batch);
  for (int64_t b = 0; b < batch; ++b)
    kernel.quantize_row(static_cast<int>(image_size), input + b * image_size,
                        images->values.data() + b * image_size * kernel.row_bytes, &images->params[b]);
}

void qd8_quantize_images_centered(const Qd8GemmKernel& kernel, int64_t batch, int64_t image_size, const float* input,
                                  Qd8Images* images) {
  images->image_size = image_size;
  images->centered.resize(static_cast<size_t>(batch * image_size));
  images->params.resize(batch);
  for (int64_t b = 0; b < batch; ++b)
    kernel.quantize_centered(static_cast<int>(image_size), input + b * image_size,
                             images->centered.data() + b * image_size, &images->params[b]);
}

// TFLite's loop takes channels four at a time, scaling (sum * w) * a, and the
// last n % 4 one at a time, (sum * a) * w: the same two orders here.
void qd8_dw_output(const Qd8DwScales& s, Qd8RowParams image, int64_t pixels, int n, float lo, float hi, float* out) {
  const float a = image.scale;
  const int fours = n / 4 * 4;
  for (int64_t p = 0; p < pixels; ++p, out += n)
    for (int c = 0; c < n; ++c) {
      const float y = c < fours ? out[c] * s.scale[c] * a : out[c] * a * s.scale[c];
      out[c] = std::min(hi, std::max(lo, y + s.bias[c]));
    }
}

namespace {

// Row i of rows: pixel first + i's taps one after another, then zeros to whole groups.
template <class T>
void gather_windows(const Qd8Images& images, const Qd8Windows& w, int64_t first, int m, Qd8Rows* rows) {
  const T* values = reinterpret_cast<const T*>(images.values.data());
  const int64_t c = w.channels, padded = static_cast<int64_t>(rows->groups) * kQd8Group;
  for (int i = 0; i < m; ++i) {
    const int64_t p = first + i;
    T* dst = reinterpret_cast<T*>(rows->values.data() + i * rows->stride);
    const T zero_point = static_cast<T>(rows->params[i].zero_point);
    for (int t = 0; t < w.taps; ++t, dst += c) {
      const int64_t at = w.offsets ? w.offsets[p * w.taps + t] : p * c;
      if (at < 0) std::fill(dst, dst + c, zero_point);  // padding: adds nothing
      else std::memcpy(dst, values + at, c * sizeof(T));
    }
    std::fill(dst, dst + (padded - w.taps * c), T(0));
  }
}

}  // namespace

Qd8RowsView qd8_window_rows(const Qd8Images& images, const Qd8Windows& w, int64_t first, int m, Qd8Rows* rows) {
  const int rb = images.row_bytes;
  rows->params.resize(m);
  for (int i = 0; i < m; ++i) rows->params[i] = images.params[(first + i) / w.pixels_per_image];
  if (!w.offsets && w.channels % kQd8Group == 0)  // the pixels themselves
    return {m, images.at(first * w.channels), static_cast<size_t>(w.channels * rb), rows->params.data()};
  rows->m = m;
  rows->groups = static_cast<int>((w.taps * w.channels + kQd8Group - 1) / kQd8Group);
  rows->row_bytes = rb;
  rows->stride = (static_cast<size_t>(rows->groups) * kQd8Group * rb + 63) / 64 * 64;
  rows->values.resize(rows->stride * m);
  if (rb == 2) gather_windows<int16_t>(images, w, first, m, rows);
  else gather_windows<int8_t>(images, w, first, m, rows);
  return {m, rows->values.data(), rows->stride, rows->params.data()};
}

}  // namespace fd
