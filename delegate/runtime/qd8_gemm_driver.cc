#include "runtime/qd8_gemm_driver.h"

#include <algorithm>
#include <cstring>

#include "runtime/gemm_driver.h"
#include "runtime/tiling.h"

namespace fd {

namespace {

// One panel's weights: for each group of 4 depths, nr columns of 4 depths each
// (zeros past n and k). Each column is read front to back.
template <class T>
void pack_panel_weights(const int8_t* w, int n, int k, int groups, int nr, int first_col, T* panel) {
  const size_t group_stride = static_cast<size_t>(nr) * kQd8Group;
  std::fill(panel, panel + groups * group_stride, T(0));
  const int full = k / kQd8Group;
  for (int j = 0; j < std::min(nr, n - first_col); ++j) {
    const int8_t* col = w + static_cast<size_t>(first_col + j) * k;
    T* out = panel + j * kQd8Group;
    for (int g = 0; g < full; ++g, col += kQd8Group, out += group_stride)
      for (int d = 0; d < kQd8Group; ++d) out[d] = col[d];
    for (int d = 0; d < k - full * kQd8Group; ++d) out[d] = col[d];
  }
}

void pack_panel_tail(const int8_t* w, const float* scale, const float* bias, int n, int k, int nr, int first_col,
                     uint8_t* tail_bytes) {
  std::vector<int32_t> wsum(nr, 0);
  std::vector<float> s(nr, 0.f), b(nr, 0.f);
  for (int j = 0; j < nr && first_col + j < n; ++j) {
    const int8_t* col = w + static_cast<size_t>(first_col + j) * k;
    for (int i = 0; i < k; ++i) wsum[j] += col[i];
    s[j] = scale[first_col + j];
    b[j] = bias ? bias[first_col + j] : 0.f;
  }
  std::memcpy(tail_bytes, wsum.data(), 4 * nr);
  std::memcpy(tail_bytes + 4 * nr, s.data(), 4 * nr);
  std::memcpy(tail_bytes + 8 * nr, b.data(), 4 * nr);
}

}  // namespace

Qd8PackedWeights qd8_pack_weights(const Qd8GemmKernel& kernel, const int8_t* w, const float* scale,
                                  const float* bias, int n, int k) {
  Qd8PackedWeights p;
  p.n = n;
  p.k = k;
  p.groups = (k + kQd8Group - 1) / kQd8Group;
  p.nr = kernel.nr;
  p.weight_bytes = kernel.weight_bytes;
  p.data.resize(p.panels() * p.panel_bytes());
  const size_t weight_bytes = static_cast<size_t>(p.groups) * kQd8Group * p.nr * p.weight_bytes;
  for (int q = 0; q < p.panels(); ++q) {
    uint8_t* panel = p.data.data() + q * p.panel_bytes();
    if (p.weight_bytes == 2)
      pack_panel_weights(w, n, k, p.groups, p.nr, q * p.nr, reinterpret_cast<int16_t*>(panel));
    else
      pack_panel_weights(w, n, k, p.groups, p.nr, q * p.nr, reinterpret_cast<int8_t*>(panel));
    pack_panel_tail(w, scale, bias, n, k, p.nr, q * p.nr, panel + weight_bytes);
  }
  return p;
}

void qd8_quantize_rows(const Qd8GemmKernel& kernel, int m, int k, const float* a, size_t lda, Qd8Rows* rows) {
  rows->m = m;
  rows->groups = (k + kQd8Group - 1) / kQd8Group;
  rows->row_bytes = kernel.row_bytes;
  rows->stride = (static_cast<size_t>(rows->groups) * kQd8Group * kernel.row_bytes + 63) / 64 * 64;
  rows->values.resize(rows->stride * m);
  rows->params.resize(m);
  for (int i = 0; i < m; ++i)
    kernel.quantize_row(k, a + i * lda, rows->values.data() + i * rows->stride, &rows->params[i]);
}

int64_t qd8_rows_per_block(const Qd8GemmKernel& kernel, int64_t k) {
  const int64_t row_bytes = (k + kQd8Group - 1) / kQd8Group * kQd8Group * kernel.row_bytes;
  const int64_t tiles = static_cast<int64_t>(tiling().qd8_rows_bytes) / row_bytes / kernel.mr;
  return std::max<int64_t>(1, tiles) * kernel.mr;
}

void qd8_gemm(const Qd8GemmKernel& kernel, const Qd8PackedWeights& w, const Qd8RowsView& rows, float* out,
              size_t ldc, float lo, float hi, int first_panel, int last_panel) {
  if (last_panel < 0 || last_panel > w.panels()) last_panel = w.panels();
  const Qd8GemmMicroKernel fn = kernel.fn;
  const int8_t* values = static_cast<const int8_t*>(rows.values);
  if (w.data.size() <= tiling().row_tile_weights_bytes) {  // weights that stay in L2: one call per row tile
    const int nc = std::min(w.n, last_panel * w.nr) - first_panel * w.nr;
    const uint8_t* panel = w.data.data() + first_panel * w.panel_bytes();
    for (int r = 0; r < rows.m && nc > 0; r += kernel.mr)
      fn(std::min(kernel.mr, rows.m - r), nc, w.groups, values + r * rows.stride, rows.stride, rows.params + r, panel,
         out + r * ldc + first_panel * w.nr, ldc, lo, hi);
    return;
  }
  for (int m0 = 0; m0 < rows.m; m0 += kGemmRowBlock) {
    const int m1 = std::min(rows.m, m0 + kGemmRowBlock);
    for (int q = first_panel; q < last_panel; ++q) {
      const uint8_t* panel = w.data.data() + q * w.panel_bytes();
      const int nc = std::min(w.nr, w.n - q * w.nr);
      for (int r = m0; r < m1; r += kernel.mr) {
        const int mr = std::min(kernel.mr, m1 - r);
        fn(mr, nc, w.groups, values + r * rows.stride, rows.stride, rows.params + r, panel, out + r * ldc + q * w.nr,
           ldc, lo, hi);
      }
    }
  }
}

}  // namespace fd
