#include "runtime/winograd.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ir/dtype.h"
#include "runtime/memory.h"
#include "runtime/tiling.h"

namespace fd {
namespace {

using F4 = float __attribute__((vector_size(16)));
using D4 = double __attribute__((vector_size(32)));

// G g G^T with G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1] for four input
// channels at once (one per lane), in double, rounded once when stored.
[[gnu::always_inline]] inline void transform4(const D4 g[9], D4 u[16]) {
  D4 t[4][3];  // G g
  for (int x = 0; x < 3; ++x) {
    const D4 a = g[x], b = g[3 + x], d = g[6 + x];
    t[0][x] = a;
    t[1][x] = .5 * (a + b + d);
    t[2][x] = .5 * (a - b + d);
    t[3][x] = d;
  }
  for (int i = 0; i < 4; ++i) {  // (G g) G^T
    u[4 * i] = t[i][0];
    u[4 * i + 1] = .5 * (t[i][0] + t[i][1] + t[i][2]);
    u[4 * i + 2] = .5 * (t[i][0] - t[i][1] + t[i][2]);
    u[4 * i + 3] = t[i][2];
  }
}

// Four floats from p as doubles (lanes of them; the rest 0), and back (by
// reference: a 32-byte vector passed by value would change the ABI with AVX).
[[gnu::always_inline]] inline void load4(const float* p, size_t lanes, D4& d) {
  F4 v = {0.f, 0.f, 0.f, 0.f};
  if (lanes == 4)
    std::memcpy(&v, p, sizeof v);  // a fixed size: one load
  else
    std::memcpy(&v, p, lanes * sizeof(float));
  d = __builtin_convertvector(v, D4);
}

[[gnu::always_inline]] inline void store4(const D4& d, float* p, size_t lanes) {
  const F4 v = __builtin_convertvector(d, F4);
  if (lanes == 4)
    std::memcpy(p, &v, sizeof v);
  else
    std::memcpy(p, &v, lanes * sizeof(float));
}

// The transform of c filters: g[3 * y + x] and u[4 * i + j] are rows of c
// floats (one per input channel), four channels at a time (the last padded).
[[gnu::always_inline]] inline void transform_filters(const float* const* g, int c, float* const* u) {
  for (int k = 0; k < c; k += 4) {
    const size_t lanes = std::min(4, c - k);
    D4 gv[9], uv[16];
    for (int r = 0; r < 9; ++r) load4(g[r] + k, lanes, gv[r]);
    transform4(gv, uv);
    for (int r = 0; r < 16; ++r) store4(uv[r], u[r] + k, lanes);
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// The same transform with AVX2's 4-double registers (no FMA: the same roundings).
__attribute__((target("avx2"))) void transform_filters_avx2(const float* const* g, int c, float* const* u) {
  transform_filters(g, c, u);
}
#endif

void transform_filters_best(const float* const* g, int c, float* const* u) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (converts_with_avx2()) return transform_filters_avx2(g, c, u);
#endif
  transform_filters(g, c, u);
}

}  // namespace

std::shared_ptr<const WinogradWeights> winograd_weights(WeightValues w, const float* bias, int n, int c, int nr) {
  auto out = std::make_shared<WinogradWeights>();
  out->n = n;
  out->c = c;
  out->bias.assign(n, 0.f);
  if (bias) std::copy(bias, bias + n, out->bias.begin());
  for (PackedWeights& u : out->u) shape_packed(n, c, nr, true, &u);
  // A panel's filters at a time, [column][position][c] (one output channel's 16
  // rows together: 16 streams a plane apart would share L1 sets), packed while
  // they are in cache.
  const size_t filter_floats = static_cast<size_t>(16) * c;
  std::unique_ptr<float[]> u(new float[nr * filter_floats]);  // every float packed is written below
  std::vector<float> filter;  // a converted source's filter o
  for (int q = 0; q < out->u[0].panels(); ++q) {
    const int o0 = q * nr, cols = std::min(nr, n - o0);
    for (int j = 0; j < cols; ++j) {
      const float* wo = float32_span(w.values, w.source, static_cast<int64_t>(o0 + j) * 9 * c, 9 * c, &filter);
      const float* g[9];
      float* uo[16];
      for (int k = 0; k < 9; ++k) g[k] = wo + static_cast<size_t>(k) * c;
      for (int p = 0; p < 16; ++p) uo[p] = u.get() + j * filter_floats + static_cast<size_t>(p) * c;
      transform_filters_best(g, c, uo);
    }
    for (int p = 0; p < 16; ++p) pack_panel(u.get() + p * c, filter_floats, 1, nullptr, q, cols, &out->u[p]);
  }
  return out;
}

namespace {

// One pass: `tiles` tiles transformed, multiplied position by position, and
// transformed back, in this thread's scratch.
void winograd_pass(const WinogradKernel& kernel, const GemmKernel& gemm_kernel, const WinogradWeights& w, int tiles,
                   const float* const* patches, float* const* outs, float lo, float hi, int first_panel,
                   int last_panel, int col0, int cols) {
  const size_t v_pos = static_cast<size_t>(tiles) * w.c, m_pos = static_cast<size_t>(tiles) * w.n;
  thread_local ScratchVector<float> scratch;
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

}  // namespace

void winograd_tiles(const WinogradKernel& kernel, const GemmKernel& gemm_kernel, const WinogradWeights& w, int tiles,
                    const float* const* patches, float* const* outs, float lo, float hi, int first_panel,
                    int last_panel) {
  const PackedWeights& u0 = w.u[0];
  if (last_panel < 0 || last_panel > u0.panels()) last_panel = u0.panels();
  const int col0 = first_panel * u0.nr, cols = std::min(w.n, last_panel * u0.nr) - col0;
  if (tiles <= 0 || cols <= 0) return;
  const size_t tile_bytes = 16 * static_cast<size_t>(w.c + w.n) * sizeof(float);
  const int fit = static_cast<int>(tiling().winograd_scratch_bytes / tile_bytes);
  const int per_pass = std::max(gemm_kernel.mr, fit / gemm_kernel.mr * gemm_kernel.mr);  // whole GEMM row tiles
  for (int t = 0; t < tiles; t += per_pass)
    winograd_pass(kernel, gemm_kernel, w, std::min(per_pass, tiles - t), patches + 16 * static_cast<size_t>(t),
                  outs + 4 * static_cast<size_t>(t), lo, hi, first_panel, last_panel, col0, cols);
}

}  // namespace fd
