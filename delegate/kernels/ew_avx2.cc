// Elementwise kernels for avx2, instantiated from ew_math.h.
#include "vec_avx2.h"
#include "ew_loops.h"

namespace fd {

const EwTable& ew_table_avx2() {
  static const EwTable table = simd::make_ew_table<simd::F32x8>("avx2");
  return table;
}

}  // namespace fd
