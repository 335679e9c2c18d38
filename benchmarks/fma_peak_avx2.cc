#include "fma_peak.h"
#include "kernels/vec_avx2.h"

double fma_peak_avx2() { return fma_peak_gflops_for<fd::simd::F32x8>(); }
