// Elementwise kernels for avx512, instantiated from ew_math.h.
#include "kernels/vec_avx512.h"
#include "kernels/ew_loops.h"

namespace fd {

const EwTable& ew_table_avx512() {
  static const EwTable table = simd::make_ew_table<simd::F32x16>("avx512");
  return table;
}

}  // namespace fd
