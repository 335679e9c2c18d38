// What the qd8 tests share: every ISA's qd8 kernels and seeded random floats.
#pragma once

#include <random>
#include <vector>

#include "kernels/cpu.h"

namespace fd::test {

inline std::vector<const Qd8GemmKernel*> every_qd8_kernel() {
  std::vector<const Qd8GemmKernel*> all;
  for (const auto& isa : available_isas()) all.push_back(kernels_for(isa)->qd8_gemm);
  return all;
}

inline std::vector<float> random_floats(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

}  // namespace fd::test
