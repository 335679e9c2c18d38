// Full-integer int8 GEMM (kernels/q8_gemm.h): the scalar reference against the
// formula written out here in int64, every kernel this CPU runs bit for bit
// against the scalar reference in both roundings, on shapes off every tile
// size, random zero points, clamps and multipliers (ties included); the
// indirect kernels against the scalar GEMM of the rows they gather.
#include "kernels/q8_gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu.h"
#include "kernels/q8_fixed_point.h"

namespace fd {
namespace {

// One random problem: A [m, k] rows lda apart, W [n, k], bias, multipliers, output parameters.
struct Problem {
  int m = 0, n = 0, k = 0;
  size_t lda = 0, ldc = 0;
  std::vector<int8_t> a, w;
  std::vector<int32_t> bias;
  std::vector<Q8Multiplier> mult;
  int32_t a_zp = 0;
  Q8GemmOutput out;
};

// The kinds of output channel: most scaled so that their sums land in the
// int8 range; some with W in [-1, 1], a small bias and M = 2^30 (h / 2^r
// lands on ties often); some with large right shifts, up to 31; some with
// multipliers > 1 (left shifts); some 0.
enum Kind { kTies, kLargeShift, kGreaterThanOne, kZero, kScaled };
Kind kind(int c) {
  if (c % 7 == 0) return kTies;
  if (c % 7 == 1) return kLargeShift;
  return c % 14 == 2 ? kGreaterThanOne : c % 14 == 9 ? kZero : kScaled;
}

Q8Multiplier random_multiplier(std::mt19937& rng, Kind kind, int k) {
  std::uniform_real_distribution<double> u(-2., 2.);
  const double typical = std::sqrt(static_cast<double>(k)) * 128. * 74. + 40000.;  // |sum| + |bias|, roughly
  switch (kind) {
    case kTies: {
      const int r = static_cast<int>(std::log2(std::sqrt(static_cast<double>(k)) * 128.)) - 7;  // |h / 2^r| ~ 64
      return {1 << 30, -std::max(0, r + static_cast<int>(rng() % 3))};
    }
    case kLargeShift: return {1 << 30, -10 - static_cast<int>(rng() % 22)};
    case kGreaterThanOne: return q8_multiplier(std::exp2(4. + 2. * u(rng)));
    case kZero: return {};
    default: return q8_multiplier(100. / typical * std::exp2(u(rng)));
  }
}

Problem random_problem(int m, int n, int k, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> i8(-128, 127), pad(0, 5), tiny(-1, 1);
  Problem p;
  p.m = m, p.n = n, p.k = k;
  p.lda = k + pad(rng), p.ldc = n + pad(rng);
  p.a.resize((m - 1) * p.lda + k);  // the last row ends the buffer: no read past it
  for (auto& x : p.a) x = static_cast<int8_t>(i8(rng));
  p.w.resize(static_cast<size_t>(n) * k);
  std::uniform_int_distribution<int32_t> b(-(1 << 15), 1 << 15), small(-100, 100);
  for (int c = 0; c < n; ++c) {
    const Kind kc = kind(c + static_cast<int>(seed));
    for (int d = 0; d < k; ++d) p.w[c * k + d] = static_cast<int8_t>(kc == kTies ? tiny(rng) : i8(rng));
    p.bias.push_back(kc == kTies ? small(rng) : b(rng));
    p.mult.push_back(random_multiplier(rng, kc, k));
  }
  p.a_zp = i8(rng);
  p.out.zero_point = i8(rng) / 2;
  const int lo = i8(rng), hi = i8(rng);
  p.out.lo = std::min(lo, hi), p.out.hi = rng() % 3 ? 127 : std::max(lo, hi);
  if (rng() % 3) p.out.lo = -128;
  return p;
}

// The packed weights and output of one kernel on p (out padded: ldc apart, pad bytes 0x5A).
std::vector<int8_t> run(const Q8GemmKernel& kernel, Q8Rounding rounding, const Problem& p) {
  std::vector<char> packed(q8_packed_bytes(kernel, p.n, p.k));
  q8_pack_weights(kernel, p.n, p.k, p.w.data(), p.bias.data(), p.mult.data(), p.a_zp, packed.data());
  std::vector<int8_t> out(p.m * p.ldc, 0x5A);
  q8_gemm(kernel, rounding, p.m, p.n, p.k, p.a.data(), p.lda, packed.data(), out.data(), p.ldc, p.out);
  return out;
}

// floor(x / 2^r), then the tie rounded up or away from zero, in int64.
int64_t divide_by_pot(int64_t x, int r, Q8Rounding rounding) {
  if (r == 0) return x;
  const int64_t half = int64_t{1} << (r - 1);
  if (rounding == Q8Rounding::kRuyX86 || x >= 0) return (x + half) >> r;
  return -((-x + half) >> r);
}

// Output (i, j) by the formula of q8_gemm.h, in int64.
int8_t expected(const Problem& p, int i, int j, Q8Rounding rounding) {
  int64_t acc = p.bias[j];
  for (int d = 0; d < p.k; ++d) acc += (int64_t{p.a[i * p.lda + d]} - p.a_zp) * p.w[j * p.k + d];
  EXPECT_EQ(acc, static_cast<int32_t>(acc));
  const Q8Multiplier m = p.mult[j];
  const int left = m.shift > 0 ? m.shift : 0, right = m.shift > 0 ? 0 : -m.shift;
  const int64_t s = static_cast<int32_t>(static_cast<uint64_t>(acc) << left);  // wraps as int32
  const int64_t h = (s * m.multiplier + (int64_t{1} << 30)) >> 31;             // floor: arithmetic shift
  const int64_t t = divide_by_pot(h, right, rounding) + p.out.zero_point;
  if (rounding == Q8Rounding::kReference) {
    EXPECT_EQ(t - p.out.zero_point, q8_multiply(static_cast<int32_t>(acc), m));
  }
  return static_cast<int8_t>(std::min<int64_t>(p.out.hi, std::max<int64_t>(p.out.lo, t)));
}

const std::vector<int> kRows = {1, 2, 3, 5, 6, 7, 8, 9, 13, 17, 33};
const std::vector<int> kCols = {1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 64, 65};
const std::vector<int> kDepths = {1, 2, 3, 4, 5, 7, 8, 13, 16, 17, 64, 96, 101, 576, 1027};

constexpr Q8Rounding kRoundings[] = {Q8Rounding::kRuyX86, Q8Rounding::kReference};

std::string describe(const Problem& p, Q8Rounding rounding) {
  return "m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) + " k=" + std::to_string(p.k) +
         (rounding == Q8Rounding::kRuyX86 ? " ruy" : " reference");
}

TEST(Q8Gemm, ScalarMatchesInt64Formula) {
  uint32_t seed = 1;
  for (int m : {1, 3, 5, 9})
    for (int n : {1, 4, 7, 17, 33})
      for (int k : kDepths) {
        const Problem p = random_problem(m, n, k, seed++);
        for (Q8Rounding rounding : kRoundings) {
          const std::vector<int8_t> out = run(q8_gemm_kernel_scalar(), rounding, p);
          for (int i = 0; i < m; ++i) {
            for (int j = 0; j < n; ++j)
              ASSERT_EQ(out[i * p.ldc + j], expected(p, i, j, rounding))
                  << describe(p, rounding) << " at " << i << "," << j;
            for (size_t j = n; j < p.ldc; ++j) ASSERT_EQ(out[i * p.ldc + j], 0x5A) << "written past n";
          }
        }
      }
}

// The two roundings differ, and only at negative ties (h = -(2^(r-1)) mod 2^r).
TEST(Q8Gemm, RoundingsDifferOnlyAtNegativeTies) {
  Problem p = random_problem(64, 70, 33, 7);
  p.out = Q8GemmOutput{p.out.zero_point, -128, 127};  // no activation: the clamp hides no tie
  const std::vector<int8_t> ruy = run(q8_gemm_kernel_scalar(), Q8Rounding::kRuyX86, p);
  const std::vector<int8_t> ref = run(q8_gemm_kernel_scalar(), Q8Rounding::kReference, p);
  int differ = 0, inside = 0;
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) {
      const int d = ruy[i * p.ldc + j] - ref[i * p.ldc + j];
      ASSERT_TRUE(d == 0 || d == 1) << "ruy rounds a negative tie up, by one";
      differ += d;
      const bool in = ref[i * p.ldc + j] > p.out.lo && ref[i * p.ldc + j] < p.out.hi;
      inside += in;
    }
  EXPECT_GT(differ, p.m * p.n / 200) << "too few negative ties in the test data";
  EXPECT_GT(inside, p.m * p.n / 2) << "the test data mostly clamped";
  std::printf("%d of %d outputs inside the clamp, %d negative ties\n", inside, p.m * p.n, differ);
}

TEST(Q8Gemm, EveryKernelMatchesScalar) {
  const Q8GemmKernel* kernels[8];
  const int count = q8_gemm_kernels_runnable(kernels, 8);
  uint32_t seed = 1000;
  for (int m : kRows)
    for (int n : kCols)
      for (int k : kDepths) {
        if (static_cast<int64_t>(m) * n * k > 2000000) continue;
        const Problem p = random_problem(m, n, k, seed++);
        for (Q8Rounding rounding : kRoundings) {
          const std::vector<int8_t> want = run(q8_gemm_kernel_scalar(), rounding, p);
          for (int i = 1; i < count; ++i)
            ASSERT_EQ(run(*kernels[i], rounding, p), want) << kernels[i]->name << " " << describe(p, rounding);
        }
      }
}

// A convolution-like problem: m pixels of taps pieces of c bytes each, every
// piece at an offset into a small input (pieces shared and overlapping, as
// windows are) or the row of the zero point (padding: offset -1).
struct Indirect {
  Problem p;  // its A: the gathered rows (im2col), m x taps * c
  std::vector<int8_t> input, zero_row;
  std::vector<int32_t> offsets;
};

Indirect random_indirect(int m, int n, int taps, int c, uint32_t seed) {
  Indirect x;
  x.p = random_problem(m, n, taps * c, seed);
  x.p.lda = taps * c;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> i8(-128, 127);
  x.input.resize(static_cast<size_t>(c) * 9 + c);
  for (auto& v : x.input) v = static_cast<int8_t>(i8(rng));
  x.zero_row.assign(c, static_cast<int8_t>(x.p.a_zp));
  x.p.a.resize(static_cast<size_t>(m) * taps * c);
  for (int i = 0; i < m * taps; ++i) {
    const int at = static_cast<int>(rng() % 11);
    x.offsets.push_back(at == 10 ? -1 : at * c);
    const int8_t* piece = at == 10 ? x.zero_row.data() : x.input.data() + at * c;
    std::copy(piece, piece + c, x.p.a.begin() + static_cast<size_t>(i) * c);
  }
  return x;
}

TEST(Q8Gemm, IndirectKernelsMatchScalarOnGatheredRows) {
  const Q8GemmKernel* kernels[8];
  const int count = q8_gemm_kernels_runnable(kernels, 8);
  uint32_t seed = 5000;
  for (int m : {1, 3, 8, 9, 17})
    for (int n : {1, 16, 17, 32, 33, 64})
      for (int taps : {1, 2, 9})
        for (int c : {4, 8, 16, 36}) {
          const Indirect x = random_indirect(m, n, taps, c, seed++);
          for (Q8Rounding rounding : kRoundings) {
            const std::vector<int8_t> want = run(q8_gemm_kernel_scalar(), rounding, x.p);
            for (int i = 0; i < count; ++i) {
              const Q8GemmKernel& k = *kernels[i];
              if (!k.ifn[static_cast<int>(rounding)]) continue;
              std::vector<char> packed(q8_packed_bytes(k, n, taps * c));
              q8_pack_weights(k, n, taps * c, x.p.w.data(), x.p.bias.data(), x.p.mult.data(), x.p.a_zp,
                              packed.data());
              std::vector<int8_t> out(m * x.p.ldc, 0x5A);
              const Q8Pieces rows{x.input.data(), x.offsets.data(), x.zero_row.data()};
              q8_igemm(k, rounding, m, n, taps, c, rows, packed.data(), out.data(), x.p.ldc, x.p.out);
              ASSERT_EQ(out, want) << k.name << " taps=" << taps << " c=" << c << " " << describe(x.p, rounding);
            }
          }
        }
}

TEST(Q8Gemm, KernelForIsa) {
  for (const std::string& isa : available_isas()) {
    const Q8GemmKernel* kernel = q8_gemm_kernel_for(isa);
    ASSERT_NE(kernel, nullptr) << isa;
    std::printf("q8 GEMM for %s: %s\n", isa.c_str(), kernel->name);
  }
  EXPECT_EQ(q8_gemm_kernel_for("no such isa"), nullptr);
}

}  // namespace
}  // namespace fd
