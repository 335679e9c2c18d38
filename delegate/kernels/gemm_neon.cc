// Micro-kernels for neon: GEMM 8 rows x 8 columns (leftovers 4 rows), depthwise 16 channels per block, pools, rows.
#include "kernels/vec_neon.h"
#include "kernels/gemm_microkernel.h"
#include "kernels/row_microkernel.h"
#include "kernels/spmm_microkernel.h"
#include "kernels/winograd_microkernel.h"

namespace fd {

template <simd::Sum S>
const GemmKernel& gemm_8x8_neon(const char* name) {
  static const GemmKernel kernel = simd::with_builtin_gemv<simd::F32x4, 2, S>({name, 8, 8,
                                 &simd::gemm_microkernel<simd::F32x4, 8, 2, S>, 4,
                                 &simd::gemm_microkernel<simd::F32x4, 4, 2, S>,
                                 &simd::gemm_microkernel<simd::F32x4, 8, 1, S>,
                                 &simd::gemm_microkernel<simd::F32x4, 4, 1, S>, 0, nullptr, nullptr,
                                 &simd::gemm_row_microkernel<simd::F32x4, 2, S>,
                                 &simd::gemm_row_microkernel<simd::F32x4, 1, S>});
  return kernel;
}

const GemmKernel& gemm_kernel_neon() { return gemm_8x8_neon<simd::Sum::kFused>("f32_gemm_8x8_neon"); }

const GemmKernel& gemm_kernel_neon_rounded() {
  return gemm_8x8_neon<simd::Sum::kRounded>("f32_gemm_8x8_rounded_neon");
}

template <simd::Sum S>
const DwKernel& dw_16c_neon(const char* name) {
  // 32 registers: a 3x3 filter for two vectors (18), a 5x5 for one (25); along a
  // row, a 3x3 filter and 8 pixels, a 5x5 and 4.
  static const DwKernel kernel{name, 16, &simd::dw_microkernel_pixels<simd::F32x4, 4, 4, S>,
                               &simd::pool_microkernel<simd::F32x4>,
                               &simd::dw_microkernel_taps<simd::F32x4, 4, 9, 2, S>,
                               &simd::dw_microkernel_taps<simd::F32x4, 4, 25, 1, S>,
                               &simd::dw_row<simd::F32x4, 16, 3, 8, false, S>,
                               &simd::dw_row<simd::F32x4, 16, 5, 4, false, S>,
                               &simd::dw_row2<simd::F32x4, 16, 3, 4, S>,
                               &simd::interp_microkernel<simd::F32x4>,
                               &simd::dw_row<simd::F32x4, 16, 3, 8, false, S, 2>,
                               &simd::dw_row<simd::F32x4, 16, 5, 4, false, S, 2>};
  return kernel;
}

const DwKernel& dw_kernel_neon() { return dw_16c_neon<simd::Sum::kFused>("f32_dwconv_16c_neon"); }

const DwKernel& dw_kernel_neon_rounded() {
  return dw_16c_neon<simd::Sum::kRounded>("f32_dwconv_16c_rounded_neon");
}

const RowKernel& row_kernel_neon() {
  static const RowKernel kernel = simd::row_kernel<simd::F32x4>("f32_rows_neon");
  return kernel;
}

const RowKernel& row_kernel_neon_rounded() {
  static const RowKernel kernel = simd::row_kernel_as_builtin<simd::F32x4>("f32_rows_rounded_neon");
  return kernel;
}

const WinogradKernel& winograd_kernel_neon() {
  static const WinogradKernel kernel{"f32_winograd_2x2_3x3_neon", &simd::winograd_input_tile<simd::F32x4>,
                                     &simd::winograd_output_tile<simd::F32x4>};
  return kernel;
}

const SpmmKernel& spmm_kernel_neon() {
  static const SpmmKernel kernel{"f32_spmm_16r_neon", &simd::spmm_microkernel<simd::F32x4>,
                                 &simd::spmm_pack_rows<simd::F32x4>, &simd::spmm_store<simd::F32x4>};
  return kernel;
}

}  // namespace fd
