// The output step of the q8 GEMM (q8_gemm.h) written once over int32 lanes V,
// so that each ISA's kernel requantizes as the scalar reference does. A lane
// type provides: load (int32 lanes from memory), splat; + - & (32-bit,
// wrapping); min, max; shlv, srav (per-lane counts 0..31); mulhi(x, m):
// floor((x * m + 2^30) / 2^31) per lane (64-bit products, m >= 0); nonzero(x)
// and negative(x): -1 where true, 0 where not; gt(a, b): -1 where a > b.
#pragma once

#include <cstdint>

#include "kernels/q8_gemm.h"

namespace fd {

// One panel's constants for the lanes of columns j .. j + kLanes - 1.
template <class V>
struct Q8Columns {
  V bias, multiplier, left, right;
  V half_up;  // 2^(r-1), 0 where r == 0: the bit that rounds a shift by r up
  V mask;     // 2^r - 1: the remainder of a shift by r
};

template <class V>
inline Q8Columns<V> q8_columns(const Q8PanelTail& tail, int j) {
  Q8Columns<V> c;
  c.bias = V::load(tail.bias + j);
  c.multiplier = V::load(tail.multiplier + j);
  c.left = V::load(tail.left + j);
  c.right = V::load(tail.right + j);
  c.mask = V::shlv(V::splat(1), c.right) - V::splat(1);
  c.half_up = c.mask - V::srav(c.mask, V::splat(1));  // 2^r - 1 - (2^(r-1) - 1)
  return c;
}

// round(h / 2^r): ties up (ruy), or away from zero (TFLite's RoundingDivideByPOT).
template <Q8Rounding R, class V>
inline V q8_shift_lanes(V h, const Q8Columns<V>& c) {
  const V floor = V::srav(h, c.right);
  if constexpr (R == Q8Rounding::kRuyX86) return floor - V::nonzero(h & c.half_up);
  const V threshold = V::srav(c.mask, V::splat(1)) - V::negative(h);
  return floor - V::gt(h & c.mask, threshold);
}

// clamp(requantize(acc + bias) + zero point, lo, hi) for kLanes columns (a caller whose
// accumulators start from the bias passes columns of bias 0).
template <Q8Rounding R, class V>
inline V q8_output_lanes(V acc, const Q8Columns<V>& c, V zero_point, V lo, V hi) {
  const V h = V::mulhi(V::shlv(acc + c.bias, c.left), c.multiplier);
  return V::max(lo, V::min(hi, q8_shift_lanes<R>(h, c) + zero_point));
}

}  // namespace fd
