// Full-integer int8 GEMM ("q8"): the arithmetic of TFLite's int8
// FULLY_CONNECTED and CONV_2D (a 1x1 convolution is this GEMM over the pixels),
// bit for bit as the x86 pip runtimes run them (ai-edge-litert 2.3, tf.lite
// 2.21: cpu_backend_gemm -> ruy's AVX2 / AVX-512 kernels, or CustomGemv for one
// output column, with the same formula; /work/notes/q8_semantics.md section 5).
//
// The operation. A int8 [m, k] (rows lda bytes apart), zero point a_zp;
// W int8 [n, k] (output channel j's k weights, zero point 0: TFLite's int8
// filters are symmetric); bias int32 [n] (0 where absent); per output channel
// j a multiplier (Q8Multiplier: M[j] in [2^30, 2^31) or 0, exponent e[j]).
//   acc[i][j] = sum_d (A[i][d] - a_zp) * W[j][d] + bias[j]     int32, wrapping
//   t = requantize(acc, M[j], e[j])
//   out[i][j] = clamp(t + out_zp, lo, hi)                      (lo, hi within int8)
// requantize, as Q8Rounding says:
//   kRuyX86 (what the x86 wheels run: ruy's AVX / AVX2 / AVX-512 kernels,
//   CustomGemv through NEON_2_SSE):
//     l = max(e, 0), r = max(-e, 0)
//     s = acc << l                         (32-bit, wrapping)
//     h = floor((s * M + 2^30) / 2^31)     (64-bit product: SRDHM, no saturation as M >= 0)
//     t = floor((h + 2^(r-1)) / 2^r)       (r > 0; ties toward +inf; exact, no overflow)
//   kReference (TFLite's reference kernels, MultiplyByQuantizedMultiplier with
//   double rounding, q8_multiply): the same h, then t = round(h / 2^r) with
//   ties away from zero. The two differ only where h is a negative tie.
// ruy's kStandardCpp path (x86 without AVX) and ruy on ARM64 round once
// ((acc * M + 2^(30-e)) >> (31-e)): not implemented here.
//
// How the kernels compute it. The weights are packed once per kernel
// (q8_pack_weights), in panels of nr output columns:
//   for each group g of 4 depths (k padded to a multiple of 4 with zero
//   weights): nr columns of 4 consecutive depths, W[j][4g .. 4g+3], as int8
//   or, for vpmaddwd kernels, widened to int16 (weight_bytes);
//   then int32 bias'[nr], multiplier[nr], left shift l[nr], right shift r[nr]
//   (zeros past n: those columns are never stored).
// A kernel sums (A[i][d] + a_offset) * W[j][d] over the row as it is (a_offset:
// 128 for u8 x s8 vpdpbusd, which reads a ^ 0x80; else 0), and
//   bias'[j] = bias[j] - (a_zp + a_offset) * wsum[j],  wsum[j] = sum_d W[j][d]
// folds the zero point and the offset back in: the same int32 acc modulo 2^32,
// so every ISA gives TFLite's acc exactly (for any k; it wraps as TFLite's does).
// Rows are read only to k: the last group of a row whose k % 4 != 0 is loaded
// in part (no read past the row).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/q8_fixed_point.h"

namespace fd {

constexpr int kQ8Group = 4;  // depths per packed group

enum class Q8Rounding : int { kRuyX86 = 0, kReference = 1 };
constexpr int kQ8RoundingCount = 2;

// What the output step needs besides the columns' own constants.
struct Q8GemmOutput {
  int32_t zero_point = 0;
  int32_t lo = -128, hi = 127;  // the activation's clamp, within int8
};

// An mr x nc block of out (mr <= MR, nc <= the panels' columns): A's mr rows
// (lda bytes apart) times the panels from `panel` on (q8_panel_bytes apart),
// into int8 out (rows ldc bytes apart).
using Q8GemmMicroKernel = void (*)(int mr, int nc, int k, const int8_t* a, size_t lda, const void* panel,
                                   int8_t* out, size_t ldc, const Q8GemmOutput& params);

// The same block where A's rows come in pieces (an indirect GEMM: a
// convolution without its im2col copy): row i's depths [t c, (t + 1) c) are
// the c bytes at base + offsets[i * taps + t], or at `zero` where that offset
// is negative (a padding tap); c % 4 == 0.
struct Q8Pieces {
  const int8_t* base;
  const int32_t* offsets;
  const int8_t* zero;
  const int8_t* at(int64_t i) const { return offsets[i] >= 0 ? base + offsets[i] : zero; }
};
using Q8IgemmMicroKernel = void (*)(int mr, int nc, int taps, int c, const Q8Pieces& rows, const void* panel,
                                    int8_t* out, size_t ldc, const Q8GemmOutput& params);

struct Q8GemmKernel {
  const char* name;  // e.g. q8_gemm_8x32_avx512vnni
  int mr, nr;
  int weight_bytes;  // 1: int8 panels, 2: int16
  int a_offset;      // added to every A value by the kernel: 0, or 128 (vpdpbusd)
  Q8GemmMicroKernel fn[kQ8RoundingCount];    // indexed by Q8Rounding
  Q8IgemmMicroKernel ifn[kQ8RoundingCount];  // null where the ISA has no indirect form (im2col instead)
  // The same ISA's kernel of fewer columns for layers of few channels (its
  // own packing), or null.
  const Q8GemmKernel* narrow = nullptr;
};

// The kernel for a layer of n output channels: `kernel`'s narrow form where
// n fits it (a wide panel would compute columns for nothing).
inline const Q8GemmKernel& q8_gemm_kernel_for_columns(const Q8GemmKernel& kernel, int n) {
  return kernel.narrow && n <= kernel.narrow->nr ? *kernel.narrow : kernel;
}

inline int q8_groups(int k) { return (k + kQ8Group - 1) / kQ8Group; }

// Bytes of one panel of nr columns over depth k.
inline size_t q8_panel_bytes(int k, int nr, int weight_bytes) {
  return static_cast<size_t>(q8_groups(k)) * kQ8Group * nr * weight_bytes + 4 * sizeof(int32_t) * nr;
}

// Bytes of all panels of n columns.
inline size_t q8_packed_bytes(const Q8GemmKernel& kernel, int n, int k) {
  const int panels = (n + kernel.nr - 1) / kernel.nr;
  return static_cast<size_t>(panels) * q8_panel_bytes(k, kernel.nr, kernel.weight_bytes);
}

// The per-column constants after a panel's weights.
struct Q8PanelTail {
  const int32_t* bias;
  const int32_t* multiplier;
  const int32_t* left;
  const int32_t* right;
};
inline Q8PanelTail q8_panel_tail(const void* panel, int k, int nr, int weight_bytes) {
  const int32_t* p = reinterpret_cast<const int32_t*>(static_cast<const char*>(panel) +
                                                      static_cast<size_t>(q8_groups(k)) * kQ8Group * nr * weight_bytes);
  return {p, p + nr, p + 2 * nr, p + 3 * nr};
}

// Packs W [n, k] (row j: channel j), bias [n] (null: 0) and the channels'
// multipliers [n] for `kernel` and the input zero point a_zp into `packed`
// (q8_packed_bytes of it; any alignment of 4 bytes).
void q8_pack_weights(const Q8GemmKernel& kernel, int n, int k, const int8_t* w, const int32_t* bias,
                     const Q8Multiplier* multipliers, int32_t a_zp, void* packed);

// The whole product: out [m, n] from A [m, k] and the packed weights, mr rows at a time.
void q8_gemm(const Q8GemmKernel& kernel, Q8Rounding rounding, int m, int n, int k, const int8_t* a, size_t lda,
             const void* packed, int8_t* out, size_t ldc, const Q8GemmOutput& params);

// The same product where A's row i is given in taps pieces of c bytes
// (Q8IgemmMicroKernel; rows: m * taps offsets; kernel.ifn set, c % 4 == 0).
void q8_igemm(const Q8GemmKernel& kernel, Q8Rounding rounding, int m, int n, int taps, int c, const Q8Pieces& rows,
              const void* packed, int8_t* out, size_t ldc, const Q8GemmOutput& params);

// The requantization of one value, in both forms (the scalar reference).
inline int32_t q8_requantize(int32_t acc, int32_t multiplier, int left, int right, Q8Rounding rounding) {
  const int32_t s = static_cast<int32_t>(static_cast<uint32_t>(acc) << left);
  const int32_t h = static_cast<int32_t>((static_cast<int64_t>(s) * multiplier + (int64_t{1} << 30)) >> 31);
  if (rounding == Q8Rounding::kReference) return q8_rounding_divide_by_pot(h, right);
  return right == 0 ? h : static_cast<int32_t>((static_cast<int64_t>(h) + (int64_t{1} << (right - 1))) >> right);
}

// An ISA's one-panel kernel K (nc <= NR) run over each panel of nc columns in
// turn, its one-row form K1 for a single row (FULLY_CONNECTED at batch 1: K
// would sum MR rows to store one): what the tables hold.
using Q8PanelKernel = void (*)(int, int, int, const int8_t*, size_t, const void*, int8_t*, size_t,
                               const Q8GemmOutput&);
template <Q8PanelKernel K, Q8PanelKernel K1, int NR, int WeightBytes>
void q8_walk_panels(int mr, int nc, int k, const int8_t* a, size_t lda, const void* panel, int8_t* out, size_t ldc,
                    const Q8GemmOutput& params) {
  const size_t bytes = q8_panel_bytes(k, NR, WeightBytes);
  const Q8PanelKernel kernel = mr == 1 ? K1 : K;
  const char* p = static_cast<const char*>(panel);
  for (int c0 = 0; c0 < nc; c0 += NR, p += bytes)
    kernel(mr, nc - c0 < NR ? nc - c0 : NR, k, a, lda, p, out + c0, ldc, params);
}

// q8_walk_panels for an indirect kernel.
using Q8IpanelKernel = void (*)(int, int, int, int, const Q8Pieces&, const void*, int8_t*, size_t,
                                const Q8GemmOutput&);
template <Q8IpanelKernel K, Q8IpanelKernel K1, int NR, int WeightBytes>
void q8_walk_ipanels(int mr, int nc, int taps, int c, const Q8Pieces& rows, const void* panel, int8_t* out,
                     size_t ldc, const Q8GemmOutput& params) {
  const size_t bytes = q8_panel_bytes(taps * c, NR, WeightBytes);
  const Q8IpanelKernel kernel = mr == 1 ? K1 : K;
  const char* p = static_cast<const char*>(panel);
  for (int c0 = 0; c0 < nc; c0 += NR, p += bytes)
    kernel(mr, nc - c0 < NR ? nc - c0 : NR, taps, c, rows, p, out + c0, ldc, params);
}

// The MR row pointers of a block of mr rows; rows past mr reread the last
// (their sums are never stored). Static: each ISA's file keeps its own copy.
template <int MR>
static inline void q8_block_rows(const int8_t* a, size_t lda, int mr, const int8_t* (&row)[MR]) {
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) row[r] = a + (r < mr ? r : mr - 1) * lda;
}

// The 4 bytes of depths 4g .. 4g+3 of a row of k (zeros past k: the last group loaded in part).
// Byte by byte below 4 (a memcpy of a variable size is a call).
static inline int32_t q8_load_group(const int8_t* row, int g, int k) {
  const int d = g * kQ8Group, have = k - d;
  int32_t four = 0;
  if (have >= kQ8Group) {
    __builtin_memcpy(&four, row + d, kQ8Group);
    return four;
  }
  uint32_t bytes = 0;
  for (int i = 0; i < have; ++i) bytes |= static_cast<uint32_t>(static_cast<uint8_t>(row[d + i])) << (8 * i);
  __builtin_memcpy(&four, &bytes, sizeof four);
  return four;
}

// Defined in q8_gemm_<isa>.cc where that ISA is compiled in.
const Q8GemmKernel& q8_gemm_kernel_scalar();
const Q8GemmKernel& q8_gemm_kernel_avx2();        // vpmaddwd on int16
const Q8GemmKernel& q8_gemm_kernel_avxvnni();     // needs AVX-VNNI as well as AVX2
const Q8GemmKernel& q8_gemm_kernel_avx512();      // needs AVX512BW
const Q8GemmKernel& q8_gemm_kernel_avx512vnni();  // needs AVX512-VNNI as well as AVX512BW
const Q8GemmKernel& q8_gemm_kernel_avx512vnni_narrow();  // its 16-column form
const Q8GemmKernel& q8_gemm_kernel_neon();        // SMLAL (vmull_s8 + vpadal)
const Q8GemmKernel& q8_gemm_kernel_neondot();     // SDOT: needs the dot product extension

// The best kernel for `isa` ("scalar", "avx2", "avx512", "neon") this CPU runs
// (cpu.cc), or null; every kernel this CPU runs, for tests and benchmarks.
const Q8GemmKernel* q8_gemm_kernel_for(const std::string& isa);
int q8_gemm_kernels_runnable(const Q8GemmKernel** out, int capacity);

}  // namespace fd
