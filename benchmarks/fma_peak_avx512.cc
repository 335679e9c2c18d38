#include "fma_peak.h"
#include "kernels/vec_avx512.h"

double fma_peak_avx512() { return fma_peak_gflops_for<fd::simd::F32x16>(); }
