// int8 kernels, AVX-512: the two-input ops on 16 int32 lanes (AVX-512F), and
// table lookups with AVX512-VBMI: the 256 entries in four registers; vpermi2b
// looks 64 values up in each half (the index's low 7 bits), and the index's
// top bit picks the half.
#include <immintrin.h>

#include "kernels/q8_binary.h"
#include "kernels/q8_kernel.h"

#define FD_AVX512VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))
#define FD_AVX512BW __attribute__((target("avx512f,avx512bw")))

namespace fd {
namespace {

// 16 int32 lanes (q8_binary.h's lane API).
struct I32x16 {
  static constexpr int kLanes = 16;
  __m512i v;
  static I32x16 load8(const int8_t* p) { return {_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)))}; }
  static void store8(int8_t* p, I32x16 x) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_cvtepi32_epi8(x.v)); }
  static I32x16 splat(int32_t c) { return {_mm512_set1_epi32(c)}; }
  static I32x16 shl(I32x16 x, int s) { return {_mm512_sll_epi32(x.v, _mm_cvtsi32_si128(s))}; }
  static I32x16 sra(I32x16 x, int s) { return {_mm512_sra_epi32(x.v, _mm_cvtsi32_si128(s))}; }
  static I32x16 min(I32x16 a, I32x16 b) { return {_mm512_min_epi32(a.v, b.v)}; }
  static I32x16 max(I32x16 a, I32x16 b) { return {_mm512_max_epi32(a.v, b.v)}; }
  // (x * m + 2^30) >> 31 per lane from the 64-bit products of even and odd lanes.
  static I32x16 srdhm(I32x16 x, int32_t m) {
    const __m512i mm = _mm512_set1_epi32(m), nudge = _mm512_set1_epi64(int64_t{1} << 30);
    const __m512i even = _mm512_add_epi64(_mm512_mul_epi32(x.v, mm), nudge);
    const __m512i odd = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x.v, 32), mm), nudge);
    return {_mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(even, 31), _mm512_slli_epi64(odd, 1))};
  }
  static I32x16 rdbpot(I32x16 x, int e) {
    const __m512i mask = _mm512_set1_epi32(static_cast<int32_t>((int64_t{1} << e) - 1));
    const __m512i remainder = _mm512_and_si512(x.v, mask);
    const __m512i threshold = _mm512_add_epi32(_mm512_srli_epi32(mask, 1), _mm512_srli_epi32(x.v, 31));
    const __m512i shifted = sra(x, e).v;
    return {_mm512_mask_add_epi32(shifted, _mm512_cmpgt_epi32_mask(remainder, threshold), shifted, _mm512_set1_epi32(1))};
  }
  static I32x16 narrow16(I32x16 x) { return {_mm512_srai_epi32(_mm512_slli_epi32(x.v, 16), 16)}; }
  FD_AVX512BW static I32x16 madd_pair(I32x16 acc, int32_t pair, const int16_t* p) {
    return {_mm512_add_epi32(acc.v, _mm512_madd_epi16(_mm512_set1_epi32(pair), _mm512_loadu_si512(p)))};
  }
  static I32x16 band(I32x16 a, I32x16 b) { return {_mm512_and_si512(a.v, b.v)}; }
  static bool any_at_most(I32x16 x, int32_t c) { return _mm512_cmple_epi32_mask(x.v, _mm512_set1_epi32(c)) != 0; }
};
inline I32x16 operator+(I32x16 a, I32x16 b) { return {_mm512_add_epi32(a.v, b.v)}; }
inline I32x16 operator-(I32x16 a, I32x16 b) { return {_mm512_sub_epi32(a.v, b.v)}; }
inline I32x16 operator*(I32x16 a, I32x16 b) { return {_mm512_mullo_epi32(a.v, b.v)}; }

FD_AVX512VBMI inline __m512i lookup_64(__m512i x, __m512i t0, __m512i t1, __m512i t2, __m512i t3) {
  const __m512i index = _mm512_xor_si512(x, _mm512_set1_epi8(static_cast<char>(0x80)));  // value + 128
  const __m512i low = _mm512_permutex2var_epi8(t0, index, t1);
  const __m512i high = _mm512_permutex2var_epi8(t2, index, t3);
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(index), low, high);
}

FD_AVX512VBMI void q8_lut_avx512vbmi(const int8_t* table, const int8_t* x, int8_t* y, int64_t n) {
  const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  int64_t i = 0;
  for (; i + 64 <= n; i += 64)
    _mm512_storeu_si512(y + i, lookup_64(_mm512_loadu_si512(x + i), t0, t1, t2, t3));
  if (i < n) {
    const __mmask64 m = (1ULL << (n - i)) - 1;  // n - i < 64
    _mm512_mask_storeu_epi8(y + i, m, lookup_64(_mm512_maskz_loadu_epi8(m, x + i), t0, t1, t2, t3));
  }
}

// BATCH_MATMUL's rows with vpmaddwd on 512 bits (these kernels run only where AVX512BW is).
FD_AVX512BW void q8_matmul_avx512(const int8_t* a, int64_t rows, int k, int n, const int16_t* packed,
                                  const Q8MatMulParams& p, int8_t* c) {
  q8_matmul_rows<I32x16>(a, rows, k, n, packed, p, c);
}

}  // namespace

const Q8Kernel& q8_kernel_avx512() {
  static const Q8Kernel kernel{"q8_avx512", q8_kernel_scalar().lut, &q8_binary<I32x16>, &q8_matmul_avx512};
  return kernel;
}

const Q8Kernel& q8_kernel_avx512vbmi() {
  static const Q8Kernel kernel{"q8_avx512vbmi", &q8_lut_avx512vbmi, &q8_binary<I32x16>, &q8_matmul_avx512};
  return kernel;
}

}  // namespace fd
