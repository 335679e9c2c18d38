// Table lookups with AVX512-VBMI: the 256 entries in four registers; vpermi2b
// looks 64 values up in each half (the index's low 7 bits), and the index's
// top bit picks the half.
#include <immintrin.h>

#include "kernels/q8_lut.h"

#define FD_AVX512VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))

namespace fd {
namespace {

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

}  // namespace

const Q8Kernel& q8_kernel_avx512vbmi() {
  static const Q8Kernel kernel{"q8_lut_avx512vbmi", &q8_lut_avx512vbmi};
  return kernel;
}

}  // namespace fd
