// 16 float lanes, AVX-512F. The vector API every ISA provides:
//   W, load, load_tail, store, store_tail, splat; + - * / and unary -;
//   fma(a,b,c) = a*b+c in one rounding; max/min (second operand if NaN);
//   abs, sqrt, floor, round (ties to even); < <= > == giving masks, & | on
//   masks, select(m, a, b); neg_abs (-|a|), select_negative(x, a, b) (a where
//   x's sign bit is set); pow2i, exponent, mantissa for exp/log.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace fd::simd {

struct F32x16 {
  static constexpr int W = 16;
  __m512 v;
  static __mmask16 tail_mask(int n) { return static_cast<__mmask16>((1u << n) - 1); }
  static F32x16 load(const float* p) { return {_mm512_loadu_ps(p)}; }
  static F32x16 load_tail(const float* p, int n) { return {_mm512_maskz_loadu_ps(tail_mask(n), p)}; }
  void store(float* p) const { _mm512_storeu_ps(p, v); }
  void store_tail(float* p, int n) const { _mm512_mask_storeu_ps(p, tail_mask(n), v); }
  static F32x16 splat(float x) { return {_mm512_set1_ps(x)}; }
};
struct M16 { __mmask16 m; };

inline F32x16 operator+(F32x16 a, F32x16 b) { return {_mm512_add_ps(a.v, b.v)}; }
inline F32x16 operator-(F32x16 a, F32x16 b) { return {_mm512_sub_ps(a.v, b.v)}; }
inline F32x16 operator*(F32x16 a, F32x16 b) { return {_mm512_mul_ps(a.v, b.v)}; }
inline F32x16 operator/(F32x16 a, F32x16 b) { return {_mm512_div_ps(a.v, b.v)}; }
inline F32x16 operator-(F32x16 a) {
  return {_mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a.v), _mm512_set1_epi32(INT32_MIN)))};
}
inline F32x16 fma(F32x16 a, F32x16 b, F32x16 c) { return {_mm512_fmadd_ps(a.v, b.v, c.v)}; }
inline F32x16 max(F32x16 a, F32x16 b) { return {_mm512_max_ps(a.v, b.v)}; }
inline F32x16 min(F32x16 a, F32x16 b) { return {_mm512_min_ps(a.v, b.v)}; }
inline F32x16 abs(F32x16 a) {
  return {_mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a.v), _mm512_set1_epi32(INT32_MAX)))};
}
inline F32x16 sqrt(F32x16 a) { return {_mm512_sqrt_ps(a.v)}; }
inline F32x16 floor(F32x16 a) { return {_mm512_roundscale_ps(a.v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)}; }
inline F32x16 round(F32x16 a) { return {_mm512_roundscale_ps(a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)}; }
inline M16 operator<(F32x16 a, F32x16 b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ)}; }
inline M16 operator<=(F32x16 a, F32x16 b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LE_OQ)}; }
inline M16 operator>(F32x16 a, F32x16 b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_GT_OQ)}; }
inline M16 operator==(F32x16 a, F32x16 b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_EQ_OQ)}; }
inline M16 operator&(M16 a, M16 b) { return {static_cast<__mmask16>(a.m & b.m)}; }
inline M16 operator|(M16 a, M16 b) { return {static_cast<__mmask16>(a.m | b.m)}; }
inline F32x16 select(M16 m, F32x16 a, F32x16 b) { return {_mm512_mask_blend_ps(m.m, b.v, a.v)}; }
inline F32x16 neg_abs(F32x16 a) {
  return {_mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(a.v), _mm512_set1_epi32(INT32_MIN)))};
}
inline F32x16 select_negative(F32x16 x, F32x16 a, F32x16 b) {
  return {_mm512_mask_blend_ps(_mm512_cmplt_epi32_mask(_mm512_castps_si512(x.v), _mm512_setzero_si512()), b.v, a.v)};
}
inline bool all(M16 m) { return m.m == 0xffff; }
inline F32x16 pow2i(F32x16 n) {
  const __m512i e = _mm512_add_epi32(_mm512_cvtps_epi32(n.v), _mm512_set1_epi32(127));
  return {_mm512_castsi512_ps(_mm512_slli_epi32(e, 23))};
}
// 2^n from t = n + 127 + 1.5 * 2^23 (n in [-126, 127]): t's low bits, shifted into the exponent.
inline F32x16 pow2_biased(F32x16 t) { return {_mm512_castsi512_ps(_mm512_slli_epi32(_mm512_castps_si512(t.v), 23))}; }
inline F32x16 exponent(F32x16 x) {
  const __m512i e = _mm512_and_si512(_mm512_srli_epi32(_mm512_castps_si512(x.v), 23),
                                     _mm512_set1_epi32(0xff));
  return {_mm512_cvtepi32_ps(_mm512_sub_epi32(e, _mm512_set1_epi32(127)))};
}
inline F32x16 mantissa(F32x16 x) {
  const __m512i m = _mm512_and_si512(_mm512_castps_si512(x.v), _mm512_set1_epi32(0x007fffff));
  return {_mm512_castsi512_ps(_mm512_or_si512(m, _mm512_set1_epi32(0x3f800000)))};
}

// p * 2^n for integer-valued n, rounded once (vscalefps).
inline F32x16 scale2(F32x16 p, F32x16 n) { return {_mm512_scalef_ps(p.v, n.v)}; }

}  // namespace fd::simd
