// GEMM micro-kernel throughput against this core's FMA peak (issue 4 target:
// >= 80% of peak on large layers). A benchmark, not a test:
//   cmake -B build-bench -DFD_BUILD_BENCHMARKS=ON && cmake --build build-bench && build-bench/gemm_bench
#include <algorithm>
#include <functional>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cpu.h"
#include "gemm.h"

namespace {

double seconds_of(const std::function<void()>& f, int reps) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

double fma_peak_gflops(const std::string& isa);  // fma_peak.cc

int main() {
  struct Layer {
    const char* name;
    int m, n, k;
  };
  const Layer layers[] = {{"56x56 1x1 conv 64->256", 3136, 256, 64},
                          {"28x28 1x1 conv 128->512", 784, 512, 128},
                          {"14x14 1x1 conv 256->1024", 196, 1024, 256},
                          {"7x7 1x1 conv 512->2048", 49, 2048, 512},
                          {"FC 2048->1000 batch 1", 1, 1000, 2048},
                          {"square 512", 512, 512, 512},
                          {"one L1-resident tile", 12, 32, 256}};
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (const auto& isa : fd::available_isas()) {
    const fd::GemmKernel& kernel = *fd::gemm_kernel_for(isa);
    const double peak = fma_peak_gflops(isa);
    std::printf("%s: FMA peak %.1f GFLOP/s (one core)\n", kernel.name, peak);
    for (const auto& l : layers) {
      std::vector<float> a(static_cast<size_t>(l.m) * l.k), w(static_cast<size_t>(l.n) * l.k), c(static_cast<size_t>(l.m) * l.n);
      for (float& x : a) x = u(rng);
      for (float& x : w) x = u(rng);
      const fd::PackedWeights packed = fd::pack_weights(w.data(), nullptr, l.n, l.k, kernel.nr);
      const double flops = 2.0 * l.m * l.n * l.k;
      const int reps = std::max(5, static_cast<int>(2e9 / flops / (isa == "scalar" ? 20 : 1)));
      const double s = seconds_of([&] { fd::gemm(kernel, packed, l.m, a.data(), l.k, c.data(), l.n, -1e30f, 1e30f); },
                                  std::min(reps, 200));
      std::printf("  %-28s %7.1f GFLOP/s  %5.1f%% of peak\n", l.name, flops / s * 1e-9, 100 * flops / s * 1e-9 / peak);
    }
  }
}
