// q8 depthwise for avx2: blocks of 16 channels, taps in pairs. Two rows' 16
// int8 values widened to int16 (vpmovsxbw) and interleaved (vpunpck{l,h}wd)
// meet the pair's interleaved int16 weights in vpmaddwd: per channel
// x[t] w[t] + x[t+1] w[t+1], exact in int32, added to sums that start at
// bias'. Requantized as one 64-bit product (q8_depthwise_nudge: vpmuldq on
// even and odd lanes apart; AVX2 has no vpsravq: the sums carry 2^63 and shift
// logically, the 2^(32 - r) that leaves in t taken back), then vpackssdw
// (channel order again), vpacksswb, the clamp on bytes. A partial last block
// reads the 16 bytes that end its rows, slid down (a copy where depth < 16).
// Multiplier > 1: widened rows.
#include <immintrin.h>

#include <cstring>

#include "kernels/q8_depthwise.h"
#include "kernels/q8_depthwise_x86.h"

#define FD_INLINE inline __attribute__((always_inline))

namespace fd {
namespace {

using Half = Q8DepthwiseHalf<8>;
using Constants = Q8DepthwiseX86Constants<8>;
constexpr const Q8DepthwiseLayout& kLayout = q8_depthwise_x86_layout<8, true>;
constexpr int kBlock = kLayout.block;

// The zero point and clamp every block shares.
struct Out {
  __m256i zero_point;
  __m128i lo, hi;
};

FD_INLINE __m256i load(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }

// (p + nudge [- away_fix where p < -2^30]) >> (31 + r), logical, on 4 even or odd lanes.
template <bool kAway>
FD_INLINE __m256i round64(__m256i p, const Half& c, int parity) {
  __m256i q = _mm256_add_epi64(p, load(c.nudge[parity]));
  if (kAway) {
    const __m256i negative_h = _mm256_cmpgt_epi64(_mm256_set1_epi64x(-(int64_t{1} << 30)), p);
    q = _mm256_sub_epi64(q, _mm256_and_si256(negative_h, load(c.away_fix[parity])));
  }
  return _mm256_srlv_epi64(q, load(c.shift[parity]));
}

// t + zero point of 8 sums.
template <bool kAway>
FD_INLINE __m256i requantize(__m256i acc, const Half& c, const Out& o) {
  const __m256i s = _mm256_sllv_epi32(acc, load(c.left));
  const __m256i even = round64<kAway>(_mm256_mul_epi32(s, load(c.multiplier)), c, 0);
  const __m256i odd = round64<kAway>(_mm256_mul_epi32(_mm256_srli_epi64(s, 32), load(c.multiplier_odd)), c, 1);
  const __m256i t = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  return _mm256_add_epi32(_mm256_sub_epi32(t, load(c.offset)), o.zero_point);
}

enum Part { kWhole, kSlid, kCopied };  // how a block reads its rows

// 16 int8 of a row as int16; the first n only, zeros after, where not kWhole.
template <Part kPart>
FD_INLINE __m256i load16(const int8_t* p, int n) {
  if (kPart == kWhole) return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  alignas(16) static const int8_t kSlide[32] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                                -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
  __m128i v;
  if (kPart == kSlid) {
    const __m128i last = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + n - kBlock));
    v = _mm_shuffle_epi8(last, _mm_loadu_si128(reinterpret_cast<const __m128i*>(kSlide + kBlock - n)));
  } else {
    int8_t bytes[kBlock] = {};
    std::memcpy(bytes, p, n);
    v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes));
  }
  return _mm256_cvtepi8_epi16(v);
}

// The first n of 16 bytes to out.
FD_INLINE void store_first(int8_t* out, __m128i v, int n) {
  if (n == kBlock) return _mm_storeu_si128(reinterpret_cast<__m128i*>(out), v);
  int8_t bytes[kBlock];
  _mm_storeu_si128(reinterpret_cast<__m128i*>(bytes), v);
  std::memcpy(out, bytes, n);
}

// One pixel's sums of one block (its taps at rows[0 .. taps - 1]), from bias'.
template <Part kPart>
FD_INLINE void sum_block(int taps, const int8_t* const* rows, size_t c0, int n, const int16_t* w,
                         const Constants& c, __m256i& lo, __m256i& hi) {
  lo = load(c.half[0].bias), hi = load(c.half[1].bias);
  for (int t = 0; t < taps; t += 2, w += 2 * kBlock) {
    const __m256i x0 = load16<kPart>(rows[t] + c0, n);
    const __m256i x1 = t + 1 < taps ? load16<kPart>(rows[t + 1] + c0, n) : _mm256_setzero_si256();
    lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, x1), load(w)));
    hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, x1), load(w + kBlock)));
  }
}

// Channels c0 .. c0 + n - 1 (n = 16 where kWhole) of every pixel; a part:
// the last block, whose channels may round ties away.
template <Part kPart>
void block_of_pixels(int pixels, int taps, const int8_t* const* rows, size_t c0, int n, const char* block,
                     int8_t* out, size_t out_stride, const Q8DepthwiseOutput& p) {
  constexpr bool kAway = kPart != kWhole;
  const Out o{_mm256_set1_epi32(p.zero_point), _mm_set1_epi8(static_cast<char>(p.lo)),
              _mm_set1_epi8(static_cast<char>(p.hi))};
  const Constants& c = q8_depthwise_constants<Constants>(kLayout, taps, block);
  const int16_t* w = reinterpret_cast<const int16_t*>(block);
  for (int i = 0; i < pixels; ++i, rows += taps, out += out_stride) {
    __m256i lo, hi;
    sum_block<kPart>(taps, rows, c0, n, w, c, lo, hi);
    const __m256i i16 =
        _mm256_packs_epi32(requantize<kAway>(lo, c.half[0], o), requantize<kAway>(hi, c.half[1], o));
    const __m128i i8 = _mm_packs_epi16(_mm256_castsi256_si128(i16), _mm256_extracti128_si256(i16, 1));
    store_first(out + c0, _mm_min_epi8(o.hi, _mm_max_epi8(o.lo, i8)), n);
  }
}

constexpr Q8DepthwiseChunkFn kChunk = &q8_depthwise_blocks<kLayout, &block_of_pixels<kWhole>,
                                                           &block_of_pixels<kSlid>, &block_of_pixels<kCopied>>;

}  // namespace

const Q8DepthwiseKernel& q8_depthwise_kernel_avx2() {
  static const Q8DepthwiseKernel kernel{"q8_depthwise_16c_avx2", kLayout, &q8_depthwise_pixel<kChunk>,
                                        &q8_depthwise_pixels<kChunk>};
  return kernel;
}

}  // namespace fd
