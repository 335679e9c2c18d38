// Micro-kernels for avx2: GEMM 6 rows x 16 columns (leftovers 3 rows), depthwise 16 channels per block, pools, rows.
#include "kernels/vec_avx2.h"
#include "kernels/gemm_microkernel.h"
#include "kernels/row_microkernel.h"
#include "kernels/spmm_microkernel.h"
#include "kernels/winograd_microkernel.h"

namespace fd {

template <simd::Sum S>
const GemmKernel& gemm_6x16_avx2(const char* name) {
  static const GemmKernel kernel = simd::with_builtin_gemv<simd::F32x8, 2, S>({name, 6, 16,
                                 &simd::gemm_microkernel<simd::F32x8, 6, 2, S>, 3,
                                 &simd::gemm_microkernel<simd::F32x8, 3, 2, S>,
                                 &simd::gemm_microkernel<simd::F32x8, 6, 1, S>,
                                 &simd::gemm_microkernel<simd::F32x8, 3, 1, S>, 0, nullptr, nullptr,
                                 &simd::gemm_row_microkernel<simd::F32x8, 2, S>,
                                 &simd::gemm_row_microkernel<simd::F32x8, 1, S>});
  return kernel;
}

const GemmKernel& gemm_kernel_avx2() { return gemm_6x16_avx2<simd::Sum::kFused>("f32_gemm_6x16_avx2"); }

const GemmKernel& gemm_kernel_avx2_rounded() {
  return gemm_6x16_avx2<simd::Sum::kRounded>("f32_gemm_6x16_rounded_avx2");
}

template <simd::Sum S>
const DwKernel& dw_16c_avx2(const char* name) {
  // 16 registers: a 3x3 filter for one vector (along a row, with 4 pixels); a 5x5
  // does not fit: along a row its weights are read per tap, 8 inputs held (at
  // stride 2, 7 inputs for 2 pixels).
  static const DwKernel kernel{name, 16, &simd::dw_microkernel_pixels<simd::F32x8, 2, 4, S>,
                               &simd::pool_microkernel<simd::F32x8>,
                               &simd::dw_microkernel_taps<simd::F32x8, 2, 9, 1, S>, nullptr,
                               &simd::dw_row<simd::F32x8, 16, 3, 4, false, S>,
                               &simd::dw_row<simd::F32x8, 16, 5, 4, true, S>,
                               &simd::dw_row2<simd::F32x8, 16, 3, 2, S>,
                               &simd::interp_microkernel<simd::F32x8>,
                               &simd::dw_row<simd::F32x8, 16, 3, 4, false, S, 2>,
                               &simd::dw_row<simd::F32x8, 16, 5, 2, true, S, 2>};
  return kernel;
}

const DwKernel& dw_kernel_avx2() { return dw_16c_avx2<simd::Sum::kFused>("f32_dwconv_16c_avx2"); }

const DwKernel& dw_kernel_avx2_rounded() {
  return dw_16c_avx2<simd::Sum::kRounded>("f32_dwconv_16c_rounded_avx2");
}

const RowKernel& row_kernel_avx2() {
  static const RowKernel kernel = simd::row_kernel<simd::F32x8>("f32_rows_avx2");
  return kernel;
}

const RowKernel& row_kernel_avx2_rounded() {
  static const RowKernel kernel = simd::row_kernel_as_builtin<simd::F32x8>("f32_rows_rounded_avx2");
  return kernel;
}

const WinogradKernel& winograd_kernel_avx2() {
  static const WinogradKernel kernel{"f32_winograd_2x2_3x3_avx2", &simd::winograd_input_tile<simd::F32x8>,
                                     &simd::winograd_output_tile<simd::F32x8>};
  return kernel;
}

const SpmmKernel& spmm_kernel_avx2() {
  static const SpmmKernel kernel{"f32_spmm_16r_avx2", &simd::spmm_microkernel<simd::F32x8>,
                                 &simd::spmm_pack_rows<simd::F32x8>, &simd::spmm_store<simd::F32x8>};
  return kernel;
}

}  // namespace fd
