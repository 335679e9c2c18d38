// 4 float lanes, AArch64 NEON with FMA. Same API as vec_scalar.h.
#pragma once

#include <arm_neon.h>

namespace fd::simd {

struct F32x4 {
  static constexpr int W = 4;
  float32x4_t v;
  static F32x4 load(const float* p) { return {vld1q_f32(p)}; }
  static F32x4 load_tail(const float* p, int n) {
    float buf[4] = {0.f, 0.f, 0.f, 0.f};
    for (int i = 0; i < n; ++i) buf[i] = p[i];
    return {vld1q_f32(buf)};
  }
  void store(float* p) const { vst1q_f32(p, v); }
  void store_tail(float* p, int n) const {
    float buf[4];
    vst1q_f32(buf, v);
    for (int i = 0; i < n; ++i) p[i] = buf[i];
  }
  static F32x4 splat(float x) { return {vdupq_n_f32(x)}; }
};
struct M4 { uint32x4_t m; };

inline F32x4 operator+(F32x4 a, F32x4 b) { return {vaddq_f32(a.v, b.v)}; }
inline F32x4 operator-(F32x4 a, F32x4 b) { return {vsubq_f32(a.v, b.v)}; }
inline F32x4 operator*(F32x4 a, F32x4 b) { return {vmulq_f32(a.v, b.v)}; }
inline F32x4 operator/(F32x4 a, F32x4 b) { return {vdivq_f32(a.v, b.v)}; }
inline F32x4 operator-(F32x4 a) { return {vnegq_f32(a.v)}; }
inline F32x4 fma(F32x4 a, F32x4 b, F32x4 c) { return {vfmaq_f32(c.v, a.v, b.v)}; }
// Written as compare+select to keep x86 semantics (second operand if NaN).
inline F32x4 max(F32x4 a, F32x4 b) { return {vbslq_f32(vcgtq_f32(a.v, b.v), a.v, b.v)}; }
inline F32x4 min(F32x4 a, F32x4 b) { return {vbslq_f32(vcltq_f32(a.v, b.v), a.v, b.v)}; }
inline F32x4 abs(F32x4 a) { return {vabsq_f32(a.v)}; }
inline F32x4 sqrt(F32x4 a) { return {vsqrtq_f32(a.v)}; }
inline F32x4 floor(F32x4 a) { return {vrndmq_f32(a.v)}; }
inline F32x4 round(F32x4 a) { return {vrndnq_f32(a.v)}; }
inline M4 operator<(F32x4 a, F32x4 b) { return {vcltq_f32(a.v, b.v)}; }
inline M4 operator<=(F32x4 a, F32x4 b) { return {vcleq_f32(a.v, b.v)}; }
inline M4 operator>(F32x4 a, F32x4 b) { return {vcgtq_f32(a.v, b.v)}; }
inline M4 operator==(F32x4 a, F32x4 b) { return {vceqq_f32(a.v, b.v)}; }
inline M4 operator&(M4 a, M4 b) { return {vandq_u32(a.m, b.m)}; }
inline M4 operator|(M4 a, M4 b) { return {vorrq_u32(a.m, b.m)}; }
inline F32x4 select(M4 m, F32x4 a, F32x4 b) { return {vbslq_f32(m.m, a.v, b.v)}; }
inline F32x4 neg_abs(F32x4 a) {
  return {vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(a.v), vdupq_n_u32(0x80000000u)))};
}
inline F32x4 select_negative(F32x4 x, F32x4 a, F32x4 b) {
  return {vbslq_f32(vreinterpretq_u32_s32(vshrq_n_s32(vreinterpretq_s32_f32(x.v), 31)), a.v, b.v)};
}
inline bool all(M4 m) { return vminvq_u32(m.m) != 0; }
inline F32x4 pow2i(F32x4 n) {
  const int32x4_t e = vaddq_s32(vcvtnq_s32_f32(n.v), vdupq_n_s32(127));
  return {vreinterpretq_f32_s32(vshlq_n_s32(e, 23))};
}
// 2^n from t = n + 127 + 1.5 * 2^23 (n in [-126, 127]): t's low bits, shifted into the exponent.
inline F32x4 pow2_biased(F32x4 t) { return {vreinterpretq_f32_u32(vshlq_n_u32(vreinterpretq_u32_f32(t.v), 23))}; }
inline F32x4 exponent(F32x4 x) {
  const uint32x4_t e = vandq_u32(vshrq_n_u32(vreinterpretq_u32_f32(x.v), 23), vdupq_n_u32(0xff));
  return {vcvtq_f32_s32(vsubq_s32(vreinterpretq_s32_u32(e), vdupq_n_s32(127)))};
}
inline F32x4 mantissa(F32x4 x) {
  const uint32x4_t m = vandq_u32(vreinterpretq_u32_f32(x.v), vdupq_n_u32(0x007fffff));
  return {vreinterpretq_f32_u32(vorrq_u32(m, vdupq_n_u32(0x3f800000)))};
}

}  // namespace fd::simd
