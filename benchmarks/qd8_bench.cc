// The dynamic-range int8 GEMM (quantize the rows + int8 GEMM) against our float32
// GEMM on the same shapes (BERT's FULLY_CONNECTED layers), paired: each round
// times one call of each, in alternating order; medians of the times and of
// the per-round ratios. A benchmark, not a test:
//   build/benchmarks/qd8_bench [isa]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu.h"
#include "runtime/gemm_driver.h"
#include "runtime/qd8_gemm_driver.h"

namespace {

struct Shape {
  int m, k, n;
};

double seconds(const std::function<void()>& run, int calls) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void bench(const fd::Kernels& kernels, const Shape& s) {
  std::mt19937 rng(s.k + s.n);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> a(s.m * s.k), wf(s.n * s.k), bias(s.n), scale(s.n, 1.f / 127), c(s.m * s.n);
  std::vector<int8_t> wq(s.n * s.k);
  for (float& x : a) x = u(rng);
  for (size_t i = 0; i < wq.size(); ++i) wf[i] = (wq[i] = static_cast<int8_t>(std::lround(127 * u(rng)))) / 127.f;
  const fd::GemmKernel& fk = fd::gemm_for(kernels, s.n);
  const fd::PackedWeights fw = fd::pack_weights(wf.data(), bias.data(), s.n, s.k, fk.nr, true);
  std::vector<const float*> rows(s.m);
  for (int i = 0; i < s.m; ++i) rows[i] = a.data() + i * s.k;
  const fd::Qd8GemmKernel& qk = *kernels.qd8_gemm;
  const fd::Qd8PackedWeights qw = fd::qd8_pack_weights(qk, wq.data(), scale.data(), bias.data(), s.n, s.k);
  fd::Qd8Rows qrows;
  const auto run_f32 = [&] { fd::gemm(fk, fw, s.m, 1, rows.data(), c.data(), s.n, -INFINITY, INFINITY); };
  const auto run_quantize = [&] { fd::qd8_quantize_rows(qk, s.m, s.k, a.data(), s.k, &qrows); };
  const auto run_qd8 = [&] {
    run_quantize();
    fd::qd8_gemm(qk, qw, qrows, c.data(), s.n, -INFINITY, INFINITY);
  };
  const double flops = 2.0 * s.m * s.n * s.k;
  const int calls = std::max(1, static_cast<int>(2e7 / flops)), rounds = 41;
  std::vector<double> tf, tq, ratio, tquant;
  for (int r = 0; r < rounds; ++r) {
    const bool qd8_first = r % 2;
    const double q0 = qd8_first ? seconds(run_qd8, calls) : 0, f = seconds(run_f32, calls);
    const double q = qd8_first ? q0 : seconds(run_qd8, calls);
    tf.push_back(f);
    tq.push_back(q);
    ratio.push_back(q / f);
    tquant.push_back(seconds(run_quantize, calls));
  }
  std::printf("  m=%d k=%4d n=%4d  f32 %s %7.1f us %6.1f GFLOP/s | qd8 %s %7.1f us %6.1f GFLOP/s-eq "
              "(quantize %5.1f us) | qd8/f32 %.3f\n",
              s.m, s.k, s.n, fk.name, median(tf) * 1e6, flops / median(tf) * 1e-9, qk.name, median(tq) * 1e6,
              flops / median(tq) * 1e-9, median(tquant) * 1e6, median(ratio));
}

}  // namespace

int main(int argc, char** argv) {
  const Shape shapes[] = {{128, 256, 256}, {128, 256, 1024}, {128, 1024, 256}};
  for (const auto& isa : fd::available_isas()) {
    if (isa == "scalar" || (argc > 1 && isa != argv[1])) continue;
    std::printf("%s:\n", isa.c_str());
    for (const auto& s : shapes) bench(*fd::kernels_for(isa), s);
  }
}
