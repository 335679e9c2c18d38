// int8 elementwise groups (runtime/q8_program.h): TFLite's fixed-point
// primitives at values worked out by hand, every ISA's table lookup bit for
// bit against the scalar one, and a group's composed tables against its nodes
// evaluated one by one (kernels/q8_ops.h). Outputs against TFLite's own int8
// kernels: tests/test_runtimes.py's int8 models.
#include "runtime/q8_program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "kernels/cpu.h"
#include "qd8_test_util.h"
#include "ir/shape.h"

namespace fd {
namespace {

TEST(Q8, MultiplierIsTheMantissaInQ31) {
  EXPECT_EQ(q8_multiplier(0.5).multiplier, 1 << 30);
  EXPECT_EQ(q8_multiplier(0.5).shift, 0);
  EXPECT_EQ(q8_multiplier(1.0).multiplier, 1 << 30);
  EXPECT_EQ(q8_multiplier(1.0).shift, 1);
  EXPECT_EQ(q8_multiplier(0.75).multiplier, 1610612736);  // 0.75 * 2^31
  EXPECT_EQ(q8_multiplier(3.0 / 1024).shift, -8);          // 0.75 * 2^-8
  // A mantissa that rounds up to 2^31 becomes 2^30 at the next power of two.
  const Q8Multiplier up = q8_multiplier(0.5 - 1e-12);
  EXPECT_EQ(up.multiplier, 1 << 30);
  EXPECT_EQ(up.shift, 0);
  EXPECT_EQ(q8_multiplier(0.0).multiplier, 0);
  EXPECT_EQ(q8_multiplier(1e-12).multiplier, 0);  // below 2^-32: zero
}

// The shift rounds ties away from zero, the high multiply up (gemmlowp's nudge).
TEST(Q8, RoundingOfTies) {
  EXPECT_EQ(q8_rounding_divide_by_pot(5, 1), 3);    // 2.5
  EXPECT_EQ(q8_rounding_divide_by_pot(-5, 1), -3);  // -2.5
  EXPECT_EQ(q8_rounding_divide_by_pot(3, 1), 2);    // 1.5
  EXPECT_EQ(q8_rounding_divide_by_pot(-3, 1), -2);
  EXPECT_EQ(q8_rounding_divide_by_pot(-4, 2), -1);
  EXPECT_EQ(q8_rounding_divide_by_pot(7, 0), 7);
  EXPECT_EQ(q8_rounding_doubling_high_mul(INT32_MIN, INT32_MIN), INT32_MAX);
  EXPECT_EQ(q8_rounding_doubling_high_mul(1 << 30, 1 << 30), 1 << 29);
  EXPECT_EQ(q8_rounding_doubling_high_mul(3, 1 << 30), 2);     // 1.5
  EXPECT_EQ(q8_rounding_doubling_high_mul(-3, 1 << 30), -1);   // -1.5
  EXPECT_EQ(q8_multiply(100, q8_multiplier(0.5)), 50);
  EXPECT_EQ(q8_multiply(101, q8_multiplier(0.5)), 51);    // 50.5
  EXPECT_EQ(q8_multiply(-101, q8_multiplier(0.5)), -50);  // -50.5
  EXPECT_EQ(q8_multiply(-101, q8_multiplier(0.25)), -25);  // -50.5 / 2: -25.25
  EXPECT_EQ(q8_multiply(3, q8_multiplier(4.0)), 12);
}

TEST(Q8, ActivationsClampWhereTheirBoundsQuantize) {
  const Q8Quant in[2] = {{0.1f, 0}, {0.1f, 0}};
  const Q8Prepared relu6 = q8_prepare(Q8Op::Add, in, {0.05f, -10}, Q8Activation::kRelu6, 0.f);
  EXPECT_EQ(relu6.lo, -10);        // 0 at the zero point
  EXPECT_EQ(relu6.hi, -10 + 120);  // 6 / 0.05
  EXPECT_EQ(q8_eval(relu6, 100, 100), 110);  // 20 clamped to 6
  EXPECT_EQ(q8_eval(relu6, -50, 0), -10);    // -5 clamped to 0
  EXPECT_EQ(q8_eval(relu6, 10, 5), 20);      // 1.5 / 0.05 - 10
}

using test::random_int8;

TEST(Q8, EveryLookupKernelMatchesScalar) {
  const std::vector<int8_t> table = random_int8(256, 1), x = random_int8(4096 + 200, 2);
  std::vector<const Q8Kernel*> kernels;
  for (const std::string& isa : available_isas()) kernels.push_back(kernels_for(isa)->q8);
  for (const Q8Kernel* k : kernels)
    for (int64_t n : {0, 1, 63, 64, 65, 127, 200, 4096 + 133}) {
      std::vector<int8_t> want(n + 1, 7), got(n + 1, 7);
      q8_kernel_scalar().lut(table.data(), x.data() + 3, want.data(), n);
      k->lut(table.data(), x.data() + 3, got.data(), n);
      EXPECT_EQ(got, want) << k->name << " n=" << n;  // and the byte past n untouched
    }
}

// Every ISA's two-input loop against q8_eval value by value: random scales
// (ratios far apart too), every op, both ADD forms, blocks ending anywhere.
TEST(Q8, EveryBinaryKernelMatchesScalar) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> scale(0.002f, 0.2f);
  std::uniform_int_distribution<int> zp(-128, 127);
  const std::vector<int8_t> a = random_int8(1000, 8), b = random_int8(1000, 9);
  for (const std::string& isa : available_isas())
    for (Q8Op op : {Q8Op::Add, Q8Op::Sub, Q8Op::Mul, Q8Op::Maximum, Q8Op::Minimum, Q8Op::SquaredDifference})
      for (int trial = 0; trial < 20; ++trial) {
        const Q8Quant in[2] = {{scale(rng), zp(rng)}, {trial % 4 ? scale(rng) : in[0].scale / 37, zp(rng)}};
        const Q8Prepared p = q8_prepare(op, in, {scale(rng) * 2, zp(rng)}, static_cast<Q8Activation>(trial % 4), 0.f);
        const int64_t n = 1 + trial * 47, blocked = (trial * 29) % (n + 1);
        std::vector<int8_t> got(n + 1, 5), want(n + 1, 5);
        kernels_for(isa)->q8->binary(p, a.data(), b.data(), got.data(), n, blocked);
        for (int64_t i = 0; i < n; ++i) want[i] = q8_eval(p, a[i], b[i], i < blocked);
        ASSERT_EQ(got, want) << isa << " " << q8_op_name(op) << " trial " << trial;
      }
}

// ADD and SUB by their linear form (kernels/q8_linear.h) on every pair of
// int8 inputs, both ADD forms, against q8_eval: random scales, the inputs'
// ratio up to 1:100 and the output's from 1:40 to 40:1. The form must decide
// (it is built for these scales), and its tolerance must matter: with none,
// some values come out wrong.
TEST(Q8, LinearFormOfAddAndSubMatchesScalarOnEveryPair) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> log_scale(std::log(0.001), std::log(0.5));
  std::uniform_real_distribution<double> log_ratio(std::log(1 / 40.0), std::log(40.0));
  std::uniform_int_distribution<int> zp(-128, 127);
  std::vector<int8_t> a(65536), b(65536);
  for (int i = 0; i < 65536; ++i) {
    a[i] = static_cast<int8_t>(i & 255);
    b[i] = static_cast<int8_t>(i >> 8);
  }
  int64_t wrong_without_tolerance = 0;
  for (const std::string& isa : available_isas())
    for (int trial = 0; trial < 64; ++trial) {
      const Q8Op op = trial % 3 ? Q8Op::Add : Q8Op::Sub;
      const float s0 = static_cast<float>(std::exp(log_scale(rng)));
      const float s1 = trial % 4 ? static_cast<float>(std::exp(log_scale(rng))) : s0 / 100;
      const float out = static_cast<float>(std::max(s0, s1) * std::exp(log_ratio(rng)));
      const Q8Quant in[2] = {{s0, zp(rng)}, {s1, zp(rng)}};
      Q8Prepared p = q8_prepare(op, in, {out, zp(rng)}, static_cast<Q8Activation>(trial % 4), 0.f);
      ASSERT_GT(p.linear.shift, 0) << "trial " << trial;
      const int64_t blocked = op == Q8Op::Add && trial % 2 ? 65536 : 0;
      std::vector<int8_t> got(65536), want(65536);
      for (int i = 0; i < 65536; ++i) want[i] = q8_eval(p, a[i], b[i], i < blocked);
      kernels_for(isa)->q8->binary(p, a.data(), b.data(), got.data(), 65536, blocked);
      ASSERT_EQ(got, want) << isa << " " << q8_op_name(op) << " trial " << trial;
      p.linear.tolerance = 0;
      kernels_for(isa)->q8->binary(p, a.data(), b.data(), got.data(), 65536, blocked);
      for (int i = 0; i < 65536; ++i) wrong_without_tolerance += got[i] != want[i];
    }
  EXPECT_GT(wrong_without_tolerance, 0);
}

// BATCH_MATMUL's rows (kernels/q8_matmul.h) on every ISA against the formula
// written out here: odd and even depths, column counts off the vector width,
// both layouts of the right side, zero points and multipliers of any size.
TEST(Q8, EveryMatMulKernelMatchesTheFormula) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> zp(-128, 127);
  std::uniform_real_distribution<double> log_m(std::log(1e-5), std::log(0.9));
  const std::vector<int8_t> a = random_int8(37 * 129, 3), b = random_int8(129 * 70, 4);
  for (const std::string& isa : available_isas())
    for (int trial = 0; trial < 12; ++trial) {
      const int rows = 1 + trial * 3, k = 1 + trial * 11, n = 1 + trial * 6;
      const bool nk = trial % 2;
      Q8MatMulParams p;
      p.a_zp = zp(rng);
      p.m = q8_multiplier(std::exp(log_m(rng)));
      p.out_zp = zp(rng);
      if (trial % 3 == 0) p.lo = -5, p.hi = 100;
      const int32_t b_zp = zp(rng);
      std::vector<int16_t> packed(q8_matmul_packed_size(k, n));
      q8_pack_matmul_rhs(b.data(), k, n, nk, b_zp, packed.data());
      std::vector<int8_t> got(rows * n + 1, 9), want(rows * n + 1, 9);
      kernels_for(isa)->q8->matmul(a.data(), rows, k, n, packed.data(), p, got.data());
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < n; ++j) {
          int32_t acc = 0;
          for (int t = 0; t < k; ++t) acc += (a[i * k + t] - p.a_zp) * ((nk ? b[j * k + t] : b[t * n + j]) - b_zp);
          want[i * n + j] = static_cast<int8_t>(q8_clamp(q8_multiply(acc, p.m) + p.out_zp, p.lo, p.hi));
        }
      ASSERT_EQ(got, want) << isa << " trial " << trial;  // and the byte past the rows untouched
    }
}

// An int8 tensor of one scale and zero point; a constant holds `values`.
int q8_tensor(Graph& g, Shape shape, float scale, int zp, const std::vector<int8_t>* values = nullptr) {
  Tensor t;
  t.dtype = DType::kI8;
  t.shape = std::move(shape);
  t.quantization.scales = {scale};
  t.quantization.zero_points = {zp};
  if (values) {
    t.is_constant = true;
    t.data = ConstantData::copy_of(values->data(), values->size());
  }
  g.tensors.push_back(t);
  return static_cast<int>(g.tensors.size()) - 1;
}

int q8_node(Graph& g, EwOp op, std::vector<int> inputs, int out, Activation act = Activation::kNone, float param = 0) {
  Node n;
  n.id = static_cast<int>(g.nodes.size());
  n.name = ew_name(op);
  n.kind = OpKind::kElementwise;
  n.ew = op;
  n.act = act;
  n.param = param;
  n.inputs = std::move(inputs);
  n.outputs = {out};
  g.nodes.push_back(n);
  return out;
}

Q8Quant quant(const Tensor& t) { return {t.quantization.scales[0], static_cast<int32_t>(t.quantization.zero_points[0])}; }

Q8Op op_of(EwOp op) {
  const std::map<EwOp, Q8Op> ops = {{EwOp::Add, Q8Op::Add},     {EwOp::Sub, Q8Op::Sub},
                                    {EwOp::Mul, Q8Op::Mul},     {EwOp::Logistic, Q8Op::Logistic},
                                    {EwOp::Tanh, Q8Op::Tanh},   {EwOp::HardSwish, Q8Op::HardSwish},
                                    {EwOp::Relu6, Q8Op::Relu6}, {EwOp::LeakyRelu, Q8Op::LeakyRelu},
                                    {EwOp::Maximum, Q8Op::Maximum}, {EwOp::Quantize, Q8Op::Quantize}};
  return ops.at(op);
}

// Every node evaluated value by value, constants broadcast along the last axis.
std::map<int, std::vector<int8_t>> node_by_node(const Graph& g, std::map<int, std::vector<int8_t>> v, int64_t n,
                                                int64_t channels) {
  for (const Node& node : g.nodes) {
    Q8Quant in[2];
    for (size_t i = 0; i < node.inputs.size(); ++i) in[i] = quant(g.tensors[node.inputs[i]]);
    const Activation a = node.act;
    const Q8Activation act = a == Activation::kRelu ? Q8Activation::kRelu : Q8Activation::kNone;
    const Q8Prepared p = q8_prepare(op_of(node.ew), in, quant(g.tensors[node.outputs[0]]), act, node.param);
    auto at = [&](int t, int64_t e) {
      const Tensor& x = g.tensors[t];
      if (!x.is_constant) return v.at(t)[e];
      const int8_t* c = static_cast<const int8_t*>(x.data.bytes());
      return num_elements(x.shape) == 1 ? c[0] : c[e % channels];
    };
    std::vector<int8_t>& out = v[node.outputs[0]];
    out.resize(n);
    for (int64_t e = 0; e < n; ++e)  // TFLite's blocks of 16 (ADD, QUANTIZE)
      out[e] = q8_eval(p, at(node.inputs[0], e), node.inputs.size() > 1 ? at(node.inputs[1], e) : int8_t{0},
                       e < q8_blocked_values(n));
  }
  return v;
}

// x, y -> LOGISTIC(x) * x - c[ch] -> HARD_SWISH -> (+ y, RELU) -> LEAKY_RELU, TANH of
// the sum written out too, and a QUANTIZE of y: ADD is a step (two sources; its blocks
// of 16 round as TFLite's NEON loop), the MUL's operands are both tables of x.
TEST(Q8, ComposedTablesMatchNodeByNode) {
  const Shape shape{2, 5, 7, 6};
  const int64_t n = num_elements(shape), channels = shape.back();
  Graph g;
  const std::vector<int8_t> c = random_int8(channels, 3), k = {-7};
  const int x = q8_tensor(g, shape, 0.05f, 3), y = q8_tensor(g, shape, 0.08f, -20);
  const int sig = q8_node(g, EwOp::Logistic, {x}, q8_tensor(g, shape, 1.f / 256, -128));
  const int mul = q8_node(g, EwOp::Mul, {sig, x}, q8_tensor(g, shape, 0.03f, -5));
  const int add = q8_node(g, EwOp::Sub, {mul, q8_tensor(g, {channels}, 0.02f, 1, &c)}, q8_tensor(g, shape, 0.04f, 2));
  const int hs = q8_node(g, EwOp::HardSwish, {add}, q8_tensor(g, shape, 0.035f, -60));
  const int sum = q8_node(g, EwOp::Add, {hs, y}, q8_tensor(g, shape, 0.06f, -128), Activation::kRelu);
  const int lr = q8_node(g, EwOp::LeakyRelu, {sum}, q8_tensor(g, shape, 0.05f, 0), Activation::kNone, 0.2f);
  const int th = q8_node(g, EwOp::Tanh, {sum}, q8_tensor(g, shape, 1.f / 128, 0));
  const int mx = q8_node(g, EwOp::Maximum, {th, q8_tensor(g, {1}, 1.f / 128, 0, &k)}, q8_tensor(g, shape, 1.f / 128, 0));
  const int rq = q8_node(g, EwOp::Quantize, {y}, q8_tensor(g, shape, 0.32f, -21));  // x / 4: ties at -2 mod 4
  const std::vector<int> group = {0, 1, 2, 3, 4, 5, 6, 7, 8}, outputs = {lr, mx, sum, rq};
  const Q8Program p = build_q8_program(g, group, {x, y}, outputs, *kernels_for("auto")->q8, {});
  ASSERT_EQ(p.steps.size(), 2u) << p.to_string(2);  // the ADD, the QUANTIZE (its forms differ)
  std::string error;
  auto bound = BoundQ8Program::bind(std::make_shared<const Q8Program>(p), {shape, shape}, &error);
  ASSERT_TRUE(bound) << error;
  const std::vector<int8_t> xs = random_int8(n, 4), ys = random_int8(n, 5);
  std::vector<std::vector<int8_t>> got(4, std::vector<int8_t>(n));
  const int8_t* in[] = {xs.data(), ys.data()};
  int8_t* out[] = {got[0].data(), got[1].data(), got[2].data(), got[3].data()};
  bound->run(in, out, nullptr);
  const auto want = node_by_node(g, {{x, xs}, {y, ys}}, n, channels);
  for (int o = 0; o < 4; ++o) EXPECT_EQ(got[o], want.at(outputs[o])) << "output " << o;
}

}  // namespace
}  // namespace fd
