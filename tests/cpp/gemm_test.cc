// GEMM and depthwise micro-kernels on every ISA: against a naive double-precision
// reference, and bit for bit against the scalar instantiation (same fma order).
#include "runtime/gemm_driver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <tuple>

#include "graph_builder.h"
#include "kernels/cpu.h"
#include "runtime/tiling.h"
#include "runtime/winograd.h"

namespace fd {
namespace {

struct Problem {
  int m, n, k;
};

using test::random_vector;

// Each ISA's GEMM kernels, the scalar one first.
std::vector<std::pair<std::string, const GemmKernel&>> every_gemm_kernel() {
  std::vector<std::pair<std::string, const GemmKernel&>> all;
  for (const auto& isa : available_isas()) {
    const Kernels& k = *kernels_for(isa);
    all.emplace_back(isa, *k.gemm);
    if (k.gemm_wide) all.emplace_back(isa, *k.gemm_wide);
  }
  return all;
}

// Each ISA's depthwise kernels, fma and rounded (kernels.rounded).
std::vector<const DwKernel*> every_dw_kernel() {
  std::vector<const DwKernel*> all;
  for (const auto& isa : available_isas()) {
    all.push_back(kernels_for(isa)->dw);
    all.push_back(kernels_for(isa)->rounded->dw);
  }
  return all;
}

TEST(Gemm, EveryIsaMatchesNaiveAndScalarBitForBit) {
  // The last two's weights are past tiling().row_tile_weights_bytes (panel
  // by panel over row blocks, not one call per row tile over all panels), the
  // last one's past streamed_weights_bytes too: tiles prefetch the next panel.
  const int by_panels = static_cast<int>(tiling().row_tile_weights_bytes / (301 * sizeof(float))) + 37;
  const int streamed = static_cast<int>(tiling().streamed_weights_bytes / (301 * sizeof(float))) + 37;
  const Problem problems[] = {{1, 1, 1},     {5, 7, 3},      {13, 33, 17}, {12, 32, 64},  {25, 70, 129},
                              {197, 40, 300}, {7, 100, 1},   {100, 3, 50}, {1, 70, 129}, {110, by_panels, 300},
                              {30, streamed, 300}, {1, streamed, 300}, {1, 16 * 5 + 9, 40}};
  const float kGuard = 1234.5f;
  for (const auto& [m, n, k] : problems) {
    for (const auto& [lo, hi, half_tail] : {std::tuple<float, float, bool>{-INFINITY, INFINITY, false},
                                            {0.f, 6.f, false}, {-INFINITY, INFINITY, true}}) {
      const size_t lda = k + 3, ldc = n + 5;  // padded rows: nothing past n may be written
      const auto a = random_vector(m * lda, m * 7 + k), w = random_vector(n * k, n * 11 + k),
                 bias = random_vector(n, n);
      std::vector<float> scalar_out;
      for (const auto& [isa, kernel] : every_gemm_kernel()) {
        const PackedWeights packed = pack_weights(w.data(), bias.data(), n, k, kernel.nr, half_tail);
        std::vector<float> c(m * ldc, kGuard);
        std::vector<const float*> rows(m);
        for (int i = 0; i < m; ++i) rows[i] = a.data() + i * lda;
        gemm(kernel, packed, m, 1, rows.data(), c.data(), ldc, lo, hi);
        for (int i = 0; i < m; ++i) {
          for (int j = 0; j < n; ++j) {
            double ref = bias[j], mag = std::fabs(bias[j]);
            for (int p = 0; p < k; ++p) {
              ref += static_cast<double>(a[i * lda + p]) * w[j * k + p];
              mag += std::fabs(a[i * lda + p] * w[j * k + p]);
            }
            ref = std::min<double>(hi, std::max<double>(lo, ref));
            ASSERT_NEAR(c[i * ldc + j], ref, 1e-6 * mag + 1e-7)
                << kernel.name << " m=" << m << " n=" << n << " k=" << k << " at " << i << "," << j;
          }
          for (size_t j = n; j < ldc; ++j) ASSERT_EQ(c[i * ldc + j], kGuard) << kernel.name << " wrote past n";
        }
        if (&kernel == kernels_for("scalar")->gemm) scalar_out = c;
        else ASSERT_EQ(c, scalar_out) << kernel.name << " differs from the scalar reference";
        // The same in two runs of panels (how threads share a GEMM of few rows).
        std::vector<float> halves(m * ldc, kGuard);
        const int cut = packed.panels() / 2;
        gemm(kernel, packed, m, 1, rows.data(), halves.data(), ldc, lo, hi, 0, cut);
        gemm(kernel, packed, m, 1, rows.data(), halves.data(), ldc, lo, hi, cut, packed.panels());
        ASSERT_EQ(halves, c) << kernel.name << " by panels";
      }
    }
  }
}

// Row tiles walk a run of panels in one micro-kernel call: every range of
// panels [f, l), empty ones too, writes exactly its columns, each as a call on
// its one panel does (and those match a naive sum), taps apart in memory, any
// number of rows.
TEST(Gemm, EveryRangeOfPanelsWritesItsColumnsAsSinglePanelCalls) {
  for (const auto& [isa, kernel] : every_gemm_kernel())
    for (int n : {1, 8, 20, 40, 72, 144})
      for (int taps : {1, 3})
        for (int m : {0, 1, 5, 13})
          for (bool half_tail : {false, true}) {
            const int kc = 5, k = taps * kc;
            const size_t ldc = n + 3;
            const auto w = random_vector(n * k, n + k), bias = random_vector(n, n + 1);
            const auto a = random_vector(static_cast<size_t>(m) * taps * (kc + 2) + 1, m + taps);
            const PackedWeights packed = pack_weights(w.data(), bias.data(), n, k, kernel.nr, half_tail);
            std::vector<const float*> rows(static_cast<size_t>(m) * taps);
            for (int i = 0; i < m * taps; ++i) rows[i] = a.data() + i * (kc + 2);  // gaps between taps
            std::vector<float> one(m * ldc, 7.f);
            for (int q = 0; q < packed.panels(); ++q)
              gemm(kernel, packed, m, taps, rows.data(), one.data(), ldc, -1.5f, 2.f, q, q + 1);
            for (int i = 0; i < m; ++i)
              for (int j = 0; j < n; ++j) {
                double ref = bias[j];
                for (int t = 0; t < taps; ++t)
                  for (int p = 0; p < kc; ++p) ref += double(rows[i * taps + t][p]) * w[j * k + t * kc + p];
                ASSERT_NEAR(one[i * ldc + j], std::min(2.0, std::max(-1.5, ref)), 1e-5) << kernel.name;
              }
            for (int f = 0; f <= packed.panels(); ++f)
              for (int l = f; l <= packed.panels(); ++l) {
                std::vector<float> c(m * ldc, 7.f);
                gemm(kernel, packed, m, taps, rows.data(), c.data(), ldc, -1.5f, 2.f, f, l);
                for (int i = 0; i < m; ++i)
                  for (size_t j = 0; j < ldc; ++j) {
                    const int col = static_cast<int>(j);
                    const bool in = col >= f * packed.nr && col < std::min(n, l * packed.nr);
                    ASSERT_EQ(c[i * ldc + j], in ? one[i * ldc + j] : 7.f)
                        << kernel.name << " n=" << n << " m=" << m << " taps=" << taps << " panels [" << f << ", "
                        << l << ") at " << i << "," << j << (half_tail ? " half tail" : "");
                  }
              }
          }
}

// Packing reads weight (j, i) at j * col_stride + i * k_stride: every layout,
// panel width and tail gives the panels laid out by hand here.
TEST(Gemm, PackingFromAnyLayoutMatchesPanelsBuiltByHand) {
  for (const auto& [n, k] : {std::pair<int, int>{1, 1}, {5, 3}, {33, 17}, {70, 129}, {16, 4}, {40, 31}}) {
    const auto w = random_vector(n * k, n + k), bias = random_vector(n, n);
    std::vector<float> w_t(n * k);  // [k x n]
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < k; ++i) w_t[i * n + j] = w[j * k + i];
    for (const auto& [nr, half_tail] : {std::pair<int, bool>{8, false}, {16, true}, {32, true}}) {
      PackedWeights by_rows, by_depths;
      pack_weights_into(w.data(), k, 1, bias.data(), n, k, nr, half_tail, &by_rows);
      pack_weights_into(w_t.data(), 1, n, bias.data(), n, k, nr, half_tail, &by_depths);
      std::vector<float> expected;
      for (int q = 0; q < by_rows.panels(); ++q) {
        const int width = q + 1 < by_rows.panels() ? nr : by_rows.last_nr;
        for (int i = 0; i <= k; ++i)  // depths, then the biases
          for (int j = q * nr; j < q * nr + width; ++j)
            expected.push_back(j >= n ? 0.f : i == k ? bias[j] : w[j * k + i]);
      }
      const std::vector<float> rows(by_rows.data.begin(), by_rows.data.end());
      const std::vector<float> depths(by_depths.data.begin(), by_depths.data.end());
      EXPECT_EQ(rows, expected) << n << "x" << k << " nr " << nr;
      EXPECT_EQ(depths, expected) << n << "x" << k << " nr " << nr;
    }
  }
}

TEST(Gemm, PackedWeightsShareRegionsThatAreFreedWithTheirLastBlock) {
  const int before = block_regions();
  const auto w = random_vector(size_t{1024} * 1024, 3);
  {
    std::vector<PackedWeights> packed;  // 4 MiB, then 256 KiB blocks: 20 MiB over two regions
    packed.push_back(pack_weights(w.data(), nullptr, 1024, 1024, 32));
    for (int i = 0; i < 64; ++i) packed.push_back(pack_weights(w.data() + i * 1024, nullptr, 256, 256, 32));
    packed.push_back(pack_weights(w.data(), nullptr, 4, 4, 32));  // a small one, not in a region
    EXPECT_GE(block_regions(), before + 2);
    for (const PackedWeights& p : packed) EXPECT_EQ(reinterpret_cast<uintptr_t>(p.data.data()) % 64, 0u);
    EXPECT_EQ(packed[0].data[5 * 32 + 7], w[size_t{7} * 1024 + 5]);  // column 7, depth 5
    for (int i = 0; i < 64; ++i) EXPECT_EQ(packed[1 + i].data[3 * 32 + 9], w[i * 1024 + 9 * 256 + 3]);
    EXPECT_EQ(packed.back().data[32 + 2], w[2 * 4 + 1]);
    packed.erase(packed.begin() + 1, packed.begin() + 40);  // blocks freed out of order
    EXPECT_EQ(packed[3].data[3 * 32 + 9], w[41 * 1024 + 9 * 256 + 3]);
  }
  EXPECT_EQ(block_regions(), before);
}

// While a block keeps its region alive, the space of the others freed is
// reused: a resized model's new buffers go where the old ones were, its
// memory does not grow with every resize.
TEST(Gemm, AFreedBlocksSpaceIsReusedWhileItsRegionLives) {
  const int before = block_regions();
  const size_t keep_bytes = size_t{1} << 20, bytes = size_t{3} << 20;
  void* keep = allocate_block(keep_bytes);
  for (int i = 0; i < 60; ++i) {  // 540 MiB carved in all: without reuse, dozens of regions
    void* a = allocate_block(bytes);
    void* b = allocate_block(bytes);
    free_block(a, bytes);  // a hole before b
    void* c = allocate_block(bytes);
    EXPECT_EQ(c, a);
    static_cast<char*>(c)[bytes - 1] = 1;
    free_block(b, bytes);
    free_block(c, bytes);
  }
  EXPECT_EQ(block_regions(), before + 1);
  char* a = static_cast<char*>(allocate_block(bytes));  // three freed side by side: one hole
  char* b = static_cast<char*>(allocate_block(bytes));
  char* c = static_cast<char*>(allocate_block(bytes));
  void* end = allocate_block(bytes);
  ASSERT_EQ(b, a + bytes);
  ASSERT_EQ(c, b + bytes);
  free_block(a, bytes);
  free_block(c, bytes);
  free_block(b, bytes);
  void* whole = allocate_block(3 * bytes);
  EXPECT_EQ(whole, a);
  free_block(whole, 3 * bytes);
  free_block(end, bytes);
  free_block(keep, keep_bytes);
  EXPECT_EQ(block_regions(), before);
}

// A region freed with its last block is kept (up to a cap) for the next one:
// an interpreter created again finds its pages mapped.
TEST(Gemm, AFreedRegionIsReusedByTheNextBlock) {
  const int before = block_regions();
  const size_t bytes = size_t{17} << 20;  // past one region's default size: a region of its own
  void* first = allocate_block(bytes);
  EXPECT_EQ(block_regions(), before + 1);
  free_block(first, bytes);
  EXPECT_EQ(block_regions(), before);
  void* again = allocate_block(bytes);
  EXPECT_EQ(again, first);
  static_cast<char*>(again)[bytes - 1] = 1;  // writable to its end
  free_block(again, bytes);
}

TEST(Depthwise, EveryIsaMatchesNaiveAndScalarBitForBit) {
  // 9 and 25 taps take the filter-in-registers kernels where an ISA has them.
  const float kGuard = 1234.5f;
  const int pixels = 7;
  for (int taps : {4, 9, 25}) {
    for (int channels : {5, 13, 40, 70}) {
      const auto x = random_vector(64 * channels, taps + channels), w = random_vector(channels * taps, channels),
                 bias = random_vector(channels, taps);
      std::vector<const float*> rows(pixels * taps);
      for (size_t r = 0; r < rows.size(); ++r) rows[r] = x.data() + (r * 37 % 64) * channels;
      std::vector<float> scalar_out;
      for (const auto& isa : available_isas()) {
        const DwKernel& kernel = *kernels_for(isa)->dw;
        const PackedWeights packed = pack_weights(w.data(), bias.data(), channels, taps, kernel.cb);
        std::vector<float> out(pixels * channels + 16, kGuard);
        kernel.for_taps(taps)(pixels, channels, taps, rows.data(), packed.data.data(), out.data(), -2.f, 2.f);
        for (int p = 0; p < pixels; ++p)
          for (int c = 0; c < channels; ++c) {
            double ref = bias[c];
            for (int t = 0; t < taps; ++t) ref += static_cast<double>(rows[p * taps + t][c]) * w[c * taps + t];
            ref = std::min(2.0, std::max(-2.0, ref));
            ASSERT_NEAR(out[p * channels + c], ref, 1e-5) << kernel.name << " taps " << taps << " at " << p << "," << c;
          }
        for (size_t i = pixels * channels; i < out.size(); ++i) ASSERT_EQ(out[i], kGuard) << kernel.name << " overran";
        if (isa == "scalar") scalar_out = out;
        else ASSERT_EQ(out, scalar_out) << kernel.name << " taps " << taps << " differs from the scalar reference";
      }
    }
  }
}

// The row kernels (3x3 and 5x5 at stride 1 and 2) against the tap kernels (fma
// and rounded ones), bit for bit, on SAME-padded rows (padding taps point at a
// zero row) of widths below, at and above one chunk, and rows wider than the
// kernels' 64-pixel pieces.
void expect_row_kernels_match_tap_kernels(int k, int stride, int width, int channels) {
  const int taps = k * k, h = k + 1, half = k / 2, in_w = stride * width;
  const auto x = random_vector(h * in_w * channels, width + channels), w = random_vector(channels * taps, k),
             bias = random_vector(channels, channels);
  const std::vector<float> zero(channels, 0.f);
  for (int y : {0, half}) {  // the top row (padding above) and an inner one
    std::vector<const float*> rows(width * taps);
    for (int px = 0; px < width; ++px)
      for (int t = 0; t < taps; ++t) {
        const int iy = y + t / k - half, ix = stride * px + t % k - half;
        const bool inside = iy >= 0 && iy < h && ix >= 0 && ix < in_w;
        rows[px * taps + t] = inside ? x.data() + (iy * in_w + ix) * channels : zero.data();
      }
    for (const DwKernel* each : every_dw_kernel()) {
      const DwKernel& kernel = *each;
      if (!kernel.row_for_taps(taps, stride)) continue;
      const PackedWeights packed = pack_weights(w.data(), bias.data(), channels, taps, kernel.cb);
      std::vector<float> by_taps(width * channels), by_row(width * channels + 16, 1234.5f);
      kernel.for_taps(taps)(width, channels, taps, rows.data(), packed.data.data(), by_taps.data(), -2.f, 2.f);
      kernel.row_for_taps(taps, stride)(width, channels, rows.data(), packed.data.data(), by_row.data(), -2.f, 2.f);
      for (size_t i = width * channels; i < by_row.size(); ++i) ASSERT_EQ(by_row[i], 1234.5f) << "overran";
      by_row.resize(width * channels);
      ASSERT_EQ(by_row, by_taps) << kernel.name << " " << k << "x" << k << "/" << stride << " width " << width
                                 << " channels " << channels << " row " << y;
    }
  }
}

TEST(Depthwise, RowKernelsMatchTapKernelsBitForBit) {
  for (int k : {3, 5})
    for (int stride : {1, 2})
      for (int width : {1, 7, 16, 70})
        for (int channels : {5, 13, 40, 70}) expect_row_kernels_match_tap_kernels(k, stride, width, channels);
}

TEST(Depthwise, EveryTableHasRowKernelsAtStrideOneAndTwo) {
  for (const DwKernel* kernel : every_dw_kernel())
    for (int taps : {9, 25})
      for (int stride : {1, 2}) EXPECT_TRUE(kernel->row_for_taps(taps, stride)) << kernel->name << " " << taps;
}

// Two output rows at once (3x3): both rows bit for bit as the tap kernels
// give them, at the top (padding above), inside, and at the bottom.
TEST(Depthwise, TwoRowKernelsMatchTapKernelsBitForBit) {
  const int k = 3, taps = 9, h = 5;
  for (int width : {1, 5, 16, 70}) {
    for (int channels : {5, 16, 40, 70}) {
      const auto x = random_vector(h * width * channels, width * 3 + channels),
                 w = random_vector(channels * taps, channels), bias = random_vector(channels, channels + 1);
      const std::vector<float> zero(channels, 0.f);
      for (int y : {0, 1, h - 2}) {  // output rows y and y + 1
        std::vector<const float*> rows(2 * width * taps);
        for (int py = 0; py < 2; ++py)
          for (int px = 0; px < width; ++px)
            for (int t = 0; t < taps; ++t) {
              const int iy = y + py + t / k - 1, ix = px + t % k - 1;
              const bool inside = iy >= 0 && iy < h && ix >= 0 && ix < width;
              rows[(py * width + px) * taps + t] = inside ? x.data() + (iy * width + ix) * channels : zero.data();
            }
        for (const DwKernel* each : every_dw_kernel()) {
          const DwKernel& kernel = *each;
          ASSERT_TRUE(kernel.row2_3x3) << kernel.name;
          const PackedWeights packed = pack_weights(w.data(), bias.data(), channels, taps, kernel.cb);
          std::vector<float> by_taps(2 * width * channels), by_rows(2 * width * channels + 16, 1234.5f);
          kernel.for_taps(taps)(2 * width, channels, taps, rows.data(), packed.data.data(), by_taps.data(), -2.f, 2.f);
          kernel.row2_3x3(width, channels, rows.data(), rows.data() + width * taps, packed.data.data(), by_rows.data(),
                          by_rows.data() + width * channels, -2.f, 2.f);
          for (size_t i = 2 * width * channels; i < by_rows.size(); ++i) ASSERT_EQ(by_rows[i], 1234.5f) << "overran";
          by_rows.resize(2 * width * channels);
          ASSERT_EQ(by_rows, by_taps) << kernel.name << " width " << width << " channels " << channels << " rows " << y;
        }
      }
    }
  }
}

TEST(Gemm, WidePanelsOnlyWhereTheyLeaveNoMoreLanesIdle) {
  EXPECT_EQ(padded_columns(144, 32), 144);  // 4 panels of 32, one of 16
  EXPECT_EQ(padded_columns(144, 64), 160);  // 2 of 64, one of 32
  EXPECT_EQ(padded_columns(40, 64), 64);
  EXPECT_EQ(padded_columns(96, 64), 96);
  EXPECT_EQ(padded_columns(1, 32), 16);
  GemmKernel narrow{}, wide{};  // only their widths are read
  narrow.nr = 32;
  wide.nr = 64;
  const Kernels both{nullptr, &narrow, nullptr, nullptr, &wide};
  for (int n : {96, 256, 576, 1024, 32})
    EXPECT_EQ(&gemm_for(both, n), both.gemm_wide) << n;
  for (int n : {16, 40, 144, 1000}) EXPECT_EQ(&gemm_for(both, n), both.gemm) << n;
  for (const auto& isa : available_isas()) {
    const Kernels& k = *kernels_for(isa);
    EXPECT_EQ(&gemm_for(k, 256), k.gemm_wide ? k.gemm_wide : k.gemm) << isa;
  }
}

// kernels.rounded sums as TFLite's builtin float kernels on x86: a GEMM each
// product rounded, added in k order from zero, then the bias; a depthwise from
// the bias, each tap's product rounded, in tap order. Bit for bit on every ISA,
// one row (the row kernels) and several, over several taps.
TEST(Gemm, RoundedKernelsSumAsTheBuiltinKernelsBitForBit) {
  const Problem problems[] = {{1, 1, 1}, {1, 40, 27}, {1, 70, 96}, {7, 16, 27}, {13, 33, 144}, {25, 8, 9}};
  for (const auto& [m, n, k] : problems) {
    const int taps = k % 9 == 0 ? 9 : 1, kc = k / taps;
    const auto a = random_vector(m * taps * (kc + 1), m + k), w = random_vector(n * k, n + k),
               bias = random_vector(n, n);
    std::vector<const float*> rows(m * taps);  // tap t of row i: kc floats, apart from the other taps
    for (size_t r = 0; r < rows.size(); ++r) rows[r] = a.data() + (rows.size() - 1 - r) * (kc + 1);
    for (const auto& isa : available_isas()) {
      const GemmKernel& kernel = *kernels_for(isa)->rounded->gemm;
      const PackedWeights packed = pack_weights(w.data(), bias.data(), n, k, kernel.nr, true);
      std::vector<float> c(m * n);
      gemm(kernel, packed, m, taps, rows.data(), c.data(), n, -INFINITY, 3.f);
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          float sum = 0.f;
          for (int p = 0; p < k; ++p) sum += rows[i * taps + p / kc][p % kc] * w[j * k + p];  // no fma contracted
          ASSERT_EQ(c[i * n + j], std::min(3.f, sum + bias[j])) << kernel.name << " m=" << m << " k=" << k;
        }
    }
  }
}

// The builtin's four-lane sums (Eigen over SSE packets, no fma): the products
// of depth p < k - k % 4 into lane p % 4, the lanes combined pairwise as
// `pairs` says, then the last k % 4 products in order.
float four_lane_sum(const float* const* row, int kc, const float* w, int k, bool lanes_0_2_first) {
  float lane[4] = {0.f, 0.f, 0.f, 0.f};
  const int k4 = k / 4 * 4;
  for (int p = 0; p < k4; ++p) lane[p % 4] += row[p / kc][p % kc] * w[p];
  float sum = lanes_0_2_first ? (lane[0] + lane[2]) + (lane[1] + lane[3]) : (lane[0] + lane[1]) + (lane[2] + lane[3]);
  for (int p = k4; p < k; ++p) sum += row[p / kc][p % kc] * w[p];
  return sum;
}

// A GEMM of one row (a 1-pixel convolution: squeeze-excite) sums as the
// builtin's matrix-vector product, lanes (0 + 2) + (1 + 3): every ISA's
// fn_gemv, full and half panels, bit for bit.
TEST(Gemm, RoundedOneRowSumsAsTheBuiltinMatrixVectorProduct) {
  for (const auto& [n, k] : std::vector<std::pair<int, int>>{{1, 1}, {7, 27}, {27, 7}, {40, 16}, {20, 18}, {70, 96}}) {
    const int taps = k % 9 == 0 ? 9 : 1, kc = k / taps;
    const auto a = random_vector(k, k), w = random_vector(n * k, n + k), bias = random_vector(n, n);
    std::vector<const float*> row(taps);
    for (int t = 0; t < taps; ++t) row[t] = a.data() + t * kc;
    for (const auto& isa : available_isas()) {
      const GemmKernel& kernel = *kernels_for(isa)->rounded->gemm;
      ASSERT_TRUE(kernel.fn_gemv && kernel.fn_gemv_half) << kernel.name;
      const PackedWeights packed = pack_weights(w.data(), bias.data(), n, k, kernel.nr, true);
      std::vector<float> c(n);
      gemm_one_row_as_builtin(kernel, packed, taps, row.data(), c.data(), -INFINITY, 2.f, 0, -1);
      for (int j = 0; j < n; ++j)
        ASSERT_EQ(c[j], std::min(2.f, four_lane_sum(row.data(), kc, w.data() + j * k, k, true) + bias[j]))
            << kernel.name << " n=" << n << " k=" << k << " j=" << j;
    }
  }
}

// Its GEMM's last n % 4 output columns, in every group of 4 rows but the
// last m % 4 rows, sum in four lanes combined (0 + 1) + (2 + 3); the rest in
// k order. redo_last_columns_as_builtin rewrites those after the GEMM.
TEST(Gemm, RoundedLastColumnsSumAsTheBuiltinGemm) {
  for (const auto& [m, n, k] : std::vector<Problem>{{9, 27, 24}, {4, 7, 9}, {11, 3, 13}, {3, 5, 8}, {8, 18, 27}}) {
    const int taps = k % 9 == 0 ? 9 : 1, kc = k / taps;  // a 3x3 window's taps, each kc floats apart from the others
    const auto a = random_vector(m * taps * (kc + 1), m + k), w = random_vector(n * k, n), bias = random_vector(n, k);
    std::vector<const float*> rows(m * taps);
    for (size_t r = 0; r < rows.size(); ++r) rows[r] = a.data() + (rows.size() - 1 - r) * (kc + 1);
    for (const auto& isa : available_isas()) {
      const GemmKernel& kernel = *kernels_for(isa)->rounded->gemm;
      const PackedWeights packed = pack_weights(w.data(), bias.data(), n, k, kernel.nr, true);
      std::vector<float> c(m * n);
      for (int first = 0; first < m; first += 2) {  // in pieces of 2 rows, as tiles run
        const int count = std::min(2, m - first);
        gemm(kernel, packed, count, taps, rows.data() + first * taps, c.data() + first * n, n, -INFINITY, INFINITY);
        redo_last_columns_as_builtin(packed, m, first, count, taps, rows.data(), c.data() + first * n, n, -INFINITY,
                                     INFINITY);
      }
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          float sum = 0.f;
          if (j >= n - n % 4 && i < m - m % 4) {
            sum = four_lane_sum(&rows[i * taps], kc, w.data() + j * k, k, false);
          } else {
            for (int p = 0; p < k; ++p) sum += rows[i * taps + p / kc][p % kc] * w[j * k + p];
          }
          ASSERT_EQ(c[i * n + j], sum + bias[j]) << kernel.name << " m=" << m << " n=" << n << " i=" << i << " j=" << j;
        }
    }
  }
}

// The builtin's row sum (Eigen over SSE packets): the values from the first
// one on a 4-float boundary of the tensor (the row starts at index `start`)
// in 8 lanes over blocks of 8, folded to 4, one more block of 4 where left,
// lanes (0 + 2) + (1 + 3); then the values before the boundary and the last
// n % 4, in order. Without one whole block of 4: all in order.
float builtin_row_sum(const float* x, int n, int64_t start) {
  const int lead = std::min<int>(n, static_cast<int>((4 - start % 4) % 4)), body = (n - lead) / 4 * 4;
  float s = x[0];
  if (body == 0) {
    for (int i = 1; i < n; ++i) s += x[i];
    return s;
  }
  const int b8 = body / 8 * 8;
  float acc[8] = {}, p[4];
  for (int i = 0; i < b8; i += 8)
    for (int l = 0; l < 8; ++l) acc[l] += x[lead + i + l];
  for (int l = 0; l < 4; ++l) p[l] = b8 ? acc[l] + acc[l + 4] : 0.f;
  for (int l = 0; l < 4 && body > b8; ++l) p[l] += x[lead + b8 + l];
  s = (p[0] + p[2]) + (p[1] + p[3]);
  for (int i = 0; i < lead; ++i) s += x[i];
  for (int i = lead + body; i < n; ++i) s += x[i];
  return s;
}

// kernels.rounded's row kernels for rows [first, first + rows) of a tensor of
// total rows: MEAN as the builtin's row sum divided by n; SOFTMAX within 4e-7
// of a double one and the same on every ISA, bit for bit (its exactness
// against LiteRT: tests/test_transformer.py).
TEST(Rows, RoundedMeanAndSoftmaxAreTheBuiltinsOnEveryIsa) {
  const int rows = 3, total = 7;
  for (int n : {1, 3, 4, 5, 7, 12, 13, 40, 128, 131}) {
    for (int first : {0, 1, 4}) {
      auto x = random_vector(rows * n, n + first);
      for (float& v : x) v *= 30.f;
      std::vector<float> want(rows * n);
      kernels_for("scalar")->rounded->rows->softmax_at(rows, n, x.data(), want.data(), 0.7f, first, total);
      for (int r = 0; r < rows; ++r) {
        const float* in = x.data() + r * n;
        const float m = *std::max_element(in, in + n);
        double sum = 0;
        for (int i = 0; i < n; ++i) sum += std::exp(0.7 * (in[i] - m));
        for (int i = 0; i < n; ++i)
          ASSERT_NEAR(want[r * n + i], std::exp(0.7 * (in[i] - m)) / sum, 4e-7) << "n=" << n << " i=" << i;
      }
      for (const auto& isa : available_isas()) {
        const RowKernel& k = *kernels_for(isa)->rounded->rows;
        std::vector<float> mean(rows), softmax(rows * n);
        k.mean_at(rows, n, x.data(), mean.data(), first);
        k.softmax_at(rows, n, x.data(), softmax.data(), 0.7f, first, total);
        for (int r = 0; r < rows; ++r)
          ASSERT_EQ(mean[r], builtin_row_sum(x.data() + r * n, n, static_cast<int64_t>(first + r) * n) /
                                 static_cast<float>(n))
              << k.name << " n=" << n << " first=" << first;
        ASSERT_EQ(softmax, want) << k.name << " n=" << n << " first=" << first;
      }
    }
  }
}

TEST(Depthwise, RoundedKernelsSumAsTheBuiltinKernelsBitForBit) {
  const int pixels = 9;
  for (int taps : {9, 25}) {
    for (int channels : {5, 16, 40}) {
      const auto x = random_vector(64 * channels, taps + channels), w = random_vector(channels * taps, channels),
                 bias = random_vector(channels, taps);
      std::vector<const float*> rows(pixels * taps);
      for (size_t r = 0; r < rows.size(); ++r) rows[r] = x.data() + (r * 37 % 64) * channels;
      for (const auto& isa : available_isas()) {
        const DwKernel& kernel = *kernels_for(isa)->rounded->dw;
        const PackedWeights packed = pack_weights(w.data(), bias.data(), channels, taps, kernel.cb);
        std::vector<float> out(pixels * channels);
        kernel.for_taps(taps)(pixels, channels, taps, rows.data(), packed.data.data(), out.data(), 0.f, 6.f);
        for (int p = 0; p < pixels; ++p)
          for (int c = 0; c < channels; ++c) {
            float sum = bias[c];
            for (int t = 0; t < taps; ++t) sum += rows[p * taps + t][c] * w[c * taps + t];
            ASSERT_EQ(out[p * channels + c], std::min(6.f, std::max(0.f, sum))) << kernel.name << " taps " << taps;
          }
      }
    }
  }
}

TEST(Gemm, KernelsAreNamedForTheirShape) {
  for (const auto& [isa, k] : every_gemm_kernel()) {
    const std::string expect = "f32_gemm_" + std::to_string(k.mr) + "x" + std::to_string(k.nr) + "_" + isa;
    EXPECT_EQ(k.name, expect);
  }
}

}  // namespace
}  // namespace fd

namespace fd {
namespace {

// The Winograd filter transform G g G^T, each of u's 16 positions computed in
// double from the filter and rounded once to float, as written out here; a
// channel count that leaves a partial block of four (7); filters over several
// panels (packed a panel at a time), the last full or half wide, zero past n.
void expect_winograd_filters(int n, int c, int nr) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> w(static_cast<size_t>(n) * 9 * c);
  for (float& v : w) v = dist(rng);
  const auto u = winograd_weights(w.data(), nullptr, n, c, nr);
  const double G[4][3] = {{1, 0, 0}, {.5, .5, .5}, {.5, -.5, .5}, {0, 0, 1}};
  for (int o = 0; o < n; ++o) {
    for (int k = 0; k < c; ++k) {
      double t[4][3] = {};  // G g
      for (int i = 0; i < 4; ++i)
        for (int x = 0; x < 3; ++x)
          t[i][x] = G[i][0] * w[(o * 9 + x) * c + k] + G[i][1] * w[(o * 9 + 3 + x) * c + k] +
                    G[i][2] * w[(o * 9 + 6 + x) * c + k];
      for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) {
          const float want = static_cast<float>(t[i][0] * G[j][0] + t[i][1] * G[j][1] + t[i][2] * G[j][2]);
          const PackedWeights& p = u->u[4 * i + j];
          const int q = o / p.nr, width = q + 1 < p.panels() ? p.nr : p.last_nr;
          const float got = p.data[static_cast<size_t>(q) * (p.k + 1) * p.nr + k * width + o % p.nr];
          ASSERT_EQ(std::memcmp(&got, &want, sizeof got), 0) << o << " " << k << " " << i << j;
        }
      }
    }
  }
  for (const PackedWeights& p : u->u) {
    ASSERT_EQ(p.data.size(), static_cast<size_t>(p.panels() - 1) * p.panel_size() + (p.k + 1) * p.last_nr);
    const size_t last = static_cast<size_t>(p.panels() - 1) * p.panel_size();
    const int cols = n - (p.panels() - 1) * p.nr;
    for (int k = 0; k <= p.k; ++k)  // the last panel's columns past n, and every bias (added after the transform)
      for (int j = 0; j < p.last_nr; ++j)
        if (j >= cols || k == p.k) {
          ASSERT_EQ(p.data[last + k * p.last_nr + j], 0.f) << k << " " << j;
        }
  }
}

TEST(Winograd, FilterTransformMatchesGgGtInDoubleBitForBit) {
  expect_winograd_filters(5, 7, 8);   // one panel
  expect_winograd_filters(21, 9, 8);  // three, the last full
  expect_winograd_filters(20, 6, 8);  // three, the last half wide
}

}  // namespace
}  // namespace fd
