// 8 float lanes, AVX2 + FMA. Same API as vec_scalar.h.
#pragma once

#include <immintrin.h>

namespace fd::simd {

struct F32x8 {
  static constexpr int W = 8;
  __m256 v;
  static __m256i tail_mask(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static F32x8 load(const float* p) { return {_mm256_loadu_ps(p)}; }
  static F32x8 load_tail(const float* p, int n) { return {_mm256_maskload_ps(p, tail_mask(n))}; }
  void store(float* p) const { _mm256_storeu_ps(p, v); }
  void store_tail(float* p, int n) const { _mm256_maskstore_ps(p, tail_mask(n), v); }
  static F32x8 splat(float x) { return {_mm256_set1_ps(x)}; }
};
struct M8 { __m256 m; };

inline F32x8 operator+(F32x8 a, F32x8 b) { return {_mm256_add_ps(a.v, b.v)}; }
inline F32x8 operator-(F32x8 a, F32x8 b) { return {_mm256_sub_ps(a.v, b.v)}; }
inline F32x8 operator*(F32x8 a, F32x8 b) { return {_mm256_mul_ps(a.v, b.v)}; }
inline F32x8 operator/(F32x8 a, F32x8 b) { return {_mm256_div_ps(a.v, b.v)}; }
inline F32x8 operator-(F32x8 a) { return {_mm256_xor_ps(a.v, _mm256_set1_ps(-0.f))}; }
inline F32x8 fma(F32x8 a, F32x8 b, F32x8 c) { return {_mm256_fmadd_ps(a.v, b.v, c.v)}; }
inline F32x8 max(F32x8 a, F32x8 b) { return {_mm256_max_ps(a.v, b.v)}; }
inline F32x8 min(F32x8 a, F32x8 b) { return {_mm256_min_ps(a.v, b.v)}; }
inline F32x8 abs(F32x8 a) { return {_mm256_andnot_ps(_mm256_set1_ps(-0.f), a.v)}; }
inline F32x8 sqrt(F32x8 a) { return {_mm256_sqrt_ps(a.v)}; }
inline F32x8 floor(F32x8 a) { return {_mm256_round_ps(a.v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)}; }
inline F32x8 round(F32x8 a) { return {_mm256_round_ps(a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)}; }
inline M8 operator<(F32x8 a, F32x8 b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ)}; }
inline M8 operator<=(F32x8 a, F32x8 b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LE_OQ)}; }
inline M8 operator>(F32x8 a, F32x8 b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_GT_OQ)}; }
inline M8 operator==(F32x8 a, F32x8 b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_EQ_OQ)}; }
inline M8 operator&(M8 a, M8 b) { return {_mm256_and_ps(a.m, b.m)}; }
inline M8 operator|(M8 a, M8 b) { return {_mm256_or_ps(a.m, b.m)}; }
inline F32x8 select(M8 m, F32x8 a, F32x8 b) { return {_mm256_blendv_ps(b.v, a.v, m.m)}; }
inline F32x8 neg_abs(F32x8 a) { return {_mm256_or_ps(a.v, _mm256_set1_ps(-0.f))}; }
inline F32x8 select_negative(F32x8 x, F32x8 a, F32x8 b) { return {_mm256_blendv_ps(b.v, a.v, x.v)}; }
inline bool all(M8 m) { return _mm256_movemask_ps(m.m) == 0xff; }
inline F32x8 pow2i(F32x8 n) {
  const __m256i e = _mm256_add_epi32(_mm256_cvtps_epi32(n.v), _mm256_set1_epi32(127));
  return {_mm256_castsi256_ps(_mm256_slli_epi32(e, 23))};
}
// 2^n from t = n + 127 + 1.5 * 2^23 (n in [-126, 127]): t's low bits, shifted into the exponent.
inline F32x8 pow2_biased(F32x8 t) { return {_mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(t.v), 23))}; }
inline F32x8 exponent(F32x8 x) {
  const __m256i e = _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(x.v), 23),
                                     _mm256_set1_epi32(0xff));
  return {_mm256_cvtepi32_ps(_mm256_sub_epi32(e, _mm256_set1_epi32(127)))};
}
inline F32x8 mantissa(F32x8 x) {
  const __m256i m = _mm256_and_si256(_mm256_castps_si256(x.v), _mm256_set1_epi32(0x007fffff));
  return {_mm256_castsi256_ps(_mm256_or_si256(m, _mm256_set1_epi32(0x3f800000)))};
}

}  // namespace fd::simd
