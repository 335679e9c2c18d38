// GEMM micro-kernel for avx512: 12 rows x 32 columns.
#include "vec_avx512.h"
#include "gemm_microkernel.h"

namespace fd {

const GemmKernel& gemm_kernel_avx512() {
  static const GemmKernel kernel{"f32_gemm_12x32_avx512", 12, 32,
                                 &simd::gemm_microkernel<simd::F32x16, 12, 2>,
                                 &simd::gemm_microkernel<simd::F32x16, 1, 2>};
  return kernel;
}

}  // namespace fd
