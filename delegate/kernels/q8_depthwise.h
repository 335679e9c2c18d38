// Full-integer int8 DEPTHWISE_CONV_2D ("q8 depthwise"), per output pixel, bit
// for bit as the x86 pip runtimes run it (ai-edge-litert 2.3, tf.lite 2.21:
// DepthwiseConvPerChannel -> DepthwiseConvGeneral, then optimized_ops::Quantize
// through NEON_2_SSE; docs/int8-semantics.md 5.3).
//
// The operation. depth = in_channels * multiplier output channels; output
// channel c reads input channel c / multiplier. Weights int8 [taps][depth]
// (TFLite's [1, kh, kw, depth], tap t = ky * kw + kx, zero point 0).
//   acc[c] = bias[c] + sum_t (x_t[c / multiplier] - in_zp) * w[t][c]   int32, wrapping
// (a padding tap reads a row of in_zp values: it adds 0). Per channel a
// Q8Multiplier (M, e), l = max(e, 0), r = max(-e, 0):
//   c < 8 * floor(depth / 8):  t = q8_requantize(acc, M, l, r, kRuyX86)     ties up
//   the last depth % 8:        t = q8_requantize(acc, M, l, r, kReference)  ties away from zero
//   out[c] = clamp(t + out_zp, lo, hi)        (t + out_zp wraps as int32)
// (Quantize's vector loop takes 8 channels at a time, its scalar tail the rest.)
//
// The packed layout, in blocks of `block` output channels (the last in part):
//   weights: for each tap (or, with tap_pairs, each pair of taps 2p, 2p+1,
//   the count rounded up to even with zero weights) `block` slots, int8 or
//   int16 (weight_bytes), a pair's two weights adjacent; padded to 8 bytes;
//   then the kernel's own constants_bytes of per-channel constants, written
//   by its pack_constants from each slot's bias' (the zero point folded in:
//   bias - in_zp * sum_t w[t][c], wrapping), multiplier and rounding.
// Slot s of a block holds channel s, or with unpack_order the channel that
// vpunpck{l,h}wd puts there: each half of the block (lo, hi) takes, from each
// 8-channel group k, channels 8k .. 8k+3 (lo) or 8k+4 .. 8k+7 (hi). Slots
// past depth hold zeros. Kernels sum x * w over the rows as they are, from bias'.
//
// The channels that round ties away (depth % 8 > 0) are all in the last
// block, which is then partial (blocks are multiples of 8): whole blocks round
// ties up only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/q8_fixed_point.h"
#include "kernels/q8_gemm.h"

namespace fd {

// The output step's zero point and clamp: the GEMM's.
using Q8DepthwiseOutput = Q8GemmOutput;

// One output pixel: rows[t] points at tap t's input pixel (in_channels int8
// values; a padding tap: a row of in_zp values, which the caller provides);
// out: depth int8 values.
using Q8DepthwiseFn = void (*)(int depth, int multiplier, int taps, const int8_t* const* rows, const void* packed,
                               int8_t* out, const Q8DepthwiseOutput& params);
// `pixels` output pixels: pixel i reads rows[i * taps ..] and writes out + i * out_stride.
using Q8DepthwisePixelsFn = void (*)(int pixels, int depth, int multiplier, int taps, const int8_t* const* rows,
                                     const void* packed, int8_t* out, size_t out_stride,
                                     const Q8DepthwiseOutput& params);

// One slot's constants, as the packing hands them to a kernel (zeros past depth).
struct Q8DepthwiseChannel {
  int32_t bias;  // bias'
  Q8Multiplier multiplier;
  bool away;  // rounds ties away from zero (Quantize's scalar tail), else up
};
// Writes a block's constants (constants_bytes) from its `block` slots.
using Q8DepthwisePackConstantsFn = void (*)(const Q8DepthwiseChannel* slots, void* constants);

// How a kernel's weights are packed (see above).
struct Q8DepthwiseLayout {
  int block;          // output channels per packed block
  int weight_bytes;   // 1: int8, 2: int16
  bool tap_pairs;     // weights of taps 2p, 2p+1 interleaved per channel (vpmaddwd)
  bool unpack_order;  // slots in vpunpck{l,h}wd's order
  size_t constants_bytes;  // per block, a multiple of 8
  Q8DepthwisePackConstantsFn pack_constants;
};

struct Q8DepthwiseKernel {
  const char* name;  // e.g. q8_depthwise_32c_avx512
  Q8DepthwiseLayout layout;
  Q8DepthwiseFn pixel;
  // The faster form for a row of pixels: the SIMD kernels load a block's
  // constants once for up to kQ8DepthwiseChunk pixels (AVX-512 on Zen 4: about
  // twice the pixel form's rate at depth 576).
  Q8DepthwisePixelsFn pixels;
};

// Bytes of one block's weights, of one whole block, of all blocks.
constexpr size_t q8_depthwise_weight_bytes(const Q8DepthwiseLayout& l, int taps) {
  const size_t padded = l.tap_pairs ? (taps + 1) / 2 * 2 : taps;
  return (padded * l.block * l.weight_bytes + 7) / 8 * 8;
}
constexpr size_t q8_depthwise_block_bytes(const Q8DepthwiseLayout& l, int taps) {
  return q8_depthwise_weight_bytes(l, taps) + l.constants_bytes;
}
inline size_t q8_depthwise_packed_bytes(const Q8DepthwiseKernel& kernel, int depth, int taps) {
  const int blocks = (depth + kernel.layout.block - 1) / kernel.layout.block;
  return blocks * q8_depthwise_block_bytes(kernel.layout, taps);
}

// A block's constants, as its kernel's struct T.
template <class T>
const T& q8_depthwise_constants(const Q8DepthwiseLayout& l, int taps, const void* block) {
  return *reinterpret_cast<const T*>(static_cast<const char*>(block) + q8_depthwise_weight_bytes(l, taps));
}

// Packs w [taps][depth], bias [depth] (null: 0) and the channels' multipliers
// [depth] for `kernel` and the input zero point into `packed`
// (q8_depthwise_packed_bytes of it, 8-byte aligned).
void q8_pack_depthwise(const Q8DepthwiseKernel& kernel, int depth, int taps, const int8_t* w, const int32_t* bias,
                       const Q8Multiplier* multipliers, int32_t in_zp, void* packed);

// A multiplier-1 kernel run with each tap's row widened to depth values
// (x[c / multiplier]) in a thread's scratch: how the SIMD kernels take multiplier > 1.
void q8_depthwise_widened(Q8DepthwiseFn pixel, int depth, int multiplier, int taps, const int8_t* const* rows,
                          const void* packed, int8_t* out, const Q8DepthwiseOutput& params);

// `pixel` over `pixels` pixels (the pixels form of a kernel without its own).
template <Q8DepthwiseFn Pixel>
void q8_depthwise_each_pixel(int pixels, int depth, int multiplier, int taps, const int8_t* const* rows,
                             const void* packed, int8_t* out, size_t out_stride, const Q8DepthwiseOutput& params) {
  for (int i = 0; i < pixels; ++i)
    Pixel(depth, multiplier, taps, rows + static_cast<size_t>(i) * taps, packed, out + i * out_stride, params);
}

// The SIMD kernels' frame, written once. A block function: channels c0 ..
// c0 + n - 1 (one block) of `pixels` pixels at multiplier 1.
using Q8DepthwiseBlockFn = void (*)(int pixels, int taps, const int8_t* const* rows, size_t c0, int n,
                                    const char* block, int8_t* out, size_t out_stride, const Q8DepthwiseOutput& p);

// Pixels taken block by block at a time (their rows stay in the caches; 4 to
// 100000 measured alike within 10% on Zen 4).
constexpr int kQ8DepthwiseChunk = 32;

// Every block of a chunk of pixels: whole ones by Whole; a partial last one by
// Slid where depth >= block (it may read the block's bytes that end each row),
// else by Copied.
template <const Q8DepthwiseLayout& L, Q8DepthwiseBlockFn Whole, Q8DepthwiseBlockFn Slid, Q8DepthwiseBlockFn Copied>
void q8_depthwise_blocks(int pixels, int depth, int taps, const int8_t* const* rows, const void* packed, int8_t* out,
                         size_t out_stride, const Q8DepthwiseOutput& p) {
  const size_t bytes = q8_depthwise_block_bytes(L, taps);
  const char* block = static_cast<const char*>(packed);
  int c0 = 0;
  for (; c0 + L.block <= depth; c0 += L.block, block += bytes)
    Whole(pixels, taps, rows, c0, L.block, block, out, out_stride, p);
  if (c0 == depth) return;
  const Q8DepthwiseBlockFn last = depth >= L.block ? Slid : Copied;
  last(pixels, taps, rows, c0, depth - c0, block, out, out_stride, p);
}

// A chunk of pixels, every block.
using Q8DepthwiseChunkFn = void (*)(int pixels, int depth, int taps, const int8_t* const* rows, const void* packed,
                                    int8_t* out, size_t out_stride, const Q8DepthwiseOutput& p);

// The pixel form: multiplier > 1 through widened rows.
template <Q8DepthwiseChunkFn Chunk>
void q8_depthwise_pixel(int depth, int multiplier, int taps, const int8_t* const* rows, const void* packed,
                        int8_t* out, const Q8DepthwiseOutput& p) {
  if (multiplier != 1)
    return q8_depthwise_widened(&q8_depthwise_pixel<Chunk>, depth, multiplier, taps, rows, packed, out, p);
  Chunk(1, depth, taps, rows, packed, out, depth, p);
}

// The pixels form: chunk by chunk; multiplier > 1 one pixel at a time.
template <Q8DepthwiseChunkFn Chunk>
void q8_depthwise_pixels(int pixels, int depth, int multiplier, int taps, const int8_t* const* rows,
                         const void* packed, int8_t* out, size_t out_stride, const Q8DepthwiseOutput& p) {
  if (multiplier != 1)
    return q8_depthwise_each_pixel<&q8_depthwise_pixel<Chunk>>(pixels, depth, multiplier, taps, rows, packed, out,
                                                               out_stride, p);
  for (int i = 0; i < pixels; i += kQ8DepthwiseChunk) {
    const int n = pixels - i < kQ8DepthwiseChunk ? pixels - i : kQ8DepthwiseChunk;
    Chunk(n, depth, taps, rows + static_cast<size_t>(i) * taps, packed, out + i * out_stride, out_stride, p);
  }
}

// Defined in q8_depthwise_<isa>.cc where that ISA is compiled in.
const Q8DepthwiseKernel& q8_depthwise_kernel_scalar();
const Q8DepthwiseKernel& q8_depthwise_kernel_avx2();
const Q8DepthwiseKernel& q8_depthwise_kernel_avx512();  // needs AVX512BW and AVX512VL
const Q8DepthwiseKernel& q8_depthwise_kernel_neon();

// The best kernel for `isa` ("scalar", "avx2", "avx512", "neon") this CPU runs,
// or null; every kernel this CPU runs, for tests and benchmarks.
const Q8DepthwiseKernel* q8_depthwise_kernel_for(const std::string& isa);
int q8_depthwise_kernels_runnable(const Q8DepthwiseKernel** out, int capacity);

}  // namespace fd
