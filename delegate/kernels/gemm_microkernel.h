// The one GEMM micro-kernel, written over the vector API (vec_*.h) and
// instantiated per ISA with its register blocking: MR rows x NV vectors.
// Every output starts from its bias and takes one fma per k, in k order, so all
// ISAs compute bit-identical results.
#pragma once

#include <cstddef>

#include "gemm.h"

namespace fd::simd {

template <class V, int MR, int NV>
void gemm_microkernel(int mr, int nc, int k, const float* a, size_t lda, const float* panel, float* c,
                      size_t ldc, float lo, float hi) {
  constexpr int NR = NV * V::W;
  const float* row[MR];
  for (int r = 0; r < MR; ++r) row[r] = a + (r < mr ? r : mr - 1) * lda;  // extra rows reread the last
  const float* bias = panel + static_cast<size_t>(k) * NR;
  V acc[MR][NV];
  for (int v = 0; v < NV; ++v) {
    const V b = V::load(bias + v * V::W);
    for (int r = 0; r < MR; ++r) acc[r][v] = b;
  }
#pragma GCC unroll 4
  for (int i = 0; i < k; ++i) {
    V w[NV];
    for (int v = 0; v < NV; ++v) w[v] = V::load(panel + static_cast<size_t>(i) * NR + v * V::W);
    for (int r = 0; r < MR; ++r) {
      const V x = V::splat(row[r][i]);
      for (int v = 0; v < NV; ++v) acc[r][v] = fma(x, w[v], acc[r][v]);
    }
  }
  const V vlo = V::splat(lo), vhi = V::splat(hi);
  for (int r = 0; r < mr; ++r) {
    float* out = c + r * ldc;
    for (int v = 0; v < NV; ++v) {
      const V y = min(vhi, max(vlo, acc[r][v]));
      const int left = nc - v * V::W;
      if (left >= V::W) y.store(out + v * V::W);
      else if (left > 0) y.store_tail(out + v * V::W, left);
    }
  }
}

}  // namespace fd::simd
