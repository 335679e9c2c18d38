// q8 GEMM, scalar reference: a 4x4 micro-kernel on int8 panels, each output
// requantized by q8_requantize (the plain formula of q8_gemm.h).
#include "kernels/q8_gemm.h"

namespace fd {
namespace {

constexpr int kNr = 4;

// Weight d of column j in a panel of kNr columns.
inline int32_t panel_weight(const int8_t* w, int j, int d) {
  return w[((d / kQ8Group) * kNr + j) * kQ8Group + d % kQ8Group];
}

// bias' + sum_d a[d] * w[j][d], wrapping as int32.
inline int32_t dot(const int8_t* a, const int8_t* w, int j, int k, int32_t bias) {
  uint32_t acc = static_cast<uint32_t>(bias);
  for (int d = 0; d < k; ++d) acc += static_cast<uint32_t>(a[d] * panel_weight(w, j, d));
  return static_cast<int32_t>(acc);
}

template <Q8Rounding R>
void q8_gemm_4x4_scalar(int mr, int nc, int k, const int8_t* a, size_t lda, const void* panel, int8_t* out,
                        size_t ldc, const Q8GemmOutput& p) {
  const int8_t* w = static_cast<const int8_t*>(panel);
  const Q8PanelTail tail = q8_panel_tail(panel, k, kNr, 1);
  for (int r = 0; r < mr; ++r)
    for (int j = 0; j < nc; ++j) {
      const int32_t acc = dot(a + r * lda, w, j, k, tail.bias[j]);
      const int32_t t = q8_requantize(acc, tail.multiplier[j], tail.left[j], tail.right[j], R);
      const int32_t y = static_cast<int32_t>(static_cast<uint32_t>(t) + static_cast<uint32_t>(p.zero_point));
      out[r * ldc + j] = static_cast<int8_t>(q8_clamp(y, p.lo, p.hi));
    }
}

template <Q8Rounding R>
constexpr Q8GemmMicroKernel kQ8Gemm4x4ScalarFn =
    &q8_walk_panels<&q8_gemm_4x4_scalar<R>, &q8_gemm_4x4_scalar<R>, kNr, 1>;

}  // namespace

const Q8GemmKernel& q8_gemm_kernel_scalar() {
  static const Q8GemmKernel kernel{"q8_gemm_4x4_scalar", 4, kNr, 1, 0,
                                   {kQ8Gemm4x4ScalarFn<Q8Rounding::kRuyX86>,
                                    kQ8Gemm4x4ScalarFn<Q8Rounding::kReference>}, {}};
  return kernel;
}

}  // namespace fd
