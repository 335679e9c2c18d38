// Cache sizes as the OS reports them, and the tile sizes derived from them.
#include "runtime/tiling.h"

#include <gtest/gtest.h>

#include "kernels/cpu.h"

namespace fd {
namespace {

constexpr size_t kKiB = 1024, kMiB = 1024 * 1024;

TEST(Cpu, CacheSizesParseAsLinuxWritesThem) {
  EXPECT_EQ(parse_cache_size("32K"), 32 * kKiB);
  EXPECT_EQ(parse_cache_size("1024K\n"), kMiB);
  EXPECT_EQ(parse_cache_size("32M"), 32 * kMiB);
  EXPECT_EQ(parse_cache_size("65536"), 65536u);
  EXPECT_EQ(parse_cache_size(""), 0u);
  EXPECT_EQ(parse_cache_size("K"), 0u);
  EXPECT_EQ(parse_cache_size("12Q"), 0u);
}

TEST(Cpu, ReportedCachesGrowWithTheirLevel) {
  const CacheSizes c = cache_sizes();
#if defined(__linux__) && defined(__x86_64__)
  EXPECT_GT(c.l1d, 0u);  // Linux describes every x86 core's caches
  EXPECT_GT(c.l2, 0u);
#endif
  if (c.l1d && c.l2) {
    EXPECT_GT(c.l2, c.l1d);
  }
  if (c.l1d) {
    EXPECT_GE(c.l1d, 4 * kKiB);
  }
}

// The sizes measured on 32 KiB / 1 MiB cores, and the same shares of other caches.
TEST(Tiling, TilesAreSharesOfTheCaches) {
  const Tiling zen4 = tiling_for({32 * kKiB, kMiB});
  EXPECT_EQ(zen4.stream_tile_floats, 4096);
  EXPECT_EQ(zen4.anchor_tile_floats, 16384);
  EXPECT_EQ(zen4.row_tile_floats, 4096);
  EXPECT_EQ(zen4.streamed_weights_bytes, kMiB);
  EXPECT_EQ(zen4.row_tile_weights_bytes, 256 * kKiB);
  EXPECT_EQ(zen4.winograd_scratch_bytes, 256 * kKiB);
  EXPECT_EQ(zen4.qd8_rows_bytes, 256 * kKiB);  // the constant it replaced
  EXPECT_EQ(zen4.depth_first_min_bytes, kMiB);
  EXPECT_EQ(zen4.depth_first_budget_bytes, 512 * kKiB);
  EXPECT_EQ(zen4.sparse_chunk_depths, 512);  // 16 rows x 512 depths x 4 bytes = 32 KiB

  const Tiling xeon = tiling_for({48 * kKiB, 2 * kMiB});
  EXPECT_EQ(xeon.stream_tile_floats, 6144);
  EXPECT_EQ(xeon.anchor_tile_floats, 32768);
  EXPECT_EQ(xeon.depth_first_budget_bytes, kMiB);
  EXPECT_EQ(xeon.streamed_weights_bytes, 2 * kMiB);
  EXPECT_EQ(xeon.row_tile_weights_bytes, 512 * kKiB);
  EXPECT_EQ(xeon.qd8_rows_bytes, 512 * kKiB);
  EXPECT_EQ(xeon.depth_first_min_bytes, 2 * kMiB);
  EXPECT_EQ(xeon.sparse_chunk_depths, 768);

  const Tiling zen3 = tiling_for({32 * kKiB, 512 * kKiB});  // depth-first chains from 1 MiB all the same
  EXPECT_EQ(zen3.depth_first_min_bytes, kMiB);
  EXPECT_EQ(zen3.depth_first_budget_bytes, 256 * kKiB);
}

TEST(Tiling, UnknownOrImplausibleCachesFallBack) {
  const Tiling unknown = tiling_for({});
  EXPECT_EQ(unknown.stream_tile_floats, 4096);
  EXPECT_EQ(unknown.streamed_weights_bytes, kMiB);
  const Tiling huge = tiling_for({64 * kMiB, 256 * kMiB});  // a shared cache reported as L1/L2
  EXPECT_EQ(huge.stream_tile_floats, static_cast<int64_t>(128 * kKiB / 2 / sizeof(float)));
  EXPECT_EQ(huge.depth_first_min_bytes, 4 * kMiB);
  const Tiling tiny = tiling_for({1 * kKiB, 16 * kKiB});
  EXPECT_EQ(tiny.stream_tile_floats, static_cast<int64_t>(16 * kKiB / 2 / sizeof(float)));
  EXPECT_EQ(tiny.depth_first_budget_bytes, 128 * kKiB);
  EXPECT_EQ(tiny.depth_first_min_bytes, kMiB);
}

TEST(Tiling, ThisCpusTilingComesFromItsCaches) {
  const Tiling expected = tiling_for(cache_sizes());
  EXPECT_EQ(tiling().stream_tile_floats, expected.stream_tile_floats);
  EXPECT_EQ(tiling().anchor_tile_floats, expected.anchor_tile_floats);
  EXPECT_EQ(tiling().depth_first_budget_bytes, expected.depth_first_budget_bytes);
}

}  // namespace
}  // namespace fd
