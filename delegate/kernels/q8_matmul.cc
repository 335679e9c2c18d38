#include "kernels/q8_matmul.h"

namespace fd {

void q8_pack_matmul_rhs(const int8_t* b, int k, int n, bool b_is_nk, int32_t b_zp, int16_t* packed) {
  const int np = (k + 1) / 2;
  for (int t = 0; t < np; ++t)
    for (int j = 0; j < n; ++j)
      for (int h = 0; h < 2; ++h) {
        const int d = 2 * t + h;
        const int8_t v = d < k ? (b_is_nk ? b[static_cast<size_t>(j) * k + d] : b[static_cast<size_t>(d) * n + j]) : 0;
        packed[(static_cast<size_t>(t) * n + j) * 2 + h] = static_cast<int16_t>(d < k ? v - b_zp : 0);
      }
  std::memset(packed + static_cast<size_t>(np) * n * 2, 0, kQ8MatMulPad * sizeof(int16_t));
}

}  // namespace fd
