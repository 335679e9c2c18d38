// q8 GEMM: the weight packing every ISA's kernel reads (q8_gemm.h's layout)
// and the whole product over blocks of rows. Plain C++, compiled for every ISA.
#include <cstring>

#include "kernels/q8_gemm.h"

namespace fd {
namespace {

// Channel j's weights into a panel's groups (int8 or int16), zeros past k
// and for columns past n (w_row null).
template <class T>
void pack_column(const int8_t* w_row, int k, int nr, int j, T* panel) {
  for (int d = 0; d < q8_groups(k) * kQ8Group; ++d) {
    const int g = d / kQ8Group, i = d % kQ8Group;
    panel[(g * nr + j) * kQ8Group + i] = static_cast<T>(w_row && d < k ? w_row[d] : 0);
  }
}

int32_t weight_sum(const int8_t* w_row, int k) {
  int32_t sum = 0;
  for (int d = 0; d < k; ++d) sum += w_row[d];
  return sum;
}

// Column j's bias' (the zero point and the kernel's offset folded in,
// wrapping) and multiplier into a panel's constants (tail: q8_panel_tail's
// four arrays of nr, writable).
void pack_column_tail(const int8_t* w_row, int k, int32_t bias, Q8Multiplier m, int32_t zp_offset, int nr, int j,
                      int32_t* tail) {
  const uint32_t sum = static_cast<uint32_t>(weight_sum(w_row, k));
  tail[j] = static_cast<int32_t>(static_cast<uint32_t>(bias) - static_cast<uint32_t>(zp_offset) * sum);
  tail[nr + j] = m.multiplier;
  tail[2 * nr + j] = m.shift > 0 ? m.shift : 0;
  tail[3 * nr + j] = m.shift > 0 ? 0 : -m.shift;
}

}  // namespace

void q8_pack_weights(const Q8GemmKernel& kernel, int n, int k, const int8_t* w, const int32_t* bias,
                     const Q8Multiplier* multipliers, int32_t a_zp, void* packed) {
  const int nr = kernel.nr;
  const size_t bytes = q8_panel_bytes(k, nr, kernel.weight_bytes);
  char* panel = static_cast<char*>(packed);
  for (int c0 = 0; c0 < n; c0 += nr, panel += bytes) {
    std::memset(panel, 0, bytes);
    int32_t* tail = const_cast<int32_t*>(q8_panel_tail(panel, k, nr, kernel.weight_bytes).bias);
    for (int j = 0; j < nr && c0 + j < n; ++j) {
      const int8_t* row = w + static_cast<size_t>(c0 + j) * k;
      if (kernel.weight_bytes == 2)
        pack_column(row, k, nr, j, reinterpret_cast<int16_t*>(panel));
      else
        pack_column(row, k, nr, j, reinterpret_cast<int8_t*>(panel));
      pack_column_tail(row, k, bias ? bias[c0 + j] : 0, multipliers[c0 + j], a_zp + kernel.a_offset, nr, j, tail);
    }
  }
}

void q8_gemm(const Q8GemmKernel& kernel, Q8Rounding rounding, int m, int n, int k, const int8_t* a, size_t lda,
             const void* packed, int8_t* out, size_t ldc, const Q8GemmOutput& params) {
  const Q8GemmMicroKernel fn = kernel.fn[static_cast<int>(rounding)];
  for (int i = 0; i < m; i += kernel.mr) {
    const int mr = m - i < kernel.mr ? m - i : kernel.mr;
    fn(mr, n, k, a + static_cast<size_t>(i) * lda, lda, packed, out + static_cast<size_t>(i) * ldc, ldc, params);
  }
}

void q8_igemm(const Q8GemmKernel& kernel, Q8Rounding rounding, int m, int n, int taps, int c, const Q8Pieces& rows,
              const void* packed, int8_t* out, size_t ldc, const Q8GemmOutput& params) {
  const Q8IgemmMicroKernel fn = kernel.ifn[static_cast<int>(rounding)];
  for (int i = 0; i < m; i += kernel.mr) {
    const int mr = m - i < kernel.mr ? m - i : kernel.mr;
    const Q8Pieces block{rows.base, rows.offsets + static_cast<size_t>(i) * taps, rows.zero};
    fn(mr, n, taps, c, block, packed, out + static_cast<size_t>(i) * ldc, ldc, params);
  }
}

}  // namespace fd
