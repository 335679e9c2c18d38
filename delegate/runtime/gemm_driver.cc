#include "runtime/gemm_driver.h"

#include <algorithm>
#include <cstring>

#include "runtime/tiling.h"

namespace fd {

namespace {

constexpr int kPackDepths = 32;
using Float4 = float __attribute__((vector_size(16)));

Float4 load4(const float* p) {
  Float4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// panel[i * width + j] = src[j * col_stride + i * k_stride] for depths [i0, i1) and
// columns [0, cols), the zero columns after them too. Where depths are
// consecutive (k_stride 1), 4x4 blocks go through registers.
void transpose_block(const float* src, size_t col_stride, size_t k_stride, int i0, int i1, int cols, int width,
                     float* panel) {
  int j = 0;
  for (; k_stride == 1 && j + 4 <= cols; j += 4) {
    const float* s = src + j * col_stride;
    int i = i0;
    for (; i + 4 <= i1; i += 4) {
      const Float4 r0 = load4(s + i), r1 = load4(s + col_stride + i);
      const Float4 r2 = load4(s + 2 * col_stride + i), r3 = load4(s + 3 * col_stride + i);
      const Float4 lo01 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5), hi01 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7);
      const Float4 lo23 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5), hi23 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);
      const Float4 out[4] = {__builtin_shufflevector(lo01, lo23, 0, 1, 4, 5),
                             __builtin_shufflevector(lo01, lo23, 2, 3, 6, 7),
                             __builtin_shufflevector(hi01, hi23, 0, 1, 4, 5),
                             __builtin_shufflevector(hi01, hi23, 2, 3, 6, 7)};
      for (int d = 0; d < 4; ++d) std::memcpy(panel + (i + d) * width + j, &out[d], sizeof out[d]);
    }
    for (; i < i1; ++i)
      for (int c = 0; c < 4; ++c) panel[i * width + j + c] = s[c * col_stride + i];
  }
  for (; j < cols; ++j)
    for (int i = i0; i < i1; ++i) panel[i * width + j] = src[j * col_stride + i * k_stride];
  for (int i = i0; i < i1; ++i) std::fill(panel + i * width + cols, panel + (i + 1) * width, 0.f);
}

}  // namespace

int padded_columns(int n, int nr) {
  const int full = (n - 1) / nr, left = n - full * nr;
  return full * nr + (nr % 2 == 0 && left <= nr / 2 ? nr / 2 : nr);
}

void shape_packed(int n, int k, int nr, bool half_tail, PackedWeights* out) {
  PackedWeights& p = *out;
  p.n = n;
  p.k = k;
  p.nr = p.last_nr = nr;
  const int panels = p.panels();
  if (half_tail) p.last_nr = padded_columns(n, nr) - (panels - 1) * nr;
  p.data.resize((panels - 1) * p.panel_size() + static_cast<size_t>(k + 1) * p.last_nr);
}

void pack_panel(const float* src, size_t col_stride, size_t k_stride, const float* bias, int q, int cols,
                PackedWeights* out) {
  const int k = out->k, width = out->width(q);
  float* panel = out->data.data() + q * out->panel_size();
  if (col_stride == 1) {  // a depth's columns lie side by side: one copy per panel row
    for (int i = 0; i < k; ++i) {
      std::copy(src + i * k_stride, src + i * k_stride + cols, panel + i * width);
      std::fill(panel + i * width + cols, panel + (i + 1) * width, 0.f);
    }
  } else {  // a transpose, in blocks of depths that stay in L1
    for (int i0 = 0; i0 < k; i0 += kPackDepths)
      transpose_block(src, col_stride, k_stride, i0, std::min(k, i0 + kPackDepths), cols, width, panel);
  }
  panel += static_cast<size_t>(k) * width;
  for (int j = 0; j < width; ++j) panel[j] = bias && j < cols ? bias[j] : 0.f;
}

void pack_weights_into(WeightValues w, size_t col_stride, size_t k_stride, const float* bias, int n, int k, int nr,
                       bool half_tail, PackedWeights* out) {
  shape_packed(n, k, nr, half_tail, out);
  // A converted source is converted a panel's columns at a time into `scratch`
  // (kept in cache for the packing), or whole where columns interleave (col_stride 1).
  std::vector<float> scratch;
  const auto span = [&](int cols) { return (cols - 1) * col_stride + (k - 1) * k_stride + 1; };
  const float* whole = col_stride == 1 ? float32_span(w.values, w.source, 0, span(n), &scratch) : nullptr;
  for (int q = 0; q < out->panels(); ++q) {  // panels written in order; columns past n are zeros
    const int cols = std::min(out->width(q), n - q * nr);
    const size_t first = static_cast<size_t>(q) * nr * col_stride;
    const float* src = whole ? whole + first : float32_span(w.values, w.source, first, span(cols), &scratch);
    pack_panel(src, col_stride, k_stride, bias ? bias + q * nr : nullptr, q, cols, out);
  }
}

PackedWeights pack_weights(WeightValues w, const float* bias, int n, int k, int nr, bool half_tail) {
  PackedWeights p;
  pack_weights_into(w, k, 1, bias, n, k, nr, half_tail, &p);
  return p;
}

void scale_weights_into(const PackedWeights& w, const float* scale, int kc, PackedWeights* out) {
  const size_t panel_size = static_cast<size_t>(w.k + 1) * w.nr;
  for (int q = 0; q < w.panels(); ++q) {
    const int width = q + 1 < w.panels() ? w.nr : w.last_nr;
    const float* src = w.data.data() + q * panel_size;
    float* dst = out->data.data() + q * panel_size;
    for (int i = 0, c = 0; i < w.k; ++i, c = c + 1 == kc ? 0 : c + 1)
      for (int j = 0; j < width; ++j) dst[i * width + j] = src[i * width + j] * scale[c];
    std::copy(src + static_cast<size_t>(w.k) * width, src + static_cast<size_t>(w.k + 1) * width,
              dst + static_cast<size_t>(w.k) * width);
  }
}

namespace {

// The micro-kernel for the next tile of `left` rows, and the rows it takes:
// a single row alone where the kernel has a one-row tile, one middle tile
// where they fit it, else small tiles where they do less work than one mostly
// idle full tile.
GemmMicroKernel tile_kernel(const GemmKernel& kernel, int left, bool half, int* step) {
  left = std::min(kernel.mr, left);
  const bool one = kernel.fn_one && left == 1;
  const bool mid = kernel.fn_mid && left > kernel.few_mr && left <= kernel.mid_mr;
  const bool few = !mid && (left + kernel.few_mr - 1) / kernel.few_mr * kernel.few_mr < kernel.mr;
  *step = few ? std::min(left, kernel.few_mr) : left;
  return one   ? (half ? kernel.fn_one_half : kernel.fn_one)
         : mid ? (half ? kernel.fn_mid_half : kernel.fn_mid)
         : few ? (half ? kernel.fn_few_half : kernel.fn_few)
               : (half ? kernel.fn_half : kernel.fn);
}

// Weights that stay in L2: row tiles outer, each one call over all its panels
// of full width (the micro-kernel walks them), then the half-width last panel.
void gemm_by_row_tiles(const GemmKernel& kernel, const PackedWeights& w, int m, int taps, const float* const* rows,
                       float* c, size_t ldc, float lo, float hi, int first_panel, int last_panel) {
  if (first_panel >= last_panel) return;
  const int kc = w.k / taps;
  const bool half_last = last_panel == w.panels() && w.last_nr < w.nr;
  const int full_end = half_last ? last_panel - 1 : last_panel;
  const int nc = std::min(w.n, full_end * w.nr) - first_panel * w.nr, half_nc = w.n - full_end * w.nr;
  const float* panel = w.data.data() + first_panel * w.panel_size();
  const float* half_panel = w.data.data() + full_end * w.panel_size();
  for (int r = 0, step = 0; r < m; r += step) {
    const float* const* a = rows + static_cast<size_t>(r) * taps;
    float* out = c + r * ldc;
    const GemmMicroKernel fn = tile_kernel(kernel, m - r, false, &step);
    if (nc > 0) fn(step, nc, taps, kc, a, panel, out + first_panel * w.nr, ldc, lo, hi, nullptr);
    if (half_last)
      tile_kernel(kernel, m - r, true, &step)(step, half_nc, taps, kc, a, half_panel, out + full_end * w.nr, ldc, lo,
                                              hi, nullptr);
  }
}

}  // namespace

void gemm(const GemmKernel& kernel, const PackedWeights& w, int m, int taps, const float* const* rows, float* c,
          size_t ldc, float lo, float hi, int first_panel, int last_panel) {
  const int panels = w.panels();
  if (last_panel < 0 || last_panel > panels) last_panel = panels;
  const size_t weight_bytes = w.data.size() * sizeof(float);
  // A single row reuses no weight: one call streams them all (the same order).
  if (weight_bytes <= tiling().row_tile_weights_bytes || m == 1)
    return gemm_by_row_tiles(kernel, w, m, taps, rows, c, ldc, lo, hi, first_panel, last_panel);
  const int kc = w.k / taps;
  const size_t panel_size = w.panel_size();
  for (int m0 = 0; m0 < m; m0 += kGemmRowBlock) {
    const int m1 = std::min(m, m0 + kGemmRowBlock);
    for (int q = first_panel; q < last_panel; ++q) {
      const float* panel = w.data.data() + q * panel_size;
      const int nc = std::min(w.nr, w.n - q * w.nr);
      const bool half = q + 1 == panels && w.last_nr < w.nr;
      // Weights this large come from L3 on each run (past L2, or evicted by the
      // layers between two runs): tile j prefetches lines [j * k, (j + 1) * k) of
      // the next panel, width / 16 tiles cover its weights (k rows of width floats).
      const float* next_panel = q + 1 < last_panel ? panel + panel_size : nullptr;
      const int prefetching_tiles = (q + 2 == panels ? w.last_nr : w.nr) / 16;
      for (int r = m0, tile = 0, step = 0; r < m1; r += step, ++tile) {
        const GemmMicroKernel fn = tile_kernel(kernel, m1 - r, half, &step);
        const float* next =
            next_panel && tile < prefetching_tiles ? next_panel + static_cast<size_t>(tile) * w.k * 16 : nullptr;
        fn(step, nc, taps, kc, rows + static_cast<size_t>(r) * taps, panel, c + r * ldc + q * w.nr, ldc, lo, hi,
           next);
      }
    }
  }
}

void gemm_one_row_as_builtin(const GemmKernel& kernel, const PackedWeights& w, int taps, const float* const* row,
                             float* c, float lo, float hi, int first_panel, int last_panel) {
  const int panels = w.panels();
  if (last_panel < 0 || last_panel > panels) last_panel = panels;
  for (int q = first_panel; q < last_panel; ++q) {
    const GemmMicroKernel fn = q + 1 == panels && w.last_nr < w.nr ? kernel.fn_gemv_half : kernel.fn_gemv;
    fn(1, std::min(w.nr, w.n - q * w.nr), taps, w.k / taps, row, w.data.data() + q * w.panel_size(), c + q * w.nr,
       0, lo, hi, nullptr);
  }
}

namespace {

// Column j's sum in the builtin's order for the last columns; weight (j, p)
// at w[p * width].
float builtin_last_column_sum(const float* w, int width, int k, int taps, const float* const* row) {
  const int kc = k / taps, k4 = k - k % 4;
  float lane[4] = {0.f, 0.f, 0.f, 0.f};
  for (int p = 0; p < k4; ++p) lane[p % 4] = lane[p % 4] + row[p / kc][p % kc] * w[static_cast<size_t>(p) * width];
  float sum = (lane[0] + lane[1]) + (lane[2] + lane[3]);
  for (int p = k4; p < k; ++p) sum = sum + row[p / kc][p % kc] * w[static_cast<size_t>(p) * width];
  return sum;
}

}  // namespace

void redo_last_columns_as_builtin(const PackedWeights& w, int64_t m, int64_t first, int64_t count, int taps,
                                  const float* const* rows, float* c, size_t ldc, float lo, float hi) {
  const int64_t end = std::min(first + count, m - m % 4);
  for (int j = w.n - w.n % 4; j < w.n; ++j) {
    const int q = j / w.nr, width = w.width(q);
    const float* panel = w.data.data() + q * w.panel_size() + (j - q * w.nr);
    const float bias = panel[static_cast<size_t>(w.k) * width];
    for (int64_t r = first; r < end; ++r) {
      const float sum = builtin_last_column_sum(panel, width, w.k, taps, rows + r * taps);
      c[(r - first) * ldc + j] = std::min(hi, std::max(lo, sum + bias));
    }
  }
}

const GemmKernel& gemm_for(const Kernels& kernels, int n) {
  const GemmKernel* wide = kernels.gemm_wide;
  return wide && padded_columns(n, wide->nr) <= padded_columns(n, kernels.gemm->nr) ? *wide : *kernels.gemm;
}

}  // namespace fd
