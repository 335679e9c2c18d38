// The sparse GEMM micro-kernel (gemm.h: SpmmMicroKernel), written once over
// the vector API and instantiated per ISA, and the moves of its rows in and
// out. Each of the kSpmmRows rows is one lane, so every ISA sums each output
// in the same order: results identical.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/gemm.h"

namespace fd::simd {

// Per column: four accumulators, one per depth of a group (four independent
// fma chains), then start + ((0 + 1) + (2 + 3)), start the bias or acc.
template <class V>
void spmm_microkernel(int cols, const int32_t* first, const int32_t* depth, const float* values, const float* bias,
                      const float* at, float* acc) {
  constexpr int NV = kSpmmRows / V::W;
  for (int o = 0; o < cols; ++o, acc += kSpmmRows) {
    V lane[4][NV];
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v)
      for (int j = 0; j < 4; ++j) lane[j][v] = V::splat(0.f);
    for (int32_t g = first[o]; g < first[o + 1]; ++g) {
      const float* x = at + static_cast<size_t>(depth[g]) * kSpmmRows;
      const float* w = values + 4 * static_cast<size_t>(g);
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        const V wj = V::splat(w[j]);
#pragma GCC unroll 16
        for (int v = 0; v < NV; ++v) lane[j][v] = fma(V::load(x + j * kSpmmRows + v * V::W), wj, lane[j][v]);
      }
    }
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) {
      const V start = bias ? V::splat(bias[o]) : V::load(acc + v * V::W);
      (start + ((lane[0][v] + lane[1][v]) + (lane[2][v] + lane[3][v]))).store(acc + v * V::W);
    }
  }
}

// Rows and columns move between layouts in 8x8 blocks of GCC vectors, which
// each ISA's build lowers to its own shuffles (exact: data movement only).
// Internal to each ISA's file (built with its own flags), as are the
// templates instantiated with its vector type.
namespace {

using Float8 = float __attribute__((vector_size(32)));

// Through pointers: 32-byte vectors passed by value would take another ABI in
// the builds without AVX.
inline void load8(const float* p, Float8* v) { std::memcpy(v, p, sizeof *v); }

inline void store8(float* p, const Float8* v) { std::memcpy(p, v, sizeof *v); }

// r[i][j] becomes r[j][i].
inline void transpose8(Float8 (&r)[8]) {
  Float8 t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = __builtin_shufflevector(r[i], r[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    t[i + 1] = __builtin_shufflevector(r[i], r[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
  for (int i = 0; i < 8; i += 4)
    for (int h = 0; h < 2; ++h) {
      u[i + h * 2] = __builtin_shufflevector(t[i + h], t[i + h + 2], 0, 1, 8, 9, 4, 5, 12, 13);
      u[i + h * 2 + 1] = __builtin_shufflevector(t[i + h], t[i + h + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    }
  for (int j = 0; j < 4; ++j) {
    r[j] = __builtin_shufflevector(u[j], u[j + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    r[j + 4] = __builtin_shufflevector(u[j], u[j + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

// Clamped to [lo, hi]; a NaN stays NaN, as in the GEMM kernels.
inline void clamp8(Float8* v, const Float8* lo, const Float8* hi) {
  *v = *v < *lo ? *lo : *v;
  *v = *v > *hi ? *hi : *v;
}

}  // namespace

// at[d * kSpmmRows + r] = depth d of row r (gemm.h: SpmmPackRows).
template <class V>
void spmm_pack_rows(const float* const* rows, int m, int taps, int kc, int k4, float* at) {
  for (int r0 = 0; r0 < kSpmmRows; r0 += 8)
    for (int t = 0; t < taps; ++t) {
      const float* src[8];
      for (int r = 0; r < 8; ++r) src[r] = r0 + r < m ? rows[(r0 + r) * taps + t] : nullptr;
      float* dst = at + static_cast<size_t>(t) * kc * kSpmmRows + r0;
      int i = 0;
      for (; i + 8 <= kc; i += 8) {
        Float8 v[8];
        for (int r = 0; r < 8; ++r) {
          v[r] = Float8{};
          if (src[r]) load8(src[r] + i, &v[r]);
        }
        transpose8(v);
        for (int j = 0; j < 8; ++j) store8(dst + static_cast<size_t>(i + j) * kSpmmRows, &v[j]);
      }
      for (; i < kc; ++i)
        for (int r = 0; r < 8; ++r) dst[static_cast<size_t>(i) * kSpmmRows + r] = src[r] ? src[r][i] : 0.f;
    }
  for (int d = taps * kc; d < k4; ++d)
    for (int r = 0; r < kSpmmRows; ++r) at[static_cast<size_t>(d) * kSpmmRows + r] = 0.f;
}

// C[r][o] = acc[o * kSpmmRows + r] clamped (gemm.h: SpmmStore).
template <class V>
void spmm_store(const float* acc, int m, int cols, float* c, size_t ldc, float lo, float hi) {
  const Float8 vlo = Float8{} + lo, vhi = Float8{} + hi;
  int o = 0;
  for (; o + 8 <= cols; o += 8)
    for (int r0 = 0; r0 < m; r0 += 8) {
      Float8 v[8];
      for (int j = 0; j < 8; ++j) load8(acc + static_cast<size_t>(o + j) * kSpmmRows + r0, &v[j]);
      transpose8(v);
      for (int r = 0; r < 8 && r0 + r < m; ++r) {
        clamp8(&v[r], &vlo, &vhi);
        store8(c + (r0 + r) * ldc + o, &v[r]);
      }
    }
  for (; o < cols; ++o)
    for (int r = 0; r < m; ++r) {
      const float y = acc[static_cast<size_t>(o) * kSpmmRows + r];
      c[r * ldc + o] = y < lo ? lo : y > hi ? hi : y;
    }
}

}  // namespace fd::simd
