// Dynamic-range int8 ("qd8") GEMM: float activations quantized per row on the
// fly, int8 weights with a float scale per output channel (TFLite's
// Optimize.DEFAULT without a representative dataset; XNNPACK's qd8-f32-qc8w).
//
// Row quantization (TFLite's tensor_utils::AsymmetricQuantizeFloats, which we
// follow; XNNPACK's qd8 conversion computes the same in float and rounds half
// to even). For a row x[0..k):
//   rmin = min(0, min x), rmax = max(0, max x)            (0 is always in range)
//   rmin == rmax: scale 1, zero point 0, every q 0.
//   else, in double: s = float(rmax - rmin) / 255 (the range as a float: the
//   LiteRT 2.x builtin kernels' scales agree so, not with the range in double);
//   the zero point from the end with
//   the smaller error, zp = -128 - rmin / s  if 128 + |rmin / s| < 127 + |rmax / s|,
//   else zp = 127 - rmax / s; nudged: <= -128 -> -128, >= 127 -> 127, else
//   round half away from zero. scale = float(s), inv = 1.0f / scale.
//   q[i] = clamp(round_half_away(x[i] * inv) + zp, -128, 127): the product in
//   float, rounded, then the zero point added (TFLite's vector kernel, NEON or
//   NEON_2_SSE, rounds before it adds; with the sum in float a value within a
//   rounding of .5 could land on the other side),
//   one multiply, one add (no fma), so every ISA quantizes bit for bit alike.
// The parameters are computed by scalar code (qd8_row_params) for every ISA; the
// per-ISA kernels find the row's min and max and convert it.
//
// GEMM: A float [m, k] row-major; W int8 [n, k] (symmetric, zero point 0),
// w_scale float [n]; bias float [n] (may be null: 0).
//   acc[i][j]  = sum_k a_q[i][k] * w_q[j][k]                         (int32, exact)
//   corr[i][j] = acc[i][j] - a_zp[i] * wsum[j], wsum[j] = sum_k w_q[j][k]
//              = sum_k (a_q[i][k] - a_zp[i]) * w_q[j][k]             (exact in int32
//                for k <= kQd8MaxDepth: |a_q - zp| <= 255, |w| <= 128)
//   out[i][j]  = clamp(float(corr) * (w_scale[j] * a_scale[i]) + bias[j], lo, hi)
//   the scales multiplied first, then two roundings (no fma), as TFLite's hybrid
//   FULLY_CONNECTED and CONV_2D (HybridConvPerChannel's Eigen expression) do:
//   LiteRT 2.3 and TF 2.21 give these floats to the bit.
// float(corr) rounds to nearest even; the float steps are the same on every ISA,
// so all ISAs give bit-identical outputs from the same quantized rows.
//
// Layouts. Quantized rows: int8, or widened to int16 (x86: broadcast straight
// into vpmaddwd), k padded with zeros to a multiple of 4 (kQd8Group).
// Packed weights, per panel of nr output columns: for each group of 4 depths, nr
// columns of 4 consecutive depths (column j's w[j][4g .. 4g+3]), as int8 or
// widened to int16 (x86: vpmaddwd reads int16 pairs), zero past k and past n;
// then int32 wsum[nr], float w_scale[nr], float bias[nr] (zeros past n).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace fd {

constexpr int kQd8Group = 4;            // depths per packed group
constexpr int kQd8MaxDepth = 1 << 16;   // k bound for exact int32 accumulation

struct Qd8RowParams {
  float scale = 1.f;
  int32_t zero_point = 0;
};

// The row parameters from the row's min and max (TFLite's formula, above).
Qd8RowParams qd8_row_params(float min, float max);

// Quantizes one row of k floats into q[0 .. round_up(k, 4)) (int8 or int16 as
// the kernel's row_bytes), the pad zeros.
using Qd8QuantizeRowFn = void (*)(int k, const float* x, void* q, Qd8RowParams* params);

// The same row as floats q - zero point (qd8_quantize_row_centered).
using Qd8QuantizeCenteredFn = void (*)(int k, const float* x, float* out, Qd8RowParams* params);

// An mr x nc block of out (mr <= MR) from the panels it spans, NR columns each
// (qd8_panel_bytes apart): a holds mr quantized rows lda bytes apart (groups =
// padded k / 4), rows their parameters.
using Qd8GemmMicroKernel = void (*)(int mr, int nc, int groups, const void* a, size_t lda,
                                    const Qd8RowParams* rows, const void* panel, float* out, size_t ldc, float lo,
                                    float hi);

struct Qd8GemmKernel {
  const char* name;  // e.g. qd8_gemm_6x8_avx2
  int mr, nr;
  int weight_bytes;  // 1: int8 panels, 2: int16
  int row_bytes;     // 1: int8 quantized rows, 2: int16
  Qd8GemmMicroKernel fn;
  Qd8QuantizeRowFn quantize_row;
  Qd8QuantizeCenteredFn quantize_centered;
};

// Bytes of one panel of nr columns over `groups` depth groups.
inline size_t qd8_panel_bytes(int groups, int nr, int weight_bytes) {
  return static_cast<size_t>(groups) * kQd8Group * nr * weight_bytes + 3 * sizeof(float) * nr;
}

// One value, exactly as every ISA converts it. The product is clamped to
// +-255 first (the result is the same: |zero point| <= 128 and the bounds are
// integers), keeping the rounding within int range. Static (as
// qd8_output_value): each ISA's file keeps its own copy, so no build links
// one compiled for another ISA in its place.
static inline int8_t qd8_quantize_value(float x, float inv_scale, int32_t zero_point) {
  float t = x * inv_scale;
  t = t < -255.f ? -255.f : t > 255.f ? 255.f : t;
  const float a = t < 0 ? -t : t;
  const float f = static_cast<float>(static_cast<int>(a));  // floor: a >= 0
  const float r = a - f >= 0.5f ? f + 1.f : f;                 // half away from zero
  const int32_t q = static_cast<int32_t>(t < 0 ? -r : r) + zero_point;
  return static_cast<int8_t>(q < -128 ? -128 : q > 127 ? 127 : q);
}

// The MR row pointers of a block of mr rows lda bytes apart at a; rows past
// mr reread the last (their sums are never stored). Static: see qd8_quantize_value.
template <int MR, class T>
static inline void qd8_block_rows(const void* a, size_t lda, int mr, const T* (&row)[MR]) {
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
    row[r] = reinterpret_cast<const T*>(static_cast<const char*>(a) + (r < mr ? r : mr - 1) * lda);
}

// The parts of a panel after its weights.
struct Qd8PanelTail {
  const int32_t* wsum;
  const float* scale;
  const float* bias;
};
inline Qd8PanelTail qd8_panel_tail(const void* panel, int groups, int nr, int weight_bytes) {
  const char* p = static_cast<const char*>(panel) + static_cast<size_t>(groups) * kQd8Group * nr * weight_bytes;
  return {reinterpret_cast<const int32_t*>(p), reinterpret_cast<const float*>(p + 4 * nr),
          reinterpret_cast<const float*>(p + 8 * nr)};
}

// Output j of a row from its exact int32 dot product (the float steps above).
static inline float qd8_output_value(int32_t acc, Qd8RowParams row, Qd8PanelTail tail, int j, float lo, float hi) {
  const int32_t corr = acc - row.zero_point * tail.wsum[j];
  const float x = static_cast<float>(corr);
  const float y = x * (tail.scale[j] * row.scale) + tail.bias[j];  // no contraction (-ffp-contract=off)
  return std::min(hi, std::max(lo, y));
}

// An ISA's one-panel kernel K (nc <= NR) run over each panel of nc columns in
// turn, K called directly (inlined): what the tables hold.
template <void (*K)(int, int, int, const void*, size_t, const Qd8RowParams*, const void*, float*, size_t, float,
                    float),
          int NR, int WeightBytes>
void qd8_walk_panels(int mr, int nc, int groups, const void* a, size_t lda, const Qd8RowParams* rows,
                     const void* panel, float* out, size_t ldc, float lo, float hi) {
  const size_t bytes = qd8_panel_bytes(groups, NR, WeightBytes);
  const char* p = static_cast<const char*>(panel);
  for (int c0 = 0; c0 < nc; c0 += NR, p += bytes)
    K(mr, nc - c0 < NR ? nc - c0 : NR, groups, a, lda, rows, p, out + c0, ldc, lo, hi);
}

// Defined in qd8_gemm_<isa>.cc where that ISA is compiled in.
const Qd8GemmKernel& qd8_gemm_kernel_scalar();
const Qd8GemmKernel& qd8_gemm_kernel_avx2();
const Qd8GemmKernel& qd8_gemm_kernel_avxvnni();  // needs AVX-VNNI as well as AVX2
const Qd8GemmKernel& qd8_gemm_kernel_avx512();
const Qd8GemmKernel& qd8_gemm_kernel_avx512vnni();  // needs AVX512-VNNI as well as AVX512BW
const Qd8GemmKernel& qd8_gemm_kernel_neon();

}  // namespace fd
