// The integer arithmetic of TFLite's int8 kernels (gemmlowp's fixed point, as
// tensorflow/lite/kernels/internal/common.h and quantization_util.cc define
// it; the pip runtimes build without TFLITE_SINGLE_ROUNDING): a real
// multiplier as a Q31 integer and a power of two, and the rounding doubling
// high multiply and rounding shift that apply it. Plain C++: every ISA's
// kernels and the prepare-time tables compute the same integers.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace fd {

// real = multiplier * 2^(shift - 31), multiplier in [2^30, 2^31) (0: real 0).
struct Q8Multiplier {
  int32_t multiplier = 0;
  int shift = 0;
};

// TFLite's QuantizeMultiplier: frexp, the mantissa rounded half away from zero.
inline Q8Multiplier q8_multiplier(double real) {
  if (real == 0.) return {};
  int shift = 0;
  const double q = std::frexp(real, &shift);
  int64_t fixed = static_cast<int64_t>(std::round(q * static_cast<double>(1LL << 31)));
  if (fixed == (1LL << 31)) {
    fixed /= 2;
    ++shift;
  }
  if (shift < -31) return {};
  return {static_cast<int32_t>(fixed), shift};
}

// a * b / 2^31 rounded to nearest, ties up (toward +inf); the one overflow saturates.
inline int32_t q8_rounding_doubling_high_mul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::max();
  const int64_t ab = static_cast<int64_t>(a) * b;
  const int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  return static_cast<int32_t>((ab + nudge) / (1LL << 31));
}

// x / 2^exponent rounded to nearest, ties away from zero.
inline int32_t q8_rounding_divide_by_pot(int32_t x, int exponent) {
  const int32_t mask = static_cast<int32_t>((1LL << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// TFLite's MultiplyByQuantizedMultiplier: x * real, rounded twice.
inline int32_t q8_multiply(int32_t x, Q8Multiplier m) {
  const int left = m.shift > 0 ? m.shift : 0, right = m.shift > 0 ? 0 : -m.shift;
  const int32_t shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << left);
  return q8_rounding_divide_by_pot(q8_rounding_doubling_high_mul(shifted, m.multiplier), right);
}

// TFLite's TfLiteRound of a float: half away from zero.
inline float q8_round(float x) { return std::round(x); }

// An int32 clamped to [lo, hi].
inline int32_t q8_clamp(int32_t x, int32_t lo, int32_t hi) { return x < lo ? lo : x > hi ? hi : x; }

}  // namespace fd
