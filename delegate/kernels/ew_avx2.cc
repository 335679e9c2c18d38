// Elementwise kernels for avx2, instantiated from ew_math.h.
#include "kernels/vec_avx2.h"
#include "kernels/ew_loops.h"

namespace fd {

const EwTable& ew_table_avx2() {
  static const EwTable table = simd::make_ew_table<simd::F32x8>("avx2");
  return table;
}

}  // namespace fd
