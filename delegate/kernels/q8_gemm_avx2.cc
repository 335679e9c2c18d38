// q8 GEMM for avx2: 6 rows x 8 columns on int16 panels. AVX2 has no signed
// int8 dot product that cannot saturate (vpmaddubsw's int16 pairs can): each
// row's group of 4 int8 depths is widened to int16 and repeated over 4 column
// slots (vpbroadcastd + vpmovsxbw), and vpmaddwd against 4 columns x 4 depths
// of weights gives each column 2 exact int32 partial sums, folded by vphaddd
// at the end. With AVX-VNNI: int8 panels, 6 rows x 16 columns, one vpdpbusd
// per row, group and 8 columns (rows read as u8 a + 128: the packed bias takes
// the 128 back). The output step is q8_gemm_lanes.h's on 8 lanes.
#include <immintrin.h>

#include <cstring>

#include "kernels/q8_gemm.h"
#include "kernels/q8_gemm_lanes.h"

namespace fd {
namespace {

#define FD_INLINE inline __attribute__((always_inline))

struct Lanes8 {
  __m256i v;
  static Lanes8 load(const int32_t* p) { return {_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))}; }
  static Lanes8 splat(int32_t c) { return {_mm256_set1_epi32(c)}; }
  static Lanes8 shlv(Lanes8 x, Lanes8 s) { return {_mm256_sllv_epi32(x.v, s.v)}; }
  static Lanes8 srav(Lanes8 x, Lanes8 s) { return {_mm256_srav_epi32(x.v, s.v)}; }
  static Lanes8 min(Lanes8 a, Lanes8 b) { return {_mm256_min_epi32(a.v, b.v)}; }
  static Lanes8 max(Lanes8 a, Lanes8 b) { return {_mm256_max_epi32(a.v, b.v)}; }
  static Lanes8 gt(Lanes8 a, Lanes8 b) { return {_mm256_cmpgt_epi32(a.v, b.v)}; }
  static Lanes8 negative(Lanes8 x) { return {_mm256_srai_epi32(x.v, 31)}; }
  static Lanes8 nonzero(Lanes8 x) {
    return {_mm256_xor_si256(_mm256_cmpeq_epi32(x.v, _mm256_setzero_si256()), _mm256_set1_epi32(-1))};
  }
  // Even lanes' 64-bit sums shifted down by 31; odd lanes' shifted up by 1 into the high halves.
  static Lanes8 mulhi(Lanes8 x, Lanes8 m) {
    const __m256i nudge = _mm256_set1_epi64x(int64_t{1} << 30);
    const __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x.v, m.v), nudge);
    const __m256i odd =
        _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x.v, 32), _mm256_srli_epi64(m.v, 32)), nudge);
    return {_mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA)};
  }
};
inline Lanes8 operator+(Lanes8 a, Lanes8 b) { return {_mm256_add_epi32(a.v, b.v)}; }
inline Lanes8 operator-(Lanes8 a, Lanes8 b) { return {_mm256_sub_epi32(a.v, b.v)}; }
inline Lanes8 operator&(Lanes8 a, Lanes8 b) { return {_mm256_and_si256(a.v, b.v)}; }

// The first nc of 8 values within int8 to out.
inline void store8(int8_t* out, __m256i v, int nc) {
  const __m128i i16 = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  const __m128i i8 = _mm_packs_epi16(i16, i16);
  if (nc == 8) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out), i8);
    return;
  }
  int8_t bytes[16];
  _mm_storeu_si128(reinterpret_cast<__m128i*>(bytes), i8);
  std::memcpy(out, bytes, nc);
}

// The output constants every row of a block shares.
struct Out8 {
  Lanes8 zero_point, lo, hi;
  explicit Out8(const Q8GemmOutput& p)
      : zero_point(Lanes8::splat(p.zero_point)), lo(Lanes8::splat(p.lo)), hi(Lanes8::splat(p.hi)) {}
};

template <Q8Rounding R>
FD_INLINE void store_row(__m256i acc, const Q8Columns<Lanes8>& c, const Out8& o, int8_t* out, int nc) {
  store8(out, q8_output_lanes<R>(Lanes8{acc}, c, o.zero_point, o.lo, o.hi).v, nc);
}

// A row's 4 depths (int8 in 32 bits) as int16, [a0 a1 a2 a3] in each 64-bit slot.
FD_INLINE __m256i widen_group(int32_t four) { return _mm256_cvtepi8_epi16(_mm_set1_epi32(four)); }

inline int32_t load4(const int8_t* p) {
  int32_t four;
  std::memcpy(&four, p, sizeof four);
  return four;
}

// One group of 4 depths for MR rows: 4 columns x 4 depths of int16 weights per vector.
template <int MR, bool kPart>
FD_INLINE void madd_group(__m256i (&lo)[MR], __m256i (&hi)[MR], const int8_t* const (&row)[MR], int g, int k,
                          const int16_t* w) {
  const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
  const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 16));
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    const __m256i x = widen_group(kPart ? q8_load_group(row[r], g, k) : load4(row[r] + g * kQ8Group));
    lo[r] = _mm256_add_epi32(lo[r], _mm256_madd_epi16(x, w0));
    hi[r] = _mm256_add_epi32(hi[r], _mm256_madd_epi16(x, w1));
  }
}

template <int MR, Q8Rounding R>
void q8_gemm_avx2(int mr, int nc, int k, const int8_t* a, size_t lda, const void* panel, int8_t* out, size_t ldc,
                  const Q8GemmOutput& p) {
  constexpr int NR = 8;
  const int16_t* w = static_cast<const int16_t*>(panel);
  const int8_t* row[MR];
  q8_block_rows(a, lda, mr, row);
  __m256i lo[MR], hi[MR];  // columns 0-3 and 4-7, 2 partial sums each
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) lo[r] = hi[r] = _mm256_setzero_si256();
  const int full = k / kQ8Group;
  for (int g = 0; g < full; ++g, w += NR * kQ8Group) madd_group<MR, false>(lo, hi, row, g, k, w);
  if (full < q8_groups(k)) madd_group<MR, true>(lo, hi, row, full, k, w);
  const Q8Columns<Lanes8> c = q8_columns<Lanes8>(q8_panel_tail(panel, k, NR, 2), 0);
  const Out8 o(p);
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
    if (r < mr) {
      const __m256i acc = _mm256_permute4x64_epi64(_mm256_hadd_epi32(lo[r], hi[r]), 0xD8);
      store_row<R>(acc, c, o, out + r * ldc, nc);
    }
}

#define FD_AVXVNNI __attribute__((target("avx2,fma,avxvnni")))

// One group of 4 depths for MR rows, 16 int8 columns: rows as u8 (a ^ 0x80 = a + 128).
template <int MR, bool kPart>
FD_AVXVNNI FD_INLINE void dot_group(__m256i (&acc0)[MR], __m256i (&acc1)[MR], const int8_t* const (&row)[MR], int g,
                                    int k, const int8_t* w) {
  const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
  const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 32));
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    const int32_t four = kPart ? q8_load_group(row[r], g, k) : load4(row[r] + g * kQ8Group);
    const __m256i x = _mm256_xor_si256(_mm256_set1_epi32(four), flip);
    acc0[r] = _mm256_dpbusd_avx_epi32(acc0[r], x, w0);
    acc1[r] = _mm256_dpbusd_avx_epi32(acc1[r], x, w1);
  }
}

// 6 rows x 16 columns: 12 accumulators, 2 weights, 1 row in the 16 registers.
template <int MR, Q8Rounding R>
FD_AVXVNNI void q8_gemm_avxvnni(int mr, int nc, int k, const int8_t* a, size_t lda, const void* panel, int8_t* out,
                                size_t ldc, const Q8GemmOutput& p) {
  constexpr int NR = 16;
  const int8_t* w = static_cast<const int8_t*>(panel);
  const int8_t* row[MR];
  q8_block_rows(a, lda, mr, row);
  __m256i acc0[MR], acc1[MR];  // columns 0-7 and 8-15
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) acc0[r] = acc1[r] = _mm256_setzero_si256();
  const int full = k / kQ8Group;
  for (int g = 0; g < full; ++g, w += NR * kQ8Group) dot_group<MR, false>(acc0, acc1, row, g, k, w);
  if (full < q8_groups(k)) dot_group<MR, true>(acc0, acc1, row, full, k, w);
  const Q8PanelTail tail = q8_panel_tail(panel, k, NR, 1);
  const Q8Columns<Lanes8> c0 = q8_columns<Lanes8>(tail, 0), c1 = q8_columns<Lanes8>(tail, 8);
  const Out8 o(p);
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
    if (r < mr) {
      store_row<R>(acc0[r], c0, o, out + r * ldc, nc < 8 ? nc : 8);
      if (nc > 8) store_row<R>(acc1[r], c1, o, out + r * ldc + 8, nc - 8);
    }
}

template <Q8Rounding R>
constexpr Q8GemmMicroKernel kQ8GemmAvx2Fn =
    &q8_walk_panels<&q8_gemm_avx2<6, R>, &q8_gemm_avx2<1, R>, 8, 2>;
template <Q8Rounding R>
constexpr Q8GemmMicroKernel kQ8GemmAvxvnniFn =
    &q8_walk_panels<&q8_gemm_avxvnni<6, R>, &q8_gemm_avxvnni<1, R>, 16, 1>;

}  // namespace

const Q8GemmKernel& q8_gemm_kernel_avx2() {
  static const Q8GemmKernel kernel{"q8_gemm_6x8_avx2", 6, 8, 2, 0,
                                   {kQ8GemmAvx2Fn<Q8Rounding::kRuyX86>,
                                    kQ8GemmAvx2Fn<Q8Rounding::kReference>}, {}};
  return kernel;
}

const Q8GemmKernel& q8_gemm_kernel_avxvnni() {
  static const Q8GemmKernel kernel{"q8_gemm_6x16_avxvnni", 6, 16, 1, 128,
                                   {kQ8GemmAvxvnniFn<Q8Rounding::kRuyX86>,
                                    kQ8GemmAvxvnniFn<Q8Rounding::kReference>}, {}};
  return kernel;
}

}  // namespace fd
