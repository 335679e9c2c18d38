// Full-integer int8 BATCH_MATMUL, one pair of matrices, as TFLite's int8
// kernel computes it (reference_ops::BatchMatMul: FULLY_CONNECTED's arithmetic,
// both operands with a zero point):
//   c[i][j] = clamp(q8_multiply(sum_t (a[i][t] - a_zp) (b[t][j] - b_zp), m) + out_zp, lo, hi)
// The right side is packed once per matrix (q8_pack_matmul_rhs): b - b_zp as
// int16, the depth in pairs (a last odd one paired with 0), pair t of column j
// at packed[(t * n + j) * 2], so that one vpmaddwd of a broadcast pair of a's
// row adds two depths to a vector of columns. Rows of a run as one loop over
// lanes (q8_matmul_rows): the scalar reference and each ISA's instantiate it.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/q8_binary.h"

namespace fd {

struct Q8MatMulParams {
  int32_t a_zp = 0;
  Q8Multiplier m;
  int32_t out_zp = 0, lo = -128, hi = 127;
};

// int16 values of a packed right side of depth k and n columns (kPad past the end: vector loads).
constexpr int kQ8MatMulPad = 64;
inline size_t q8_matmul_packed_size(int k, int n) { return static_cast<size_t>((k + 1) / 2) * n * 2 + kQ8MatMulPad; }

// b: [k][n], or [n][k] where `b_is_nk` (BATCH_MATMUL's adj_y).
void q8_pack_matmul_rhs(const int8_t* b, int k, int n, bool b_is_nk, int32_t b_zp, int16_t* packed);

// `rows` rows of c ([rows][n]) from rows of a ([rows][k]).
using Q8MatMulFn = void (*)(const int8_t* a, int64_t rows, int k, int n, const int16_t* packed,
                            const Q8MatMulParams& p, int8_t* c);

// A row's values less a_zp as int16, its depth rounded up to even with a 0:
// read two at a time, each pair is the int32 madd_pair takes (low half first).
inline void q8_matmul_row_values(const int8_t* a, int k, int32_t a_zp, int16_t* values) {
  for (int t = 0; t < k; ++t) values[t] = static_cast<int16_t>(a[t] - a_zp);
  if (k % 2) values[k] = 0;
}

// Each ISA's function instantiates q8_matmul_rows inside itself (its own
// target: AVX512BW's vpmaddwd), so the loops inline there.
#define FD_MATMUL_INLINE inline __attribute__((always_inline))

// B column blocks of V::kLanes columns from column j: sums over the depth, then the output step.
template <class V, int B>
FD_MATMUL_INLINE void q8_matmul_block(const int16_t* values, int np, int n, int j, const int16_t* packed,
                                      const Q8MatMulParams& p, int8_t* c) {
  decltype(V::splat(0)) acc[B];  // V's lanes (V may only add its own madd_pair)
  for (int b = 0; b < B; ++b) acc[b] = V::splat(0);
  for (int t = 0; t < np; ++t) {
    int32_t pair;
    std::memcpy(&pair, values + 2 * t, sizeof pair);
    for (int b = 0; b < B; ++b) acc[b] = V::madd_pair(acc[b], pair, packed + (t * n + j + b * V::kLanes) * 2);
  }
  for (int b = 0; b < B; ++b) {
    const auto y = V::max(V::splat(p.lo), V::min(V::splat(p.hi), q8_multiply_lanes(acc[b], p.m) + V::splat(p.out_zp)));
    const int col = j + b * V::kLanes;
    if (col + V::kLanes <= n) {
      V::store8(c + col, y);
    } else {
      int8_t tail[64];
      V::store8(tail, y);
      std::memcpy(c + col, tail, n - col);
    }
  }
}

template <class V>
FD_MATMUL_INLINE void q8_matmul_rows(const int8_t* a, int64_t rows, int k, int n, const int16_t* packed,
                                     const Q8MatMulParams& p, int8_t* c) {
  const int np = (k + 1) / 2;
  std::vector<int16_t> row(2 * np);  // once per call (no function-local static: a header's would be exported)
  for (int64_t i = 0; i < rows; ++i, a += k, c += n) {
    q8_matmul_row_values(a, k, p.a_zp, row.data());
    int j = 0;
    for (; j + 4 * V::kLanes <= n; j += 4 * V::kLanes) q8_matmul_block<V, 4>(row.data(), np, n, j, packed, p, c);
    for (; j < n; j += V::kLanes) q8_matmul_block<V, 1>(row.data(), np, n, j, packed, p, c);
  }
}

}  // namespace fd
