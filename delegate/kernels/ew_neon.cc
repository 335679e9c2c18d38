// Elementwise kernels for neon, instantiated from ew_math.h.
#include "vec_neon.h"
#include "ew_loops.h"

namespace fd {

const EwTable& ew_table_neon() {
  static const EwTable table = simd::make_ew_table<simd::F32x4>("neon");
  return table;
}

}  // namespace fd
