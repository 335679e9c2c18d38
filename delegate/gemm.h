// Packed-weight GEMM driver: C = clamp(A * W^T + bias, lo, hi) with W [n x k].
// The groundwork for FULLY_CONNECTED and 1x1 CONV_2D (issue 4); not yet claimed
// by the delegate.
#pragma once

#include <vector>

#include "kernels/gemm.h"

namespace fd {

struct PackedWeights {
  int n = 0, k = 0, nr = 0;
  std::vector<float> data;  // panels of (k + 1) * nr floats: weights by k, then biases
};

// Packs W [n x k] (row-major) and bias [n] (may be null) into panels of nr columns.
PackedWeights pack_weights(const float* w, const float* bias, int n, int k, int nr);

// Rows [0, m) of A (row stride lda) into C (row stride ldc).
void gemm(const GemmKernel& kernel, const PackedWeights& w, int m, const float* a, size_t lda, float* c,
          size_t ldc, float lo, float hi);

}  // namespace fd
