// Row quantization (qd8_gemm.h) written once over a small per-ISA vector part:
// Ops::W floats at a time, Ops::min_max over a multiple of W (folding into lo and
// hi, which start at 0) and Ops::convert of W values into T (int8_t or int16_t,
// the kernel's rows); the rest is scalar.
#pragma once

#include <algorithm>

#include "kernels/qd8_gemm.h"

namespace fd {

// The row's parameters from its min and max.
template <class Ops>
Qd8RowParams qd8_row_params_of(int k, const float* x) {
  const int full = k / Ops::W * Ops::W;
  float lo = 0.f, hi = 0.f;
  if (full > 0) Ops::min_max(full, x, &lo, &hi);
  for (int i = full; i < k; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  return qd8_row_params(lo, hi);
}

template <class Ops, class T = int8_t>
void qd8_quantize_row(int k, const float* x, void* out, Qd8RowParams* params) {
  T* q = static_cast<T*>(out);
  const int full = k / Ops::W * Ops::W;
  *params = qd8_row_params_of<Ops>(k, x);
  const float inv = 1.f / params->scale;
  const int32_t zp = params->zero_point;
  for (int i = 0; i < full; i += Ops::W) Ops::convert(x + i, inv, zp, q + i);
  int i = full;
  for (; i < k; ++i) q[i] = qd8_quantize_value(x[i], inv, zp);
  for (; i % kQd8Group; ++i) q[i] = 0;
}

// The same values less the zero point, as floats (whole numbers in [-255,
// 255]; Ops::convert_centered): sums of up to 2^24 / (255 * 128) of their
// products with int8 weights are exact in float, in any order.
template <class Ops>
void qd8_quantize_row_centered(int k, const float* x, float* out, Qd8RowParams* params) {
  const int full = k / Ops::W * Ops::W;
  *params = qd8_row_params_of<Ops>(k, x);
  const float inv = 1.f / params->scale;
  const int32_t zp = params->zero_point;
  for (int i = 0; i < full; i += Ops::W) Ops::convert_centered(x + i, inv, zp, out + i);
  for (int i = full; i < k; ++i) out[i] = static_cast<float>(qd8_quantize_value(x[i], inv, zp) - zp);
}

}  // namespace fd
