// Elementwise kernels for neon, instantiated from ew_math.h.
#include "kernels/vec_neon.h"
#include "kernels/ew_loops.h"

namespace fd {

const EwTable& ew_table_neon() {
  static const EwTable table = simd::make_ew_table<simd::F32x4>("neon");
  return table;
}

}  // namespace fd
