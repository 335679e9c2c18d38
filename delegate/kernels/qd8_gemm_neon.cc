// qd8 GEMM for neon: 4 rows x 8 columns on int8 panels (baseline ARMv8-A, no
// sdot). A row's group of 4 depths, repeated twice, times 2 columns x 4 depths
// of weights (vmull_s8: int16 products, |a|, |w| <= 128 so each fits), pairwise
// added into int32 (vpadalq_s16): 2 partial sums per column, folded at the end.
#include <arm_neon.h>

#include <cstring>

#include "kernels/qd8_gemm.h"
#include "kernels/qd8_quantize_row.h"

namespace fd {
namespace {

// 4 outputs of one row from their int32 sums (qd8_output_value's steps).
inline void store_outputs(int32x4_t acc, Qd8RowParams row, Qd8PanelTail tail, int j, float* out, int nc,
                          float32x4_t lo, float32x4_t hi) {
  const int32x4_t corr = vsubq_s32(acc, vmulq_s32(vdupq_n_s32(row.zero_point), vld1q_s32(tail.wsum + j)));
  const float32x4_t x = vcvtq_f32_s32(corr), a = vdupq_n_f32(row.scale), w = vld1q_f32(tail.scale + j);
  const float32x4_t b = vld1q_f32(tail.bias + j);
  const float32x4_t scaled = vaddq_f32(vmulq_f32(x, vmulq_f32(w, a)), b);
  const float32x4_t y = vminq_f32(hi, vmaxq_f32(lo, scaled));
  if (nc - j >= 4) {
    vst1q_f32(out + j, y);
    return;
  }
  float lanes[4];
  vst1q_f32(lanes, y);
  for (int i = 0; j + i < nc; ++i) out[j + i] = lanes[i];
}

template <int MR>
void qd8_gemm_neon(int mr, int nc, int groups, const void* rows_a, size_t lda, const Qd8RowParams* rows,
                   const void* panel, float* out, size_t ldc, float lo, float hi) {
  constexpr int NR = 8, NV = NR / 2;
  const int8_t* w = static_cast<const int8_t*>(panel);
  const int8_t* row[MR];
  qd8_block_rows(rows_a, lda, mr, row);
  int32x4_t acc[MR][NV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = vdupq_n_s32(0);
  for (int g = 0; g < groups; ++g, w += NR * kQd8Group) {
    int8x8_t wv[NV];
    for (int v = 0; v < NV; ++v) wv[v] = vld1_s8(w + v * 8);
    for (int r = 0; r < MR; ++r) {
      int32_t bits;
      std::memcpy(&bits, row[r] + g * kQd8Group, sizeof bits);
      const int8x8_t x = vreinterpret_s8_s32(vdup_n_s32(bits));
      for (int v = 0; v < NV; ++v) acc[r][v] = vpadalq_s16(acc[r][v], vmull_s8(x, wv[v]));
    }
  }
  const Qd8PanelTail tail = qd8_panel_tail(panel, groups, NR, 1);
  const float32x4_t vlo = vdupq_n_f32(lo), vhi = vdupq_n_f32(hi);
  for (int r = 0; r < MR; ++r)  // compile-time bounds: the accumulators stay in registers
    for (int v = 0; v < NV; v += 2)
      if (r < mr && 2 * v < nc)
        store_outputs(vpaddq_s32(acc[r][v], acc[r][v + 1]), rows[r], tail, 2 * v, out + r * ldc, nc, vlo, vhi);
}

struct NeonRowOps {
  static constexpr int W = 8;
  static void min_max(int k, const float* x, float* lo, float* hi) {
    float32x4_t vmin = vdupq_n_f32(0.f), vmax = vdupq_n_f32(0.f);
    for (int i = 0; i < k; i += 4) {
      vmin = vminq_f32(vmin, vld1q_f32(x + i));
      vmax = vmaxq_f32(vmax, vld1q_f32(x + i));
    }
    *lo = vminvq_f32(vmin);
    *hi = vmaxvq_f32(vmax);
  }
  // 8 values: qd8_quantize_value's steps, x * inv clamped to [-128 - zp, 127 -
  // zp] (whole bounds: the same as clamping q after rounding), rounded half away
  // from zero (fcvtas), the zero point added.
  static void convert(const float* x, float inv, int32_t zp, int8_t* q) {
    int32x4_t i[2];
    for (int h = 0; h < 2; ++h) i[h] = vaddq_s32(vcvtaq_s32_f32(clamped(x + 4 * h, inv, zp)), vdupq_n_s32(zp));
    vst1_s8(q, vqmovn_s16(vcombine_s16(vqmovn_s32(i[0]), vqmovn_s32(i[1]))));
  }
  // 8 values as floats q - zp (frinta: the same rounding).
  static void convert_centered(const float* x, float inv, int32_t zp, float* out) {
    for (int h = 0; h < 2; ++h) vst1q_f32(out + 4 * h, vrndaq_f32(clamped(x + 4 * h, inv, zp)));
  }
  static float32x4_t clamped(const float* x, float inv, int32_t zp) {
    const float32x4_t t = vmulq_f32(vld1q_f32(x), vdupq_n_f32(inv));
    const float32x4_t lo = vdupq_n_f32(static_cast<float>(-128 - zp)), hi = vdupq_n_f32(static_cast<float>(127 - zp));
    return vminq_f32(hi, vmaxq_f32(lo, t));
  }
};

}  // namespace

const Qd8GemmKernel& qd8_gemm_kernel_neon() {
  static const Qd8GemmKernel kernel{"qd8_gemm_4x8_neon", 4, 8, 1, 1,
                                    &qd8_walk_panels<&qd8_gemm_neon<4>, 8, 1>,
                                    &qd8_quantize_row<NeonRowOps>,
                                    &qd8_quantize_row_centered<NeonRowOps>};
  return kernel;
}

}  // namespace fd
