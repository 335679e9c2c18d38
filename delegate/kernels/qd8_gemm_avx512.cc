// qd8 GEMM for avx512 (needs AVX512BW: cpu.cc picks avx2's kernel without it):
// 8 rows x 16 columns on int16 panels, avx2's scheme at 512 bits (vpmaddwd
// against 8 columns x 4 depths; 2 partial sums per column, folded at the end).
// With AVX512-VNNI: int8 panels, one vpdpbusd per row and group of 4 depths
// (16 columns' 4-depth dot products), the rows read as u8 (q + 128) and the
// 128 taken back with the zero point: the same exact int32 sums.
#include <immintrin.h>

#include <cstring>

#include "kernels/qd8_gemm.h"
#include "kernels/qd8_quantize_row.h"

#define FD_AVX512BW __attribute__((target("avx512f,avx512bw")))
#define FD_AVX512VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))

namespace fd {
namespace {

// Depths 4g .. 4g+3 of a row as int16, [a0 a1 a2 a3] in each 64-bit slot.
FD_AVX512BW inline __m512i broadcast_group(const int8_t* p) {
  return _mm512_cvtepi8_epi16(_mm256_castps_si256(_mm256_broadcast_ss(reinterpret_cast<const float*>(p))));
}

// Sums of 16 columns from partials over columns 0-7 (lo) and 8-15 (hi).
FD_AVX512BW inline __m512i fold_partials(__m512i lo, __m512i hi) {
  const __m256i a = _mm512_cvtepi64_epi32(_mm512_add_epi32(lo, _mm512_srli_epi64(lo, 32)));
  const __m256i b = _mm512_cvtepi64_epi32(_mm512_add_epi32(hi, _mm512_srli_epi64(hi, 32)));
  return _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
}

// 16 outputs of one row from their int32 sums (qd8_output_value's steps).
FD_AVX512BW inline void store_outputs(__m512i acc, Qd8RowParams row, Qd8PanelTail tail, float* out, int nc,
                                      __m512 lo, __m512 hi) {
  const __m512i wsum = _mm512_loadu_si512(tail.wsum);
  const __m512i corr = _mm512_sub_epi32(acc, _mm512_mullo_epi32(_mm512_set1_epi32(row.zero_point), wsum));
  const __m512 x = _mm512_cvtepi32_ps(corr), a = _mm512_set1_ps(row.scale), w = _mm512_loadu_ps(tail.scale);
  const __m512 b = _mm512_loadu_ps(tail.bias);
  const __m512 y = _mm512_add_ps(_mm512_mul_ps(x, _mm512_mul_ps(w, a)), b);
  _mm512_mask_storeu_ps(out, static_cast<__mmask16>((1u << nc) - 1), _mm512_min_ps(hi, _mm512_max_ps(lo, y)));
}

template <int MR>
FD_AVX512BW void qd8_gemm_avx512(int mr, int nc, int groups, const void* rows_a, size_t lda,
                                 const Qd8RowParams* rows, const void* panel, float* out, size_t ldc, float lo,
                                 float hi) {
  constexpr int NR = 16;
  const int16_t* w = static_cast<const int16_t*>(panel);
  const int8_t* row[MR];
  qd8_block_rows(rows_a, lda, mr, row);
  __m512i lo_acc[MR], hi_acc[MR];  // columns 0-7 and 8-15 (separate arrays: in registers)
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) lo_acc[r] = hi_acc[r] = _mm512_setzero_si512();
  for (int g = 0; g < groups; ++g, w += NR * kQd8Group) {
    const __m512i w0 = _mm512_loadu_si512(w), w1 = _mm512_loadu_si512(w + 32);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m512i x = broadcast_group(row[r] + g * kQd8Group);
      lo_acc[r] = _mm512_add_epi32(lo_acc[r], _mm512_madd_epi16(x, w0));
      hi_acc[r] = _mm512_add_epi32(hi_acc[r], _mm512_madd_epi16(x, w1));
    }
  }
  const Qd8PanelTail tail = qd8_panel_tail(panel, groups, NR, 2);
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  // Compile-time bounds keep the accumulators in registers (a loop to mr
  // made GCC store them to the stack on every depth group).
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
    if (r < mr) store_outputs(fold_partials(lo_acc[r], hi_acc[r]), rows[r], tail, out + r * ldc, nc, vlo, vhi);
}

// Depths 4g .. 4g+3 of a row plus 128 (as u8, what vpdpbusd multiplies), in
// every 32-bit lane. (Rows quantized as u8 up front measured no faster.)
FD_AVX512VNNI inline __m512i broadcast_group_u8(const int8_t* p) {
  int32_t four;
  std::memcpy(&four, p, sizeof four);
  return _mm512_xor_si512(_mm512_set1_epi32(four), _mm512_set1_epi8(static_cast<char>(0x80)));
}

// sum (q + 128) w = sum q w + 128 wsum: the zero point taken back is zp + 128.
// NR = 16 P columns: each row's broadcast serves P vectors of 16.
template <int MR, int P>
FD_AVX512VNNI void qd8_gemm_avx512vnni(int mr, int nc, int groups, const void* rows_a, size_t lda,
                                       const Qd8RowParams* rows, const void* panel, float* out, size_t ldc, float lo,
                                       float hi) {
  constexpr int NR = 16 * P;
  const int8_t* w = static_cast<const int8_t*>(panel);
  const int8_t* row[MR];
  qd8_block_rows(rows_a, lda, mr, row);
  __m512i acc[MR][P];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < P; ++v) acc[r][v] = _mm512_setzero_si512();
  for (int g = 0; g < groups; ++g, w += NR * kQd8Group) {
    __m512i wg[P];
#pragma GCC unroll 4
    for (int v = 0; v < P; ++v) wg[v] = _mm512_loadu_si512(w + 64 * v);
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const __m512i x = broadcast_group_u8(row[r] + g * kQd8Group);
#pragma GCC unroll 4
      for (int v = 0; v < P; ++v) acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], x, wg[v]);
    }
  }
  const Qd8PanelTail tail = qd8_panel_tail(panel, groups, NR, 1);
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
    if (r < mr) {
      const Qd8RowParams shifted{rows[r].scale, rows[r].zero_point + 128};
#pragma GCC unroll 4
      for (int v = 0; v < P; ++v) {
        const Qd8PanelTail part{tail.wsum + 16 * v, tail.scale + 16 * v, tail.bias + 16 * v};
        if (nc > 16 * v) store_outputs(acc[r][v], shifted, part, out + r * ldc + 16 * v, std::min(16, nc - 16 * v), vlo, vhi);
      }
    }
}

// AVX512F only (the file's flags): no AVX512BW needed here.
struct Avx512RowOps {
  static constexpr int W = 16;
  static void min_max(int k, const float* x, float* lo, float* hi) {
    __m512 vmin = _mm512_setzero_ps(), vmax = _mm512_setzero_ps();
    for (int i = 0; i < k; i += 16) {
      vmin = _mm512_min_ps(vmin, _mm512_loadu_ps(x + i));
      vmax = _mm512_max_ps(vmax, _mm512_loadu_ps(x + i));
    }
    *lo = _mm512_reduce_min_ps(vmin);
    *hi = _mm512_reduce_max_ps(vmax);
  }
  // 16 values: qd8_quantize_value's (q - zp, then the zero point added).
  static void convert(const float* x, float inv, int32_t zp, int8_t* q) {
    const __m512i i32 = _mm512_add_epi32(_mm512_cvttps_epi32(centered(x, inv, zp)), _mm512_set1_epi32(zp));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q), _mm512_cvtepi32_epi8(i32));
  }
  // 16 values as floats q - zp.
  static void convert_centered(const float* x, float inv, int32_t zp, float* out) {
    _mm512_storeu_ps(out, centered(x, inv, zp));
  }
  // x * inv clamped to [-128 - zp, 127 - zp] (whole bounds: the same as
  // clamping q after rounding), rounded half away from zero (the truncated
  // magnitude plus one where its fraction is >= 0.5): q - zp as whole floats.
  static __m512 centered(const float* x, float inv, int32_t zp) {
    __m512 t = _mm512_mul_ps(_mm512_loadu_ps(x), _mm512_set1_ps(inv));
    t = _mm512_min_ps(_mm512_set1_ps(static_cast<float>(127 - zp)),
                      _mm512_max_ps(_mm512_set1_ps(static_cast<float>(-128 - zp)), t));
    const __m512i sign = _mm512_set1_epi32(INT32_MIN);
    const __m512 mag = _mm512_castsi512_ps(_mm512_andnot_si512(sign, _mm512_castps_si512(t)));
    const __m512 whole = _mm512_roundscale_ps(mag, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __mmask16 up = _mm512_cmp_ps_mask(_mm512_sub_ps(mag, whole), _mm512_set1_ps(0.5f), _CMP_GE_OQ);
    const __m512 r = _mm512_mask_add_ps(whole, up, whole, _mm512_set1_ps(1.f));
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(r), _mm512_and_si512(sign, _mm512_castps_si512(t))));
  }
};

}  // namespace

const Qd8GemmKernel& qd8_gemm_kernel_avx512() {
  static const Qd8GemmKernel kernel{"qd8_gemm_8x16_avx512", 8, 16, 2, 1,
                                    &qd8_walk_panels<&qd8_gemm_avx512<8>, 16, 2>,
                                    &qd8_quantize_row<Avx512RowOps>,
                                    &qd8_quantize_row_centered<Avx512RowOps>};
  return kernel;
}

const Qd8GemmKernel& qd8_gemm_kernel_avx512vnni() {
  static const Qd8GemmKernel kernel{"qd8_gemm_8x32_avx512vnni", 8, 32, 1, 1,
                                    &qd8_walk_panels<&qd8_gemm_avx512vnni<8, 2>, 32, 1>,
                                    &qd8_quantize_row<Avx512RowOps>, &qd8_quantize_row_centered<Avx512RowOps>};
  return kernel;
}

}  // namespace fd
