// int8 kernels, AVX2: the two-input ops on 8 int32 lanes; table lookups one
// value at a time (the scalar loop).
#include <immintrin.h>

#include "kernels/q8_binary.h"
#include "kernels/q8_kernel.h"

namespace fd {
namespace {

// 8 int32 lanes (q8_binary.h's lane API).
struct I32x8 {
  static constexpr int kLanes = 8;
  __m256i v;
  static I32x8 load8(const int8_t* p) { return {_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)))}; }
  static void store8(int8_t* p, I32x8 x) {  // values within int8: the saturating packs keep them
    const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(x.v), _mm256_extracti128_si256(x.v, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_packs_epi16(words, words));
  }
  static I32x8 splat(int32_t c) { return {_mm256_set1_epi32(c)}; }
  static I32x8 shl(I32x8 x, int s) { return {_mm256_sll_epi32(x.v, _mm_cvtsi32_si128(s))}; }
  static I32x8 sra(I32x8 x, int s) { return {_mm256_sra_epi32(x.v, _mm_cvtsi32_si128(s))}; }
  static I32x8 min(I32x8 a, I32x8 b) { return {_mm256_min_epi32(a.v, b.v)}; }
  static I32x8 max(I32x8 a, I32x8 b) { return {_mm256_max_epi32(a.v, b.v)}; }
  // (x * m + 2^30) >> 31 per lane from the 64-bit products of even and odd lanes.
  static I32x8 srdhm(I32x8 x, int32_t m) {
    const __m256i mm = _mm256_set1_epi32(m), nudge = _mm256_set1_epi64x(int64_t{1} << 30);
    const __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x.v, mm), nudge);
    const __m256i odd = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x.v, 32), mm), nudge);
    return {_mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA)};
  }
  static I32x8 rdbpot(I32x8 x, int e) {
    const __m256i mask = _mm256_set1_epi32(static_cast<int32_t>((int64_t{1} << e) - 1));
    const __m256i remainder = _mm256_and_si256(x.v, mask);
    const __m256i threshold = _mm256_add_epi32(_mm256_srli_epi32(mask, 1), _mm256_srli_epi32(x.v, 31));
    return {_mm256_sub_epi32(sra(x, e).v, _mm256_cmpgt_epi32(remainder, threshold))};  // true is -1
  }
  static I32x8 narrow16(I32x8 x) { return {_mm256_srai_epi32(_mm256_slli_epi32(x.v, 16), 16)}; }
  static I32x8 madd_pair(I32x8 acc, int32_t pair, const int16_t* p) {
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return {_mm256_add_epi32(acc.v, _mm256_madd_epi16(_mm256_set1_epi32(pair), b))};
  }
  static I32x8 band(I32x8 a, I32x8 b) { return {_mm256_and_si256(a.v, b.v)}; }
  static bool any_at_most(I32x8 x, int32_t c) {  // c < INT32_MAX
    return _mm256_movemask_epi8(_mm256_cmpgt_epi32(_mm256_set1_epi32(c + 1), x.v)) != 0;
  }
};
inline I32x8 operator+(I32x8 a, I32x8 b) { return {_mm256_add_epi32(a.v, b.v)}; }
inline I32x8 operator-(I32x8 a, I32x8 b) { return {_mm256_sub_epi32(a.v, b.v)}; }
inline I32x8 operator*(I32x8 a, I32x8 b) { return {_mm256_mullo_epi32(a.v, b.v)}; }

void q8_matmul_avx2(const int8_t* a, int64_t rows, int k, int n, const int16_t* packed, const Q8MatMulParams& p,
                    int8_t* c) {
  q8_matmul_rows<I32x8>(a, rows, k, n, packed, p, c);
}

}  // namespace

const Q8Kernel& q8_kernel_avx2() {
  static const Q8Kernel kernel{"q8_avx2", q8_kernel_scalar().lut, &q8_binary<I32x8>, &q8_matmul_avx2};
  return kernel;
}

}  // namespace fd
