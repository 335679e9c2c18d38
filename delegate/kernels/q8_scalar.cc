// int8 kernels, scalar reference: one table load per value, the two-input
// ops one lane at a time.
#include "kernels/q8_binary.h"
#include "kernels/q8_kernel.h"

namespace fd {
namespace {

void q8_lut_scalar(const int8_t* table, const int8_t* x, int8_t* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = table[x[i] + 128];
}

void q8_matmul_scalar(const int8_t* a, int64_t rows, int k, int n, const int16_t* packed, const Q8MatMulParams& p,
                      int8_t* c) {
  q8_matmul_rows<I32x1>(a, rows, k, n, packed, p, c);
}

}  // namespace

const Q8Kernel& q8_kernel_scalar() {
  static const Q8Kernel kernel{"q8_scalar", &q8_lut_scalar, &q8_binary<I32x1>, &q8_matmul_scalar};
  return kernel;
}

}  // namespace fd
