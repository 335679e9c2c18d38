#include "kernels/q8_linear.h"

#include <cmath>

namespace fd {
namespace {

double real(Q8Multiplier m) { return std::ldexp(static_cast<double>(m.multiplier), m.shift - 31); }

}  // namespace

// TFLite computes, for x = a - zp_a, y = b - zp_b (both forms, q8_ops.cc):
//   s = T_a(x) +- T_b(y), each T within 1.5 of x K_a (the rounding, and a
//   floor of x before it in the blocked form when left_shift + shift < 0);
//   out = R(s) + zp_out, R(s) = floor(s C + 1/2 + rho), |rho| <= 2^-(r+1)
//   (a rounding multiply by C, then a rounding shift by r: ties either way),
//   no more than 2^15 in size (the blocked form narrows it to 16 bits).
// (A tie that rdbpot rounds away from zero below 0 lies within the tolerance:
// it always takes the exact path.) The form rounds K_a C, K_b C and the
// constant to `shift` bits: each coefficient by 1/2, times |a|, |b| <= 128;
// their products in double are off by far less than the 2 units of slack.
// Where the form exists, |R(s)| < 2^15 keeps C below about 2^-13.
Q8Linear q8_linear_form(bool sub, const int32_t in_zp[2], int32_t out_zp, const Q8Multiplier m[3], int left_shift) {
  if (m[2].shift > 0 || m[2].multiplier <= 0) return {};
  const int r = -m[2].shift;
  const double c = real(m[2]);
  const double ka = real(m[0]) * std::ldexp(1.0, left_shift) * c;
  const double kb = (sub ? -1.0 : 1.0) * real(m[1]) * std::ldexp(1.0, left_shift) * c;
  const double z = 0.5 + out_zp - in_zp[0] * ka - in_zp[1] * kb;
  const double largest = 255 * (std::fabs(ka) + std::fabs(kb)) + 3 * c + 1;  // |R(s)|
  if (!(largest < 32768)) return {};
  for (int shift = 30; shift >= 8; --shift) {
    const double unit = std::ldexp(1.0, shift);
    const double error = 128.5 + 3 * c * unit + (r > 0 ? std::ldexp(1.0, shift - r - 1) : 0.0) + 2;
    const double span = (128 * (std::fabs(ka) + std::fabs(kb)) + std::fabs(z)) * unit + 2 * error + 4;
    if (span >= 2147483647.0) continue;  // |a A + b B + z| + tolerance in int32
    if (!(8 * error < unit)) return {};  // too coarse to decide most values
    Q8Linear f;
    f.a = static_cast<int32_t>(std::llround(ka * unit));
    f.b = static_cast<int32_t>(std::llround(kb * unit));
    f.z = static_cast<int32_t>(std::llround(z * unit));
    f.tolerance = static_cast<int32_t>(std::ceil(error));
    f.shift = shift;
    return f;
  }
  return {};
}

}  // namespace fd
