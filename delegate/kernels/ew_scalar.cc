// Elementwise kernels for scalar, instantiated from ew_math.h; and the scalar
// code TFLite's builtin kernels run on a tensor's last size % 4 values, past
// their last full packet (builtin_tail_kernel): the vector body's formula
// with libm's exp.
#include <algorithm>

#include "kernels/vec_scalar.h"
#include "kernels/ew_loops.h"

namespace fd {
namespace {

float logistic_tail(float x) {
  const float e = std::exp(std::min(x, 16.6355324f));  // NaN stays NaN
  return e / (1.f + e);
}

float swish_tail(float x) { return x * logistic_tail(x); }

float gelu_tail(float x) {
  const auto libm_exp = [](simd::F32x1 y) { return simd::F32x1{std::exp(y.v)}; };
  return 0.5f * x * simd::erfc_as_builtin_(simd::F32x1{x * -0.70710677f}, libm_exp).v;
}

template <float (*F)(float)>
void tail_loop(const float* a, const float*, const float*, float* dst, size_t n, float) {
  for (size_t i = 0; i < n; ++i) dst[i] = F(a[i]);
}

}  // namespace

EwKernel builtin_tail_kernel(EwKernelOp op) {
  switch (op) {
    case EwKernelOp::LogisticAsBuiltin: return &tail_loop<logistic_tail>;
    case EwKernelOp::SwishAsBuiltin: return &tail_loop<swish_tail>;
    case EwKernelOp::GeluAsBuiltin: return &tail_loop<gelu_tail>;
    default: return nullptr;
  }
}

const EwTable& ew_table_scalar() {
  static const EwTable table = simd::make_ew_table<simd::F32x1>("scalar");
  return table;
}

}  // namespace fd
