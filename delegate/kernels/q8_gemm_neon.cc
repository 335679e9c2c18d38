// q8 GEMM for neon. Baseline ARMv8-A: 4 rows x 8 columns on int8 panels; a
// row's group of 4 depths, repeated twice, times 2 columns x 4 depths of
// weights (vmull_s8: int16 products, exact as |a|, |w| <= 128), pairwise added
// into int32 (vpadalq_s16, SADALP): 2 partial sums per column, folded at the
// end. With the dot product extension (SDOT, ARMv8.2; cpu.cc asks HWCAP_ASIMDDP):
// 6 rows x 16 columns, one sdot per row, group and 4 columns. The output step
// is q8_gemm_lanes.h's on 4 lanes (mulhi is one SQRDMULH: exact, as M >= 0).
#include <arm_neon.h>

#include <cstring>

#include "kernels/q8_gemm.h"
#include "kernels/q8_gemm_lanes.h"

#define FD_INLINE inline __attribute__((always_inline))
#define FD_DOTPROD __attribute__((target("arch=armv8.2-a+dotprod")))  // arm_neon.h's own target for sdot

namespace fd {
namespace {

struct Lanes4 {
  int32x4_t v;
  static Lanes4 load(const int32_t* p) { return {vld1q_s32(p)}; }
  static Lanes4 splat(int32_t c) { return {vdupq_n_s32(c)}; }
  static Lanes4 shlv(Lanes4 x, Lanes4 s) { return {vshlq_s32(x.v, s.v)}; }
  static Lanes4 srav(Lanes4 x, Lanes4 s) { return {vshlq_s32(x.v, vnegq_s32(s.v))}; }
  static Lanes4 min(Lanes4 a, Lanes4 b) { return {vminq_s32(a.v, b.v)}; }
  static Lanes4 max(Lanes4 a, Lanes4 b) { return {vmaxq_s32(a.v, b.v)}; }
  static Lanes4 gt(Lanes4 a, Lanes4 b) { return {vreinterpretq_s32_u32(vcgtq_s32(a.v, b.v))}; }
  static Lanes4 negative(Lanes4 x) { return {vshrq_n_s32(x.v, 31)}; }
  static Lanes4 nonzero(Lanes4 x) { return {vreinterpretq_s32_u32(vtstq_s32(x.v, x.v))}; }
  // (2 x m + 2^31) >> 32 = floor((x m + 2^30) / 2^31); saturates only for x = m = INT32_MIN.
  static Lanes4 mulhi(Lanes4 x, Lanes4 m) { return {vqrdmulhq_s32(x.v, m.v)}; }
};
inline Lanes4 operator+(Lanes4 a, Lanes4 b) { return {vaddq_s32(a.v, b.v)}; }
inline Lanes4 operator-(Lanes4 a, Lanes4 b) { return {vsubq_s32(a.v, b.v)}; }
inline Lanes4 operator&(Lanes4 a, Lanes4 b) { return {vandq_s32(a.v, b.v)}; }

// The output constants every row of a block shares.
struct Out4 {
  Lanes4 zero_point, lo, hi;
  explicit Out4(const Q8GemmOutput& p)
      : zero_point(Lanes4::splat(p.zero_point)), lo(Lanes4::splat(p.lo)), hi(Lanes4::splat(p.hi)) {}
};

// Outputs of 4 columns, within int8, as int16.
template <Q8Rounding R>
FD_INLINE int16x4_t output4(int32x4_t acc, const Q8Columns<Lanes4>& c, const Out4& o) {
  return vmovn_s32(q8_output_lanes<R>(Lanes4{acc}, c, o.zero_point, o.lo, o.hi).v);
}

// The first nc of 8 values to out.
FD_INLINE void store8(int8_t* out, int8x8_t v, int nc) {
  if (nc == 8) return vst1_s8(out, v);
  int8_t bytes[8];
  vst1_s8(bytes, v);
  std::memcpy(out, bytes, nc);
}

inline int32_t load4(const int8_t* p) {
  int32_t four;
  std::memcpy(&four, p, sizeof four);
  return four;
}

// One group of 4 depths for MR rows: 2 columns x 4 depths per vmull.
template <int MR, bool kPart>
FD_INLINE void mull_group(int32x4_t (&acc)[MR][4], const int8_t* const (&row)[MR], int g, int k, const int8_t* w) {
  int8x8_t wv[4];
  for (int v = 0; v < 4; ++v) wv[v] = vld1_s8(w + 8 * v);
  for (int r = 0; r < MR; ++r) {
    const int32_t four = kPart ? q8_load_group(row[r], g, k) : load4(row[r] + g * kQ8Group);
    const int8x8_t x = vreinterpret_s8_s32(vdup_n_s32(four));
    for (int v = 0; v < 4; ++v) acc[r][v] = vpadalq_s16(acc[r][v], vmull_s8(x, wv[v]));
  }
}

template <int MR, Q8Rounding R>
void q8_gemm_neon(int mr, int nc, int k, const int8_t* a, size_t lda, const void* panel, int8_t* out, size_t ldc,
                  const Q8GemmOutput& p) {
  constexpr int NR = 8;
  const int8_t* w = static_cast<const int8_t*>(panel);
  const int8_t* row[MR];
  q8_block_rows(a, lda, mr, row);
  int32x4_t acc[MR][4];  // columns (0, 1), (2, 3), (4, 5), (6, 7): 2 partial sums each
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < 4; ++v) acc[r][v] = vdupq_n_s32(0);
  const int full = k / kQ8Group;
  for (int g = 0; g < full; ++g, w += NR * kQ8Group) mull_group<MR, false>(acc, row, g, k, w);
  if (full < q8_groups(k)) mull_group<MR, true>(acc, row, full, k, w);
  const Q8PanelTail tail = q8_panel_tail(panel, k, NR, 1);
  const Q8Columns<Lanes4> c0 = q8_columns<Lanes4>(tail, 0), c1 = q8_columns<Lanes4>(tail, 4);
  const Out4 o(p);
  for (int r = 0; r < MR; ++r)  // compile-time bounds: the accumulators stay in registers
    if (r < mr) {
      const int16x4_t lo = output4<R>(vpaddq_s32(acc[r][0], acc[r][1]), c0, o);
      const int16x4_t hi = output4<R>(vpaddq_s32(acc[r][2], acc[r][3]), c1, o);
      store8(out + r * ldc, vmovn_s16(vcombine_s16(lo, hi)), nc);
    }
}

// One group of 4 depths for MR rows: 4 columns x 4 depths per sdot.
template <int MR, bool kPart>
FD_DOTPROD FD_INLINE void dot_group(int32x4_t (&acc)[MR][4], const int8_t* const (&row)[MR], int g, int k,
                                    const int8_t* w) {
  int8x16_t wv[4];
  for (int v = 0; v < 4; ++v) wv[v] = vld1q_s8(w + 16 * v);
  for (int r = 0; r < MR; ++r) {
    const int32_t four = kPart ? q8_load_group(row[r], g, k) : load4(row[r] + g * kQ8Group);
    const int8x16_t x = vreinterpretq_s8_s32(vdupq_n_s32(four));
    for (int v = 0; v < 4; ++v) acc[r][v] = vdotq_s32(acc[r][v], wv[v], x);
  }
}

// The first nc of 16 outputs of a row.
template <Q8Rounding R>
FD_INLINE void store_row16(const int32x4_t (&acc)[4], const Q8Columns<Lanes4> (&c)[4], const Out4& o, int8_t* out,
                           int nc) {
  const int8x8_t lo = vmovn_s16(vcombine_s16(output4<R>(acc[0], c[0], o), output4<R>(acc[1], c[1], o)));
  store8(out, lo, nc < 8 ? nc : 8);
  if (nc <= 8) return;
  const int8x8_t hi = vmovn_s16(vcombine_s16(output4<R>(acc[2], c[2], o), output4<R>(acc[3], c[3], o)));
  store8(out + 8, hi, nc - 8);
}

template <int MR, Q8Rounding R>
FD_DOTPROD void q8_gemm_neondot(int mr, int nc, int k, const int8_t* a, size_t lda, const void* panel, int8_t* out,
                                size_t ldc, const Q8GemmOutput& p) {
  constexpr int NR = 16;
  const int8_t* w = static_cast<const int8_t*>(panel);
  const int8_t* row[MR];
  q8_block_rows(a, lda, mr, row);
  int32x4_t acc[MR][4];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < 4; ++v) acc[r][v] = vdupq_n_s32(0);
  const int full = k / kQ8Group;
  for (int g = 0; g < full; ++g, w += NR * kQ8Group) dot_group<MR, false>(acc, row, g, k, w);
  if (full < q8_groups(k)) dot_group<MR, true>(acc, row, full, k, w);
  const Q8PanelTail tail = q8_panel_tail(panel, k, NR, 1);
  Q8Columns<Lanes4> c[4];
  for (int v = 0; v < 4; ++v) c[v] = q8_columns<Lanes4>(tail, 4 * v);
  const Out4 o(p);
  for (int r = 0; r < MR; ++r)
    if (r < mr) store_row16<R>(acc[r], c, o, out + r * ldc, nc);
}

template <Q8Rounding R>
constexpr Q8GemmMicroKernel kQ8GemmNeonFn =
    &q8_walk_panels<&q8_gemm_neon<4, R>, &q8_gemm_neon<1, R>, 8, 1>;
template <Q8Rounding R>
constexpr Q8GemmMicroKernel kQ8GemmNeondotFn =
    &q8_walk_panels<&q8_gemm_neondot<6, R>, &q8_gemm_neondot<1, R>, 16, 1>;

}  // namespace

const Q8GemmKernel& q8_gemm_kernel_neon() {
  static const Q8GemmKernel kernel{"q8_gemm_4x8_neon", 4, 8, 1, 0,
                                   {kQ8GemmNeonFn<Q8Rounding::kRuyX86>,
                                    kQ8GemmNeonFn<Q8Rounding::kReference>}, {}};
  return kernel;
}

const Q8GemmKernel& q8_gemm_kernel_neondot() {
  static const Q8GemmKernel kernel{"q8_gemm_6x16_neondot", 6, 16, 1, 0,
                                   {kQ8GemmNeondotFn<Q8Rounding::kRuyX86>,
                                    kQ8GemmNeondotFn<Q8Rounding::kReference>}, {}};
  return kernel;
}

}  // namespace fd
