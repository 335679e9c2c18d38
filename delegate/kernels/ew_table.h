// Elementwise kernel tables: one function per op per ISA, each a plain loop
// over contiguous arrays (full vectors, then one masked tail).
#pragma once

#include <cstddef>

#include "kernels/ew_ops.h"

namespace fd {

// dst[i] = op(a[i], b[i], c[i]) for i < n. Unused inputs may be null.
using EwKernel = void (*)(const float* a, const float* b, const float* c, float* dst, size_t n,
                          float param);

// The same over `rows` rows of `len` elements, where each operand whose bit is
// set in the mask (bit i: operand i) holds one value per row, repeated along
// it (a row op's mean beside the tile it normalises); the others are dense.
using EwRowsKernel = void (*)(const float* a, const float* b, const float* c, float* dst, size_t rows,
                              size_t len, float param);
constexpr int kRowMasks = 8;

// TFLite's builtin kernels on x86 (LiteRT's wheel) run Eigen over SSE packets
// of 4 floats, then scalar code on a tensor's last size % 4 values.
constexpr int kBuiltinPacketFloats = 4;

struct EwTable {
  const char* isa;
  EwKernel fn[kEwKernelOpCount];
  // [op][mask]: for masks that leave some operand dense; null otherwise.
  EwRowsKernel rows_fn[kEwKernelOpCount][kRowMasks];
};

// What an op that rounds as the builtin computes on a tensor's last size %
// kBuiltinPacketFloats values, where that differs from its vector body (the
// same for every ISA; ew_scalar.cc: plain scalar code); else null.
EwKernel builtin_tail_kernel(EwKernelOp op);

// Defined in ew_<isa>.cc; a table exists only where its ISA was compiled in.
const EwTable& ew_table_scalar();
const EwTable& ew_table_avx2();
const EwTable& ew_table_avx512();
const EwTable& ew_table_neon();

}  // namespace fd
