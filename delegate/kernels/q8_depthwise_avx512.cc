// q8 depthwise for avx512 (needs AVX512BW and VL: cpu picks avx2's without):
// blocks of 32 channels, taps in pairs. Two rows' 32 int8 values widened to
// int16 (vpmovsxbw) and interleaved (vpunpck{l,h}wd) meet the pair's
// interleaved int16 weights in vpmaddwd: per channel x[t] w[t] + x[t+1] w[t+1],
// exact in int32, added to sums that start at bias'. Requantized as one 64-bit
// product (q8_depthwise_nudge: vpmuldq, vpsravq) on even and odd lanes apart,
// then vpackssdw (channel order again), vpmovswb, the clamp on bytes. Partial
// blocks by byte masks (no read or write past depth). Multiplier > 1: widened rows.
#include <immintrin.h>

#include "kernels/q8_depthwise.h"
#include "kernels/q8_depthwise_x86.h"

#define FD_AVX512BW __attribute__((target("avx512f,avx512bw,avx512vl")))
#define FD_INLINE inline __attribute__((always_inline))

namespace fd {
namespace {

using Half = Q8DepthwiseHalf<16>;
using Constants = Q8DepthwiseX86Constants<16>;
constexpr const Q8DepthwiseLayout& kLayout = q8_depthwise_x86_layout<16, false>;
constexpr int kBlock = kLayout.block;

// The zero point and clamp every block shares.
struct Out {
  __m512i zero_point;
  __m256i lo, hi;
};

FD_AVX512BW FD_INLINE __m512i load(const void* p) { return _mm512_loadu_si512(p); }

// A half's requantization constants in registers, for all the pixels of a block.
struct Requant {
  __m512i left, multiplier, multiplier_odd, nudge[2], shift[2], away_fix[2];
};
FD_AVX512BW FD_INLINE Requant requant(const Half& h) {
  return {load(h.left),     load(h.multiplier), load(h.multiplier_odd), {load(h.nudge[0]), load(h.nudge[1])},
          {load(h.shift[0]), load(h.shift[1])}, {load(h.away_fix[0]), load(h.away_fix[1])}};
}

// (p + nudge [- away_fix where p < -2^30]) >> (31 + r) on 8 even or odd lanes.
template <bool kAway>
FD_AVX512BW FD_INLINE __m512i round64(__m512i p, const Requant& c, int parity) {
  __m512i q = _mm512_add_epi64(p, c.nudge[parity]);
  if (kAway) {
    const __mmask8 negative_h = _mm512_cmplt_epi64_mask(p, _mm512_set1_epi64(-(int64_t{1} << 30)));
    q = _mm512_mask_sub_epi64(q, negative_h, q, c.away_fix[parity]);
  }
  return _mm512_srav_epi64(q, c.shift[parity]);
}

// t + zero point of 16 sums.
template <bool kAway>
FD_AVX512BW FD_INLINE __m512i requantize(__m512i acc, const Requant& c, const Out& o) {
  const __m512i s = _mm512_sllv_epi32(acc, c.left);
  const __m512i even = round64<kAway>(_mm512_mul_epi32(s, c.multiplier), c, 0);
  const __m512i odd = round64<kAway>(_mm512_mul_epi32(_mm512_srli_epi64(s, 32), c.multiplier_odd), c, 1);
  const __m512i interleave = _mm512_setr_epi32(0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30);
  return _mm512_add_epi32(_mm512_permutex2var_epi32(even, interleave, odd), o.zero_point);
}

// 32 int8 of a row as int16 (only those the mask keeps: zeros after).
FD_AVX512BW FD_INLINE __m512i load32(const int8_t* p, __mmask32 keep) {
  return _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(keep, p));
}

// One pixel's sums of one block (its taps at rows[0 .. taps - 1]), from bias'.
FD_AVX512BW FD_INLINE void sum_block(int taps, const int8_t* const* rows, size_t c0, __mmask32 keep,
                                     const int16_t* w, const Constants& c, __m512i& lo, __m512i& hi) {
  lo = load(c.half[0].bias), hi = load(c.half[1].bias);
  for (int t = 0; t < taps; t += 2, w += 2 * kBlock) {
    const __m512i x0 = load32(rows[t] + c0, keep);
    const __m512i x1 = t + 1 < taps ? load32(rows[t + 1] + c0, keep) : _mm512_setzero_si512();
    lo = _mm512_add_epi32(lo, _mm512_madd_epi16(_mm512_unpacklo_epi16(x0, x1), load(w)));
    hi = _mm512_add_epi32(hi, _mm512_madd_epi16(_mm512_unpackhi_epi16(x0, x1), load(w + kBlock)));
  }
}

// One block of every pixel: channels c0 .. c0 + n - 1, the requantization
// constants loaded once. A partial block (the last) may round ties away.
template <bool kAway>
FD_AVX512BW void block_of_pixels(int pixels, int taps, const int8_t* const* rows, size_t c0, int n,
                                 const char* block, int8_t* out, size_t out_stride, const Q8DepthwiseOutput& p) {
  const Constants& c = q8_depthwise_constants<Constants>(kLayout, taps, block);
  const Requant lo_half = requant(c.half[0]), hi_half = requant(c.half[1]);
  const Out o{_mm512_set1_epi32(p.zero_point), _mm256_set1_epi8(static_cast<char>(p.lo)),
              _mm256_set1_epi8(static_cast<char>(p.hi))};
  const __mmask32 keep = n == kBlock ? ~__mmask32{0} : (__mmask32{1} << n) - 1;
  const int16_t* w = reinterpret_cast<const int16_t*>(block);
  for (int i = 0; i < pixels; ++i, rows += taps, out += out_stride) {
    __m512i lo, hi;
    sum_block(taps, rows, c0, keep, w, c, lo, hi);
    const __m512i i16 = _mm512_packs_epi32(requantize<kAway>(lo, lo_half, o), requantize<kAway>(hi, hi_half, o));
    const __m256i i8 = _mm256_min_epi8(o.hi, _mm256_max_epi8(o.lo, _mm512_cvtsepi16_epi8(i16)));
    _mm256_mask_storeu_epi8(out + c0, keep, i8);
  }
}

constexpr Q8DepthwiseChunkFn kChunk =
    &q8_depthwise_blocks<kLayout, &block_of_pixels<false>, &block_of_pixels<true>, &block_of_pixels<true>>;

}  // namespace

const Q8DepthwiseKernel& q8_depthwise_kernel_avx512() {
  static const Q8DepthwiseKernel kernel{"q8_depthwise_32c_avx512", kLayout, &q8_depthwise_pixel<kChunk>,
                                        &q8_depthwise_pixels<kChunk>};
  return kernel;
}

}  // namespace fd
