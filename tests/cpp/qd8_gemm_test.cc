// Dynamic-range int8 GEMM (kernels/qd8_gemm.h): row quantization against the
// formula written out by hand, every ISA bit for bit against the scalar
// reference, and the result within the quantization error of the float product.
#include "runtime/qd8_gemm_driver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "kernels/cpu.h"
#include "qd8_test_util.h"
#include "runtime/tiling.h"

namespace fd {
namespace {

struct Problem {
  int m, n, k;
};

// m, n, k off every tile size, k = 1, and k = 1024 and 1031 (sums far past int16).
// The last one's weights are past tiling().row_tile_weights_bytes even as int8:
// panel by panel over row blocks, the others one call per row tile over all panels.
const std::vector<Problem> kProblems = {
    {1, 1, 1},     {5, 7, 3},    {13, 33, 17}, {7, 9, 1}, {25, 70, 129}, {3, 5, 1024}, {19, 17, 1031},
    {128, 40, 64}, {2, 100, 6},  {20, static_cast<int>(tiling().row_tile_weights_bytes / 1031) + 37, 1031}};

using test::every_qd8_kernel;
using test::random_floats;
using test::random_int8;

const Qd8GemmKernel& scalar_kernel() { return *kernels_for("scalar")->qd8_gemm; }

// Row i's first `count` quantized values, whatever their width (row_bytes).
std::vector<int> row_values(const Qd8Rows& rows, int i, int count) {
  const int8_t* row = rows.values.data() + i * rows.stride;
  std::vector<int> v(count);
  for (int d = 0; d < count; ++d) {
    int16_t wide = row[d];
    if (rows.row_bytes == 2) std::memcpy(&wide, row + 2 * d, sizeof wide);
    v[d] = wide;
  }
  return v;
}

TEST(Qd8, QuantizesAsTheFormulaByHand) {
  // [-1, 0, 3]: s = 4/255; zero point from min -128 + 63.75 (error 191.75), from
  // max 127 - 191.25 (error 318.25): -64.25 -> -64. q = round(x * 63.75) - 64.
  // [0, 255, ...]: s = 1, zero point -128; 2.5 -> 3, 3.5 -> 4 and 100.5 -> 101
  // (half away from zero; half to even would give 2, 4, 100), the zero point
  // added after rounding: -125, -124, -27.
  struct Case {
    std::vector<float> x;
    float scale;
    int zero_point;
    std::vector<int> q;
  };
  const Case cases[] = {{{-1.f, 0.f, 3.f}, 4.f / 255.f, -64, {-128, -64, 127, 0}},
                        {{0.f, 255.f, 2.5f, 3.5f, 100.5f}, 1.f, -128, {-128, 127, -125, -124, -27, 0, 0, 0}},
                        {{0.f, 0.f}, 1.f, 0, {0, 0, 0, 0}}};
  for (const auto* kernel : every_qd8_kernel())
    for (const auto& c : cases) {
      Qd8Rows rows;
      rows.values.assign(64, 99);  // the pad is written too
      const int k = static_cast<int>(c.x.size());
      qd8_quantize_rows(*kernel, 1, k, c.x.data(), k, &rows);
      EXPECT_FLOAT_EQ(rows.params[0].scale, c.scale) << kernel->name;
      EXPECT_EQ(rows.params[0].zero_point, c.zero_point) << kernel->name;
      EXPECT_EQ(row_values(rows, 0, static_cast<int>(c.q.size())), c.q) << kernel->name;
    }
}

TEST(Qd8, EveryIsaQuantizesBitForBit) {
  for (int k : {1, 3, 8, 17, 33, 64, 1000, 1031})
    for (const auto& [lo, hi] : {std::pair<float, float>{-1.f, 1.f}, {0.25f, 3.f}, {-7.f, -0.5f}}) {
      const auto x = random_floats(k, k * 3 + 1, lo, hi);
      Qd8Rows ref, got;
      qd8_quantize_rows(scalar_kernel(), 1, k, x.data(), k, &ref);
      for (const auto* kernel : every_qd8_kernel()) {
        qd8_quantize_rows(*kernel, 1, k, x.data(), k, &got);
        ASSERT_EQ(got.params[0].scale, ref.params[0].scale) << kernel->name << " k=" << k;
        ASSERT_EQ(got.params[0].zero_point, ref.params[0].zero_point) << kernel->name << " k=" << k;
        ASSERT_EQ(row_values(got, 0, got.groups * kQd8Group), row_values(ref, 0, ref.groups * kQd8Group))
            << kernel->name << " k=" << k;
      }
    }
}

// out for A [m x k] through `kernel`'s row quantization, packing and
// micro-kernel; ldc = n + 5, the guard past n untouched.
std::vector<float> run_gemm(const Qd8GemmKernel& kernel, const Problem& p, const std::vector<float>& a,
                            const std::vector<int8_t>& w, const std::vector<float>& scale, const float* bias,
                            float lo, float hi) {
  const size_t ldc = p.n + 5;
  Qd8Rows rows;
  qd8_quantize_rows(kernel, p.m, p.k, a.data(), p.k, &rows);
  const Qd8PackedWeights packed = qd8_pack_weights(kernel, w.data(), scale.data(), bias, p.n, p.k);
  const Qd8RowsView view{rows.m, rows.values.data(), rows.stride, rows.params.data()};
  std::vector<float> out(p.m * ldc, 1234.5f);
  qd8_gemm(kernel, packed, view, out.data(), ldc, lo, hi, 0, -1);
  // The same in two runs of panels (how threads would share it).
  std::vector<float> halves(p.m * ldc, 1234.5f);
  qd8_gemm(kernel, packed, view, halves.data(), ldc, lo, hi, 0, packed.panels() / 2);
  qd8_gemm(kernel, packed, view, halves.data(), ldc, lo, hi, packed.panels() / 2, -1);
  EXPECT_EQ(out, halves) << kernel.name;
  for (int i = 0; i < p.m; ++i)
    for (size_t j = p.n; j < ldc; ++j) EXPECT_EQ(out[i * ldc + j], 1234.5f) << kernel.name << " wrote past n";
  return out;
}

TEST(Qd8, EveryIsaMatchesScalarBitForBit) {
  for (const auto& p : kProblems)
    for (const auto& [lo, hi, with_bias] : {std::tuple<float, float, bool>{-INFINITY, INFINITY, true},
                                            {-0.5f, 0.5f, true}, {-INFINITY, INFINITY, false}}) {
      const auto a = random_floats(p.m * p.k, p.m + p.k, -2.f, 3.f),
                 scale = random_floats(p.n, p.n, 0.001f, 0.01f), bias = random_floats(p.n, p.n + 1, -1.f, 1.f);
      const auto w = random_int8(p.n * p.k, p.n * 7 + p.k);
      const float* b = with_bias ? bias.data() : nullptr;
      const auto ref = run_gemm(scalar_kernel(), p, a, w, scale, b, lo, hi);
      for (const auto* kernel : every_qd8_kernel())
        ASSERT_EQ(run_gemm(*kernel, p, a, w, scale, b, lo, hi), ref)
            << kernel->name << " m=" << p.m << " n=" << p.n << " k=" << p.k;
    }
}

// The scaling step written out, as TFLite's hybrid FULLY_CONNECTED and CONV_2D
// take it: corr * (w * a) + bias, rounded twice. The fma of corr * a with w
// (this file's order until LiteRT 2.3 was checked) differs somewhere here.
TEST(Qd8, ScalesBackWithTheScalesMultipliedFirst) {
  const Problem p{9, 13, 50};
  const auto a = random_floats(p.m * p.k, 3, -2.f, 3.f), scale = random_floats(p.n, 4, 0.001f, 0.01f),
             bias = random_floats(p.n, 5, -1.f, 1.f);
  const auto w = random_int8(p.n * p.k, 6);
  Qd8Rows rows;
  qd8_quantize_rows(scalar_kernel(), p.m, p.k, a.data(), p.k, &rows);
  const auto out = run_gemm(scalar_kernel(), p, a, w, scale, bias.data(), -INFINITY, INFINITY);
  int fma_differs = 0;
  for (int i = 0; i < p.m; ++i) {
    const std::vector<int> qi = row_values(rows, i, p.k);
    for (int j = 0; j < p.n; ++j) {
      int32_t corr = 0;
      for (int d = 0; d < p.k; ++d) corr += (qi[d] - rows.params[i].zero_point) * w[j * p.k + d];
      const float x = static_cast<float>(corr), s = scale[j] * rows.params[i].scale;
      const float prod = x * s;
      ASSERT_EQ(out[i * (p.n + 5) + j], prod + bias[j]);
      fma_differs += out[i * (p.n + 5) + j] != std::fma(x * rows.params[i].scale, scale[j], bias[j]);
    }
  }
  EXPECT_GT(fma_differs, 0);
}

// The centered rows (the depthwise convolution's input) are the quantized
// values less the zero point, as floats, on every ISA.
TEST(Qd8, CenteredRowsAreTheValuesLessTheZeroPoint) {
  for (int k : {1, 7, 8, 33, 1000, 1031})
    for (const auto& [lo, hi] : {std::pair<float, float>{-1.f, 1.f}, {0.25f, 3.f}, {-7.f, -0.5f}}) {
      const auto x = random_floats(k, k + 11, lo, hi);
      Qd8Rows ref;
      qd8_quantize_rows(scalar_kernel(), 1, k, x.data(), k, &ref);
      const std::vector<int> q = row_values(ref, 0, k);
      for (const auto* kernel : every_qd8_kernel()) {
        std::vector<float> centered(k, NAN);
        Qd8RowParams params;
        kernel->quantize_centered(k, x.data(), centered.data(), &params);
        ASSERT_EQ(params.scale, ref.params[0].scale) << kernel->name;
        ASSERT_EQ(params.zero_point, ref.params[0].zero_point) << kernel->name;
        for (int i = 0; i < k; ++i)
          ASSERT_EQ(centered[i], static_cast<float>(q[i] - params.zero_point)) << kernel->name << " k=" << k;
      }
    }
}

// The extremes: every a_q - zp = -255 and every w = -128 (or 127), k = 1024:
// |sum| = 255 * 128 * 1024 (2^25), exact in int32 on every ISA.
TEST(Qd8, LargestSumsAreExact) {
  const Problem p{7, 19, 1024};
  std::vector<float> a(p.m * p.k, -3.f);
  for (int i = 0; i < p.m; ++i) a[i * p.k] = 1e-30f;  // max 1e-30: zero point 127, q(-3) = -128
  std::vector<int8_t> w(p.n * p.k, -128);
  for (int j = 1; j < p.n; j += 2) std::fill(w.begin() + j * p.k, w.begin() + (j + 1) * p.k, 127);
  const std::vector<float> scale(p.n, 1.f);
  for (const auto* kernel : every_qd8_kernel()) {
    Qd8Rows rows;
    qd8_quantize_rows(*kernel, p.m, p.k, a.data(), p.k, &rows);
    ASSERT_EQ(rows.params[0].zero_point, 127);
    const auto out = run_gemm(*kernel, p, a, w, scale, nullptr, -INFINITY, INFINITY);
    for (int i = 0; i < p.m; ++i)
      for (int j = 0; j < p.n; ++j) {
        // Depth 0: q = 127 (the 1e-30), a_q - zp = 0; the others -255.
        const int64_t sum = int64_t{-255} * (p.k - 1) * w[j * p.k];
        ASSERT_EQ(out[i * (p.n + 5) + j], static_cast<float>(sum) * rows.params[i].scale) << kernel->name;
      }
  }
}

// Against the float product of A and W = w_scale * w_q (double precision).
// Quantization error: zp = -128 - rmin / s rounded moves the grid by at most half
// a step, so rmin and rmax land within half a step of -128 and 127; clamping them
// and rounding everything else each move a value by at most s / 2. (The float
// steps of t = x * inv add about 2^-17 of a step.) So each |a - s (q - zp)|
// <= s/2 (1 + 1e-4), and |out - exact| <= s/2 (1 + 1e-4) sum_k |W[j][k]|, plus
// float rounding of the epilogue: a few ulps of sum_k |a W| + |bias|.
TEST(Qd8, WithinQuantizationErrorOfTheFloatProduct) {
  for (const auto& p : kProblems) {
    const auto a = random_floats(p.m * p.k, p.k + 5, -1.f, 4.f), scale = random_floats(p.n, p.n, 0.001f, 0.01f),
               bias = random_floats(p.n, p.n + 2, -1.f, 1.f);
    const auto w = random_int8(p.n * p.k, p.n + p.k);
    Qd8Rows rows;
    qd8_quantize_rows(scalar_kernel(), p.m, p.k, a.data(), p.k, &rows);
    const auto out = run_gemm(scalar_kernel(), p, a, w, scale, bias.data(), -INFINITY, INFINITY);
    for (int i = 0; i < p.m; ++i)
      for (int j = 0; j < p.n; ++j) {
        double exact = bias[j], w_abs = 0, mag = std::fabs(bias[j]);
        for (int d = 0; d < p.k; ++d) {
          const double wf = static_cast<double>(scale[j]) * w[j * p.k + d];
          exact += a[i * p.k + d] * wf;
          w_abs += std::fabs(wf);
          mag += std::fabs(a[i * p.k + d] * wf);
        }
        const double bound = rows.params[i].scale / 2 * (1 + 1e-4) * w_abs + 4e-7 * mag;
        ASSERT_NEAR(out[i * (p.n + 5) + j], exact, bound) << "m=" << p.m << " n=" << p.n << " k=" << p.k;
      }
  }
}

// A block of quantized rows is whole row tiles within tiling().qd8_rows_bytes,
// at least one tile however deep the rows.
TEST(Qd8, RowsPerBlockAreWholeTilesWithinTheirShareOfL2) {
  for (const auto* kernel : every_qd8_kernel())
    for (int64_t k : {1, 37, 256, 4096, 1 << 20}) {
      const int64_t rows = qd8_rows_per_block(*kernel, k);
      const int64_t row_bytes = (k + kQd8Group - 1) / kQd8Group * kQd8Group * kernel->row_bytes;
      EXPECT_EQ(rows % kernel->mr, 0) << kernel->name << " k=" << k;
      EXPECT_GE(rows, kernel->mr);
      if (rows > kernel->mr) {
        EXPECT_LE(static_cast<size_t>(rows * row_bytes), tiling().qd8_rows_bytes);
      }
      EXPECT_GT(static_cast<size_t>((rows + kernel->mr) * row_bytes), tiling().qd8_rows_bytes) << "not the most";
    }
}

}  // namespace
}  // namespace fd
