// Winograd F(2x2, 3x3) transforms, written once over the vector API and
// instantiated per ISA (include only from a gemm_<isa>.cc). A 3x3 stride-1
// convolution computes each 2x2 block of output pixels from the 4x4 block of
// input pixels under it as Y = A^T [(G g G^T) . (B^T d B)] A: 16 multiplies
// per channel pair where the direct form takes 36. The filter transform
// (G g G^T) is done once (runtime/winograd.cc); the 16 products summed over
// channels are 16 GEMMs, one per position of the 4x4 block.
#pragma once

#include <algorithm>
#include <cstddef>

#include "kernels/ew_math.h"

namespace fd::simd {

// Four values times B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], to o[0], o[s], o[2s], o[3s].
template <class V> inline void winograd_bt(V a0, V a1, V a2, V a3, V* o, int s) {
  o[0] = a0 - a2;
  o[s] = a1 + a2;
  o[2 * s] = a2 - a1;
  o[3 * s] = a1 - a3;
}

// Four values times A^T = [1 1 1 0; 0 1 -1 -1], to o[0], o[s].
template <class V> inline void winograd_at(V a0, V a1, V a2, V a3, V* o, int s) {
  o[0] = a0 + a1 + a2;
  o[s] = a1 - a2 - a3;
}

template <class V> inline V load_n(const float* p, int n) { return n == V::W ? V::load(p) : V::load_tail(p, n); }
template <class V> inline void store_n(V v, float* p, int n) {
  if (n == V::W) v.store(p);
  else v.store_tail(p, n);
}

// B^T d B for one tile: patch[4 * i + j] is input pixel (i, j) of the 4x4
// block (channels floats); position p of the result goes to v + p * pos_stride.
template <class V>
void winograd_input_tile(int channels, const float* const* patch, float* v, size_t pos_stride) {
  for (int c = 0; c < channels; c += V::W) {
    const int n = std::min(V::W, channels - c);
    V d[16], t[16], r[16];
    for (int i = 0; i < 16; ++i) d[i] = load_n<V>(patch[i] + c, n);
    for (int j = 0; j < 4; ++j) winograd_bt(d[j], d[4 + j], d[8 + j], d[12 + j], t + j, 4);
    for (int i = 0; i < 4; ++i) winograd_bt(t[4 * i], t[4 * i + 1], t[4 * i + 2], t[4 * i + 3], r + 4 * i, 1);
    for (int p = 0; p < 16; ++p) store_n(r[p], v + p * pos_stride + c, n);
  }
}

// A^T m A plus bias, clamped, for one tile: position p of m at m + p *
// pos_stride; out[2 * i + j] is output pixel (i, j) of the 2x2 block, or null
// (not written).
template <class V>
void winograd_output_tile(int channels, const float* m, size_t pos_stride, const float* bias, float lo, float hi,
                          float* const* out) {
  for (int c = 0; c < channels; c += V::W) {
    const int n = std::min(V::W, channels - c);
    V x[16], s[8], y[4];
    for (int p = 0; p < 16; ++p) x[p] = load_n<V>(m + p * pos_stride + c, n);
    for (int j = 0; j < 4; ++j) winograd_at(x[j], x[4 + j], x[8 + j], x[12 + j], s + j, 4);
    for (int i = 0; i < 2; ++i) winograd_at(s[4 * i], s[4 * i + 1], s[4 * i + 2], s[4 * i + 3], y + 2 * i, 1);
    const V b = load_n<V>(bias + c, n);
    for (int k = 0; k < 4; ++k)
      if (out[k]) store_n(clamp(y[k] + b, lo, hi), out[k] + c, n);
  }
}

}  // namespace fd::simd
