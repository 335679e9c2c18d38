// The int8 ops of two inputs (ADD in its two forms, SUB, MUL, MAXIMUM,
// MINIMUM) written once over int32 lanes V, so that the scalar reference
// (V = I32x1 below, what q8_eval runs) and each ISA's loop (I32x8, I32x16 in
// q8_<isa>.cc) compute the same integers. A lane type provides:
//   kLanes; load8 (int8 values, sign-extended) and store8 (values within int8);
//   splat; + - * (32-bit, wrapping); shl, sra by a count; min, max;
//   srdhm(x, m): x * m / 2^31 rounded half up (gemmlowp's rounding doubling
//   high multiply, for m >= 0); rdbpot(x, e): x / 2^e rounded half away from
//   zero; narrow16: the low 16 bits, sign-extended; band (bitwise and);
//   any_at_most(x, c): whether a lane is <= c; madd_pair(acc, pair, p): acc
//   plus, per lane l, the int16 pair's dot product with p[2l], p[2l + 1].
#pragma once

#include <cstdint>

#include "kernels/q8_ops.h"

namespace fd {

// One lane: the reference.
struct I32x1 {
  static constexpr int kLanes = 1;
  int32_t v;
  static I32x1 load8(const int8_t* p) { return {*p}; }
  static void store8(int8_t* p, I32x1 x) { *p = static_cast<int8_t>(x.v); }
  static I32x1 splat(int32_t c) { return {c}; }
  static I32x1 shl(I32x1 x, int s) { return {static_cast<int32_t>(static_cast<uint32_t>(x.v) << s)}; }
  static I32x1 sra(I32x1 x, int s) { return {x.v >> s}; }
  static I32x1 min(I32x1 a, I32x1 b) { return {a.v < b.v ? a.v : b.v}; }
  static I32x1 max(I32x1 a, I32x1 b) { return {a.v > b.v ? a.v : b.v}; }
  static I32x1 srdhm(I32x1 x, int32_t m) { return {q8_rounding_doubling_high_mul(x.v, m)}; }
  static I32x1 rdbpot(I32x1 x, int e) { return {q8_rounding_divide_by_pot(x.v, e)}; }
  static I32x1 narrow16(I32x1 x) { return {static_cast<int16_t>(x.v)}; }
  static I32x1 band(I32x1 a, I32x1 b) { return {a.v & b.v}; }
  static I32x1 madd_pair(I32x1 acc, int32_t pair, const int16_t* p) {  // acc + pair's two int16 . p[0..1]
    return {acc.v + static_cast<int16_t>(pair) * p[0] + static_cast<int16_t>(pair >> 16) * p[1]};
  }
  static bool any_at_most(I32x1 x, int32_t c) { return x.v <= c; }
};
inline I32x1 operator+(I32x1 a, I32x1 b) { return {static_cast<int32_t>(static_cast<uint32_t>(a.v) + b.v)}; }
inline I32x1 operator-(I32x1 a, I32x1 b) { return {static_cast<int32_t>(static_cast<uint32_t>(a.v) - b.v)}; }
inline I32x1 operator*(I32x1 a, I32x1 b) { return {static_cast<int32_t>(static_cast<uint32_t>(a.v) * b.v)}; }

// TFLite's MultiplyByQuantizedMultiplier (q8_multiply) on lanes.
template <class V>
inline V q8_multiply_lanes(V x, Q8Multiplier m) {
  const int left = m.shift > 0 ? m.shift : 0, right = m.shift > 0 ? 0 : -m.shift;
  return V::rdbpot(V::srdhm(V::shl(x, left), m.multiplier), right);
}

// An ADD input in TFLite's NEON loop: shifted by left_shift + shift at once
// (a right shift floors), then one rounding.
template <class V>
inline V q8_add_input_blocked(V x, int left_shift, Q8Multiplier m) {
  const int s = left_shift + m.shift;
  return V::srdhm(s >= 0 ? V::shl(x, s) : V::sra(x, -s), m.multiplier);
}

// Op OP's output before its clamp to [p.lo, p.hi] (blocked: ADD's NEON form:
// the sum narrowed to int16, the zero point added there).
template <Q8Op OP, class V>
inline V q8_binary_unclamped(const Q8Prepared& p, V a, V b, bool blocked) {
  if constexpr (OP == Q8Op::Maximum) return V::max(a, b);  // the int8 values themselves, as TFLite
  if constexpr (OP == Q8Op::Minimum) return V::min(a, b);
  const V x = a - V::splat(p.in_zp[0]), y = b - V::splat(p.in_zp[1]);
  if constexpr (OP == Q8Op::Mul) return q8_multiply_lanes(x * y, p.m[0]) + V::splat(p.out_zp);
  if constexpr (OP == Q8Op::SquaredDifference) {  // |difference| < 2^15: its square fits
    const V d = q8_multiply_lanes(V::shl(x, p.left_shift), p.m[0]) - q8_multiply_lanes(V::shl(y, p.left_shift), p.m[1]);
    return q8_multiply_lanes(d * d, p.m[2]) + V::splat(p.out_zp);
  }
  if constexpr (OP == Q8Op::Add || OP == Q8Op::Sub) {
    if (OP == Q8Op::Add && blocked) {
      const V sum = q8_add_input_blocked(x, p.left_shift, p.m[0]) + q8_add_input_blocked(y, p.left_shift, p.m[1]);
      return V::narrow16(q8_multiply_lanes(sum, p.m[2])) + V::splat(p.out_zp);
    }
    const V xs = q8_multiply_lanes(V::shl(x, p.left_shift), p.m[0]);
    const V ys = q8_multiply_lanes(V::shl(y, p.left_shift), p.m[1]);
    return q8_multiply_lanes(OP == Q8Op::Add ? xs + ys : xs - ys, p.m[2]) + V::splat(p.out_zp);
  }
  return a;
}

template <Q8Op OP, class V>
inline V q8_binary_lanes(const Q8Prepared& p, V a, V b, bool blocked) {
  return V::max(V::splat(p.lo), V::min(V::splat(p.hi), q8_binary_unclamped<OP>(p, a, b, blocked)));
}

// ADD or SUB by its linear form (kernels/q8_linear.h) into *y, clamped; false
// (and *y unset) where a lane lies within the form's tolerance of an integer.
template <class V>
inline bool q8_linear_lanes(const Q8Prepared& p, V a, V b, V* y) {
  const Q8Linear& f = p.linear;
  const V z = a * V::splat(f.a) + b * V::splat(f.b) + V::splat(f.z);
  const V fraction = V::band(z + V::splat(f.tolerance), V::splat(static_cast<int32_t>((1u << f.shift) - 1)));
  if (V::any_at_most(fraction, 2 * f.tolerance)) return false;
  *y = V::max(V::splat(p.lo), V::min(V::splat(p.hi), V::sra(z, f.shift)));
  return true;
}

// Values [i, end) of OP, kLanes at a time (ADD and SUB by their linear form
// where it decides), the rest one by one.
template <Q8Op OP, class V>
inline int64_t q8_binary_range(const Q8Prepared& p, const int8_t* a, const int8_t* b, int8_t* y, int64_t i,
                               int64_t end, bool blocked) {
  constexpr bool kLinear = (OP == Q8Op::Add || OP == Q8Op::Sub) && V::kLanes > 1;
  for (; i + V::kLanes <= end; i += V::kLanes) {
    const V x0 = V::load8(a + i), x1 = V::load8(b + i);
    V out;
    if (!(kLinear && p.linear.shift > 0 && q8_linear_lanes(p, x0, x1, &out)))
      out = q8_binary_lanes<OP>(p, x0, x1, blocked);
    V::store8(y + i, out);
  }
  for (; i < end; ++i) I32x1::store8(y + i, q8_binary_lanes<OP>(p, I32x1::load8(a + i), I32x1::load8(b + i), blocked));
  return end;
}

// y[i] = OP(a[i], b[i]), in the blocked form for i < blocked.
template <Q8Op OP, class V>
void q8_binary_loop(const Q8Prepared& p, const int8_t* a, const int8_t* b, int8_t* y, int64_t n, int64_t blocked) {
  q8_binary_range<OP, V>(p, a, b, y, q8_binary_range<OP, V>(p, a, b, y, 0, blocked, true), n, false);
}

// The ISA's loop for a two-input op with lanes V; other ops: q8_eval_n.
template <class V>
void q8_binary(const Q8Prepared& p, const int8_t* a, const int8_t* b, int8_t* y, int64_t n, int64_t blocked) {
  switch (p.op) {
    case Q8Op::Add: return q8_binary_loop<Q8Op::Add, V>(p, a, b, y, n, blocked);
    case Q8Op::Sub: return q8_binary_loop<Q8Op::Sub, V>(p, a, b, y, n, blocked);
    case Q8Op::Mul: return q8_binary_loop<Q8Op::Mul, V>(p, a, b, y, n, blocked);
    case Q8Op::Maximum: return q8_binary_loop<Q8Op::Maximum, V>(p, a, b, y, n, blocked);
    case Q8Op::Minimum: return q8_binary_loop<Q8Op::Minimum, V>(p, a, b, y, n, blocked);
    case Q8Op::SquaredDifference: return q8_binary_loop<Q8Op::SquaredDifference, V>(p, a, b, y, n, blocked);
    default: return q8_eval_n(p, a, b, y, n, blocked);
  }
}

}  // namespace fd
