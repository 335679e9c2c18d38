// Packed-weight GEMM driver: C = clamp(A * W^T + bias, lo, hi) with W [n x k],
// A's rows read through an indirection table (kernels/gemm.h).
#pragma once

#include <vector>

#include "ir/float_source.h"
#include "kernels/cpu.h"
#include "kernels/gemm.h"
#include "runtime/memory.h"

namespace fd {

// Rows per block: a block of A stays in L2 while every panel passes over it.
constexpr int kGemmRowBlock = 96;

struct PackedWeights {
  int n = 0, k = 0, nr = 0;
  int last_nr = 0;          // the last panel's width: nr, or nr / 2
  std::vector<float, HugePageAllocator<float>> data;  // panels of (k + 1) * width floats: weights by k, then biases
  int panels() const { return (n + nr - 1) / nr; }
  size_t panel_size() const { return static_cast<size_t>(k + 1) * nr; }  // floats from a panel to the next
  int width(int panel) const { return panel + 1 < panels() ? nr : last_nr; }
};

// The columns n takes in panels nr wide, the last nr / 2 wide where that holds
// what is left (pack_weights with half_tail).
int padded_columns(int n, int nr);

// Weights as packing reads them: float32 values, or a float16 / int8 source
// converted on the way into the panels (no float32 copy of the whole tensor).
struct WeightValues {
  WeightValues(const float* v) : values(v) {}  // NOLINT: a float pointer is float32 values
  WeightValues(const float* v, const Float32Source* s) : values(v), source(s) {}
  const float* values = nullptr;
  const Float32Source* source = nullptr;  // when set, read instead of values
};

// Packs W [n x k] (row-major) and bias [n] (may be null) into panels of nr
// columns; with half_tail the last panel may be nr / 2 wide.
PackedWeights pack_weights(WeightValues w, const float* bias, int n, int k, int nr, bool half_tail = false);

// The same from any layout: weight (column j, depth i) is w[j * col_stride + i *
// k_stride]. Reuses out's storage (no allocation once it is large enough): for
// BATCH_MATMUL operands packed on every run.
void pack_weights_into(WeightValues w, size_t col_stride, size_t k_stride, const float* bias, int n, int k, int nr,
                       bool half_tail, PackedWeights* out);

// The pieces of pack_weights_into, for packers that make their columns a
// panel at a time: shape_packed sizes `out` for W [n x k] in panels of nr
// (no values written); pack_panel writes panel q from its `cols` columns
// (column j, depth i at src[j * col_stride + i * k_stride]) and their biases
// (may be null), zeros after them.
void shape_packed(int n, int k, int nr, bool half_tail, PackedWeights* out);
void pack_panel(const float* src, size_t col_stride, size_t k_stride, const float* bias, int q, int cols,
                PackedWeights* out);

// out = w with depth i scaled by scale[i % kc] (kc: the input channels; a
// convolution's depths run over taps, then channels). The biases are copied.
// out must already have w's size: no allocation.
void scale_weights_into(const PackedWeights& w, const float* scale, int kc, PackedWeights* out);

// The one row of a GEMM of one row, through the kernel's fn_gemv (a rounded
// table's): the columns of panels [first_panel, last_panel).
void gemm_one_row_as_builtin(const GemmKernel& kernel, const PackedWeights& w, int taps, const float* const* row,
                             float* c, float lo, float hi, int first_panel, int last_panel);

// TFLite's builtin GEMM (Eigen's, over SSE packets) sums the last n % 4
// output columns of every group of 4 rows (but the last m % 4 rows) in an
// order of their own: the products of the first k - k % 4 depths in four sums
// by depth mod 4, added as (0 + 1) + (2 + 3), then the last k % 4 in order;
// then the bias. Recomputes those values of rows [first, first + count) of m
// (row r of A as for gemm, C from row first on) after a GEMM of a rounded table.
void redo_last_columns_as_builtin(const PackedWeights& w, int64_t m, int64_t first, int64_t count, int taps,
                                  const float* const* rows, float* c, size_t ldc, float lo, float hi);

// Rows [0, m) of C (row stride ldc), the columns of panels [first_panel,
// last_panel). Row r of A is the concatenation of the kc = k / taps floats at
// rows[r * taps + t], t = 0..taps-1.
void gemm(const GemmKernel& kernel, const PackedWeights& w, int m, int taps, const float* const* rows, float* c,
          size_t ldc, float lo, float hi, int first_panel = 0, int last_panel = -1);

// The GEMM kernel for n output columns: the wide one where the ISA has it and
// its panels leave no more lanes idle than gemm's (n = 96, 256, 576: yes;
// 16, 40, 144: no).
const GemmKernel& gemm_for(const Kernels& kernels, int n);

}  // namespace fd
