// Micro-kernels for scalar: GEMM 4 rows x 4 columns, depthwise 4 channels per block, pools, rows.
#include "kernels/vec_scalar.h"
#include "kernels/gemm_microkernel.h"
#include "kernels/row_microkernel.h"
#include "kernels/spmm_microkernel.h"
#include "kernels/winograd_microkernel.h"

namespace fd {

template <simd::Sum S>
const GemmKernel& gemm_4x4_scalar(const char* name) {
  static const GemmKernel kernel = simd::with_builtin_gemv<simd::F32x1, 4, S>({name, 4, 4,
                                 &simd::gemm_microkernel<simd::F32x1, 4, 4, S>, 1,
                                 &simd::gemm_microkernel<simd::F32x1, 1, 4, S>,
                                 &simd::gemm_microkernel<simd::F32x1, 4, 2, S>,
                                 &simd::gemm_microkernel<simd::F32x1, 1, 2, S>});
  return kernel;
}

const GemmKernel& gemm_kernel_scalar() { return gemm_4x4_scalar<simd::Sum::kFused>("f32_gemm_4x4_scalar"); }

const GemmKernel& gemm_kernel_scalar_rounded() {
  return gemm_4x4_scalar<simd::Sum::kRounded>("f32_gemm_4x4_rounded_scalar");
}

template <simd::Sum S>
const DwKernel& dw_4c_scalar(const char* name) {
  static const DwKernel kernel{name, 4, &simd::dw_microkernel<simd::F32x1, 4, S>,
                               &simd::pool_microkernel<simd::F32x1>, nullptr, nullptr,
                               &simd::dw_row<simd::F32x1, 4, 3, 4, false, S>,
                               &simd::dw_row<simd::F32x1, 4, 5, 4, false, S>,
                               &simd::dw_row2<simd::F32x1, 4, 3, 4, S>,
                               &simd::interp_microkernel<simd::F32x1>,
                               &simd::dw_row<simd::F32x1, 4, 3, 4, false, S, 2>,
                               &simd::dw_row<simd::F32x1, 4, 5, 4, false, S, 2>};
  return kernel;
}

const DwKernel& dw_kernel_scalar() { return dw_4c_scalar<simd::Sum::kFused>("f32_dwconv_4c_scalar"); }

const DwKernel& dw_kernel_scalar_rounded() {
  return dw_4c_scalar<simd::Sum::kRounded>("f32_dwconv_4c_rounded_scalar");
}

const RowKernel& row_kernel_scalar() {
  static const RowKernel kernel = simd::row_kernel<simd::F32x1>("f32_rows_scalar");
  return kernel;
}

const RowKernel& row_kernel_scalar_rounded() {
  static const RowKernel kernel = simd::row_kernel_as_builtin<simd::F32x1>("f32_rows_rounded_scalar");
  return kernel;
}

const WinogradKernel& winograd_kernel_scalar() {
  static const WinogradKernel kernel{"f32_winograd_2x2_3x3_scalar", &simd::winograd_input_tile<simd::F32x1>,
                                     &simd::winograd_output_tile<simd::F32x1>};
  return kernel;
}

const SpmmKernel& spmm_kernel_scalar() {
  static const SpmmKernel kernel{"f32_spmm_16r_scalar", &simd::spmm_microkernel<simd::F32x1>,
                                 &simd::spmm_pack_rows<simd::F32x1>, &simd::spmm_store<simd::F32x1>};
  return kernel;
}

}  // namespace fd
