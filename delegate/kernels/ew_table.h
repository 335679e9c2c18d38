// Elementwise kernel tables: one function per op per ISA, each a plain loop
// over contiguous arrays (full vectors, then one masked tail).
#pragma once

#include <cstddef>

#include "kernels/ew_ops.h"

namespace fd {

// dst[i] = op(a[i], b[i], c[i]) for i < n. Unused inputs may be null.
using EwKernel = void (*)(const float* a, const float* b, const float* c, float* dst, size_t n,
                          float param);

struct EwTable {
  const char* isa;
  EwKernel fn[kEwKernelOpCount];
};

// Defined in ew_<isa>.cc; a table exists only where its ISA was compiled in.
const EwTable& ew_table_scalar();
const EwTable& ew_table_avx2();
const EwTable& ew_table_avx512();
const EwTable& ew_table_neon();

}  // namespace fd
