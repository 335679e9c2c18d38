#include "fma_peak.h"
#include "kernels/vec_neon.h"

double fma_peak_neon() { return fma_peak_gflops_for<fd::simd::F32x4>(); }
