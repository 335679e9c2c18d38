// The GEMM for weights mostly zero, as the converter's sparsity optimization
// leaves them (kernels/gemm.h: SpmmMicroKernel): per column, only the groups
// of 4 consecutive depths that hold a nonzero. Rows of A go kSpmmRows at a
// time, transposed once, and the depths in chunks whose transposed rows stay
// in L1 while every column passes over them. The zeros are skipped, not
// multiplied: an inf or NaN input meeting only zero weights leaves an output
// finite where the dense GEMM (and TFLite) gives NaN.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/gemm.h"
#include "runtime/gemm_driver.h"

namespace fd {

constexpr int kSparsePanelColumns = 16;  // threads share the columns in panels of these

// Weights of a smaller share of nonzero groups run sparse. The sparse time
// over the dense GEMM's (anchor_bench avx2 sparse, Zen 3) at shares 0.1, 0.2,
// 0.3: 3x3/2 64->128 0.44, 0.69, 0.98; 3x3/2 256->512 0.30, 0.56, 0.75; 1x1
// 128->128 0.53, 0.70, 0.87.
constexpr double kSparseMaxGroupShare = 0.25;

struct SparseWeights {
  int n = 0, k = 0;
  int chunk = 4;               // depths per chunk, a multiple of 4
  std::vector<int32_t> first;  // chunks() * n + 1: chunk h's groups of column o from first[h * n + o] on
  std::vector<int32_t> depth;  // per group: its first depth
  std::vector<float> values;   // per group: its 4 weights (zeros past k)
  std::vector<float> bias;     // n
  int chunks() const { return (k + chunk - 1) / chunk; }
  int panels() const { return (n + kSparsePanelColumns - 1) / kSparsePanelColumns; }
};

// Whether W [n x k] (row-major) is sparse enough for the sparse GEMM: at most
// kSparseMaxGroupShare of its groups of 4 depths hold a nonzero. Dense weights
// are told from the first columns, without reading them all.
bool sparse_enough(WeightValues w, int n, int k);

// W [n x k] and bias [n] (may be null) in chunks of `chunk` depths (rounded
// to a multiple of 4).
SparseWeights pack_sparse_weights(WeightValues w, const float* bias, int n, int k, int chunk);

// As gemm() (gemm_driver.h): rows [0, m) of C, the columns of panels
// [first_panel, last_panel) (last_panel < 0: all).
void sparse_gemm(const SpmmKernel& kernel, const SparseWeights& w, int m, int taps, const float* const* rows,
                 float* c, size_t ldc, float lo, float hi, int first_panel, int last_panel);

}  // namespace fd
