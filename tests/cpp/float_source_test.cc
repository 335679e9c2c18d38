// Constants stored as float16 or int8 and read as float32 where they are used:
// any span of a source converts to the values the whole-tensor conversions give
// (f16_to_f32, dequantize_i8), and packing weights straight from a source gives
// the panels packing its converted floats gives, bit for bit.
#include "ir/float_source.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "runtime/gemm_driver.h"
#include "runtime/winograd.h"

namespace fd {
namespace {

std::vector<uint16_t> random_halves(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint16_t> h(count);
  for (auto& v : h) v = static_cast<uint16_t>(rng() & 0x7bffu);  // finite: no NaN payloads to compare
  return h;
}

std::vector<int8_t> random_int8(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int8_t> q(count);
  for (auto& v : q) v = static_cast<int8_t>(static_cast<int>(rng() % 256) - 128);
  return q;
}

bool same_bits(const float* a, const float* b, size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }

void expect_spans_convert_as(const Float32Source& source, const std::vector<float>& want) {
  for (int64_t first : {0, 1, 6, 7, 50}) {
    for (int64_t n : {1, 3, 13, 100}) {
      std::vector<float> got(n);
      source.convert(first, n, got.data());
      ASSERT_TRUE(same_bits(got.data(), want.data() + first, n)) << first << " " << n;
    }
  }
}

TEST(FloatSource, AnySpanConvertsAsTheWholeTensor) {
  const std::vector<uint16_t> halves = random_halves(203, 1);
  std::vector<float> want_f16(halves.size());
  f16_to_f32(halves.data(), static_cast<int64_t>(halves.size()), want_f16.data());
  expect_spans_convert_as(Float32Source::from_f16(ConstantData::borrow(halves.data(), halves.size() * 2), 203),
                          want_f16);
  const std::vector<int8_t> q = random_int8(6 * 5 * 7, 2);
  const std::vector<int64_t> shape{6, 5, 7};
  const Quantization middle{{0.5f, 0.25f, 3.f, 0.125f, 1e-3f}, {0, 1, -3, 7, 0}, 1};  // runs of 7 values
  const Quantization last{{0.5f, 2.f, 3.f, 0.125f, 1e-3f, 4.f, 0.75f}, {0, 1, -3, 7, 0, 2, -1}, 2};  // cycling
  const Quantization whole{{0.01f}, {5}, -1};
  for (const Quantization& quantization : {middle, last, whole}) {
    Float32Source i8;
    ASSERT_TRUE(Float32Source::from_i8(ConstantData::borrow(q.data(), q.size()), shape, quantization, &i8));
    ASSERT_EQ(i8.count(), 210);
    const int64_t inner = quantization.axis == 1 ? 7 : quantization.axis == 2 ? 1 : 210;  // values per scale
    std::vector<float> want(q.size());
    for (size_t j = 0; j < q.size(); ++j) {
      const size_t c = j / inner % quantization.scales.size();
      want[j] = (static_cast<float>(q[j]) - static_cast<float>(quantization.zero_points[c])) * quantization.scales[c];
    }
    expect_spans_convert_as(i8, want);
  }
  Float32Source unused;
  EXPECT_FALSE(Float32Source::from_i8(ConstantData::borrow(q.data(), q.size()), {5, 6, 7}, middle, &unused));
}

// A converted constant reads as its floats and keeps its source; its copies
// share the floats, computed once.
TEST(FloatSource, ConvertedConstantDataReadsAsItsFloats) {
  const std::vector<uint16_t> halves{0x3c00, 0xc000, 0x3555, 0x0001};  // 1, -2, 0.33325195, 2^-24
  const ConstantData d =
      ConstantData::converted(Float32Source::from_f16(ConstantData::own(std::vector<uint16_t>(halves)), 4));
  EXPECT_FALSE(d.empty());
  EXPECT_TRUE(d.is_owned());
  EXPECT_EQ(d.size(), 4 * sizeof(float));
  ASSERT_NE(d.float32_source(), nullptr);
  EXPECT_EQ(d.float32_source()->stored_as(), DType::kF16);
  const ConstantData copy = d;
  const auto* values = static_cast<const float*>(copy.bytes());
  EXPECT_EQ(values[0], 1.f);
  EXPECT_EQ(values[1], -2.f);
  EXPECT_EQ(values[2], 0.33325195f);
  EXPECT_EQ(values[3], 0x1p-24f);
  EXPECT_EQ(d.bytes(), copy.bytes());
  EXPECT_EQ(ConstantData::own(std::vector<float>{1.f}).float32_source(), nullptr);
}

void expect_same_panels(const PackedWeights& a, const PackedWeights& b) {
  ASSERT_EQ(a.data.size(), b.data.size());
  EXPECT_EQ(a.last_nr, b.last_nr);
  EXPECT_TRUE(same_bits(a.data.data(), b.data.data(), a.data.size()));
}

// Weights [n, k] (a GEMM's, col_stride k) and [k, n] (a depthwise filter's,
// col_stride 1), with full and half-width last panels.
TEST(FloatSource, PackingFromASourceMatchesPackingItsFloats) {
  const int n = 37, k = 29, nr = 16;
  const std::vector<float> bias(n, 0.5f);
  const std::vector<uint16_t> halves = random_halves(n * k, 3);
  const std::vector<int8_t> q = random_int8(n * k, 4);
  const Quantization per_row{std::vector<float>(n, 0.02f), std::vector<int64_t>(n, 3), 0};
  Float32Source i8;
  ASSERT_TRUE(Float32Source::from_i8(ConstantData::borrow(q.data(), q.size()), {n, k}, per_row, &i8));
  const Float32Source f16 = Float32Source::from_f16(ConstantData::borrow(halves.data(), halves.size() * 2), n * k);
  for (const Float32Source* source : {&f16, static_cast<const Float32Source*>(&i8)}) {
    std::vector<float> floats(n * k);
    source->convert(0, n * k, floats.data());
    for (bool half_tail : {false, true}) {
      for (auto [col_stride, k_stride] : {std::pair<size_t, size_t>{k, 1}, {1, n}}) {
        PackedWeights want, got;
        pack_weights_into(floats.data(), col_stride, k_stride, bias.data(), n, k, nr, half_tail, &want);
        pack_weights_into(WeightValues(nullptr, source), col_stride, k_stride, bias.data(), n, k, nr, half_tail,
                          &got);
        expect_same_panels(want, got);
      }
    }
  }
}

// A 3x3 filter [n, 3, 3, c] in Winograd form, from its source as from its floats.
TEST(FloatSource, WinogradWeightsFromASourceMatchThoseOfItsFloats) {
  const int n = 9, c = 6, nr = 8;
  const std::vector<uint16_t> halves = random_halves(n * 9 * c, 5);
  const Float32Source f16 = Float32Source::from_f16(ConstantData::borrow(halves.data(), halves.size() * 2), n * 9 * c);
  std::vector<float> floats(halves.size());
  f16.convert(0, f16.count(), floats.data());
  const std::vector<float> bias(n, -1.f);
  const auto want = winograd_weights(floats.data(), bias.data(), n, c, nr);
  const auto got = winograd_weights(WeightValues(nullptr, &f16), bias.data(), n, c, nr);
  for (int p = 0; p < 16; ++p) expect_same_panels(want->u[p], got->u[p]);
  EXPECT_EQ(want->bias, got->bias);
}

}  // namespace
}  // namespace fd
