// What the qd8 tests share: every ISA's qd8 kernels and seeded random floats.
#pragma once

#include <algorithm>
#include <random>
#include <vector>

#include "kernels/cpu.h"

namespace fd::test {

// Each ISA's, and the x86 ones this CPU can run that its ISA did not pick (the
// int16 forms where a VNNI one is picked).
inline std::vector<const Qd8GemmKernel*> every_qd8_kernel() {
  std::vector<const Qd8GemmKernel*> all;
  for (const auto& isa : available_isas()) all.push_back(kernels_for(isa)->qd8_gemm);
#if defined(__x86_64__)
  auto add = [&](const Qd8GemmKernel* k) {
    if (std::find(all.begin(), all.end(), k) == all.end()) all.push_back(k);
  };
  if (kernels_for("avx2")) add(&qd8_gemm_kernel_avx2());  // AVX-VNNI's, where the CPU has it, is avx2's pick
  if (kernels_for("avx512") && __builtin_cpu_supports("avx512bw")) {
    add(&qd8_gemm_kernel_avx512());
    if (__builtin_cpu_supports("avx512vnni")) add(&qd8_gemm_kernel_avx512vnni());
  }
#endif
  return all;
}

inline std::vector<float> random_floats(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

// n int8 values over the whole range.
inline std::vector<int8_t> random_int8(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> u(-128, 127);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) x = static_cast<int8_t>(u(rng));
  return v;
}

}  // namespace fd::test
