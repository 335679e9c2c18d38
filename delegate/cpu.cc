#include "cpu.h"

namespace fd {

std::vector<std::string> available_isas() {
  std::vector<std::string> isas = {"scalar"};
#if defined(__x86_64__)
  __builtin_cpu_init();
  // libgcc checks that the OS saves the wider registers (XCR0) too.
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) isas.push_back("avx2");
  if (__builtin_cpu_supports("avx512f")) isas.push_back("avx512");
#elif defined(__aarch64__)
  isas.push_back("neon");  // Advanced SIMD with FMA is part of ARMv8-A
#endif
  return isas;
}

const EwTable* ew_table_for(const std::string& isa) {
  const auto isas = available_isas();
  const std::string want = isa == "auto" ? isas.back() : isa;
  bool ok = false;
  for (const auto& i : isas) ok |= i == want;
  if (!ok) return nullptr;
  if (want == "scalar") return &ew_table_scalar();
#if defined(__x86_64__)
  if (want == "avx2") return &ew_table_avx2();
  if (want == "avx512") return &ew_table_avx512();
#elif defined(__aarch64__)
  if (want == "neon") return &ew_table_neon();
#endif
  return nullptr;
}

}  // namespace fd
