// q8 GEMM for avx512 (needs AVX512BW and VL: cpu.cc picks avx2's kernel without them):
// 8 rows x 16 columns on int16 panels, avx2's vpmaddwd scheme at 512 bits
// (each row's 4 int8 depths widened to int16 and repeated over 8 column slots;
// 2 partial sums per column, folded at the end). With AVX512-VNNI: int8 panels,
// 8 rows x 32 columns (a 16-column form for narrow layers; an indirect form
// reading rows in pieces), one vpdpbusd per row, group and 16 columns, the rows
// read as u8 (a ^ 0x80 = a + 128; the packed bias takes the 128 back). The
// output step: kRuyX86 as one rounding of 64-bit products, 4 rows packed to
// int8 at once (ruy_requantize16, store4); kReference by q8_gemm_lanes.h.
#include <immintrin.h>

#include <cstring>

#include "kernels/q8_gemm.h"
#include "kernels/q8_gemm_lanes.h"

#define FD_AVX512BW __attribute__((target("avx512f,avx512bw,avx512vl")))
#define FD_AVX512VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define FD_INLINE inline __attribute__((always_inline))

namespace fd {
namespace {

// AVX512F only.
struct Lanes16 {
  __m512i v;
  static Lanes16 load(const int32_t* p) { return {_mm512_loadu_si512(p)}; }
  static Lanes16 splat(int32_t c) { return {_mm512_set1_epi32(c)}; }
  static Lanes16 shlv(Lanes16 x, Lanes16 s) { return {_mm512_sllv_epi32(x.v, s.v)}; }
  static Lanes16 srav(Lanes16 x, Lanes16 s) { return {_mm512_srav_epi32(x.v, s.v)}; }
  static Lanes16 min(Lanes16 a, Lanes16 b) { return {_mm512_min_epi32(a.v, b.v)}; }
  static Lanes16 max(Lanes16 a, Lanes16 b) { return {_mm512_max_epi32(a.v, b.v)}; }
  static Lanes16 ones(__mmask16 m) { return {_mm512_maskz_mov_epi32(m, _mm512_set1_epi32(-1))}; }
  static Lanes16 gt(Lanes16 a, Lanes16 b) { return ones(_mm512_cmpgt_epi32_mask(a.v, b.v)); }
  static Lanes16 negative(Lanes16 x) { return {_mm512_srai_epi32(x.v, 31)}; }
  static Lanes16 nonzero(Lanes16 x) { return ones(_mm512_test_epi32_mask(x.v, x.v)); }
  // Even lanes' 64-bit sums shifted down by 31; odd lanes' shifted up by 1 into the high halves.
  static Lanes16 mulhi(Lanes16 x, Lanes16 m) {
    const __m512i nudge = _mm512_set1_epi64(int64_t{1} << 30);
    const __m512i even = _mm512_add_epi64(_mm512_mul_epi32(x.v, m.v), nudge);
    const __m512i odd =
        _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x.v, 32), _mm512_srli_epi64(m.v, 32)), nudge);
    return {_mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(even, 31), _mm512_slli_epi64(odd, 1))};
  }
};
inline Lanes16 operator+(Lanes16 a, Lanes16 b) { return {_mm512_add_epi32(a.v, b.v)}; }
inline Lanes16 operator-(Lanes16 a, Lanes16 b) { return {_mm512_sub_epi32(a.v, b.v)}; }
inline Lanes16 operator&(Lanes16 a, Lanes16 b) { return {_mm512_and_si512(a.v, b.v)}; }

// The output constants every row of a block shares.
struct Out16 {
  Lanes16 zero_point, lo, hi;
  explicit Out16(const Q8GemmOutput& p)
      : zero_point(Lanes16::splat(p.zero_point)), lo(Lanes16::splat(p.lo)), hi(Lanes16::splat(p.hi)) {}
};

// The first nc of 16 outputs of a row (q8_gemm_lanes.h's output step).
template <Q8Rounding R>
FD_INLINE void store_row(__m512i acc, const Q8Columns<Lanes16>& c, const Out16& o, int8_t* out, int nc) {
  const __m512i y = q8_output_lanes<R>(Lanes16{acc}, c, o.zero_point, o.lo, o.hi).v;
  _mm512_mask_cvtepi32_storeu_epi8(out, static_cast<__mmask16>((1u << nc) - 1), y);
}

// kRuyX86's two roundings as one of a 64-bit product (q8_gemm.h's h and t):
// t = floor((s M + nudge) / 2^(31 + r)), nudge = 2^30 + (r > 0 ? 2^(30 + r) : 0)
// (floors of floors compose), on the even and the odd int32 lanes apart.
struct Ruy16 {
  __m512i left, m_even, m_odd, nudge_even, nudge_odd, shift_even, shift_odd;
  bool shifts_left;  // any l > 0
};

FD_AVX512BW inline __m512i ruy_nudge(__m512i r) {
  const __m512i one = _mm512_set1_epi64(int64_t{1} << 30);
  const __mmask8 shifted = _mm512_test_epi64_mask(r, r);
  return _mm512_mask_add_epi64(one, shifted, one, _mm512_sllv_epi64(one, r));
}

FD_AVX512BW inline Ruy16 ruy16(const Q8PanelTail& tail, int j) {
  const __m512i low = _mm512_set1_epi64(0xFFFFFFFF), right = _mm512_loadu_si512(tail.right + j);
  const __m512i m = _mm512_loadu_si512(tail.multiplier + j), left = _mm512_loadu_si512(tail.left + j);
  const __m512i r_even = _mm512_and_si512(right, low), r_odd = _mm512_srli_epi64(right, 32);
  const __m512i base = _mm512_set1_epi64(31);
  return {left,
          m,
          _mm512_srli_epi64(m, 32),
          ruy_nudge(r_even),
          ruy_nudge(r_odd),
          _mm512_add_epi64(r_even, base),
          _mm512_add_epi64(r_odd, base),
          _mm512_test_epi32_mask(left, left) != 0};
}

// requantize(acc) of 16 columns (acc with its bias), before the output zero point.
FD_AVX512BW FD_INLINE __m512i ruy_requantize16(__m512i acc, const Ruy16& c) {
  const __m512i s = c.shifts_left ? _mm512_sllv_epi32(acc, c.left) : acc;
  const __m512i even = _mm512_add_epi64(_mm512_mul_epi32(s, c.m_even), c.nudge_even);
  const __m512i odd = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(s, 32), c.m_odd), c.nudge_odd);
  const __m512i pick = _mm512_setr_epi32(0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30);
  return _mm512_permutex2var_epi32(_mm512_srav_epi64(even, c.shift_even), pick,
                                   _mm512_srav_epi64(odd, c.shift_odd));
}

// The output constants of 4 rows stored at once, as int16 and int8.
struct Pack16 {
  __m512i zero_point, lo, hi, rows_apart;
  explicit Pack16(const Q8GemmOutput& p)
      : zero_point(_mm512_set1_epi16(static_cast<int16_t>(p.zero_point))),
        lo(_mm512_set1_epi8(static_cast<char>(p.lo))),
        hi(_mm512_set1_epi8(static_cast<char>(p.hi))),
        rows_apart(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15)) {}
};

// The first nc of 16 columns of rows t[0..rows) (requantized, rows <= 4): the
// zero point added and the clamp taken on saturated int16 and int8 (the same
// as on int32, the clamp being within int8), rows ldc apart.
FD_AVX512BW FD_INLINE void store4(const __m512i* t, const Pack16& o, int8_t* out, size_t ldc, int rows, int nc) {
  const __m512i a = _mm512_adds_epi16(_mm512_packs_epi32(t[0], t[1]), o.zero_point);
  const __m512i b = _mm512_adds_epi16(_mm512_packs_epi32(t[2], t[3]), o.zero_point);
  const __m512i y8 = _mm512_max_epi8(o.lo, _mm512_min_epi8(o.hi, _mm512_packs_epi16(a, b)));
  const __m512i y = _mm512_permutexvar_epi32(o.rows_apart, y8);  // row r in 128-bit lane r
  const __mmask16 m = static_cast<__mmask16>((1u << nc) - 1);
  _mm_mask_storeu_epi8(out, m, _mm512_castsi512_si128(y));
  if (rows > 1) _mm_mask_storeu_epi8(out + ldc, m, _mm512_extracti32x4_epi32(y, 1));
  if (rows > 2) _mm_mask_storeu_epi8(out + 2 * ldc, m, _mm512_extracti32x4_epi32(y, 2));
  if (rows > 3) _mm_mask_storeu_epi8(out + 3 * ldc, m, _mm512_extracti32x4_epi32(y, 3));
}

// The first mr of MR rows of 16 columns (acc[r * stride], bias included) requantized and stored.
template <int MR, Q8Rounding R>
FD_AVX512BW FD_INLINE void store_rows(const __m512i* acc, int stride, const Q8PanelTail& tail, int j,
                                      const Q8GemmOutput& p, int8_t* out, size_t ldc, int mr, int nc) {
  if constexpr (R == Q8Rounding::kRuyX86 && MR % 4 == 0) {
    const Ruy16 c = ruy16(tail, j);
    const Pack16 o(p);
#pragma GCC unroll 4
    for (int r0 = 0; r0 < MR && r0 < mr; r0 += 4) {
      __m512i t[4];
#pragma GCC unroll 4
      for (int r = 0; r < 4; ++r) t[r] = ruy_requantize16(acc[(r0 + r) * stride], c);
      store4(t, o, out + r0 * ldc, ldc, mr - r0, nc);
    }
  } else {
    Q8Columns<Lanes16> c = q8_columns<Lanes16>(tail, j);
    c.bias = Lanes16::splat(0);  // q8_output_lanes adds it: here acc starts from it
    const Out16 o(p);
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r)
      if (r < mr) store_row<R>(acc[r * stride], c, o, out + r * ldc, nc);
  }
}

inline int32_t load4(const int8_t* p) {
  int32_t four;
  std::memcpy(&four, p, sizeof four);
  return four;
}

// One group of 4 depths for MR rows: 8 columns x 4 depths of int16 weights per vector.
template <int MR, bool kPart>
FD_AVX512BW FD_INLINE void madd_group(__m512i (&lo)[MR], __m512i (&hi)[MR], const int8_t* const (&row)[MR], int g,
                                      int k, const int16_t* w) {
  const __m512i w0 = _mm512_loadu_si512(w), w1 = _mm512_loadu_si512(w + 32);
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    const int32_t four = kPart ? q8_load_group(row[r], g, k) : load4(row[r] + g * kQ8Group);
    const __m512i x = _mm512_cvtepi8_epi16(_mm256_set1_epi32(four));
    lo[r] = _mm512_add_epi32(lo[r], _mm512_madd_epi16(x, w0));
    hi[r] = _mm512_add_epi32(hi[r], _mm512_madd_epi16(x, w1));
  }
}

// Sums of 16 columns from partials over columns 0-7 (lo) and 8-15 (hi).
FD_AVX512BW FD_INLINE __m512i fold_partials(__m512i lo, __m512i hi) {
  const __m256i a = _mm512_cvtepi64_epi32(_mm512_add_epi32(lo, _mm512_srli_epi64(lo, 32)));
  const __m256i b = _mm512_cvtepi64_epi32(_mm512_add_epi32(hi, _mm512_srli_epi64(hi, 32)));
  return _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
}

template <int MR, Q8Rounding R>
FD_AVX512BW void q8_gemm_avx512(int mr, int nc, int k, const int8_t* a, size_t lda, const void* panel, int8_t* out,
                                size_t ldc, const Q8GemmOutput& p) {
  constexpr int NR = 16;
  const int16_t* w = static_cast<const int16_t*>(panel);
  const int8_t* row[MR];
  q8_block_rows(a, lda, mr, row);
  __m512i lo[MR], hi[MR];  // columns 0-7 and 8-15, 2 partial sums each
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) lo[r] = hi[r] = _mm512_setzero_si512();
  const int full = k / kQ8Group;
  for (int g = 0; g < full; ++g, w += NR * kQ8Group) madd_group<MR, false>(lo, hi, row, g, k, w);
  if (full < q8_groups(k)) madd_group<MR, true>(lo, hi, row, full, k, w);
  const Q8PanelTail tail = q8_panel_tail(panel, k, NR, 2);
  const __m512i bias = _mm512_loadu_si512(tail.bias);
  __m512i acc[MR];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) acc[r] = _mm512_add_epi32(fold_partials(lo[r], hi[r]), bias);
  store_rows<MR, R>(acc, 1, tail, 0, p, out, ldc, mr, nc);
}

// One group of 4 depths for MR rows, 16 * P int8 columns: rows as u8 (a + 128).
template <int MR, int P, bool kPart>
FD_AVX512VNNI FD_INLINE void dot_group(__m512i (&acc)[MR][P], const int8_t* const (&row)[MR], int g, int k,
                                       const int8_t* w) {
  __m512i wv[P];
#pragma GCC unroll 4
  for (int v = 0; v < P; ++v) wv[v] = _mm512_loadu_si512(w + 64 * v);
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    const int32_t four = kPart ? q8_load_group(row[r], g, k) : load4(row[r] + g * kQ8Group);
    const __m512i x = _mm512_xor_si512(_mm512_set1_epi32(four), flip);
#pragma GCC unroll 4
    for (int v = 0; v < P; ++v) acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], x, wv[v]);
  }
}

// MR x P vectors of 16 sums, each from its column's bias.
template <int MR, int P>
FD_AVX512VNNI FD_INLINE void start_from_bias(__m512i (&acc)[MR][P], const Q8PanelTail& tail) {
#pragma GCC unroll 4
  for (int v = 0; v < P; ++v) {
    const __m512i bias = _mm512_loadu_si512(tail.bias + 16 * v);
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) acc[r][v] = bias;
  }
}

// The first nc columns of the first mr rows of the block's sums, requantized and stored.
template <int MR, int P, Q8Rounding R>
FD_AVX512VNNI FD_INLINE void store_block(__m512i (&acc)[MR][P], const Q8PanelTail& tail, const Q8GemmOutput& p,
                                         int8_t* out, size_t ldc, int mr, int nc) {
#pragma GCC unroll 4
  for (int v = 0; v < P; ++v) {
    if (nc <= 16 * v) break;
    const int n = nc - 16 * v < 16 ? nc - 16 * v : 16;
    store_rows<MR, R>(&acc[0][v], P, tail, 16 * v, p, out + 16 * v, ldc, mr, n);
  }
}

template <int MR, int P, Q8Rounding R>
FD_AVX512VNNI void q8_gemm_avx512vnni(int mr, int nc, int k, const int8_t* a, size_t lda, const void* panel,
                                      int8_t* out, size_t ldc, const Q8GemmOutput& p) {
  constexpr int NR = 16 * P;
  const int8_t* w = static_cast<const int8_t*>(panel);
  const int8_t* row[MR];
  q8_block_rows(a, lda, mr, row);
  const Q8PanelTail tail = q8_panel_tail(panel, k, NR, 1);
  __m512i acc[MR][P];
  start_from_bias(acc, tail);
  const int full = k / kQ8Group;
  for (int g = 0; g < full; ++g, w += NR * kQ8Group) dot_group<MR, P, false>(acc, row, g, k, w);
  if (full < q8_groups(k)) dot_group<MR, P, true>(acc, row, full, k, w);
  store_block<MR, P, R>(acc, tail, p, out, ldc, mr, nc);
}

// The same over rows given in taps pieces of c bytes (Q8IgemmMicroKernel).
template <int MR, int P, Q8Rounding R>
FD_AVX512VNNI void q8_igemm_avx512vnni(int mr, int nc, int taps, int c, const Q8Pieces& rows, const void* panel,
                                       int8_t* out, size_t ldc, const Q8GemmOutput& p) {
  constexpr int NR = 16 * P;
  const int8_t* w = static_cast<const int8_t*>(panel);
  const Q8PanelTail tail = q8_panel_tail(panel, taps * c, NR, 1);
  __m512i acc[MR][P];
  start_from_bias(acc, tail);
  for (int t = 0; t < taps; ++t) {
    const int8_t* row[MR];
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) row[r] = rows.at((r < mr ? r : mr - 1) * taps + t);
    for (int g = 0; g < c / kQ8Group; ++g, w += NR * kQ8Group) dot_group<MR, P, false>(acc, row, g, c, w);
  }
  store_block<MR, P, R>(acc, tail, p, out, ldc, mr, nc);
}

template <Q8Rounding R>
constexpr Q8GemmMicroKernel kQ8GemmAvx512Fn =
    &q8_walk_panels<&q8_gemm_avx512<8, R>, &q8_gemm_avx512<1, R>, 16, 2>;
template <Q8Rounding R>
constexpr Q8GemmMicroKernel kQ8GemmAvx512vnniFn =
    &q8_walk_panels<&q8_gemm_avx512vnni<8, 2, R>, &q8_gemm_avx512vnni<1, 2, R>, 32, 1>;
template <Q8Rounding R>
constexpr Q8IgemmMicroKernel kQ8IgemmAvx512vnniFn =
    &q8_walk_ipanels<&q8_igemm_avx512vnni<8, 2, R>, &q8_igemm_avx512vnni<1, 2, R>, 32, 1>;
template <Q8Rounding R>  // 16 columns
constexpr Q8GemmMicroKernel kQ8GemmAvx512vnni16Fn =
    &q8_walk_panels<&q8_gemm_avx512vnni<8, 1, R>, &q8_gemm_avx512vnni<1, 1, R>, 16, 1>;
template <Q8Rounding R>
constexpr Q8IgemmMicroKernel kQ8IgemmAvx512vnni16Fn =
    &q8_walk_ipanels<&q8_igemm_avx512vnni<8, 1, R>, &q8_igemm_avx512vnni<1, 1, R>, 16, 1>;

}  // namespace

const Q8GemmKernel& q8_gemm_kernel_avx512() {
  static const Q8GemmKernel kernel{"q8_gemm_8x16_avx512", 8, 16, 2, 0,
                                   {kQ8GemmAvx512Fn<Q8Rounding::kRuyX86>,
                                    kQ8GemmAvx512Fn<Q8Rounding::kReference>}, {}};
  return kernel;
}

const Q8GemmKernel& q8_gemm_kernel_avx512vnni_narrow() {
  static const Q8GemmKernel kernel{"q8_gemm_8x16_avx512vnni", 8, 16, 1, 128,
                                   {kQ8GemmAvx512vnni16Fn<Q8Rounding::kRuyX86>,
                                    kQ8GemmAvx512vnni16Fn<Q8Rounding::kReference>},
                                   {kQ8IgemmAvx512vnni16Fn<Q8Rounding::kRuyX86>,
                                    kQ8IgemmAvx512vnni16Fn<Q8Rounding::kReference>}};
  return kernel;
}

const Q8GemmKernel& q8_gemm_kernel_avx512vnni() {
  static const Q8GemmKernel kernel{"q8_gemm_8x32_avx512vnni", 8, 32, 1, 128,
                                   {kQ8GemmAvx512vnniFn<Q8Rounding::kRuyX86>,
                                    kQ8GemmAvx512vnniFn<Q8Rounding::kReference>},
                                   {kQ8IgemmAvx512vnniFn<Q8Rounding::kRuyX86>,
                                    kQ8IgemmAvx512vnniFn<Q8Rounding::kReference>},
                                   &q8_gemm_kernel_avx512vnni_narrow()};
  return kernel;
}

}  // namespace fd
