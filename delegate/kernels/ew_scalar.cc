// Elementwise kernels for scalar, instantiated from ew_math.h.
#include "kernels/vec_scalar.h"
#include "kernels/ew_loops.h"

namespace fd {

const EwTable& ew_table_scalar() {
  static const EwTable table = simd::make_ew_table<simd::F32x1>("scalar");
  return table;
}

}  // namespace fd
