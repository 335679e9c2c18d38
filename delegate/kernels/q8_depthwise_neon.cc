// q8 depthwise for neon (baseline ARMv8-A): blocks of 16 channels in channel
// order, int8 weights, tap by tap: vmull_s8 (int16 products, exact) widened
// and added into 4 x 4 int32 sums (saddw) that start at bias'. Requantized as
// TFLite's NEON code does: vqrdmulh (SRDHM), then vrshl by -r (ties up; the
// rounding shift is exact, no overflow), h - 1 first where the channel rounds
// ties away and h < 0; saturating narrows, the clamp on bytes. A partial last
// block reads the 16 bytes that end its rows, slid down by tbl (a copy where
// depth < 16). Multiplier > 1: widened rows.
#include <arm_neon.h>

#include <cstring>

#include "kernels/q8_depthwise.h"

#define FD_INLINE inline __attribute__((always_inline))

namespace fd {
namespace {

constexpr int kBlock = 16;

struct Constants {
  int32_t bias[kBlock], left[kBlock], multiplier[kBlock];
  int32_t neg_right[kBlock];  // -r
  int32_t away[kBlock];       // -1 where the channel rounds ties away and r > 0
};

void pack_constants(const Q8DepthwiseChannel* slots, void* constants) {
  Constants& c = *static_cast<Constants*>(constants);
  for (int s = 0; s < kBlock; ++s) {
    const Q8Multiplier m = slots[s].multiplier;
    c.bias[s] = slots[s].bias;
    c.left[s] = m.shift > 0 ? m.shift : 0;
    c.multiplier[s] = m.multiplier;
    c.neg_right[s] = m.shift > 0 ? 0 : m.shift;
    c.away[s] = slots[s].away && m.shift < 0 ? -1 : 0;
  }
}

constexpr Q8DepthwiseLayout kLayout{kBlock, 1, false, false, sizeof(Constants), &pack_constants};

// The zero point and clamp every block shares.
struct Out {
  int32x4_t zero_point;
  int8x16_t lo, hi;
};

// t + zero point of the 4 sums of channels 4v .. 4v + 3.
template <bool kAway>
FD_INLINE int32x4_t requantize(int32x4_t acc, const Constants& c, int v, const Out& o) {
  int32x4_t h = vqrdmulhq_s32(vshlq_s32(acc, vld1q_s32(c.left + 4 * v)), vld1q_s32(c.multiplier + 4 * v));
  if (kAway) h = vaddq_s32(h, vandq_s32(vshrq_n_s32(h, 31), vld1q_s32(c.away + 4 * v)));
  return vaddq_s32(vrshlq_s32(h, vld1q_s32(c.neg_right + 4 * v)), o.zero_point);
}

enum Part { kWhole, kSlid, kCopied };  // how a block reads its rows

// 16 int8 of a row; the first n only, zeros after, where not kWhole.
template <Part kPart>
FD_INLINE int8x16_t load16(const int8_t* p, int n) {
  if (kPart == kWhole) return vld1q_s8(p);
  static const uint8_t kSlide[32] = {0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   10,  11,  12,  13,  14,  15,
                                     255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255};
  if (kPart == kSlid) return vqtbl1q_s8(vld1q_s8(p + n - kBlock), vld1q_u8(kSlide + kBlock - n));
  int8_t bytes[kBlock] = {};
  std::memcpy(bytes, p, n);
  return vld1q_s8(bytes);
}

// The first n of 16 bytes to out.
FD_INLINE void store_first(int8_t* out, int8x16_t v, int n) {
  if (n == kBlock) return vst1q_s8(out, v);
  int8_t bytes[kBlock];
  vst1q_s8(bytes, v);
  std::memcpy(out, bytes, n);
}

// One pixel's sums of one block (its taps at rows[0 .. taps - 1]), from bias'.
template <Part kPart>
FD_INLINE void sum_block(int taps, const int8_t* const* rows, size_t c0, int n, const int8_t* w, const Constants& c,
                         int32x4_t (&acc)[4]) {
  for (int v = 0; v < 4; ++v) acc[v] = vld1q_s32(c.bias + 4 * v);
  for (int t = 0; t < taps; ++t, w += kBlock) {
    const int8x16_t x = load16<kPart>(rows[t] + c0, n), wt = vld1q_s8(w);
    const int16x8_t lo = vmull_s8(vget_low_s8(x), vget_low_s8(wt)), hi = vmull_high_s8(x, wt);
    acc[0] = vaddw_s16(acc[0], vget_low_s16(lo));
    acc[1] = vaddw_high_s16(acc[1], lo);
    acc[2] = vaddw_s16(acc[2], vget_low_s16(hi));
    acc[3] = vaddw_high_s16(acc[3], hi);
  }
}

// Channels c0 .. c0 + n - 1 (n = 16 where kWhole) of every pixel; a part:
// the last block, whose channels may round ties away.
template <Part kPart>
void block_of_pixels(int pixels, int taps, const int8_t* const* rows, size_t c0, int n, const char* block,
                     int8_t* out, size_t out_stride, const Q8DepthwiseOutput& p) {
  constexpr bool kAway = kPart != kWhole;
  const Out o{vdupq_n_s32(p.zero_point), vdupq_n_s8(static_cast<int8_t>(p.lo)),
              vdupq_n_s8(static_cast<int8_t>(p.hi))};
  const Constants& c = q8_depthwise_constants<Constants>(kLayout, taps, block);
  const int8_t* w = reinterpret_cast<const int8_t*>(block);
  for (int i = 0; i < pixels; ++i, rows += taps, out += out_stride) {
    int32x4_t acc[4];
    sum_block<kPart>(taps, rows, c0, n, w, c, acc);
    int16x4_t y[4];
    for (int v = 0; v < 4; ++v) y[v] = vqmovn_s32(requantize<kAway>(acc[v], c, v, o));
    const int8x16_t i8 = vcombine_s8(vqmovn_s16(vcombine_s16(y[0], y[1])), vqmovn_s16(vcombine_s16(y[2], y[3])));
    store_first(out + c0, vminq_s8(o.hi, vmaxq_s8(o.lo, i8)), n);
  }
}

constexpr Q8DepthwiseChunkFn kChunk = &q8_depthwise_blocks<kLayout, &block_of_pixels<kWhole>,
                                                           &block_of_pixels<kSlid>, &block_of_pixels<kCopied>>;

}  // namespace

const Q8DepthwiseKernel& q8_depthwise_kernel_neon() {
  static const Q8DepthwiseKernel kernel{"q8_depthwise_16c_neon", kLayout, &q8_depthwise_pixel<kChunk>,
                                        &q8_depthwise_pixels<kChunk>};
  return kernel;
}

}  // namespace fd
