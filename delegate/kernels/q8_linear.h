// int8 ADD and SUB as one linear form: y = floor(a A + b B + Z) in 32-bit
// fixed point, XNNPACK's arithmetic (two multiplies and a shift), with a
// bound on its distance from TFLite's three roundings. Where the form lies
// farther than that bound from an integer, its floor is TFLite's output in
// both of TFLite's forms (the blocked one and the scalar one); elsewhere the
// exact arithmetic runs (kernels/q8_binary.h). Tests compare every input pair.
#pragma once

#include <cstdint>

#include "kernels/q8_fixed_point.h"

namespace fd {

struct Q8Linear {
  int32_t a = 0, b = 0, z = 0;  // b < 0 for SUB; z holds the zero points and 1/2
  int32_t tolerance = 0;        // the bound, in units of 2^-shift
  int shift = 0;                // fraction bits; 0: no such form (the exact arithmetic runs)
};

// The form of ADD (SUB where `sub`) of inputs of zero points in_zp, rescaled
// by m[0] and m[1] after a left shift of left_shift, and the sum by m[2]
// (kernels/q8_ops.cc prepare_add), output zero point out_zp.
Q8Linear q8_linear_form(bool sub, const int32_t in_zp[2], int32_t out_zp, const Q8Multiplier m[3], int left_shift);

}  // namespace fd
