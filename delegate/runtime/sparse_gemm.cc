#include "runtime/sparse_gemm.h"

#include <algorithm>

namespace fd {
namespace {

constexpr int kGroup = 4;  // depths per group

// Column j of W as floats (converted into scratch where W has a source).
const float* column(WeightValues w, int j, int k, std::vector<float>* scratch) {
  return float32_span(w.values, w.source, static_cast<int64_t>(j) * k, k, scratch);
}

bool group_holds_nonzero(const float* col, int d, int k) {
  return std::any_of(col + d, col + std::min(k, d + kGroup), [](float v) { return v != 0.f; });
}

// The nonzero groups of W's columns [0, cols).
int64_t nonzero_groups(WeightValues w, int cols, int k) {
  std::vector<float> scratch;
  int64_t count = 0;
  for (int j = 0; j < cols; ++j) {
    const float* col = column(w, j, k, &scratch);
    for (int d = 0; d < k; d += kGroup) count += group_holds_nonzero(col, d, k);
  }
  return count;
}

// Appends column j's nonzero groups among depths [d0, d1) (d0 a multiple of
// 4, d1 too or k): their first depths, and their 4 weights each (zeros past k).
void append_groups(WeightValues w, int j, int k, int d0, int d1, std::vector<float>* scratch, SparseWeights* s) {
  const int len = d1 - d0;
  const float* part = float32_span(w.values, w.source, static_cast<int64_t>(j) * k + d0, len, scratch);
  for (int d = 0; d < len; d += kGroup) {
    if (!group_holds_nonzero(part, d, len)) continue;
    s->depth.push_back(d0 + d);
    for (int i = d; i < d + kGroup; ++i) s->values.push_back(i < len ? part[i] : 0.f);
  }
}

}  // namespace

bool sparse_enough(WeightValues w, int n, int k) {
  if (n < 1 || k < 1) return false;
  const double per_column = (k + kGroup - 1) / kGroup;
  const int sample = static_cast<int>(std::clamp<double>(4096 / per_column, 1, n));
  if (nonzero_groups(w, sample, k) > 2 * kSparseMaxGroupShare * sample * per_column) return false;
  return nonzero_groups(w, n, k) <= kSparseMaxGroupShare * n * per_column;
}

SparseWeights pack_sparse_weights(WeightValues w, const float* bias, int n, int k, int chunk) {
  SparseWeights s;
  s.n = n;
  s.k = k;
  s.chunk = std::max(kGroup, chunk / kGroup * kGroup);
  s.bias.assign(n, 0.f);
  if (bias) std::copy(bias, bias + n, s.bias.begin());
  std::vector<float> scratch;
  for (int h = 0; h < s.chunks(); ++h)
    for (int j = 0; j < n; ++j) {
      s.first.push_back(static_cast<int32_t>(s.depth.size()));
      append_groups(w, j, k, h * s.chunk, std::min(k, (h + 1) * s.chunk), &scratch, &s);
    }
  s.first.push_back(static_cast<int32_t>(s.depth.size()));
  return s;
}

void sparse_gemm(const SpmmKernel& kernel, const SparseWeights& w, int m, int taps, const float* const* rows,
                 float* c, size_t ldc, float lo, float hi, int first_panel, int last_panel) {
  if (last_panel < 0 || last_panel > w.panels()) last_panel = w.panels();
  const int col0 = first_panel * kSparsePanelColumns;
  const int cols = std::min(w.n, last_panel * kSparsePanelColumns) - col0;
  if (cols <= 0 || m <= 0) return;
  const int kc = w.k / taps, k4 = (w.k + kGroup - 1) / kGroup * kGroup;
  thread_local std::vector<float> at, acc;
  at.resize(static_cast<size_t>(k4) * kSpmmRows);
  acc.resize(static_cast<size_t>(cols) * kSpmmRows);
  for (int r = 0; r < m; r += kSpmmRows) {
    const int mr = std::min(kSpmmRows, m - r);
    kernel.pack_rows(rows + static_cast<size_t>(r) * taps, mr, taps, kc, k4, at.data());
    for (int h = 0; h < w.chunks(); ++h)
      kernel.fn(cols, w.first.data() + static_cast<size_t>(h) * w.n + col0, w.depth.data(), w.values.data(),
                h == 0 ? w.bias.data() + col0 : nullptr, at.data(), acc.data());
    kernel.store(acc.data(), mr, cols, c + static_cast<size_t>(r) * ldc + col0, ldc, lo, hi);
  }
}

}  // namespace fd
