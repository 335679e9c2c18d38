// Table lookups of int8 values, per ISA: y[i] = table[x[i] + 128] (a table of
// 256 int8 entries: an int8 chain composed when the delegate prepares).
#pragma once

#include <cstdint>

namespace fd {

using Q8LutFn = void (*)(const int8_t* table, const int8_t* x, int8_t* y, int64_t n);

struct Q8Kernel {
  const char* name;  // e.g. q8_lut_avx512vbmi
  Q8LutFn lut;
};

// Defined in q8_lut_<isa>.cc where that ISA is compiled in.
const Q8Kernel& q8_kernel_scalar();
const Q8Kernel& q8_kernel_avx512vbmi();  // needs AVX512BW and AVX512-VBMI

}  // namespace fd
