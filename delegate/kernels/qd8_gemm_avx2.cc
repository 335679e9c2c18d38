// qd8 GEMM for avx2: 6 rows x 8 columns on int16 panels and int16 rows. AVX2
// has no int8 dot product: each row's group of 4 depths (int16, 8 bytes) is
// broadcast over 4 column slots by the load itself, and vpmaddwd against 4
// columns x 4 depths of weights gives each column 2 int32 partial sums (|a|,
// |w| <= 128: a pair sums to at most 2^15, no saturation), folded by vphaddd
// at the end. (Rows of int8 widened per group cost 18% more: one more uop per
// row and group.) With AVX-VNNI (Intel's client cores without AVX-512): int8
// rows and panels, one vpdpbusd per row, group and 8 columns, as the AVX-512
// VNNI kernel does (rows read as u8 q + 128, the 128 taken back with the zero point).
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/qd8_gemm.h"
#include "kernels/qd8_quantize_row.h"

namespace fd {
namespace {

// Depths 4g .. 4g+3 of a row (int16), [a0 a1 a2 a3] in each 64-bit slot.
inline __m256i broadcast_group(const int16_t* p) {
  int64_t group;
  std::memcpy(&group, p, sizeof group);
  return _mm256_set1_epi64x(group);
}

// Sums of 8 columns from partials over columns 0-3 (lo) and 4-7 (hi).
inline __m256i fold_partials(__m256i lo, __m256i hi) {
  return _mm256_permute4x64_epi64(_mm256_hadd_epi32(lo, hi), 0xD8);
}

// 8 outputs of one row from their int32 sums (qd8_output_value's steps).
inline void store_outputs(__m256i acc, Qd8RowParams row, Qd8PanelTail tail, float* out, int nc, __m256 lo,
                          __m256 hi) {
  const __m256i wsum = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(tail.wsum));
  const __m256i corr = _mm256_sub_epi32(acc, _mm256_mullo_epi32(_mm256_set1_epi32(row.zero_point), wsum));
  const __m256 x = _mm256_cvtepi32_ps(corr), a = _mm256_set1_ps(row.scale), w = _mm256_loadu_ps(tail.scale);
  const __m256 b = _mm256_loadu_ps(tail.bias);
  __m256 y = _mm256_add_ps(_mm256_mul_ps(x, _mm256_mul_ps(w, a)), b);
  y = _mm256_min_ps(hi, _mm256_max_ps(lo, y));
  if (nc == 8) {
    _mm256_storeu_ps(out, y);
    return;
  }
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  _mm256_maskstore_ps(out, _mm256_cmpgt_epi32(_mm256_set1_epi32(nc), lane), y);
}

template <int MR>
void qd8_gemm_avx2(int mr, int nc, int groups, const void* a, size_t lda, const Qd8RowParams* rows,
                   const void* panel, float* out, size_t ldc, float lo, float hi) {
  constexpr int NR = 8;
  const int16_t* w = static_cast<const int16_t*>(panel);
  const int16_t* row[MR];
  qd8_block_rows(a, lda, mr, row);
  __m256i lo_acc[MR], hi_acc[MR];  // columns 0-3 and 4-7 (separate arrays: in registers)
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) lo_acc[r] = hi_acc[r] = _mm256_setzero_si256();
  for (int g = 0; g < groups; ++g, w += NR * kQd8Group) {
    const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
    const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 16));
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m256i x = broadcast_group(row[r] + g * kQd8Group);
      lo_acc[r] = _mm256_add_epi32(lo_acc[r], _mm256_madd_epi16(x, w0));
      hi_acc[r] = _mm256_add_epi32(hi_acc[r], _mm256_madd_epi16(x, w1));
    }
  }
  const Qd8PanelTail tail = qd8_panel_tail(panel, groups, NR, 2);
  const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
  // Compile-time bounds keep the accumulators in registers (a loop to mr
  // made GCC store them to the stack on every depth group).
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
    if (r < mr) store_outputs(fold_partials(lo_acc[r], hi_acc[r]), rows[r], tail, out + r * ldc, nc, vlo, vhi);
}

#define FD_AVXVNNI __attribute__((target("avx2,fma,avxvnni")))

// Depths 4g .. 4g+3 of an int8 row plus 128 (u8, vpdpbusd's operand) in every 32-bit lane.
FD_AVXVNNI inline __m256i broadcast_group_u8(const int8_t* p) {
  int32_t four;
  std::memcpy(&four, p, sizeof four);
  return _mm256_xor_si256(_mm256_set1_epi32(four), _mm256_set1_epi8(static_cast<char>(0x80)));
}

// 6 rows x 16 columns (two vectors of 8): 12 accumulators, 2 weights, 1 row in the 16 registers.
template <int MR>
FD_AVXVNNI void qd8_gemm_avxvnni(int mr, int nc, int groups, const void* rows_a, size_t lda,
                                 const Qd8RowParams* rows, const void* panel, float* out, size_t ldc, float lo,
                                 float hi) {
  constexpr int NR = 16;
  const int8_t* w = static_cast<const int8_t*>(panel);
  const int8_t* row[MR];
  qd8_block_rows(rows_a, lda, mr, row);
  __m256i acc0[MR], acc1[MR];  // columns 0-7 and 8-15
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) acc0[r] = acc1[r] = _mm256_setzero_si256();
  for (int g = 0; g < groups; ++g, w += NR * kQd8Group) {
    const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
    const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 32));
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m256i x = broadcast_group_u8(row[r] + g * kQd8Group);
      acc0[r] = _mm256_dpbusd_avx_epi32(acc0[r], x, w0);
      acc1[r] = _mm256_dpbusd_avx_epi32(acc1[r], x, w1);
    }
  }
  const Qd8PanelTail tail = qd8_panel_tail(panel, groups, NR, 1);
  const Qd8PanelTail upper{tail.wsum + 8, tail.scale + 8, tail.bias + 8};
  const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
    if (r < mr) {
      const Qd8RowParams shifted{rows[r].scale, rows[r].zero_point + 128};
      store_outputs(acc0[r], shifted, tail, out + r * ldc, std::min(nc, 8), vlo, vhi);
      if (nc > 8) store_outputs(acc1[r], shifted, upper, out + r * ldc + 8, nc - 8, vlo, vhi);
    }
}

// Round half away from zero of |t| < 2^23, as qd8_quantize_value: whole floats.
inline __m256 round_half_away_ps(__m256 t) {
  const __m256 sign = _mm256_set1_ps(-0.f);
  const __m256 mag = _mm256_andnot_ps(sign, t);
  const __m256 whole = _mm256_round_ps(mag, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __m256 up = _mm256_and_ps(_mm256_cmp_ps(_mm256_sub_ps(mag, whole), _mm256_set1_ps(0.5f), _CMP_GE_OQ),
                                  _mm256_set1_ps(1.f));
  return _mm256_or_ps(_mm256_add_ps(whole, up), _mm256_and_ps(t, sign));
}

// 8 values x * inv, clamped to [-128 - zp, 127 - zp] and rounded: q - zp.
// (Whole bounds: clamping before rounding equals qd8_quantize_value's clamp after.)
inline __m256 centered(const float* x, float inv, int32_t zp) {
  const __m256 t = _mm256_mul_ps(_mm256_loadu_ps(x), _mm256_set1_ps(inv));
  const __m256 lo = _mm256_set1_ps(static_cast<float>(-128 - zp)), hi = _mm256_set1_ps(static_cast<float>(127 - zp));
  return round_half_away_ps(_mm256_min_ps(hi, _mm256_max_ps(lo, t)));
}

struct Avx2RowOps {
  static constexpr int W = 8;
  // Four pairs of accumulators over 32 floats at a time (one pair waits on
  // its min/max latency; a whole image is a long row).
  static void min_max(int k, const float* x, float* lo, float* hi) {
    __m256 mins[4], maxs[4];
    for (int j = 0; j < 4; ++j) mins[j] = maxs[j] = _mm256_setzero_ps();
    int i = 0;
    for (; i + 32 <= k; i += 32)
      for (int j = 0; j < 4; ++j) {
        mins[j] = _mm256_min_ps(mins[j], _mm256_loadu_ps(x + i + 8 * j));
        maxs[j] = _mm256_max_ps(maxs[j], _mm256_loadu_ps(x + i + 8 * j));
      }
    for (; i < k; i += 8) {
      mins[0] = _mm256_min_ps(mins[0], _mm256_loadu_ps(x + i));
      maxs[0] = _mm256_max_ps(maxs[0], _mm256_loadu_ps(x + i));
    }
    const __m256 vmin = _mm256_min_ps(_mm256_min_ps(mins[0], mins[1]), _mm256_min_ps(mins[2], mins[3]));
    const __m256 vmax = _mm256_max_ps(_mm256_max_ps(maxs[0], maxs[1]), _mm256_max_ps(maxs[2], maxs[3]));
    float lanes_min[8], lanes_max[8];
    _mm256_storeu_ps(lanes_min, vmin);
    _mm256_storeu_ps(lanes_max, vmax);
    *lo = *std::min_element(lanes_min, lanes_min + 8);
    *hi = *std::max_element(lanes_max, lanes_max + 8);
  }
  // 8 values to int8 at q (the AVX-VNNI kernel's rows).
  static void convert(const float* x, float inv, int32_t zp, int8_t* q) {
    const __m256i i32 = _mm256_add_epi32(_mm256_cvttps_epi32(centered(x, inv, zp)), _mm256_set1_epi32(zp));
    const __m128i i16 = _mm_packs_epi32(_mm256_castsi256_si128(i32), _mm256_extracti128_si256(i32, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(q), _mm_packs_epi16(i16, i16));
  }
  // 8 values to int16 at q.
  static void convert(const float* x, float inv, int32_t zp, int16_t* q) {
    const __m256i i32 = _mm256_add_epi32(_mm256_cvttps_epi32(centered(x, inv, zp)), _mm256_set1_epi32(zp));
    // Quadwords 0 and 2 hold values 0-3 and 4-7.
    const __m256i i16 = _mm256_permute4x64_epi64(_mm256_packs_epi32(i32, i32), 0x08);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q), _mm256_castsi256_si128(i16));
  }
  // 8 values as floats q - zp.
  static void convert_centered(const float* x, float inv, int32_t zp, float* out) {
    _mm256_storeu_ps(out, centered(x, inv, zp));
  }
};

}  // namespace

const Qd8GemmKernel& qd8_gemm_kernel_avx2() {
  static const Qd8GemmKernel kernel{"qd8_gemm_6x8_avx2", 6, 8, 2, 2,
                                    &qd8_walk_panels<&qd8_gemm_avx2<6>, 8, 2>,
                                    &qd8_quantize_row<Avx2RowOps, int16_t>,
                                    &qd8_quantize_row_centered<Avx2RowOps>};
  return kernel;
}

const Qd8GemmKernel& qd8_gemm_kernel_avxvnni() {
  static const Qd8GemmKernel kernel{"qd8_gemm_6x16_avxvnni", 6, 16, 1, 1,
                                    &qd8_walk_panels<&qd8_gemm_avxvnni<6>, 16, 1>,
                                    &qd8_quantize_row<Avx2RowOps, int8_t>,
                                    &qd8_quantize_row_centered<Avx2RowOps>};
  return kernel;
}

}  // namespace fd
