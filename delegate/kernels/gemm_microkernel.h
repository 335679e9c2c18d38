// The one GEMM, depthwise and pool micro-kernels, each written once over the
// vector API (vec_*.h) and instantiated per ISA with its register blocking.
// Every output starts from its bias and takes one fma per k, in k order, so all
// ISAs compute bit-identical results (or, Sum::kRounded, rounds as TFLite does).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/gemm.h"

namespace fd::simd {

// How a weighted sum rounds. kFused: from the bias, one fma per product.
// kRounded: each product rounded, then added in k order, a GEMM from zero with
// the bias added last, a depthwise from the bias: TFLite's builtin float
// kernels on x86, for the layers whose output a dynamic-range layer quantizes.
enum class Sum : uint8_t { kFused, kRounded };

template <Sum S, class V>
[[gnu::always_inline]] inline V multiply_add(V x, V w, V acc) {
  if constexpr (S == Sum::kFused) return fma(x, w, acc);
  else return acc + x * w;
}

// acc += rows' kc values times one tap's kc x NR weights, one fma per k in k order.
template <class V, int MR, int NV, Sum S>
[[gnu::always_inline]] inline void gemm_accumulate(V (&acc)[MR][NV], const float* const* row, const float* w, int kc,
                                                   const float* next) {
  constexpr int NR = NV * V::W;
#pragma GCC unroll 4
  for (int i = 0; i < kc; ++i) {
    if (next) __builtin_prefetch(next + static_cast<size_t>(i) * 16, 0, 2);
    V wv[NV];
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) wv[v] = V::load(w + static_cast<size_t>(i) * NR + v * V::W);
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const V x = V::splat(row[r][i]);
#pragma GCC unroll 16
      for (int v = 0; v < NV; ++v) acc[r][v] = multiply_add<S>(x, wv[v], acc[r][v]);
    }
  }
}

// MR rows x NV vectors of C from one panel. rows: the MR rows' pointers when
// there is one tap (the caller's, shared by its panels), else null: a's per tap.
template <class V, int MR, int NV, Sum S>
[[gnu::always_inline]] inline void gemm_panel_tile(int mr, int nc, int taps, int kc, const float* const* a,
                                                   const float* const* rows, const float* panel, float* c,
                                                   size_t ldc, V vlo, V vhi, const float* next) {
  constexpr int NR = NV * V::W;
  const float* bias = panel + static_cast<size_t>(taps) * kc * NR;
  V acc[MR][NV];
#pragma GCC unroll 16
  for (int v = 0; v < NV; ++v) {
    const V b = S == Sum::kFused ? V::load(bias + v * V::W) : V::splat(0.f);
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) acc[r][v] = b;
  }
  if (rows) {
    gemm_accumulate<V, MR, NV, S>(acc, rows, panel, kc, next);
  } else {
    for (int t = 0; t < taps; ++t) {
      const float* row[MR];
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) row[r] = a[(r < mr ? r : mr - 1) * taps + t];  // extra rows reread the last
      gemm_accumulate<V, MR, NV, S>(acc, row, panel + static_cast<size_t>(t) * kc * NR, kc,
                                 next ? next + static_cast<size_t>(t) * kc * 16 : nullptr);
    }
  }
  // Stores with compile-time bounds, so the accumulators stay in registers;
  // a partial tile tests its row and column counts per store.
  const bool full = mr == MR && nc >= NR;
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    if (!full && r >= mr) continue;
    float* out = c + r * ldc;
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) {
      const V sum = S == Sum::kFused ? acc[r][v] : acc[r][v] + V::load(bias + v * V::W);
      const V y = min(vhi, max(vlo, sum));
      const int left = nc - v * V::W;
      if (full || left >= V::W) y.store(out + v * V::W);
      else if (left > 0) y.store_tail(out + v * V::W, left);
    }
  }
}

// MR rows x nc columns of C: one panel per NR columns, the panels (taps * kc + 1)
// * NR floats apart (gemm.h's packing), so one call covers a row tile's columns.
// With one tap the rows' pointers are read once for all panels.
template <class V, int MR, int NV, Sum S = Sum::kFused>
void gemm_microkernel(int mr, int nc, int taps, int kc, const float* const* a, const float* panel, float* c,
                      size_t ldc, float lo, float hi, const float* next) {
  constexpr int NR = NV * V::W;
  const V vlo = V::splat(lo), vhi = V::splat(hi);
  const size_t panel_size = (static_cast<size_t>(taps) * kc + 1) * NR;
  const float* row[MR];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) row[r] = a[(r < mr ? r : mr - 1) * taps];  // extra rows reread the last
  const float* const* rows = taps == 1 ? row : nullptr;
  for (int c0 = 0; c0 < nc; c0 += NR, panel += panel_size)
    gemm_panel_tile<V, MR, NV, S>(mr, nc - c0, taps, kc, a, rows, panel, c + c0, ldc, vlo, vhi, next);
}

// One row of C over two full-width panels at once (nc > NR columns, the second
// panel possibly partial): a lone row shares no weight load, so the two
// panels' fma chains hide each other's latency. Per column the same fmas in
// the same order as gemm_panel_tile: results identical.
template <class V, int NV, Sum S>
[[gnu::always_inline]] inline void gemm_row_two_panels(int nc, int taps, int kc, const float* const* a,
                                                       const float* panel, size_t panel_size, float* c, V vlo,
                                                       V vhi) {
  constexpr int NR = NV * V::W;
  const float* panels[2] = {panel, panel + panel_size};
  V acc[2][NV], bias[2][NV];
#pragma GCC unroll 16
  for (int p = 0; p < 2; ++p)
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) {
      bias[p][v] = V::load(panels[p] + static_cast<size_t>(taps) * kc * NR + v * V::W);
      acc[p][v] = S == Sum::kFused ? bias[p][v] : V::splat(0.f);
    }
  for (int t = 0; t < taps; ++t) {
    const float* row = a[t];
    const size_t offset = static_cast<size_t>(t) * kc * NR;
#pragma GCC unroll 4
    for (int i = 0; i < kc; ++i) {
      const V x = V::splat(row[i]);
#pragma GCC unroll 16
      for (int p = 0; p < 2; ++p)
#pragma GCC unroll 16
        for (int v = 0; v < NV; ++v)
          acc[p][v] =
              multiply_add<S>(x, V::load(panels[p] + offset + static_cast<size_t>(i) * NR + v * V::W), acc[p][v]);
    }
  }
#pragma GCC unroll 16
  for (int p = 0; p < 2; ++p)
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) {
      const V y = min(vhi, max(vlo, S == Sum::kFused ? acc[p][v] : acc[p][v] + bias[p][v]));
      const int left = nc - p * NR - v * V::W;
      if (left >= V::W) y.store(c + p * NR + v * V::W);
      else if (left > 0) y.store_tail(c + p * NR + v * V::W, left);
    }
}

// A single row of C (mr 1): panels two at a time, a last one alone.
template <class V, int NV, Sum S = Sum::kFused>
void gemm_row_microkernel(int, int nc, int taps, int kc, const float* const* a, const float* panel, float* c,
                          size_t ldc, float lo, float hi, const float* next) {
  constexpr int NR = NV * V::W;
  const V vlo = V::splat(lo), vhi = V::splat(hi);
  const size_t panel_size = (static_cast<size_t>(taps) * kc + 1) * NR;
  int c0 = 0;
  for (; nc - c0 > NR; c0 += 2 * NR, panel += 2 * panel_size)
    gemm_row_two_panels<V, NV, S>(nc - c0, taps, kc, a, panel, panel_size, c + c0, vlo, vhi);
  if (c0 < nc) gemm_panel_tile<V, 1, NV, S>(1, nc - c0, taps, kc, a, nullptr, panel, c + c0, ldc, vlo, vhi, next);
}

// A GEMM of one row as TFLite's builtin kernel sums it on x86 (Eigen's
// matrix-vector product over SSE packets, no fma): per column, the products
// of the first k - k % 4 depths summed in four lanes by depth mod 4, the
// lanes added as (0 + 2) + (1 + 3), then the last k % 4 products in order,
// then the bias. Panels as gemm_microkernel's; mr is 1.
template <class V, int NV>
void gemm_row_as_builtin_gemv(int, int nc, int taps, int kc, const float* const* a, const float* panel, float* c,
                              size_t, float lo, float hi, const float*) {
  constexpr int NR = NV * V::W;
  const int k = taps * kc, k4 = k - k % 4;
  const size_t panel_size = (static_cast<size_t>(k) + 1) * NR;
  for (int c0 = 0; c0 < nc; c0 += NR, panel += panel_size) {
    V lane[4][NV], sum[NV];
    for (int v = 0; v < NV; ++v)
      for (int q = 0; q < 4; ++q) lane[q][v] = V::splat(0.f);
    for (int j = 0; j < k4; ++j) {
      const V x = V::splat(a[j / kc][j % kc]);
      for (int v = 0; v < NV; ++v)
        lane[j % 4][v] = lane[j % 4][v] + x * V::load(panel + static_cast<size_t>(j) * NR + v * V::W);
    }
    for (int v = 0; v < NV; ++v) sum[v] = (lane[0][v] + lane[2][v]) + (lane[1][v] + lane[3][v]);
    for (int j = k4; j < k; ++j) {
      const V x = V::splat(a[j / kc][j % kc]);
      for (int v = 0; v < NV; ++v) sum[v] = sum[v] + x * V::load(panel + static_cast<size_t>(j) * NR + v * V::W);
    }
    for (int v = 0; v < NV; ++v) {
      const V y = min(V::splat(hi), max(V::splat(lo), sum[v] + V::load(panel + static_cast<size_t>(k) * NR + v * V::W)));
      const int left = nc - c0 - v * V::W;
      if (left >= V::W) y.store(c + c0 + v * V::W);
      else if (left > 0) y.store_tail(c + c0 + v * V::W, left);
    }
  }
}

// A GEMM table of sum S; the rounded one with its one-row builtin order too.
template <class V, int NV, Sum S>
GemmKernel with_builtin_gemv(GemmKernel kernel) {
  if constexpr (S == Sum::kRounded) {
    kernel.fn_gemv = &gemm_row_as_builtin_gemv<V, NV>;
    kernel.fn_gemv_half = &gemm_row_as_builtin_gemv<V, NV / 2>;
  }
  return kernel;
}

// One pixel's block of up to NV vectors of channels from c0 (left of them):
// the bias, then each tap in order, one fma each.
template <class V, int NV, Sum S>
inline void dw_pixel_block(const float* const* in, int taps, int c0, int left, const float* w, float* out, V vlo,
                           V vhi) {
  constexpr int CB = NV * V::W;
  V acc[NV];
  for (int v = 0; v < NV; ++v) acc[v] = V::load(w + static_cast<size_t>(taps) * CB + v * V::W);
  if (left >= CB) {
    for (int t = 0; t < taps; ++t)
      for (int v = 0; v < NV; ++v)
        acc[v] = multiply_add<S>(V::load(in[t] + c0 + v * V::W), V::load(w + t * CB + v * V::W), acc[v]);
    for (int v = 0; v < NV; ++v) min(vhi, max(vlo, acc[v])).store(out + c0 + v * V::W);
    return;
  }
  for (int t = 0; t < taps; ++t)  // a partial block
    for (int v = 0; v < NV && v * V::W < left; ++v) {
      const int n = left - v * V::W < V::W ? left - v * V::W : V::W;
      acc[v] = multiply_add<S>(V::load_tail(in[t] + c0 + v * V::W, n), V::load(w + t * CB + v * V::W), acc[v]);
    }
  for (int v = 0; v < NV && v * V::W < left; ++v) {
    const int n = left - v * V::W < V::W ? left - v * V::W : V::W;
    min(vhi, max(vlo, acc[v])).store_tail(out + c0 + v * V::W, n);
  }
}

// NV vectors of channels per block; taps in order, one fma each.
template <class V, int NV, Sum S = Sum::kFused>
void dw_microkernel(int pixels, int channels, int taps, const float* const* in, const float* packed, float* out,
                    float lo, float hi) {
  constexpr int CB = NV * V::W;
  const size_t block_size = static_cast<size_t>(taps + 1) * CB;
  const V vlo = V::splat(lo), vhi = V::splat(hi);
  for (int p = 0; p < pixels; ++p, in += taps, out += channels) {
    const float* w = packed;
    for (int c0 = 0; c0 < channels; c0 += CB, w += block_size)
      dw_pixel_block<V, NV, S>(in, taps, c0, channels - c0, w, out, vlo, vhi);
  }
}

// P pixels of one full block at a time: each weight vector, loaded once per
// tap, feeds P independent chains (dw_pixel_block's one chain per vector waits
// on the fma latency). The same fmas in the same order: results identical.
template <class V, int NV, int P, Sum S>
inline void dw_pixels_block(const float* const* in, int taps, int channels, int c0, const float* w, float* out, V vlo,
                            V vhi) {
  constexpr int CB = NV * V::W;
  V acc[P][NV];
#pragma GCC unroll 16
  for (int v = 0; v < NV; ++v) {
    const V b = V::load(w + static_cast<size_t>(taps) * CB + v * V::W);
#pragma GCC unroll 16
    for (int q = 0; q < P; ++q) acc[q][v] = b;
  }
  for (int t = 0; t < taps; ++t) {
    V wt[NV];
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) wt[v] = V::load(w + t * CB + v * V::W);
#pragma GCC unroll 16
    for (int q = 0; q < P; ++q) {
      const float* x = in[q * taps + t] + c0;
#pragma GCC unroll 16
      for (int v = 0; v < NV; ++v) acc[q][v] = multiply_add<S>(V::load(x + v * V::W), wt[v], acc[q][v]);
    }
  }
#pragma GCC unroll 16
  for (int q = 0; q < P; ++q)
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) min(vhi, max(vlo, acc[q][v])).store(out + q * channels + c0 + v * V::W);
}

// Depthwise of any window, P pixels at a time (dw_pixels_block); a partial
// channel block and the pixels left over go one pixel at a time.
template <class V, int NV, int P, Sum S = Sum::kFused>
void dw_microkernel_pixels(int pixels, int channels, int taps, const float* const* in, const float* packed,
                           float* out, float lo, float hi) {
  constexpr int CB = NV * V::W;
  const size_t block_size = static_cast<size_t>(taps + 1) * CB;
  const V vlo = V::splat(lo), vhi = V::splat(hi);
  const int full = pixels / P * P;
  for (int p = 0; p < full; p += P, in += P * taps, out += P * channels) {
    const float* w = packed;
    int c0 = 0;
    for (; c0 + CB <= channels; c0 += CB, w += block_size)
      dw_pixels_block<V, NV, P, S>(in, taps, channels, c0, w, out, vlo, vhi);
    for (int q = 0; c0 < channels && q < P; ++q)
      dw_pixel_block<V, NV, S>(in + q * taps, taps, c0, channels - c0, w, out + q * channels, vlo, vhi);
  }
  dw_microkernel<V, NV, S>(pixels - full, channels, taps, in, packed, out, lo, hi);
}

// VG vectors of channels from c on, over all pixels, with their TAPS x VG weights
// (w: the block's packed weights from c on, cb apart per tap) held in registers,
// so the pixel loop loads only inputs. kTail: one vector of n < W channels.
template <class V, int TAPS, int VG, bool kTail, Sum S>
void dw_columns(int pixels, int channels, int c, int n, const float* const* in, const float* w, int cb, float* out,
                V vlo, V vhi) {
  V wt[TAPS][VG], bias[VG];
  for (int v = 0; v < VG; ++v) {
    bias[v] = V::load(w + static_cast<size_t>(TAPS) * cb + v * V::W);
    for (int t = 0; t < TAPS; ++t) wt[t][v] = V::load(w + t * cb + v * V::W);
  }
  for (int p = 0; p < pixels; ++p, in += TAPS, out += channels) {
    V acc[VG];
    for (int v = 0; v < VG; ++v) acc[v] = bias[v];
#pragma GCC unroll 25
    for (int t = 0; t < TAPS; ++t)
      for (int v = 0; v < VG; ++v) {
        const float* x = in[t] + c + v * V::W;
        acc[v] = multiply_add<S>(kTail ? V::load_tail(x, n) : V::load(x), wt[t][v], acc[v]);
      }
    for (int v = 0; v < VG; ++v) {
      const V y = min(vhi, max(vlo, acc[v]));
      if (kTail) y.store_tail(out + c, n);
      else y.store(out + c + v * V::W);
    }
  }
}

// Depthwise for one filter size (3x3: TAPS 9, 5x5: 25) with the weights in
// registers, VG vectors at a time; the same packing and fma order as
// dw_microkernel, so the results are identical. Pixels go in chunks small
// enough that their input rows stay in L1 while every channel group reads them.
template <class V, int NV, int TAPS, int VG, Sum S = Sum::kFused>
void dw_microkernel_taps(int pixels, int channels, int taps, const float* const* in, const float* packed,
                         float* out, float lo, float hi) {
  static_assert(NV % VG == 0, "vector groups tile the channel block");
  constexpr int kChunk = 8;
  if (pixels > kChunk) {
    for (int p = 0; p < pixels; p += kChunk)
      dw_microkernel_taps<V, NV, TAPS, VG, S>(pixels - p < kChunk ? pixels - p : kChunk, channels, taps,
                                           in + static_cast<size_t>(p) * TAPS, packed,
                                           out + static_cast<size_t>(p) * channels, lo, hi);
    return;
  }
  constexpr int CB = NV * V::W;
  const V vlo = V::splat(lo), vhi = V::splat(hi);
  for (int c0 = 0; c0 < channels; c0 += CB) {
    const float* w = packed + static_cast<size_t>(c0 / CB) * (TAPS + 1) * CB;
    for (int v = 0; v < NV; v += VG) {
      const int c = c0 + v * V::W;
      if (channels - c >= VG * V::W) {
        dw_columns<V, TAPS, VG, false, S>(pixels, channels, c, V::W, in, w + v * V::W, CB, out, vlo, vhi);
        continue;
      }
      for (int u = v; u < NV && c0 + u * V::W < channels; ++u) {  // the last vectors, one at a time
        const int cu = c0 + u * V::W, left = channels - cu;
        if (left >= V::W)
          dw_columns<V, TAPS, 1, false, S>(pixels, channels, cu, V::W, in, w + u * V::W, CB, out, vlo, vhi);
        else
          dw_columns<V, TAPS, 1, true, S>(pixels, channels, cu, left, in, w + u * V::W, CB, out, vlo, vhi);
      }
      break;
    }
  }
}

// P pixels' sums of one channel vector, clamped, to their outputs.
template <class V, int P, bool kTail>
inline void dw_store_pixels(const V* acc, float* out, int x0, int channels, int c, int n, V vlo, V vhi) {
  for (int p = 0; p < P; ++p) {
    const V y = min(vhi, max(vlo, acc[p]));
    if (kTail) y.store_tail(out + (x0 + p) * channels + c, n);
    else y.store(out + (x0 + p) * channels + c);
  }
}

// Depthwise KxK at stride ST (1 or 2) along one output row: pixel x's tap
// (r, kx) reads the input that pixel x+1's tap (r, kx-ST) reads, so each input
// vector is loaded once per kernel row and feeds up to K/ST of P outputs in
// registers (the tap kernels load it per tap). Per output the taps still come
// in tap order from the bias: results identical to dw_microkernel.
template <class V, int K, int P, bool kTail, Sum S, int ST>
inline void dw_row_pixels(const float* const* col, int x0, int stride, int c, int n, const V* wt, V bias,
                          float* out, int channels, V vlo, V vhi) {
  V acc[P];
  for (int p = 0; p < P; ++p) acc[p] = bias;
#pragma GCC unroll 8
  for (int r = 0; r < K; ++r) {
    const float* const* cr = col + r * stride + x0 * ST;
#pragma GCC unroll 16
    for (int j = 0; j < ST * (P - 1) + K; ++j) {
      const V x = kTail ? V::load_tail(cr[j] + c, n) : V::load(cr[j] + c);
#pragma GCC unroll 8
      for (int kx = 0; kx < K; ++kx) {
        const int q = j - kx;  // ST times the pixel this tap belongs to
        if (q >= 0 && q % ST == 0 && q / ST < P) acc[q / ST] = multiply_add<S>(x, wt[r * K + kx], acc[q / ST]);
      }
    }
  }
  dw_store_pixels<V, P, kTail>(acc, out, x0, channels, c, n, vlo, vhi);
}

// The same where the K*K weights do not fit the registers (5x5 on AVX2): a
// kernel row's P+K-1 input vectors are held in registers, each tap's weight
// is loaded once for the P pixels. Results identical to dw_row_pixels.
template <class V, int K, int P, bool kTail, Sum S, int ST>
inline void dw_row_pixels_weights_in_l1(const float* const* col, int x0, int stride, int c, int n, const float* w,
                                        int cb, V bias, float* out, int channels, V vlo, V vhi) {
  V acc[P];
  for (int p = 0; p < P; ++p) acc[p] = bias;
#pragma GCC unroll 8
  for (int r = 0; r < K; ++r) {
    const float* const* cr = col + r * stride + x0 * ST;
    V x[ST * (P - 1) + K];
#pragma GCC unroll 16
    for (int j = 0; j < ST * (P - 1) + K; ++j) x[j] = kTail ? V::load_tail(cr[j] + c, n) : V::load(cr[j] + c);
#pragma GCC unroll 8
    for (int kx = 0; kx < K; ++kx) {
      const V wt = V::load(w + (r * K + kx) * cb);
#pragma GCC unroll 16
      for (int p = 0; p < P; ++p) acc[p] = multiply_add<S>(x[p * ST + kx], wt, acc[p]);
    }
  }
  dw_store_pixels<V, P, kTail>(acc, out, x0, channels, c, n, vlo, vhi);
}

// The last left < P pixels of a row in one call of that width: short rows
// (7 or 14 pixels) would otherwise spend most taps one pixel at a time.
template <class V, int K, int P, bool kTail, Sum S, int ST>
inline void dw_row_rest_weights_in_l1(int left, const float* const* col, int x0, int stride, int c, int n,
                                      const float* w, int cb, V bias, float* out, int channels, V vlo, V vhi) {
  if constexpr (P > 1) {
    if (left == P - 1)
      return dw_row_pixels_weights_in_l1<V, K, P - 1, kTail, S, ST>(col, x0, stride, c, n, w, cb, bias, out,
                                                                      channels, vlo, vhi);
    dw_row_rest_weights_in_l1<V, K, P - 1, kTail, S, ST>(left, col, x0, stride, c, n, w, cb, bias, out, channels,
                                                         vlo, vhi);
  }
}

// One vector of channels from c on (kTail: n < W of them) for pixels [x0, x1),
// the weights in registers or (kWeightsInL1) read per tap.
template <class V, int K, int P, bool kTail, bool kWeightsInL1, Sum S, int ST>
void dw_row_vector(int x0, int x1, int channels, int c, int n, const float* const* col, int stride, const float* w,
                   int cb, float* out, V vlo, V vhi) {
  const V bias = V::load(w + K * K * cb);
  if constexpr (kWeightsInL1) {
    for (; x0 + P <= x1; x0 += P)
      dw_row_pixels_weights_in_l1<V, K, P, kTail, S, ST>(col, x0, stride, c, n, w, cb, bias, out, channels, vlo, vhi);
    dw_row_rest_weights_in_l1<V, K, P, kTail, S, ST>(x1 - x0, col, x0, stride, c, n, w, cb, bias, out, channels,
                                                     vlo, vhi);
  } else {
    V wt[K * K];
    for (int t = 0; t < K * K; ++t) wt[t] = V::load(w + t * cb);
    for (; x0 + P <= x1; x0 += P)
      dw_row_pixels<V, K, P, kTail, S, ST>(col, x0, stride, c, n, wt, bias, out, channels, vlo, vhi);
    for (; x0 < x1; ++x0)
      dw_row_pixels<V, K, 1, kTail, S, ST>(col, x0, stride, c, n, wt, bias, out, channels, vlo, vhi);
  }
}

// Input column j of kernel row kr of one output row at stride ST (rows: its
// indirection, K*K per pixel): pixel j / ST's tap j % ST in that row; past the
// last pixel's first ST, its later taps. (width - 1) * ST + K columns.
template <int K, int ST>
inline void column_pointers(const float* const* rows, int kr, int width, const float** col) {
  for (int j = 0; j < width; ++j)
    for (int s = 0; s < ST; ++s) col[j * ST + s] = rows[j * K * K + kr * K + s];
  for (int kx = ST; kx < K; ++kx) col[(width - 1) * ST + kx] = rows[(width - 1) * K * K + kr * K + kx];
}

// `width` consecutive output pixels of one row of a KxK stride-1 undilated
// depthwise convolution, rows as for dw_microkernel (K*K per pixel). Chunks
// of 16 pixels, every channel vector over a chunk before the next: the
// chunk's inputs are read while they are in L1.
template <class V, int CB, int K, int P, bool kWeightsInL1 = false, Sum S = Sum::kFused, int ST = 1>
void dw_row(int width, int channels, const float* const* rows, const float* packed, float* out, float lo,
            float hi) {
  constexpr int T = K * K, kMaxWidth = 64, kChunk = 16;
  for (; width > kMaxWidth; width -= kMaxWidth, rows += kMaxWidth * T, out += kMaxWidth * channels)
    dw_row<V, CB, K, P, kWeightsInL1, S, ST>(kMaxWidth, channels, rows, packed, out, lo, hi);
  constexpr int stride = (kMaxWidth - 1) * ST + K;
  const float* col[K * stride];
  for (int r = 0; r < K; ++r) column_pointers<K, ST>(rows, r, width, col + r * stride);
  const V vlo = V::splat(lo), vhi = V::splat(hi);
  for (int x0 = 0; x0 < width; x0 += kChunk) {
    const int x1 = x0 + kChunk < width ? x0 + kChunk : width;
    for (int c = 0; c < channels; c += V::W) {
      const float* w = packed + static_cast<size_t>(c / CB) * (T + 1) * CB + c % CB;
      if (channels - c >= V::W)
        dw_row_vector<V, K, P, false, kWeightsInL1, S, ST>(x0, x1, channels, c, V::W, col, stride, w, CB, out, vlo,
                                                           vhi);
      else
        dw_row_vector<V, K, P, true, kWeightsInL1, S, ST>(x0, x1, channels, c, channels - c, col, stride, w, CB, out,
                                                          vlo, vhi);
    }
  }
}

// Two consecutive output rows a and b at once: input rows 0..K, a reading
// rows 0..K-1 and b rows 1..K, so each input vector, loaded once, feeds both
// (K+1 rows loaded for two output rows, not 2K). Per output the taps still come
// in tap order: results identical to dw_row_pixels.
template <class V, int K, int P, bool kTail, Sum S>
inline void dw_row2_pixels(const float* const* col, int x0, int stride, int c, int n, const V* wt, V bias,
                           float* out_a, float* out_b, int channels, V vlo, V vhi) {
  V a[P], b[P];
  for (int p = 0; p < P; ++p) a[p] = b[p] = bias;
#pragma GCC unroll 8
  for (int r = 0; r <= K; ++r) {
    const float* const* cr = col + r * stride + x0;
#pragma GCC unroll 16
    for (int j = 0; j < P + K - 1; ++j) {
      const V x = kTail ? V::load_tail(cr[j] + c, n) : V::load(cr[j] + c);
#pragma GCC unroll 8
      for (int kx = 0; kx < K; ++kx) {
        if (j - kx < 0 || j - kx >= P) continue;
        if (r < K) a[j - kx] = multiply_add<S>(x, wt[r * K + kx], a[j - kx]);
        if (r > 0) b[j - kx] = multiply_add<S>(x, wt[(r - 1) * K + kx], b[j - kx]);
      }
    }
  }
  for (int p = 0; p < P; ++p) {
    const V ya = min(vhi, max(vlo, a[p])), yb = min(vhi, max(vlo, b[p]));
    float* oa = out_a + (x0 + p) * channels + c;
    float* ob = out_b + (x0 + p) * channels + c;
    if (kTail) {
      ya.store_tail(oa, n);
      yb.store_tail(ob, n);
    } else {
      ya.store(oa);
      yb.store(ob);
    }
  }
}

// `width` pixels of two consecutive output rows of a KxK stride-1 undilated
// depthwise convolution: rows_a and rows_b as for dw_row, one per output row.
template <class V, int CB, int K, int P, Sum S = Sum::kFused>
void dw_row2(int width, int channels, const float* const* rows_a, const float* const* rows_b, const float* packed,
             float* out_a, float* out_b, float lo, float hi) {
  constexpr int T = K * K, kMaxWidth = 64, kChunk = 16;
  for (; width > kMaxWidth; width -= kMaxWidth, rows_a += kMaxWidth * T, rows_b += kMaxWidth * T,
                            out_a += kMaxWidth * channels, out_b += kMaxWidth * channels)
    dw_row2<V, CB, K, P, S>(kMaxWidth, channels, rows_a, rows_b, packed, out_a, out_b, lo, hi);
  // Input rows 0..K-1 as row a reads them, row K as b's last kernel row.
  constexpr int stride = kMaxWidth + K - 1;
  const float* col[(K + 1) * stride];
  for (int r = 0; r < K; ++r) column_pointers<K, 1>(rows_a, r, width, col + r * stride);
  column_pointers<K, 1>(rows_b, K - 1, width, col + K * stride);
  const V vlo = V::splat(lo), vhi = V::splat(hi);
  for (int x0 = 0; x0 < width; x0 += kChunk) {
    const int x1 = x0 + kChunk < width ? x0 + kChunk : width;
    for (int c = 0; c < channels; c += V::W) {
      const float* w = packed + static_cast<size_t>(c / CB) * (T + 1) * CB + c % CB;
      const int n = channels - c < V::W ? channels - c : V::W;
      V wt[K * K];
      for (int t = 0; t < K * K; ++t) wt[t] = V::load(w + t * CB);
      const V bias = V::load(w + K * K * CB);
      int x = x0;
      if (n == V::W) {
        for (; x + P <= x1; x += P)
          dw_row2_pixels<V, K, P, false, S>(col, x, stride, c, n, wt, bias, out_a, out_b, channels, vlo, vhi);
        for (; x < x1; ++x)
          dw_row2_pixels<V, K, 1, false, S>(col, x, stride, c, n, wt, bias, out_a, out_b, channels, vlo, vhi);
      } else {
        for (; x < x1; ++x)
          dw_row2_pixels<V, K, 1, true, S>(col, x, stride, c, n, wt, bias, out_a, out_b, channels, vlo, vhi);
      }
    }
  }
}

// N vectors of channels from c on (the last one n lanes), max or average over
// the taps in tap order: N independent chains, so long windows (a spatial
// MEAN) are not bound by one add's latency.
template <class V, int N>
void pool_columns(int taps, const float* const* in, int c, int n, const float* count, float* out, V vlo, V vhi) {
  auto load = [&](int t, int j) {
    const float* p = in[t] + c + j * V::W;
    return j == N - 1 && n < V::W ? V::load_tail(p, n) : V::load(p);
  };
  V acc[N];
  for (int j = 0; j < N; ++j) acc[j] = load(0, j);
  for (int t = 1; t < taps; ++t)
    for (int j = 0; j < N; ++j) acc[j] = count ? acc[j] + load(t, j) : max(load(t, j), acc[j]);
  for (int j = 0; j < N; ++j) {
    const V y = min(vhi, max(vlo, count ? acc[j] / V::splat(*count) : acc[j]));
    if (j == N - 1 && n < V::W) y.store_tail(out + c + j * V::W, n);
    else y.store(out + c + j * V::W);
  }
}

// Max or average over the taps, in tap order.
template <class V>
void pool_microkernel(int pixels, int channels, int taps, const float* const* in, const float* count, float* out,
                      float lo, float hi) {
  const V vlo = V::splat(lo), vhi = V::splat(hi);
  for (int p = 0; p < pixels; ++p, in += taps, out += channels) {
    const float* pixel_count = count ? count + p : nullptr;
    int c = 0;
    for (; c + 4 * V::W <= channels; c += 4 * V::W) pool_columns<V, 4>(taps, in, c, V::W, pixel_count, out, vlo, vhi);
    for (; c < channels; c += V::W)
      pool_columns<V, 1>(taps, in, c, channels - c < V::W ? channels - c : V::W, pixel_count, out, vlo, vhi);
  }
}

template <class V>
void interp_microkernel(int pixels, int channels, int taps, const float* const* in, const float* weights,
                        float* out) {
  for (int p = 0; p < pixels; ++p, in += taps, weights += taps, out += channels)
    for (int c = 0; c < channels; c += V::W) {
      const int n = channels - c < V::W ? channels - c : V::W;
      auto load = [&](int t) { return n == V::W ? V::load(in[t] + c) : V::load_tail(in[t] + c, n); };
      V acc = V::splat(weights[0]) * load(0);
      for (int t = 1; t < taps; ++t) acc = fma(V::splat(weights[t]), load(t), acc);
      if (n == V::W) acc.store(out + c);
      else acc.store_tail(out + c, n);
    }
}

}  // namespace fd::simd
