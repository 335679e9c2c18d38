// The one GEMM, depthwise and pool micro-kernels, each written once over the
// vector API (vec_*.h) and instantiated per ISA with its register blocking.
// Every output starts from its bias and takes one fma per k, in k order, so all
// ISAs compute bit-identical results.
#pragma once

#include <cstddef>

#include "gemm.h"

namespace fd::simd {

// MR rows x NV vectors of C.
template <class V, int MR, int NV>
void gemm_microkernel(int mr, int nc, int taps, int kc, const float* const* a, const float* panel, float* c,
                      size_t ldc, float lo, float hi) {
  constexpr int NR = NV * V::W;
  const float* bias = panel + static_cast<size_t>(taps) * kc * NR;
  V acc[MR][NV];
  for (int v = 0; v < NV; ++v) {
    const V b = V::load(bias + v * V::W);
    for (int r = 0; r < MR; ++r) acc[r][v] = b;
  }
  for (int t = 0; t < taps; ++t) {
    const float* row[MR];
    for (int r = 0; r < MR; ++r) row[r] = a[(r < mr ? r : mr - 1) * taps + t];  // extra rows reread the last
    const float* w = panel + static_cast<size_t>(t) * kc * NR;
#pragma GCC unroll 4
    for (int i = 0; i < kc; ++i) {
      V wv[NV];
      for (int v = 0; v < NV; ++v) wv[v] = V::load(w + static_cast<size_t>(i) * NR + v * V::W);
      for (int r = 0; r < MR; ++r) {
        const V x = V::splat(row[r][i]);
        for (int v = 0; v < NV; ++v) acc[r][v] = fma(x, wv[v], acc[r][v]);
      }
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

// NV vectors of channels per block; taps in order, one fma each.
template <class V, int NV>
void dw_microkernel(int pixels, int channels, int taps, const float* const* in, const float* packed, float* out,
                    float lo, float hi) {
  constexpr int CB = NV * V::W;
  const size_t block_size = static_cast<size_t>(taps + 1) * CB;
  const V vlo = V::splat(lo), vhi = V::splat(hi);
  for (int p = 0; p < pixels; ++p, in += taps, out += channels) {
    const float* w = packed;
    for (int c0 = 0; c0 < channels; c0 += CB, w += block_size) {
      const int left = channels - c0;
      V acc[NV];
      for (int v = 0; v < NV; ++v) acc[v] = V::load(w + static_cast<size_t>(taps) * CB + v * V::W);
      if (left >= CB) {
        for (int t = 0; t < taps; ++t)
          for (int v = 0; v < NV; ++v)
            acc[v] = fma(V::load(in[t] + c0 + v * V::W), V::load(w + t * CB + v * V::W), acc[v]);
        for (int v = 0; v < NV; ++v) min(vhi, max(vlo, acc[v])).store(out + c0 + v * V::W);
        continue;
      }
      for (int t = 0; t < taps; ++t)  // the last, partial block
        for (int v = 0; v < NV && v * V::W < left; ++v) {
          const int n = left - v * V::W < V::W ? left - v * V::W : V::W;
          acc[v] = fma(V::load_tail(in[t] + c0 + v * V::W, n), V::load(w + t * CB + v * V::W), acc[v]);
        }
      for (int v = 0; v < NV && v * V::W < left; ++v) {
        const int n = left - v * V::W < V::W ? left - v * V::W : V::W;
        min(vhi, max(vlo, acc[v])).store_tail(out + c0 + v * V::W, n);
      }
    }
  }
}

// Max or average over the taps, in tap order.
template <class V>
void pool_microkernel(int pixels, int channels, int taps, const float* const* in, const float* count, float* out,
                      float lo, float hi) {
  const V vlo = V::splat(lo), vhi = V::splat(hi);
  for (int p = 0; p < pixels; ++p, in += taps, out += channels) {
    for (int c = 0; c < channels; c += V::W) {
      const int n = channels - c < V::W ? channels - c : V::W;
      auto load = [&](int t) { return n == V::W ? V::load(in[t] + c) : V::load_tail(in[t] + c, n); };
      V acc = load(0);
      if (count) {
        for (int t = 1; t < taps; ++t) acc = acc + load(t);
        acc = acc / V::splat(count[p]);
      } else {
        for (int t = 1; t < taps; ++t) acc = max(load(t), acc);
      }
      const V y = min(vhi, max(vlo, acc));
      if (n == V::W) y.store(out + c);
      else y.store_tail(out + c, n);
    }
  }
}

}  // namespace fd::simd
