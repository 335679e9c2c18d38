// One core's FMA throughput: 12 independent accumulators, registers only.
#pragma once

#include <algorithm>
#include <chrono>

template <class V> double fma_peak_gflops_for() {
  constexpr int kAcc = 12;
  constexpr long kIters = 20000000 / V::W;
  double best = 0;
  for (int run = 0; run < 5; ++run) {
    V acc[kAcc];
    for (int i = 0; i < kAcc; ++i) acc[i] = V::splat(1e-3f * i);
    const V x = V::splat(0.999999f), y = V::splat(1e-7f);
    const auto start = std::chrono::steady_clock::now();
    for (long it = 0; it < kIters; ++it)
      for (int i = 0; i < kAcc; ++i) acc[i] = fma(acc[i], x, y);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    float sink[64];
    V total = acc[0];
    for (int i = 1; i < kAcc; ++i) total = total + acc[i];
    total.store(sink);
    if (sink[0] == 12345.f) return 0;  // keeps the loop alive
    best = std::max(best, 2.0 * kAcc * V::W * kIters / s * 1e-9);
  }
  return best;
}
