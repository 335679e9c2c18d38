#include "runtime/winograd.h"

#include <algorithm>
#include <cmath>

namespace fd {
namespace {

// G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]: G g G^T of one 3x3 filter
// (g[3 * y + x]), in double, to u[4 * i + j].
void transform_filter(const double* g, double* u) {
  static const double G[4][3] = {{1, 0, 0}, {.5, .5, .5}, {.5, -.5, .5}, {0, 0, 1}};
  double t[4][3];
  for (int i = 0; i < 4; ++i)
    for (int x = 0; x < 3; ++x) t[i][x] = G[i][0] * g[x] + G[i][1] * g[3 + x] + G[i][2] * g[6 + x];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) u[4 * i + j] = t[i][0] * G[j][0] + t[i][1] * G[j][1] + t[i][2] * G[j][2];
}

}  // namespace

std::shared_ptr<const WinogradWeights> winograd_weights(const float* w, const float* bias, int n, int c, int nr) {
  auto out = std::make_shared<WinogradWeights>();
  out->n = n;
  out->c = c;
  out->bias.assign(n, 0.f);
  if (bias) std::copy(bias, bias + n, out->bias.begin());
  std::vector<float> u(static_cast<size_t>(16) * n * c);  // [position][n][c]
  const size_t plane = static_cast<size_t>(n) * c;
  for (int o = 0; o < n; ++o)
    for (int i = 0; i < c; ++i) {
      double g[9], t[16];
      for (int k = 0; k < 9; ++k) g[k] = w[(static_cast<size_t>(o) * 9 + k) * c + i];
      transform_filter(g, t);
      for (int p = 0; p < 16; ++p) u[p * plane + static_cast<size_t>(o) * c + i] = static_cast<float>(t[p]);
    }
  for (int p = 0; p < 16; ++p) out->u[p] = pack_weights(u.data() + p * plane, nullptr, n, c, nr, true);
  return out;
}

void winograd_tiles(const WinogradKernel& kernel, const GemmKernel& gemm_kernel, const WinogradWeights& w, int tiles,
                    const float* const* patches, float* const* outs, float lo, float hi, int first_panel,
                    int last_panel) {
  const PackedWeights& u0 = w.u[0];
  if (last_panel < 0 || last_panel > u0.panels()) last_panel = u0.panels();
  const int col0 = first_panel * u0.nr, cols = std::min(w.n, last_panel * u0.nr) - col0;
  if (tiles <= 0 || cols <= 0) return;
  const size_t v_pos = static_cast<size_t>(tiles) * w.c, m_pos = static_cast<size_t>(tiles) * w.n;
  thread_local std::vector<float> scratch;
  thread_local std::vector<const float*> rows;
  scratch.resize(16 * (v_pos + m_pos));
  rows.resize(tiles);
  float* v = scratch.data();
  float* m = v + 16 * v_pos;
  for (int t = 0; t < tiles; ++t) kernel.input(w.c, patches + 16 * t, v + t * w.c, v_pos);
  for (int p = 0; p < 16; ++p) {
    for (int t = 0; t < tiles; ++t) rows[t] = v + p * v_pos + static_cast<size_t>(t) * w.c;
    gemm(gemm_kernel, w.u[p], tiles, 1, rows.data(), m + p * m_pos, w.n, -INFINITY, INFINITY, first_panel,
         last_panel);
  }
  for (int t = 0; t < tiles; ++t) {
    float* out[4];
    for (int k = 0; k < 4; ++k) out[k] = outs[4 * t + k] ? outs[4 * t + k] + col0 : nullptr;
    kernel.output(cols, m + static_cast<size_t>(t) * w.n + col0, m_pos, w.bias.data() + col0, lo, hi, out);
  }
}

}  // namespace fd
