// Dynamic-range int8 GEMM driver (kernels/qd8_gemm.h has the operation):
// out = clamp(dequant(quant(A) * W^T) + bias, lo, hi), A float [m x k], W int8
// [n x k] with per-column scales.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/qd8_gemm.h"
#include "runtime/memory.h"

namespace fd {

// W packed for one kernel: panels of nr columns (qd8_gemm.h's layout), each
// ending with its columns' weight sums, scales and biases.
struct Qd8PackedWeights {
  int n = 0, k = 0, groups = 0, nr = 0, weight_bytes = 0;
  std::vector<uint8_t, HugePageAllocator<uint8_t>> data;
  int panels() const { return (n + nr - 1) / nr; }
  size_t panel_bytes() const { return qd8_panel_bytes(groups, nr, weight_bytes); }
};

// Packs W [n x k] (row-major int8), scale [n] and bias [n] (may be null).
Qd8PackedWeights qd8_pack_weights(const Qd8GemmKernel& kernel, const int8_t* w, const float* scale,
                                  const float* bias, int n, int k);

// Quantized rows of A (int8, or int16 where the kernel's row_bytes is 2):
// stride bytes apart, k padded with zeros to groups * 4.
struct Qd8Rows {
  int m = 0, groups = 0, row_bytes = 1;
  size_t stride = 0;
  ScratchVector<int8_t> values;
  std::vector<Qd8RowParams> params;
};

// Quantized rows of depth k per block, whole row tiles within
// tiling().qd8_rows_bytes (at least one tile): what a thread quantizes or
// gathers at a time, so a tile of many long rows keeps its buffer bounded.
int64_t qd8_rows_per_block(const Qd8GemmKernel& kernel, int64_t k);

// Quantizes A [m x k] (row stride lda floats) into rows, reusing its storage.
void qd8_quantize_rows(const Qd8GemmKernel& kernel, int m, int k, const float* a, size_t lda, Qd8Rows* rows);

// Quantized rows as the GEMM reads them: m rows of w.groups groups each,
// stride bytes apart, and each row's parameters.
struct Qd8RowsView {
  int m = 0;
  const void* values = nullptr;
  size_t stride = 0;
  const Qd8RowParams* params = nullptr;
};

// out (row stride ldc) for all rows, the columns of panels [first_panel, last_panel).
void qd8_gemm(const Qd8GemmKernel& kernel, const Qd8PackedWeights& w, const Qd8RowsView& rows, float* out,
              size_t ldc, float lo, float hi, int first_panel = 0, int last_panel = -1);
inline void qd8_gemm(const Qd8GemmKernel& kernel, const Qd8PackedWeights& w, const Qd8Rows& rows, float* out,
                     size_t ldc, float lo, float hi, int first_panel = 0, int last_panel = -1) {
  qd8_gemm(kernel, w, Qd8RowsView{rows.m, rows.values.data(), rows.stride, rows.params.data()}, out, ldc, lo, hi,
           first_panel, last_panel);
}

}  // namespace fd
