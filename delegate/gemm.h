// Packed-weight GEMM driver: C = clamp(A * W^T + bias, lo, hi) with W [n x k],
// A's rows read through an indirection table (kernels/gemm.h).
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

// Rows [0, m) of C (row stride ldc). Row r of A is the concatenation of the kc =
// k / taps floats at rows[r * taps + t], t = 0..taps-1.
void gemm(const GemmKernel& kernel, const PackedWeights& w, int m, int taps, const float* const* rows, float* c,
          size_t ldc, float lo, float hi);

}  // namespace fd
