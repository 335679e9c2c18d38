// GEMM micro-kernel for avx2: 6 rows x 16 columns.
#include "vec_avx2.h"
#include "gemm_microkernel.h"

namespace fd {

const GemmKernel& gemm_kernel_avx2() {
  static const GemmKernel kernel{"f32_gemm_6x16_avx2", 6, 16,
                                 &simd::gemm_microkernel<simd::F32x8, 6, 2>,
                                 &simd::gemm_microkernel<simd::F32x8, 1, 2>};
  return kernel;
}

}  // namespace fd
