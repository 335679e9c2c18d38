// The sparse GEMM (runtime/sparse_gemm.h) on every ISA: against a naive
// double-precision reference, and bit for bit against the scalar table (each
// row is one lane: the same sums in the same order); which weights take it.
#include "runtime/sparse_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "graph_builder.h"
#include "kernels/cpu.h"

namespace fd {
namespace {

struct Problem {
  int m, n, k, taps;
};

using test::random_vector;

// C = clamp(A W^T + bias) in double, W [n x k], row r of A read through
// rows[r * taps + t] (kc = k / taps floats each).
std::vector<double> naive(const std::vector<const float*>& rows, const float* w, const std::vector<float>& bias,
                          const Problem& p, float lo, float hi) {
  const int kc = p.k / p.taps;
  std::vector<double> c(static_cast<size_t>(p.m) * p.n);
  for (int r = 0; r < p.m; ++r)
    for (int j = 0; j < p.n; ++j) {
      double sum = bias[j];
      for (int i = 0; i < p.k; ++i)
        sum += static_cast<double>(rows[r * p.taps + i / kc][i % kc]) * w[static_cast<size_t>(j) * p.k + i];
      c[r * p.n + j] = std::min<double>(hi, std::max<double>(lo, sum));
    }
  return c;
}

// Rows of A through taps pointers, each tap's kc floats apart from the next
// (3 floats between them, as a convolution's taps lie apart in its input).
std::vector<const float*> tap_rows(const std::vector<float>& a, const Problem& p) {
  const int kc = p.k / p.taps;
  std::vector<const float*> rows(static_cast<size_t>(p.m) * p.taps);
  for (int i = 0; i < p.m * p.taps; ++i) rows[i] = a.data() + static_cast<size_t>(i) * (kc + 3);
  return rows;
}

// Rows past a multiple of kSpmmRows, columns past a multiple of 8 and of a
// panel, depths past a multiple of 4 over several chunks (of 64), a
// convolution's taps (tap_rows), columns with no nonzero group; clamped to
// [-1.5, 1.5].
TEST(SparseGemm, EveryIsaMatchesNaiveAndScalarBitForBit) {
  for (const Problem& p : {Problem{1, 5, 7, 1}, Problem{16, 16, 64, 1}, Problem{21, 37, 130, 1},
                           Problem{40, 24, 9 * 13, 9}, Problem{33, 70, 300, 3}, Problem{17, 9, 8, 1}}) {
    const float* w = test::sparse_weights(p.n, p.k, p.k == 8 ? 0.1 : 0.25, p.k);
    const auto a = random_vector(static_cast<size_t>(p.m) * p.taps * (p.k / p.taps + 3), 1);
    const auto bias = random_vector(p.n, 2);
    const SparseWeights packed = pack_sparse_weights(WeightValues(w), bias.data(), p.n, p.k, 64);
    const std::vector<const float*> rows = tap_rows(a, p);
    const std::vector<double> want = naive(rows, w, bias, p, -1.5f, 1.5f);
    std::vector<float> scalar;
    for (const auto& isa : available_isas()) {
      std::vector<float> c(want.size(), NAN);
      sparse_gemm(*kernels_for(isa)->spmm, packed, p.m, p.taps, rows.data(), c.data(), p.n, -1.5f, 1.5f, 0, -1);
      for (size_t i = 0; i < c.size(); ++i)
        ASSERT_NEAR(c[i], want[i], 1e-5 * std::max(1.0, std::fabs(want[i]))) << isa << " m" << p.m << " at " << i;
      if (isa == "scalar") scalar = c;
      else EXPECT_EQ(std::memcmp(c.data(), scalar.data(), c.size() * sizeof(float)), 0) << isa;
    }
  }
}

// Panels [first, last) write their columns and nothing else.
TEST(SparseGemm, ARangeOfPanelsWritesItsColumns) {
  const Problem p{19, 70, 40, 1};
  const float* w = test::sparse_weights(p.n, p.k, 0.3, 5);
  const auto a = random_vector(static_cast<size_t>(p.m) * (p.k + 3), 6), bias = random_vector(p.n, 7);
  const SparseWeights packed = pack_sparse_weights(WeightValues(w), bias.data(), p.n, p.k, 16);
  ASSERT_EQ(packed.panels(), 5);
  const std::vector<const float*> rows = tap_rows(a, p);
  const std::vector<double> want = naive(rows, w, bias, p, -INFINITY, INFINITY);
  for (const auto& isa : available_isas()) {
    std::vector<float> c(want.size(), NAN);
    sparse_gemm(*kernels_for(isa)->spmm, packed, p.m, 1, rows.data(), c.data(), p.n, -INFINITY, INFINITY, 1, 3);
    for (size_t i = 0; i < c.size(); ++i) {
      const int col = static_cast<int>(i % p.n);
      if (col < 16 || col >= 48) EXPECT_TRUE(std::isnan(c[i])) << isa << " column " << col;
      else ASSERT_NEAR(c[i], want[i], 1e-5 * std::max(1.0, std::fabs(want[i]))) << isa << " at " << i;
    }
  }
}

// Weights with at most kSparseMaxGroupShare of their groups of 4 depths
// nonzero; dense ones, and ones of zeros scattered one by one, are not.
TEST(SparseGemm, TakesWeightsOfFewNonzeroGroups) {
  EXPECT_TRUE(sparse_enough(WeightValues(test::sparse_weights(64, 576, 0.15, 1)), 64, 576));
  EXPECT_TRUE(sparse_enough(WeightValues(test::sparse_weights(8, 30, 0.1, 2)), 8, 30));
  EXPECT_FALSE(sparse_enough(WeightValues(test::sparse_weights(64, 576, 0.5, 3)), 64, 576));
  const std::vector<float> dense = random_vector(64 * 576, 4);
  EXPECT_FALSE(sparse_enough(WeightValues(dense.data()), 64, 576));
  std::vector<float> scattered = dense;  // 80% zeros, not in groups: 59% of the groups hold one
  std::mt19937 rng(5);
  for (float& v : scattered) v = std::uniform_real_distribution<float>(0.f, 1.f)(rng) < 0.8f ? 0.f : v;
  EXPECT_FALSE(sparse_enough(WeightValues(scattered.data()), 64, 576));
  EXPECT_FALSE(sparse_enough(WeightValues(dense.data()), 0, 576));
}

}  // namespace
}  // namespace fd
