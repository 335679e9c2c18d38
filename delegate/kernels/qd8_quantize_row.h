// Row quantization (qd8_gemm.h) written once over a small per-ISA vector part:
// Ops::W floats at a time, Ops::min_max over a multiple of W (folding into lo and
// hi, which start at 0) and Ops::convert of W values into T (int8_t or int16_t,
// the kernel's rows); the rest is scalar.
#pragma once

#include <algorithm>

#include "kernels/qd8_gemm.h"

namespace fd {

template <class Ops, class T = int8_t>
void qd8_quantize_row(int k, const float* x, void* out, Qd8RowParams* params) {
  T* q = static_cast<T*>(out);
  const int full = k / Ops::W * Ops::W;
  float lo = 0.f, hi = 0.f;
  if (full > 0) Ops::min_max(full, x, &lo, &hi);
  for (int i = full; i < k; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  *params = qd8_row_params(lo, hi);
  const float inv = 1.f / params->scale;
  const int32_t zp = params->zero_point;
  for (int i = 0; i < full; i += Ops::W) Ops::convert(x + i, inv, zp, q + i);
  int i = full;
  for (; i < k; ++i) q[i] = qd8_quantize_value(x[i], inv, zp);
  for (; i % kQd8Group; ++i) q[i] = 0;
}

}  // namespace fd
