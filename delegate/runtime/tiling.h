// Tile, strip and block sizes, derived from the caches the CPU reports. Each
// was measured on 32 KiB-L1d / 1 MiB-L2 cores (Zen 4, Zen 5) and on an Intel
// Xeon (48 KiB, 2 MiB), and is kept as a share of the cache it lives in.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cpu.h"

namespace fd {

struct Tiling {
  // All streams of one elementwise tile together: half of L1d. (A Xeon's chain
  // of 6 unary ops ran at 91% of memcpy's bandwidth with 16 KiB, 72% past L1.)
  int64_t stream_tile_floats;
  // An anchor's output tile, which its epilogue then reads from L2: L2 / 16.
  int64_t anchor_tile_floats;
  // ... where the epilogue computes row statistics (a LayerNorm: ten passes
  // over the tile), from L1: half of L1d (BERT 4% faster than the tile above).
  int64_t row_tile_floats;
  // Weights past L2 stream from L3: a tile grows to a GEMM row block
  // (ResNet-50 8% faster), a row-statistics tile too (BERT's 1024 -> 256
  // FULLY_CONNECTED + LayerNorm: BERT 2-3% faster on a Zen 3, 512 KiB L2).
  size_t streamed_weights_bytes;
  // Weights up to a quarter of L2 stay there while each row tile passes over
  // all of them in one micro-kernel call (a 1x1 conv 24->144 in MobileNetV2:
  // call and epilogue costs no longer per panel; larger weights go panel by
  // panel over a row block).
  size_t row_tile_weights_bytes;
  // Winograd's transformed inputs and products (16 * (c + n) floats a tile)
  // for at most a quarter of L2 at once: tiles beyond go in further passes.
  size_t winograd_scratch_bytes;
  // Int8 rows quantized (FULLY_CONNECTED) or gathered (CONV_2D) per block, per
  // thread: a quarter of L2, beside the weights they meet (a tile of many
  // long rows would otherwise grow each thread's buffer without bound).
  size_t qd8_rows_bytes;
  // Depth-first chains: tensors of L2's size or more; rings take half of L2
  // (MobileNetV2, EfficientNet-B0, ResNet-50: smaller tensors gain less,
  // quarter-L2 rings make strips too thin).
  size_t depth_first_min_bytes;
  size_t depth_first_budget_bytes;
  // The sparse GEMM's depths per chunk: kSpmmRows transposed rows of them
  // fill L1d (sparse_net on a Zen 3: half of L1d 1.15x slower, twice 1.04x).
  int sparse_chunk_depths;
};

// For caches of these sizes; an unknown (0) or implausible size counts as
// 32 KiB L1d, 1 MiB L2.
Tiling tiling_for(const CacheSizes& caches);

// For this CPU, found once.
const Tiling& tiling();

}  // namespace fd
