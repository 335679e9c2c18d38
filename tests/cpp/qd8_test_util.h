// What the qd8 tests share: every ISA's qd8 kernels and seeded random floats.
#pragma once

#include <random>
#include <vector>

#include "kernels/cpu.h"

namespace fd::test {

// Each ISA's, and the AVX-512 ones this CPU can run that its ISA did not pick
// (the int16 form where the VNNI one is picked).
inline std::vector<const Qd8GemmKernel*> every_qd8_kernel() {
  std::vector<const Qd8GemmKernel*> all;
  for (const auto& isa : available_isas()) all.push_back(kernels_for(isa)->qd8_gemm);
#if defined(__x86_64__)
  if (kernels_for("avx512") && __builtin_cpu_supports("avx512bw")) {
    for (const Qd8GemmKernel* k : {&qd8_gemm_kernel_avx512(), &qd8_gemm_kernel_avx512vnni()})
      if (k != kernels_for("avx512")->qd8_gemm && (k->weight_bytes == 2 || __builtin_cpu_supports("avx512vnni")))
        all.push_back(k);
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

}  // namespace fd::test
