#include <string>

double fma_peak_scalar();
double fma_peak_avx2();
double fma_peak_avx512();
double fma_peak_neon();

double fma_peak_gflops(const std::string& isa) {
#if defined(__x86_64__)
  if (isa == "avx2") return fma_peak_avx2();
  if (isa == "avx512") return fma_peak_avx512();
#elif defined(__aarch64__)
  if (isa == "neon") return fma_peak_neon();
#endif
  return fma_peak_scalar();
}
