// f32 GEMM, sparse GEMM, depthwise, pool and row (softmax, mean) micro-kernels.
//
// GEMM: C[m x n] = clamp(A[m x k] * W^T + bias, lo, hi), W given as [n x k]
// rows: the layout of TFLite's FULLY_CONNECTED weights and CONV_2D filters
// ([n, kh, kw, ic] is [n x k] with k = kh*kw*ic). Each row of A is read through
// an indirection table of `taps` pointers, one per kernel position, each to kc
// consecutive floats (k = taps * kc): a plain GEMM is taps = 1, and a
// convolution reads its input in place, padding rows pointing at a constant row.
//
// Weights are packed once, when the delegate prepares, into panels of NR
// output columns: for each k the panel holds NR consecutive weights, then NR
// biases (zero-padded past n). The last panel is NR/2 wide when that covers
// the columns left: fewer idle lanes for channel counts like 16, 48 or 144.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fd {

// Computes an mr x nc block of C (mr <= MR) from the packed panels it spans:
// NR columns each, (taps * kc + 1) * NR floats apart. a holds mr rows of
// `taps` pointers: a[r * taps + t]. C has row stride ldc.
// next: null, or memory to bring towards L2 meanwhile, one 64-byte line per k
// (taps * kc lines from next on): part of the panel the next call reads.
using GemmMicroKernel = void (*)(int mr, int nc, int taps, int kc, const float* const* a, const float* panel,
                                 float* c, size_t ldc, float lo, float hi, const float* next);

struct GemmKernel {
  const char* name;  // e.g. f32_gemm_12x32_avx512
  int mr, nr;
  GemmMicroKernel fn;  // up to mr rows
  // Up to few_mr rows, same panels: leftover rows (and batch-1 FC) take fewer
  // such calls than idle rows of fn would cost, with enough accumulators
  // that the fma latency stays hidden.
  int few_mr;
  GemmMicroKernel fn_few;
  GemmMicroKernel fn_half, fn_few_half;  // the same on a panel nr/2 wide
  // Optional, between few_mr and mr: leftovers of few_mr+1 .. mid_mr rows in one
  // call (BERT's 128 rows leave 8 after 12-row tiles: one call, not two of 4).
  int mid_mr = 0;
  GemmMicroKernel fn_mid = nullptr, fn_mid_half = nullptr;
  // Optional: a single row (batch-1 FULLY_CONNECTED, squeeze-excite convs):
  // half the loads and a quarter of the fmas of a few_mr tile rereading one
  // row, so more of the weight stream is in flight (AVX-512, a 1024->1000
  // layer with its weights in L3: 1.22 -> 0.98x XNNPACK's time).
  GemmMicroKernel fn_one = nullptr, fn_one_half = nullptr;
  // Rounded tables only (Kernels::rounded): a GEMM of one row in all, as
  // TFLite's builtin kernel sums it (a matrix-vector product, its own order).
  GemmMicroKernel fn_gemv = nullptr, fn_gemv_half = nullptr;
};

// Depthwise: `pixels` output pixels of `channels` channels each, pixel p at
// out + p * channels: out[c] = clamp(bias[c] + sum_t in[p * taps + t][c] * w[t][c]).
// Weights are packed like GEMM panels with n = channels, k = taps, nr = the
// kernel's channel block.
using DwMicroKernel = void (*)(int pixels, int channels, int taps, const float* const* in, const float* packed,
                               float* out, float lo, float hi);

// Pools: `pixels` output pixels of `channels` channels, over `taps` input rows
// each: the max (count null), or the sum divided by count[p]; then clamped.
using PoolMicroKernel = void (*)(int pixels, int channels, int taps, const float* const* in, const float* count,
                                 float* out, float lo, float hi);

// Depthwise KxK at stride 1 (or 2), no dilation, over `width` consecutive
// pixels of one output row (rows and packing as for DwMicroKernel): each input
// vector is loaded once per kernel row, not once per tap. Results identical to fn's.
using DwRowKernel = void (*)(int width, int channels, const float* const* rows, const float* packed, float* out,
                             float lo, float hi);
// The same for two consecutive output rows at once (rows_a, rows_b: each
// row's indirection): K+1 input rows loaded for two output rows, not 2K.
using DwRow2Kernel = void (*)(int width, int channels, const float* const* rows_a, const float* const* rows_b,
                              const float* packed, float* out_a, float* out_b, float lo, float hi);

// Resizes: `pixels` output pixels of `channels` channels, each the sum over
// `taps` input rows of weights[p * taps + t] times the row, in tap order.
using InterpMicroKernel = void (*)(int pixels, int channels, int taps, const float* const* in, const float* weights,
                                   float* out);

struct DwKernel {
  const char* name;  // e.g. f32_dwconv_32c_avx512
  int cb;            // channels per block
  DwMicroKernel fn;
  PoolMicroKernel pool;
  DwMicroKernel fn_3x3 = nullptr, fn_5x5 = nullptr;  // weights in registers, where they fit
  DwRowKernel row_3x3 = nullptr, row_5x5 = nullptr;  // the same along a stride-1 row
  DwRow2Kernel row2_3x3 = nullptr;                   // ... and along two rows
  InterpMicroKernel interp = nullptr;                // the resizes
  DwRowKernel row_3x3_s2 = nullptr, row_5x5_s2 = nullptr;  // along a row at stride 2

  DwMicroKernel for_taps(int taps) const {
    if (taps == 9 && fn_3x3) return fn_3x3;
    if (taps == 25 && fn_5x5) return fn_5x5;
    return fn;
  }
  DwRowKernel row_for_taps(int taps, int stride = 1) const {
    if (stride == 2) return taps == 9 ? row_3x3_s2 : taps == 25 ? row_5x5_s2 : nullptr;
    return stride == 1 ? (taps == 9 ? row_3x3 : taps == 25 ? row_5x5 : nullptr) : nullptr;
  }
};

// Row kernels over `rows` contiguous rows of n floats (the last axis):
// softmax (out[i] = exp(beta (x[i] - max x)) / sum, in place allowed) and
// reductions of each row to one float: its mean, sum, max or min. Lanes are
// summed in a different order per ISA, so sums agree to rounding, not bit for
// bit (max and min exactly, up to the sign of a zero among equal zeros).
using SoftmaxRowsKernel = void (*)(int rows, int n, const float* in, float* out, float beta);
using ReduceRowsKernel = void (*)(int rows, int n, const float* in, float* out);
enum class RowReduction : uint8_t { kMean, kSum, kMax, kMin, kCount };

// The rounded tables' SOFTMAX and MEAN, as TFLite's builtin kernels run them
// over a whole tensor: these rows are rows [first_row, first_row + rows) of
// total_rows, which tells where each row starts within the builtin's packets
// and (SOFTMAX) which values its scalar code takes.
using SoftmaxRowsAtKernel = void (*)(int rows, int n, const float* in, float* out, float beta, int64_t first_row,
                                     int64_t total_rows);
using ReduceRowsAtKernel = void (*)(int rows, int n, const float* in, float* out, int64_t first_row);

struct RowKernel {
  const char* name;  // e.g. f32_rows_avx512
  SoftmaxRowsKernel softmax;
  ReduceRowsKernel reduce[static_cast<int>(RowReduction::kCount)];  // by RowReduction
  SoftmaxRowsAtKernel softmax_at = nullptr;  // rounded tables only
  ReduceRowsAtKernel mean_at = nullptr;      // rounded tables only
};

// Winograd F(2x2, 3x3) transforms of a 3x3 stride-1 convolution
// (winograd_microkernel.h), one tile of channels floats per pixel:
// input: patch[16] (the 4x4 input pixels) -> 16 positions at v + p * pos_stride;
// output: 16 positions at m + p * pos_stride -> 4 output pixels out[4] (null:
// skipped), plus bias, clamped to [lo, hi].
using WinogradInputFn = void (*)(int channels, const float* const* patch, float* v, size_t pos_stride);
using WinogradOutputFn = void (*)(int channels, const float* m, size_t pos_stride, const float* bias, float lo,
                                  float hi, float* const* out);

struct WinogradKernel {
  const char* name;  // e.g. f32_winograd_2x2_3x3_avx2
  WinogradInputFn input;
  WinogradOutputFn output;
};

// Sparse GEMM (runtime/sparse_gemm.h): weights mostly zero, kept per column as
// their groups of 4 consecutive depths that hold a nonzero. kSpmmRows rows of
// A arrive transposed, at[d * kSpmmRows + r], so each weight multiplies all
// of them in one vector op. For columns o in [0, cols): groups g in
// [first[o], first[o + 1]), each depths depth[g] .. depth[g] + 3 with weights
// values[4 g ..]; acc[o * kSpmmRows + r] = start + row r's sum over them,
// start bias[o] (bias not null) or acc's own value.
constexpr int kSpmmRows = 16;
using SpmmMicroKernel = void (*)(int cols, const int32_t* first, const int32_t* depth, const float* values,
                                 const float* bias, const float* at, float* acc);
// Rows [0, m) of A (m <= kSpmmRows; row r the taps * kc floats at rows[r *
// taps + t]) into at, rows past m and depths past taps * kc (up to k4) zero.
using SpmmPackRows = void (*)(const float* const* rows, int m, int taps, int kc, int k4, float* at);
// C[r][o] (row stride ldc) = acc[o * kSpmmRows + r] clamped to [lo, hi], for
// rows [0, m) and columns [0, cols).
using SpmmStore = void (*)(const float* acc, int m, int cols, float* c, size_t ldc, float lo, float hi);

struct SpmmKernel {
  const char* name;  // e.g. f32_spmm_16r_avx2
  SpmmMicroKernel fn;
  SpmmPackRows pack_rows;
  SpmmStore store;
};

// Defined in gemm_<isa>.cc where that ISA is compiled in.
const GemmKernel& gemm_kernel_scalar();
const GemmKernel& gemm_kernel_avx2();
const GemmKernel& gemm_kernel_avx512();
const GemmKernel& gemm_kernel_avx512_wide();
const GemmKernel& gemm_kernel_neon();
const DwKernel& dw_kernel_scalar();
const DwKernel& dw_kernel_avx2();
const DwKernel& dw_kernel_avx512();
const DwKernel& dw_kernel_neon();
const RowKernel& row_kernel_scalar();
const RowKernel& row_kernel_avx2();
const RowKernel& row_kernel_avx512();
const RowKernel& row_kernel_neon();
// The same rounding as TFLite's builtin kernels (row_kernel_as_builtin).
const RowKernel& row_kernel_scalar_rounded();
const RowKernel& row_kernel_avx2_rounded();
const RowKernel& row_kernel_avx512_rounded();
const RowKernel& row_kernel_neon_rounded();
// The same GEMM and depthwise kernels summing as TFLite's builtin float
// kernels do (gemm_microkernel.h: Sum::kRounded).
const GemmKernel& gemm_kernel_scalar_rounded();
const GemmKernel& gemm_kernel_avx2_rounded();
const GemmKernel& gemm_kernel_avx512_rounded();
const GemmKernel& gemm_kernel_neon_rounded();
const DwKernel& dw_kernel_scalar_rounded();
const DwKernel& dw_kernel_avx2_rounded();
const DwKernel& dw_kernel_avx512_rounded();
const DwKernel& dw_kernel_neon_rounded();
const WinogradKernel& winograd_kernel_scalar();
const WinogradKernel& winograd_kernel_avx2();
const WinogradKernel& winograd_kernel_avx512();
const WinogradKernel& winograd_kernel_neon();
const SpmmKernel& spmm_kernel_scalar();
const SpmmKernel& spmm_kernel_avx2();
const SpmmKernel& spmm_kernel_avx512();
const SpmmKernel& spmm_kernel_neon();

}  // namespace fd
