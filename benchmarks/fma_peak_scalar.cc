#include "fma_peak.h"
#include "kernels/vec_scalar.h"

double fma_peak_scalar() { return fma_peak_gflops_for<fd::simd::F32x1>(); }
