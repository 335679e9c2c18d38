// The int8 kernels of one ISA: table lookups of int8 values (a chain composed
// when the delegate prepares), the ops of two int8 inputs (q8_binary.h) and
// BATCH_MATMUL's rows (q8_matmul.h), each bit-identical to the scalar reference.
#pragma once

#include <cstdint>

#include "kernels/q8_matmul.h"
#include "kernels/q8_ops.h"

namespace fd {

// y[i] = table[x[i] + 128] (256 int8 entries).
using Q8LutFn = void (*)(const int8_t* table, const int8_t* x, int8_t* y, int64_t n);
// y[i] = the op p of a[i] and b[i], its blocked form for i < blocked (q8_eval_n).
using Q8BinaryFn = void (*)(const Q8Prepared& p, const int8_t* a, const int8_t* b, int8_t* y, int64_t n,
                            int64_t blocked);

struct Q8Kernel {
  const char* name;  // e.g. q8_avx512vbmi
  Q8LutFn lut;
  Q8BinaryFn binary;
  Q8MatMulFn matmul;
};

// Defined in q8_<isa>.cc where that ISA is compiled in.
const Q8Kernel& q8_kernel_scalar();
const Q8Kernel& q8_kernel_avx2();
const Q8Kernel& q8_kernel_avx512();        // needs AVX512BW
const Q8Kernel& q8_kernel_avx512vbmi();    // needs AVX512BW and AVX512-VBMI (its table lookup)
const Q8Kernel& q8_kernel_neon();

}  // namespace fd
