// One float lane: the scalar reference every SIMD type is tested against.
// Same API as the SIMD types (see vec_avx512.h for the list); fma is a real
// fused multiply-add so results match the SIMD types bit for bit.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace fd::simd {

struct F32x1 {
  static constexpr int W = 1;
  float v;
  static F32x1 load(const float* p) { return {*p}; }
  static F32x1 load_tail(const float* p, int) { return {*p}; }
  void store(float* p) const { *p = v; }
  void store_tail(float* p, int) const { *p = v; }
  static F32x1 splat(float x) { return {x}; }
};
struct M1 { bool m; };

inline F32x1 operator+(F32x1 a, F32x1 b) { return {a.v + b.v}; }
inline F32x1 operator-(F32x1 a, F32x1 b) { return {a.v - b.v}; }
inline F32x1 operator*(F32x1 a, F32x1 b) { return {a.v * b.v}; }
inline F32x1 operator/(F32x1 a, F32x1 b) { return {a.v / b.v}; }
inline F32x1 operator-(F32x1 a) { return {-a.v}; }
inline F32x1 fma(F32x1 a, F32x1 b, F32x1 c) { return {std::fma(a.v, b.v, c.v)}; }
// x86 semantics: the second operand when either is NaN.
inline F32x1 max(F32x1 a, F32x1 b) { return {a.v > b.v ? a.v : b.v}; }
inline F32x1 min(F32x1 a, F32x1 b) { return {a.v < b.v ? a.v : b.v}; }
inline F32x1 abs(F32x1 a) { return {std::fabs(a.v)}; }
inline F32x1 sqrt(F32x1 a) { return {std::sqrt(a.v)}; }
inline F32x1 floor(F32x1 a) { return {std::floor(a.v)}; }
inline F32x1 round(F32x1 a) { return {std::nearbyint(a.v)}; }  // ties to even
inline M1 operator<(F32x1 a, F32x1 b) { return {a.v < b.v}; }
inline M1 operator<=(F32x1 a, F32x1 b) { return {a.v <= b.v}; }
inline M1 operator>(F32x1 a, F32x1 b) { return {a.v > b.v}; }
inline M1 operator==(F32x1 a, F32x1 b) { return {a.v == b.v}; }
inline M1 operator&(M1 a, M1 b) { return {a.m && b.m}; }
inline M1 operator|(M1 a, M1 b) { return {a.m || b.m}; }
inline F32x1 select(M1 m, F32x1 a, F32x1 b) { return m.m ? a : b; }
inline F32x1 neg_abs(F32x1 a) { return {-std::fabs(a.v)}; }
inline F32x1 select_negative(F32x1 x, F32x1 a, F32x1 b) { return std::signbit(x.v) ? a : b; }
inline bool all(M1 m) { return m.m; }
// 2^n for integer-valued n in [-126, 127] (any other n, NaN too, converts
// without undefined behaviour; callers discard or propagate NaN there).
inline F32x1 pow2i(F32x1 n) {
  const float c = n.v > -127.f ? (n.v < 128.f ? n.v : 128.f) : -127.f;
  const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(c) + 127) << 23;
  float f;
  std::memcpy(&f, &bits, 4);
  return {f};
}
// 2^n from t = n + 127 + 1.5 * 2^23 (n in [-126, 127]): t's low bits, shifted into the exponent.
inline F32x1 pow2_biased(F32x1 t) {
  uint32_t bits;
  std::memcpy(&bits, &t.v, 4);
  bits <<= 23;
  float f;
  std::memcpy(&f, &bits, 4);
  return {f};
}
// For normal x: the unbiased exponent, and the mantissa scaled to [1, 2).
inline F32x1 exponent(F32x1 x) {
  uint32_t bits;
  std::memcpy(&bits, &x.v, 4);
  return {static_cast<float>(static_cast<int32_t>((bits >> 23) & 0xff) - 127)};
}
inline F32x1 mantissa(F32x1 x) {
  uint32_t bits;
  std::memcpy(&bits, &x.v, 4);
  bits = (bits & 0x007fffffu) | 0x3f800000u;
  float f;
  std::memcpy(&f, &bits, 4);
  return {f};
}

}  // namespace fd::simd
