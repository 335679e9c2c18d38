// qd8 GEMM, scalar reference: the row parameters, row quantization and a 4x4
// micro-kernel on int8 panels, written plainly.
#include <algorithm>
#include <cmath>

#include "kernels/qd8_gemm.h"
#include "kernels/qd8_quantize_row.h"

namespace fd {

Qd8RowParams qd8_row_params(float min, float max) {
  const float lo = std::fmin(0.f, min), hi = std::fmax(0.f, max);
  if (lo == hi) return {1.f, 0};
  const double rmin = lo, rmax = hi;
  const double s = static_cast<double>(hi - lo) / 255.0;  // the range subtracted in float
  const double zp_from_min = -128.0 - rmin / s, zp_from_max = 127.0 - rmax / s;
  const bool min_closer = 128.0 + std::fabs(rmin / s) < 127.0 + std::fabs(rmax / s);
  const double zp = min_closer ? zp_from_min : zp_from_max;
  const int32_t nudged = zp <= -128.0 ? -128 : zp >= 127.0 ? 127 : static_cast<int32_t>(std::round(zp));
  return {static_cast<float>(s), nudged};
}

namespace {

struct ScalarRowOps {
  static constexpr int W = 1;
  static void min_max(int k, const float* x, float* lo, float* hi) {
    for (int i = 0; i < k; ++i) {
      *lo = std::min(*lo, x[i]);
      *hi = std::max(*hi, x[i]);
    }
  }
  static void convert(const float* x, float inv, int32_t zp, int8_t* q) { *q = qd8_quantize_value(*x, inv, zp); }
  static void convert_centered(const float* x, float inv, int32_t zp, float* out) {
    *out = static_cast<float>(qd8_quantize_value(*x, inv, zp) - zp);
  }
};

void qd8_gemm_4x4_scalar(int mr, int nc, int groups, const void* rows_a, size_t lda, const Qd8RowParams* rows,
                         const void* panel, float* out, size_t ldc, float lo, float hi) {
  constexpr int NR = 4;
  const int8_t* a = static_cast<const int8_t*>(rows_a);
  const int8_t* w = static_cast<const int8_t*>(panel);
  const Qd8PanelTail tail = qd8_panel_tail(panel, groups, NR, 1);
  for (int r = 0; r < mr; ++r)
    for (int j = 0; j < nc; ++j) {
      int32_t acc = 0;
      for (int g = 0; g < groups; ++g)
        for (int d = 0; d < kQd8Group; ++d)
          acc += a[r * lda + g * kQd8Group + d] * w[(g * NR + j) * kQd8Group + d];
      out[r * ldc + j] = qd8_output_value(acc, rows[r], tail, j, lo, hi);
    }
}

}  // namespace

const Qd8GemmKernel& qd8_gemm_kernel_scalar() {
  static const Qd8GemmKernel kernel{"qd8_gemm_4x4_scalar", 4, 4, 1, 1,
                                    &qd8_walk_panels<&qd8_gemm_4x4_scalar, 4, 1>,
                                    &qd8_quantize_row<ScalarRowOps>,
                                    &qd8_quantize_row_centered<ScalarRowOps>};
  return kernel;
}

}  // namespace fd
