// Full-integer int8 DEPTHWISE_CONV_2D (kernels/q8_depthwise.h): the scalar
// reference against the formula written out here (int64 sums wrapped to
// int32, TFLite's fixed-point primitives, the first 8 * floor(depth / 8)
// channels in ruy's form and the rest in the reference form), every kernel
// this CPU runs bit for bit against the scalar one, at every depth 1..70 and
// a few large ones, multipliers 1..3, 1, 4, 9 and 25 taps, padding rows,
// random zero points, clamps and per-channel multipliers (ties, shifts both
// ways, zero, sums that wrap).
#include "kernels/q8_depthwise.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu.h"
#include "kernels/q8_fixed_point.h"
#include "qd8_test_util.h"

namespace fd {
namespace {

using test::random_int8;

// One output pixel's problem: each tap's row (its own buffer of in_channels,
// or the shared padding row of in_zp), weights [taps][depth], per-channel constants.
struct Problem {
  int depth = 0, multiplier = 1, taps = 0;
  std::vector<std::vector<int8_t>> rows;  // the last: padding
  std::vector<const int8_t*> tap_rows;
  std::vector<int8_t> w;
  std::vector<int32_t> bias;
  std::vector<Q8Multiplier> mult;
  int32_t in_zp = 0;
  Q8DepthwiseOutput out;
};

// The kinds of channel: sums mostly scaled into the int8 range; some with
// weights -1 or 1 at two taps and M = 2^30 at right shifts 1, 2 (ties
// often); large right shifts; multipliers > 1 (left shifts, that wrap); zero;
// a bias near the int32 limits (the sum wraps).
enum Kind { kTies, kScaled, kLargeShift, kGreaterThanOne, kZero, kWraps };
// Around the split between the roundings (the last channel of the 8-channel
// part, the tail) mostly ties.
Kind kind(int c, int depth, uint32_t seed) {
  static const Kind kinds[] = {kTies, kScaled, kTies, kLargeShift, kScaled, kGreaterThanOne, kTies, kWraps, kZero};
  const int i = c + static_cast<int>(seed % 9);
  return c >= depth / 8 * 8 - 1 && i % 3 ? kTies : kinds[i % 9];
}

Q8Multiplier random_multiplier(std::mt19937& rng, Kind kind, int taps) {
  std::uniform_real_distribution<double> u(-2., 2.);
  const double spread = std::sqrt(static_cast<double>(taps)) * 128.;  // |x - zp| |w| summed, roughly
  switch (kind) {
    case kTies: return {1 << 30, -1 - static_cast<int>(rng() % 2)};
    case kLargeShift: return {1 << 30, -12 - static_cast<int>(rng() % 20)};
    case kGreaterThanOne: return q8_multiplier(std::exp2(3. + 2. * u(rng)));
    case kZero: return {};
    case kWraps: return q8_multiplier(std::exp2(-25. + u(rng)));
    default: return q8_multiplier(60. / (spread * 74. + 30000.) * std::exp2(u(rng)));
  }
}

int32_t random_bias(std::mt19937& rng, Kind kind) {
  std::uniform_int_distribution<int32_t> wide(-(1 << 15), 1 << 15), small(-100, 100), near_limit(0, 1 << 14);
  if (kind == kTies) return small(rng);
  if (kind != kWraps) return wide(rng);
  const int32_t off = near_limit(rng);
  return rng() % 2 ? INT32_MAX - off : INT32_MIN + off;
}

// Each tap reads its own row, or (one in four) the padding row.
void random_rows(Problem& p, std::mt19937& rng, uint32_t seed) {
  const int in_channels = p.depth / p.multiplier;
  for (int t = 0; t < p.taps; ++t) p.rows.push_back(random_int8(in_channels, seed * 31 + t));
  p.rows.push_back(std::vector<int8_t>(in_channels, static_cast<int8_t>(p.in_zp)));
  for (int t = 0; t < p.taps; ++t) p.tap_rows.push_back(p.rows[rng() % 4 ? t : p.taps].data());
}

Problem random_problem(int depth, int multiplier, int taps, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> i8(-128, 127);
  Problem p;
  p.depth = depth, p.multiplier = multiplier, p.taps = taps;
  p.in_zp = i8(rng);
  p.w = random_int8(static_cast<size_t>(taps) * depth, seed * 7 + 1);
  for (int c = 0; c < depth; ++c) {
    const Kind k = kind(c, depth, seed);
    if (k == kTies) {  // the first and last taps' weights -1 or 1, the others 0: |acc| <= 2 * 255 + 100
      for (int t = 0; t < taps; ++t) p.w[t * depth + c] = 0;
      p.w[c] = static_cast<int8_t>(rng() % 2 ? 1 : -1);
      p.w[(taps - 1) * depth + c] = static_cast<int8_t>(rng() % 2 ? 1 : -1);
    }
    p.bias.push_back(random_bias(rng, k));
    p.mult.push_back(random_multiplier(rng, k, taps));
  }
  random_rows(p, rng, seed);
  p.out.zero_point = i8(rng) / 2;
  const int lo = i8(rng), hi = i8(rng);
  p.out.lo = rng() % 3 ? -128 : std::min(lo, hi), p.out.hi = rng() % 3 ? 127 : std::max(lo, hi);
  return p;
}

// The output of one kernel's pixel form on p, with 16 guard bytes (0x5A) after depth.
std::vector<int8_t> run(const Q8DepthwiseKernel& kernel, const Problem& p) {
  std::vector<char> packed(q8_depthwise_packed_bytes(kernel, p.depth, p.taps));
  q8_pack_depthwise(kernel, p.depth, p.taps, p.w.data(), p.bias.data(), p.mult.data(), p.in_zp, packed.data());
  std::vector<int8_t> out(p.depth + 16, 0x5A);
  kernel.pixel(p.depth, p.multiplier, p.taps, p.tap_rows.data(), packed.data(), out.data(), p.out);
  return out;
}

// Channel c's sum by the formula, in int64.
int64_t exact_sum(const Problem& p, int c) {
  int64_t acc = p.bias[c];
  for (int t = 0; t < p.taps; ++t)
    acc += (int64_t{p.tap_rows[t][c / p.multiplier]} - p.in_zp) * p.w[static_cast<size_t>(t) * p.depth + c];
  return acc;
}

// The sum wrapped to int32, as TFLite's is.
int32_t expected_sum(const Problem& p, int c) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(exact_sum(p, c))));
}

// ruy's x86 form: SRDHM, then a rounding shift with ties up.
int32_t ruy_requantize(int32_t acc, Q8Multiplier m) {
  const int left = std::max(m.shift, 0), right = std::max(-m.shift, 0);
  const int32_t h = q8_rounding_doubling_high_mul(static_cast<int32_t>(static_cast<uint32_t>(acc) << left),
                                                  m.multiplier);
  return right == 0 ? h : static_cast<int32_t>((int64_t{h} + (int64_t{1} << (right - 1))) >> right);
}

int8_t expected(const Problem& p, int c) {
  const int32_t acc = expected_sum(p, c);
  const bool vector_part = c < p.depth / 8 * 8;  // Quantize's 8-channel loop; the rest its scalar tail
  const int32_t t = vector_part ? ruy_requantize(acc, p.mult[c]) : q8_multiply(acc, p.mult[c]);
  const int32_t y = static_cast<int32_t>(static_cast<uint32_t>(t) + static_cast<uint32_t>(p.out.zero_point));
  return static_cast<int8_t>(std::min(p.out.hi, std::max(p.out.lo, y)));
}

std::string describe(const Problem& p) {
  return "depth=" + std::to_string(p.depth) + " multiplier=" + std::to_string(p.multiplier) +
         " taps=" + std::to_string(p.taps);
}

// Every depth 1..70 and a few large, each multiplier of it in 1..3, each tap
// count (twice where depth % 8 leaves a tail).
std::vector<Problem> problems() {
  std::vector<Problem> all;
  uint32_t seed = 1;
  std::vector<int> depths;
  for (int d = 1; d <= 70; ++d) depths.push_back(d);
  for (int d : {96, 144, 576, 1000}) depths.push_back(d);
  for (int depth : depths)
    for (int multiplier = 1; multiplier <= 3; ++multiplier)
      for (int taps : {1, 4, 9, 25}) {
        if (depth % multiplier || (depth > 70 && taps < 9)) continue;
        all.push_back(random_problem(depth, multiplier, taps, seed++));
        if (depth % 8) all.push_back(random_problem(depth, multiplier, taps, seed++));  // more ties in the tail
      }
  return all;
}

TEST(Q8Depthwise, ScalarMatchesFormula) {
  for (const Problem& p : problems()) {
    const std::vector<int8_t> out = run(q8_depthwise_kernel_scalar(), p);
    for (int c = 0; c < p.depth; ++c) ASSERT_EQ(out[c], expected(p, c)) << describe(p) << " channel " << c;
    for (int c = p.depth; c < p.depth + 16; ++c) ASSERT_EQ(out[c], 0x5A) << "written past depth";
  }
}

// The data has negative ties that the two roundings output differently in
// the 8-channel part and in the tail at each depth % 8: a split misplaced
// (all ruy's, all the reference's, off by a channel) fails ScalarMatchesFormula.
TEST(Q8Depthwise, RoundingsDifferInBothParts) {
  int vector_part = 0, last_of_part = 0, tail[8] = {};  // tail: by depth % 8
  for (const Problem& p : problems())
    for (int c = 0; c < p.depth; ++c) {
      const int32_t acc = expected_sum(p, c);
      const auto output = [&](int32_t t) {
        const int32_t y = static_cast<int32_t>(static_cast<uint32_t>(t) + static_cast<uint32_t>(p.out.zero_point));
        return std::min(p.out.hi, std::max(p.out.lo, y));
      };
      if (output(ruy_requantize(acc, p.mult[c])) == output(q8_multiply(acc, p.mult[c]))) continue;
      const int split = p.depth / 8 * 8;
      if (c >= split)
        ++tail[p.depth % 8];
      else
        ++(c == split - 1 ? last_of_part : vector_part);
    }
  EXPECT_GT(vector_part, 100);
  EXPECT_GT(last_of_part, 10);
  for (int r = 1; r < 8; ++r) EXPECT_GT(tail[r], 10) << "depth % 8 = " << r;
  std::printf("negative ties output differently: %d in the 8-channel part, %d in its last channel; in the tail at "
              "depth %% 8 = 1..7:", vector_part, last_of_part);
  for (int r = 1; r < 8; ++r) std::printf(" %d", tail[r]);
  std::printf("\n");
}

// Sums past the int32 range (TFLite's wrap) are in the test data.
TEST(Q8Depthwise, SomeSumsWrap) {
  int wrapped = 0;
  for (const Problem& p : problems())
    for (int c = 0; c < p.depth; ++c) wrapped += exact_sum(p, c) != expected_sum(p, c);
  EXPECT_GT(wrapped, 100);
}

TEST(Q8Depthwise, EveryKernelMatchesScalar) {
  const Q8DepthwiseKernel* kernels[8];
  const int count = q8_depthwise_kernels_runnable(kernels, 8);
  ASSERT_EQ(kernels[0], &q8_depthwise_kernel_scalar());
  for (const Problem& p : problems()) {
    const std::vector<int8_t> want = run(q8_depthwise_kernel_scalar(), p);
    for (int i = 1; i < count; ++i) ASSERT_EQ(run(*kernels[i], p), want) << kernels[i]->name << " " << describe(p);
  }
}

// The pixels form: more pixels than a chunk (kQ8DepthwiseChunk) at once,
// outputs out_stride apart, as one call of the pixel form each.
TEST(Q8Depthwise, PixelsFormMatchesPixelForm) {
  const Q8DepthwiseKernel* kernels[8];
  const int count = q8_depthwise_kernels_runnable(kernels, 8);
  const int n = kQ8DepthwiseChunk + 5;
  for (int depth : {7, 40, 99})
    for (int multiplier : {1, 3}) {
      std::vector<Problem> pixels(n);
      std::vector<const int8_t*> rows;
      for (int i = 0; i < n; ++i) {
        pixels[i] = random_problem(depth * multiplier, multiplier, 9, 500 + i);
        pixels[i].w = pixels[0].w, pixels[i].bias = pixels[0].bias, pixels[i].mult = pixels[0].mult;
        pixels[i].in_zp = pixels[0].in_zp, pixels[i].out = pixels[0].out;
        rows.insert(rows.end(), pixels[i].tap_rows.begin(), pixels[i].tap_rows.end());
      }
      const Problem& p = pixels[0];
      const size_t stride = p.depth + 3;
      for (int k = 0; k < count; ++k) {
        std::vector<char> packed(q8_depthwise_packed_bytes(*kernels[k], p.depth, p.taps));
        q8_pack_depthwise(*kernels[k], p.depth, p.taps, p.w.data(), p.bias.data(), p.mult.data(), p.in_zp,
                          packed.data());
        std::vector<int8_t> out(n * stride, 0x5A);
        kernels[k]->pixels(n, p.depth, multiplier, p.taps, rows.data(), packed.data(), out.data(), stride, p.out);
        for (int i = 0; i < n; ++i) {
          std::vector<int8_t> one = run(*kernels[k], pixels[i]);
          one.resize(stride, 0x5A);
          ASSERT_EQ(std::vector<int8_t>(out.begin() + i * stride, out.begin() + (i + 1) * stride), one)
              << kernels[k]->name << " " << describe(p) << " pixel " << i;
        }
      }
    }
}

TEST(Q8Depthwise, KernelForIsa) {
  for (const std::string& isa : available_isas()) {
    const Q8DepthwiseKernel* kernel = q8_depthwise_kernel_for(isa);
    ASSERT_NE(kernel, nullptr) << isa;
    EXPECT_EQ(kernels_for(isa)->q8_depthwise, kernel) << isa;
    std::printf("q8 depthwise for %s: %s\n", isa.c_str(), kernel->name);
  }
  EXPECT_EQ(q8_depthwise_kernel_for("auto"), q8_depthwise_kernel_for(available_isas().back()));
  EXPECT_EQ(q8_depthwise_kernel_for("no such isa"), nullptr);
}

}  // namespace
}  // namespace fd
