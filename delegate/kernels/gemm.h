// f32 GEMM micro-kernels over packed weights (issue 4 groundwork).
//
// C[m x n] = clamp(A[m x k] * W^T + bias, lo, hi), W given as [n x k] rows: the
// layout of TFLite's FULLY_CONNECTED weights and of 1x1 CONV_2D filters.
// Weights are packed once, when the delegate prepares, into panels of NR
// output columns: for each k the panel holds NR consecutive weights, then NR
// biases (zero-padded past n).
#pragma once

#include <cstddef>

namespace fd {

// Computes an mr x nc block of C (mr <= MR, nc <= NR) from mr rows of A (row
// stride lda) and one packed panel; C has row stride ldc.
using GemmMicroKernel = void (*)(int mr, int nc, int k, const float* a, size_t lda, const float* panel,
                                 float* c, size_t ldc, float lo, float hi);

struct GemmKernel {
  const char* name;  // e.g. f32_gemm_12x32_avx512
  int mr, nr;
  GemmMicroKernel fn;      // up to mr rows
  GemmMicroKernel fn_row;  // one row, same panels: for a few leftover rows (batch-1 FC)
};

// Defined in gemm_<isa>.cc where that ISA is compiled in.
const GemmKernel& gemm_kernel_scalar();
const GemmKernel& gemm_kernel_avx2();
const GemmKernel& gemm_kernel_avx512();
const GemmKernel& gemm_kernel_neon();

}  // namespace fd
