// Micro-kernels for avx512: GEMM 12 rows x 32 columns (leftovers 8, 4 or 1 rows)
// and 6 x 64 (leftovers 3 or 1), depthwise 32 channels per block, pools, rows.
#include "kernels/vec_avx512.h"
#include "kernels/gemm_microkernel.h"
#include "kernels/row_microkernel.h"
#include "kernels/spmm_microkernel.h"
#include "kernels/winograd_microkernel.h"

namespace fd {

template <simd::Sum S>
const GemmKernel& gemm_12x32_avx512(const char* name) {
  static const GemmKernel kernel = simd::with_builtin_gemv<simd::F32x16, 2, S>({name, 12, 32,
                                 &simd::gemm_microkernel<simd::F32x16, 12, 2, S>, 4,
                                 &simd::gemm_microkernel<simd::F32x16, 4, 2, S>,
                                 &simd::gemm_microkernel<simd::F32x16, 12, 1, S>,
                                 &simd::gemm_microkernel<simd::F32x16, 4, 1, S>, 8,
                                 &simd::gemm_microkernel<simd::F32x16, 8, 2, S>,
                                 &simd::gemm_microkernel<simd::F32x16, 8, 1, S>,
                                 &simd::gemm_row_microkernel<simd::F32x16, 2, S>,
                                 &simd::gemm_row_microkernel<simd::F32x16, 1, S>});
  return kernel;
}

const GemmKernel& gemm_kernel_avx512() { return gemm_12x32_avx512<simd::Sum::kFused>("f32_gemm_12x32_avx512"); }

const GemmKernel& gemm_kernel_avx512_rounded() {
  return gemm_12x32_avx512<simd::Sum::kRounded>("f32_gemm_12x32_rounded_avx512");
}

// Four weight vectors and six broadcasts per k for 24 fmas (12x32: two and
// twelve), and six row pointers, which x86's 16 GPRs hold without spilling:
// 84% of peak at k = 64 in L1, where 12x32 reaches 76%.
const GemmKernel& gemm_kernel_avx512_wide() {
  static const GemmKernel kernel{"f32_gemm_6x64_avx512", 6, 64,
                                 &simd::gemm_microkernel<simd::F32x16, 6, 4>, 3,
                                 &simd::gemm_microkernel<simd::F32x16, 3, 4>,
                                 &simd::gemm_microkernel<simd::F32x16, 6, 2>,
                                 &simd::gemm_microkernel<simd::F32x16, 3, 2>, 0, nullptr, nullptr,
                                 &simd::gemm_row_microkernel<simd::F32x16, 4>,
                                 &simd::gemm_row_microkernel<simd::F32x16, 2>};
  return kernel;
}

template <simd::Sum S>
const DwKernel& dw_32c_avx512(const char* name) {
  // 32 registers: a 3x3 filter for two vectors (18), a 5x5 for one (25); along a
  // row, a 3x3 filter and 8 pixels, a 5x5 and 4.
  static const DwKernel kernel{name, 32, &simd::dw_microkernel_pixels<simd::F32x16, 2, 4, S>,
                               &simd::pool_microkernel<simd::F32x16>,
                               &simd::dw_microkernel_taps<simd::F32x16, 2, 9, 2, S>,
                               &simd::dw_microkernel_taps<simd::F32x16, 2, 25, 1, S>,
                               &simd::dw_row<simd::F32x16, 32, 3, 8, false, S>,
                               &simd::dw_row<simd::F32x16, 32, 5, 4, false, S>,
                               &simd::dw_row2<simd::F32x16, 32, 3, 4, S>,
                               &simd::interp_microkernel<simd::F32x16>,
                               &simd::dw_row<simd::F32x16, 32, 3, 8, false, S, 2>,
                               &simd::dw_row<simd::F32x16, 32, 5, 4, false, S, 2>};
  return kernel;
}

const DwKernel& dw_kernel_avx512() { return dw_32c_avx512<simd::Sum::kFused>("f32_dwconv_32c_avx512"); }

const DwKernel& dw_kernel_avx512_rounded() {
  return dw_32c_avx512<simd::Sum::kRounded>("f32_dwconv_32c_rounded_avx512");
}

const RowKernel& row_kernel_avx512() {
  static const RowKernel kernel = simd::row_kernel<simd::F32x16>("f32_rows_avx512");
  return kernel;
}

const RowKernel& row_kernel_avx512_rounded() {
  static const RowKernel kernel = simd::row_kernel_as_builtin<simd::F32x16>("f32_rows_rounded_avx512");
  return kernel;
}

const WinogradKernel& winograd_kernel_avx512() {
  static const WinogradKernel kernel{"f32_winograd_2x2_3x3_avx512", &simd::winograd_input_tile<simd::F32x16>,
                                     &simd::winograd_output_tile<simd::F32x16>};
  return kernel;
}

const SpmmKernel& spmm_kernel_avx512() {
  static const SpmmKernel kernel{"f32_spmm_16r_avx512", &simd::spmm_microkernel<simd::F32x16>,
                                 &simd::spmm_pack_rows<simd::F32x16>, &simd::spmm_store<simd::F32x16>};
  return kernel;
}

}  // namespace fd
