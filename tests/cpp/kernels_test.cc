// Every vector body against the scalar reference, bit for bit, on every ISA
// this CPU runs; and the scalar reference's accuracy against double math.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>

#include "kernels/cpu.h"
#include "kernels/ew_table.h"

namespace fd {
namespace {

// Inputs an op is defined on (log, sqrt, rsqrt want positives; pow a mix).
std::vector<float> inputs_for(EwKernelOp op, int operand, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> wide(-6.f, 6.f), pos(1e-3f, 50.f), expo(-3.f, 3.f);
  static const float specials[] = {0.f, -0.f, 1.f, -1.f, 1e-40f, -1e-40f, 3e38f, -3e38f, 90.f, -110.f, 0.5f, 6.f,
                                  -100.f, NAN, -NAN, INFINITY, -INFINITY};
  const bool positive = op == EwKernelOp::Log || op == EwKernelOp::Sqrt || op == EwKernelOp::Rsqrt;
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    if (op == EwKernelOp::Pow) v[i] = operand == 0 ? (i % 5 == 0 ? -pos(rng) : pos(rng)) : (i % 3 == 0 ? std::round(expo(rng)) : expo(rng));
    else if (i % 17 == 5) v[i] = positive ? std::fabs(specials[i / 17 % 17]) : specials[i / 17 % 17];
    else v[i] = positive ? pos(rng) : wide(rng);
  }
  return v;
}

TEST(Kernels, EveryIsaMatchesTheScalarReferenceBitForBit) {
  const EwTable& ref = ew_table_scalar();
  int tables = 0;
  for (const auto& isa : available_isas()) {
    const EwTable* t = kernels_for(isa)->ew;
    ASSERT_NE(t, nullptr) << isa;
    ++tables;
    for (int o = 0; o < kEwKernelOpCount; ++o) {
      const EwKernelOp op = static_cast<EwKernelOp>(o);
      for (size_t n : {1, 3, 7, 13, 15, 16, 17, 31, 33, 100, 1021, 4099}) {
        auto a = inputs_for(op, 0, n, 1 + n), b = inputs_for(op, 1, n, 2 + n), c = inputs_for(op, 2, n, 3 + n);
        std::vector<float> want(n), got(n + 1, 12345.f);  // one guard element past the end
        ref.fn[o](a.data(), b.data(), c.data(), want.data(), n, 0.2f);
        t->fn[o](a.data(), b.data(), c.data(), got.data(), n, 0.2f);
        for (size_t i = 0; i < n; ++i) {
          const bool same = std::memcmp(&want[i], &got[i], 4) == 0 || (std::isnan(want[i]) && std::isnan(got[i]));
          ASSERT_TRUE(same) << isa << " " << kernel_op_name(op) << " n=" << n << " i=" << i << " x=" << a[i]
                            << " y=" << b[i] << ": " << got[i] << " vs " << want[i];
        }
        ASSERT_EQ(got[n], 12345.f) << isa << " " << kernel_op_name(op) << " wrote past the end";
      }
    }
  }
#if defined(__aarch64__)
  EXPECT_EQ(available_isas().back(), "neon");
#endif
  EXPECT_GE(tables, 2) << "no SIMD table was tested";
}

// A row kernel (some operands one value per row) gives, on every ISA, the
// floats the plain kernel gives on those values repeated along their rows.
TEST(Kernels, RowKernelsAreThePlainKernelOnRepeatedRowValues) {
  int checked = 0;
  for (const auto& isa : available_isas()) {
    const EwTable& t = *kernels_for(isa)->ew;
    for (int o = 0; o < kEwKernelOpCount; ++o) {
      const EwKernelOp op = static_cast<EwKernelOp>(o);
      const int arity = kernel_arity(op);
      for (int mask = 0; mask < kRowMasks; ++mask) {
        const bool applies = arity > 1 && mask > 0 && mask < (1 << arity) - 1;
        ASSERT_EQ(t.rows_fn[o][mask] != nullptr, applies) << isa << " " << kernel_op_name(op) << " mask " << mask;
        if (!applies) continue;
        for (size_t len : {1, 5, 8, 19, 64}) {
          const size_t rows = 7, n = rows * len;
          std::vector<std::vector<float>> dense(3), given(3);
          for (int i = 0; i < 3; ++i) {
            const bool row = (mask >> i) & 1;
            given[i] = inputs_for(op, i, row ? rows : n, 11 * i + len);
            for (size_t e = 0; e < n; ++e) dense[i].push_back(row ? given[i][e / len] : given[i][e]);
          }
          std::vector<float> want(n), got(n + 1, 12345.f);
          t.fn[o](dense[0].data(), dense[1].data(), dense[2].data(), want.data(), n, 0.2f);
          t.rows_fn[o][mask](given[0].data(), given[1].data(), given[2].data(), got.data(), rows, len, 0.2f);
          for (size_t e = 0; e < n; ++e)
            ASSERT_TRUE(std::memcmp(&want[e], &got[e], 4) == 0 || (std::isnan(want[e]) && std::isnan(got[e])))
                << isa << " " << kernel_op_name(op) << " mask " << mask << " len " << len << " e " << e;
          ASSERT_EQ(got[n], 12345.f) << "wrote past the end";
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}

// kernels_for("auto") builds and runs only the best ISA this CPU has. Building
// every table once raised SIGILL on a CPU without AVX-512 (an AMD Zen 3);
// CTest also runs this under qemu-x86_64 -cpu Haswell (AVX2, no AVX-512).
TEST(Kernels, AutoBuildsOnlyTheBestIsaTheCpuHas) {
  const Kernels* k = kernels_for("auto");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(std::string(k->ew->isa), available_isas().back());
  const float x[5] = {-2.f, -0.5f, 0.f, 3.f, 7.f};
  float out[5];
  k->ew->fn[static_cast<int>(EwKernelOp::Relu6)](x, nullptr, nullptr, out, 5, 0.f);
  EXPECT_EQ(std::vector<float>(out, out + 5), (std::vector<float>{0.f, 0.f, 0.f, 3.f, 6.f}));
  EXPECT_EQ(kernels_for("no-such-isa"), nullptr);
}

// Worst relative error of op over `xs` (and `ys`) against a double reference.
double worst_error(EwKernelOp op, const std::vector<float>& xs, const std::vector<float>& ys,
                   double (*ref)(double, double), double floor_magnitude = 0) {
  std::vector<float> out(xs.size());
  ew_table_scalar().fn[static_cast<int>(op)](xs.data(), ys.empty() ? nullptr : ys.data(), nullptr,
                                             out.data(), xs.size(), 0.f);
  double worst = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double r = ref(xs[i], ys.empty() ? 0 : ys[i]);
    worst = std::max(worst, std::fabs(out[i] - r) / std::max(std::fabs(r), floor_magnitude));
  }
  return worst;
}

std::vector<float> sweep(double lo, double hi, int n = 200001) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(lo + (hi - lo) * i / (n - 1));
  return v;
}

// The stated bounds of the approximated functions (docs/architecture.md: Accuracy).
TEST(Accuracy, ApproximatedFunctionsMeetTheirStatedBounds) {
  const std::vector<float> none;
  EXPECT_LT(worst_error(EwKernelOp::Exp, sweep(-87, 88), none, [](double x, double) { return std::exp(x); }), 2e-7);
  std::vector<float> logs(200001);
  for (size_t i = 0; i < logs.size(); ++i) logs[i] = static_cast<float>(std::exp(-87.0 + 175.0 * i / (logs.size() - 1)));
  EXPECT_LT(worst_error(EwKernelOp::Log, logs, none, [](double x, double) { return std::log(x); }), 4e-7);
  EXPECT_LT(worst_error(EwKernelOp::Log, sweep(0.5, 2), none, [](double x, double) { return std::log(x); }), 4e-7);
  EXPECT_LT(worst_error(EwKernelOp::Tanh, sweep(-12, 12), none, [](double x, double) { return std::tanh(x); }), 4e-7);
  EXPECT_LT(worst_error(EwKernelOp::Logistic, sweep(-80, 20), none, [](double x, double) { return 1 / (1 + std::exp(-x)); }), 3e-7);
  EXPECT_LT(worst_error(EwKernelOp::Swish, sweep(-80, 20), none, [](double x, double) { return x / (1 + std::exp(-x)); }), 4e-7);
  // As TFLite's builtin kernels (Eigen's; its logistic 4.5 ulp by its own exhaustive test).
  const auto gelu = [](double x, double) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); };
  EXPECT_LT(worst_error(EwKernelOp::GeluAsBuiltin, sweep(-9, 9), none, gelu, 1e-6), 2e-6);  // 1.5e-6 measured (its erfc)
  EXPECT_LT(worst_error(EwKernelOp::LogisticAsBuiltin, sweep(-80, 20), none, [](double x, double) { return 1 / (1 + std::exp(-x)); }), 6e-7);
  EXPECT_LT(worst_error(EwKernelOp::Elu, sweep(-20, 3), none, [](double x, double) { return x > 0 ? x : std::expm1(x); }), 3e-7);
  // Softplus keeps its relative accuracy in the tail where it is e^x (1 + e^x would round to 1).
  const auto softplus = [](double x, double) { return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x))); };
  EXPECT_LT(worst_error(EwKernelOp::Softplus, sweep(-87, 90), none, softplus), 5e-7);
  // GELU, erf form: 0.5 x (1 + erf(x/sqrt2)) cancels for x << 0 as the reference
  // formula does, so its error is bounded absolutely, relative to max(1, |x|).
  const auto xs = sweep(-10, 10);
  std::vector<float> out(xs.size());
  ew_table_scalar().fn[static_cast<int>(EwKernelOp::Gelu)](xs.data(), nullptr, nullptr, out.data(), xs.size(), 0.f);
  double gelu_worst = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double x = xs[i], r = 0.5 * x * std::erfc(-x / std::sqrt(2.0));
    gelu_worst = std::max(gelu_worst, std::fabs(out[i] - r) / std::max(1.0, std::fabs(x)));
  }
  EXPECT_LT(gelu_worst, 2.5e-7);
  // GELU, tanh form, computed as x logistic(2y): relative everywhere.
  auto gelu_tanh = [](double x, double) {
    return x / (1 + std::exp(-2 * 0.7978845608028654 * (x + 0.044715 * x * x * x)));
  };
  EXPECT_LT(worst_error(EwKernelOp::GeluTanh, sweep(-3, 8), none, gelu_tanh), 1e-6);
  EXPECT_LT(worst_error(EwKernelOp::GeluTanh, sweep(-8, -3), none, gelu_tanh), 1e-5);  // tail: |gelu| < 1e-2
  std::vector<float> px, py;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> ux(0.05f, 20.f), uy(-4.f, 4.f);
  for (int i = 0; i < 200000; ++i) px.push_back(ux(rng)), py.push_back(uy(rng));
  // pow: relative error grows with |y ln x| (here up to 12): (3 + 12) * 2^-23.
  EXPECT_LT(worst_error(EwKernelOp::Pow, px, py, [](double x, double y) { return std::pow(x, y); }), 1.8e-6);
}

TEST(Accuracy, PowSpecialCasesFollowStdPow) {
  const std::vector<float> x = {-2.f, -2.f, -2.f, 0.f, 0.f, 5.f, -1.5f, 1.f, -0.f, -0.f, 0.f, 2.f};
  const std::vector<float> y = {3.f, 2.f, 0.5f, 2.f, 0.f, 0.f, 2.f, NAN, 3.f, -3.f, -2.f, NAN};
  std::vector<float> out(x.size());
  ew_table_scalar().fn[static_cast<int>(EwKernelOp::Pow)](x.data(), y.data(), nullptr, out.data(), x.size(), 0.f);
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = std::pow(x[i], y[i]);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(out[i])) << x[i] << "^" << y[i] << " = " << out[i];
    } else if (std::isinf(want)) {
      EXPECT_EQ(out[i], want) << x[i] << "^" << y[i];
    } else {
      EXPECT_NEAR(out[i], want, 2e-6 * std::fabs(want)) << x[i] << "^" << y[i];
      EXPECT_EQ(std::signbit(out[i]), std::signbit(want)) << x[i] << "^" << y[i];
    }
  }
}

// POW(x, 0.5) runs as SqrtAsPow on every ISA: std::pow's value at -0 (+0),
// -inf (+inf), negatives and NaN (NaN); else the correctly rounded square root
// (glibc's powf may be 1 ulp off it: 21.1f^0.5f).
TEST(Accuracy, SqrtAsPowIsStdPowOfAHalf) {
  auto bits = [](float v) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  };
  std::vector<float> x = {-INFINITY, -0.f, 0.f, INFINITY, NAN, -1.f, -1e-30f, 4.f, 2.f, 1e-40f, FLT_MAX};
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(0.f, 1e6f);
  while (x.size() < 77) x.push_back(u(rng));
  for (const auto& isa : available_isas()) {
    std::vector<float> out(x.size());
    kernels_for(isa)->ew->fn[static_cast<int>(EwKernelOp::SqrtAsPow)](x.data(), nullptr, nullptr, out.data(),
                                                                        x.size(), 0.f);
    for (size_t i = 0; i < x.size(); ++i) {
      const float want = i < 11 ? std::pow(x[i], 0.5f) : std::sqrt(x[i]);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(out[i])) << isa << " " << x[i];
      } else {
        EXPECT_EQ(bits(out[i]), bits(want)) << isa << " " << x[i] << " gave " << out[i];
      }
      if (i >= 11) {  // and within an ulp of glibc's powf
        EXPECT_LE(std::fabs(out[i] - std::pow(x[i], 0.5f)), std::nextafter(want, INFINITY) - want);
      }
    }
  }
}

// PRELU as TFLite computes it, x >= 0 ? x : x * alpha, on every ISA: -0 stays -0
// whatever alpha is, a NaN x stays NaN, -inf times alpha 0 is NaN.
TEST(Accuracy, PreluIsTflitesSelectBitForBit) {
  const float xs[] = {-0.f, 0.f, NAN, -NAN, INFINITY, -INFINITY, 1e-40f, -1e-40f, -3e38f, -1.f, 2.5f};
  const float alphas[] = {0.25f, -0.5f, 0.f, -0.f, 3.f, NAN};
  std::vector<float> x, alpha;
  for (int repeat = 0; repeat < 3; ++repeat)  // long enough for full vectors and a tail
    for (float xv : xs)
      for (float av : alphas) x.push_back(xv), alpha.push_back(av);
  for (const auto& isa : available_isas()) {
    std::vector<float> out(x.size());
    kernels_for(isa)->ew->fn[static_cast<int>(EwKernelOp::Prelu)](x.data(), alpha.data(), nullptr, out.data(),
                                                            x.size(), 0.f);
    for (size_t i = 0; i < x.size(); ++i) {
      const float want = x[i] >= 0.f ? x[i] : x[i] * alpha[i];
      ASSERT_TRUE(std::memcmp(&want, &out[i], 4) == 0 || (std::isnan(want) && std::isnan(out[i])))
          << isa << " x=" << x[i] << " alpha=" << alpha[i] << ": " << out[i] << " vs " << want;
    }
  }
}

// ADD, SUB, MUL, DIV (and the Fma family made of MUL+ADD) clamp to the float
// range as TFLite's kernels do without activation: an overflow or an inf
// operand gives +-FLT_MAX, NaN stays NaN. On every ISA, full vectors and a tail.
TEST(Accuracy, ArithmeticSaturatesAtTheFloatRangeAsTflite) {
  const float big = 3e38f;
  struct Case { EwKernelOp op; float a, b, c, want; };
  const Case cases[] = {
      {EwKernelOp::Add, big, big, 0.f, FLT_MAX},       {EwKernelOp::Add, INFINITY, 1.f, 0.f, FLT_MAX},
      {EwKernelOp::Sub, -big, big, 0.f, -FLT_MAX},     {EwKernelOp::Sub, 1.f, INFINITY, 0.f, -FLT_MAX},
      {EwKernelOp::Mul, big, -2.f, 0.f, -FLT_MAX},     {EwKernelOp::Mul, -INFINITY, -1.f, 0.f, FLT_MAX},
      {EwKernelOp::Div, big, 0.5f, 0.f, FLT_MAX},      {EwKernelOp::Div, -1.f, 0.f, 0.f, -FLT_MAX},
      {EwKernelOp::Fma, big, 2.f, 1.f, FLT_MAX},       {EwKernelOp::Fms, big, -2.f, 1.f, -FLT_MAX},
      {EwKernelOp::Fnma, big, 2.f, 1.f, -FLT_MAX},     {EwKernelOp::Add, NAN, 1.f, 0.f, NAN},
      {EwKernelOp::Mul, INFINITY, 0.f, 0.f, NAN},      {EwKernelOp::Add, 1.5f, 2.f, 0.f, 3.5f},
  };
  for (const auto& isa : available_isas()) {
    for (const Case& k : cases) {
      const size_t n = 19;
      std::vector<float> a(n, k.a), b(n, k.b), c(n, k.c), out(n);
      kernels_for(isa)->ew->fn[static_cast<int>(k.op)](a.data(), b.data(), c.data(), out.data(), n, 0.f);
      for (size_t i = 0; i < n; ++i)
        ASSERT_TRUE(std::isnan(k.want) ? std::isnan(out[i]) : out[i] == k.want)
            << isa << " " << kernel_op_name(k.op) << "(" << k.a << ", " << k.b << ", " << k.c << ") = " << out[i];
    }
  }
}

// The rational fits must not round past +-1: gelu(x << 0) is -0, not positive.
TEST(Accuracy, TanhAndGeluStayInRange) {
  const auto xs = sweep(-1e6, 1e6, 400001);
  std::vector<float> t(xs.size()), g(xs.size());
  ew_table_scalar().fn[static_cast<int>(EwKernelOp::Tanh)](xs.data(), nullptr, nullptr, t.data(), xs.size(), 0.f);
  ew_table_scalar().fn[static_cast<int>(EwKernelOp::Gelu)](xs.data(), nullptr, nullptr, g.data(), xs.size(), 0.f);
  for (size_t i = 0; i < xs.size(); ++i) {
    ASSERT_LE(std::fabs(t[i]), 1.f) << xs[i];
    if (xs[i] < 0) {
      ASSERT_LE(g[i], 0.f) << xs[i];
    }
  }
  const auto near = sweep(8, 9, 100001);
  ew_table_scalar().fn[static_cast<int>(EwKernelOp::Tanh)](near.data(), nullptr, nullptr, t.data(), near.size(), 0.f);
  for (size_t i = 0; i < near.size(); ++i) ASSERT_LE(t[i], 1.f) << near[i];
}

// HardSwish rounds as TFLite's builtin kernel computes it (measured on its
// vector body; its scalar tail multiplies by 1/6 last): (x * 1/6) * relu6(x + 3).
TEST(Accuracy, HardSwishIsTheBuiltinFormulaBitForBit) {
  std::vector<float> xs;
  for (uint32_t bits = 0; bits < 0x7f800000u; bits += 997) {  // every exponent, both signs
    float x;
    std::memcpy(&x, &bits, 4);
    xs.push_back(x), xs.push_back(-x);
  }
  xs.insert(xs.end(), {INFINITY, -INFINITY, 0.f, -0.f, 3.f, -3.f, 3e38f, NAN});
  std::vector<float> out(xs.size());
  ew_table_scalar().fn[static_cast<int>(EwKernelOp::HardSwish)](xs.data(), nullptr, nullptr, out.data(), xs.size(), 0.f);
  for (size_t i = 0; i < xs.size(); ++i) {
    const float x = xs[i], want = (x * (1.f / 6.f)) * std::min(6.f, std::max(0.f, x + 3.f));
    ASSERT_TRUE(std::memcmp(&want, &out[i], 4) == 0 || (std::isnan(want) && std::isnan(out[i])))
        << x << ": " << out[i] << " vs " << want;
  }
}

// Swish is one pass of the same arithmetic as LOGISTIC then MUL.
TEST(Accuracy, SwishIsLogisticThenMulBitForBit) {
  const auto xs = sweep(-120, 100, 100001);
  std::vector<float> sig(xs.size()), two_pass(xs.size()), one_pass(xs.size());
  const EwTable& t = ew_table_scalar();
  t.fn[static_cast<int>(EwKernelOp::Logistic)](xs.data(), nullptr, nullptr, sig.data(), xs.size(), 0.f);
  t.fn[static_cast<int>(EwKernelOp::Mul)](xs.data(), sig.data(), nullptr, two_pass.data(), xs.size(), 0.f);
  t.fn[static_cast<int>(EwKernelOp::Swish)](xs.data(), nullptr, nullptr, one_pass.data(), xs.size(), 0.f);
  for (size_t i = 0; i < xs.size(); ++i) ASSERT_EQ(std::memcmp(&one_pass[i], &two_pass[i], 4), 0) << xs[i];
}

TEST(Accuracy, LogisticKeepsSubnormalResults) {
  const std::vector<float> x = {-90.f, -100.f, -103.f, -103.9f, -104.f, 90.f, -INFINITY, INFINITY, -0.f, NAN};
  std::vector<float> out(x.size());
  ew_table_scalar().fn[static_cast<int>(EwKernelOp::Logistic)](x.data(), nullptr, nullptr, out.data(), x.size(), 0.f);
  for (size_t i = 0; i < 5; ++i) EXPECT_NEAR(out[i], std::exp(static_cast<double>(x[i])), 1.5e-45) << x[i];
  EXPECT_EQ(out[3], 1.4e-45f);  // e^-103.9 rounds up to the least subnormal, e^-104 down to 0
  EXPECT_EQ(out[4], 0.f);
  EXPECT_EQ(out[5], 1.f);
  EXPECT_EQ(out[6], 0.f);
  EXPECT_EQ(out[7], 1.f);
  EXPECT_EQ(out[8], 0.5f);
  EXPECT_TRUE(std::isnan(out[9]));
}

TEST(Accuracy, LogAndExpSpecialValues) {
  const std::vector<float> x = {0.f, -1.f, INFINITY, 1.f, 1e-42f};
  std::vector<float> out(x.size());
  ew_table_scalar().fn[static_cast<int>(EwKernelOp::Log)](x.data(), nullptr, nullptr, out.data(), x.size(), 0.f);
  EXPECT_EQ(out[0], -INFINITY);
  EXPECT_TRUE(std::isnan(out[1]));
  EXPECT_EQ(out[2], INFINITY);
  EXPECT_EQ(out[3], 0.f);
  EXPECT_NEAR(out[4], std::log(static_cast<double>(x[4])), 1e-5);  // denormal input
  const std::vector<float> e = {-200.f, 200.f, -100.f};
  ew_table_scalar().fn[static_cast<int>(EwKernelOp::Exp)](e.data(), nullptr, nullptr, out.data(), e.size(), 0.f);
  EXPECT_EQ(out[0], 0.f);
  EXPECT_EQ(out[1], INFINITY);
  EXPECT_NEAR(out[2], std::exp(-100.0), 1.5e-45);  // denormal result: within one spacing
}

}  // namespace
}  // namespace fd
