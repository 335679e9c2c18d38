#include "runtime/tiling.h"

#include <algorithm>

namespace fd {

namespace {

size_t or_default(size_t bytes, size_t lo, size_t hi, size_t fallback) {
  return bytes ? std::clamp(bytes, lo, hi) : fallback;
}

}  // namespace

Tiling tiling_for(const CacheSizes& caches) {
  constexpr size_t kKiB = 1024, kMiB = kKiB * kKiB, kFloat = sizeof(float);
  const size_t l1 = or_default(caches.l1d, 16 * kKiB, 128 * kKiB, 32 * kKiB);
  const size_t l2 = or_default(caches.l2, 256 * kKiB, 4 * kMiB, kMiB);
  Tiling t;
  t.stream_tile_floats = static_cast<int64_t>(l1 / 2 / kFloat);
  t.anchor_tile_floats = static_cast<int64_t>(l2 / 16 / kFloat);
  t.row_tile_floats = static_cast<int64_t>(l1 / 2 / kFloat);
  t.streamed_weights_bytes = l2;
  t.row_tile_weights_bytes = l2 / 4;
  t.winograd_scratch_bytes = l2 / 4;
  t.qd8_rows_bytes = l2 / 4;
  // Chains from tensors of L2's size, and of 1 MiB at least: on Zen 3 (512 KiB
  // of L2) chaining tensors of 512 KiB-1 MiB made MobileNetV2 1.07x slower.
  t.depth_first_min_bytes = std::max(l2, kMiB);
  t.depth_first_budget_bytes = l2 / 2;
  t.sparse_chunk_depths = static_cast<int>(l1 / (kSpmmRows * kFloat)) / 4 * 4;
  return t;
}

const Tiling& tiling() {
  static const Tiling t = tiling_for(cache_sizes());
  return t;
}

}  // namespace fd
