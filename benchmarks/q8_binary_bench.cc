// The full-integer int8 ADD of two inputs (a residual ADD), Gvalues/s per ISA:
// TFLite's exact arithmetic on every vector against the linear form that
// decides most of them (kernels/q8_linear.h), on MobileNet/ResNet-sized tensors.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench_util.h"
#include "kernels/cpu.h"
#include "kernels/q8_kernel.h"

namespace {

double gvalues(const fd::Q8Kernel& kernel, const fd::Q8Prepared& p, int64_t n) {
  std::mt19937 rng(static_cast<unsigned>(n));
  std::uniform_int_distribution<int> i8(-128, 127);
  std::vector<int8_t> a(n), b(n), y(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = static_cast<int8_t>(i8(rng));
    b[i] = static_cast<int8_t>(i8(rng));
  }
  const int calls = std::max<int64_t>(1, 100000000 / n);
  return fd::bench::median_rate(15, calls, n / 1e9, [&] { kernel.binary(p, a.data(), b.data(), y.data(), n, n); });
}

}  // namespace

int main() {
  const fd::Q8Quant in[2] = {{0.05f, -3}, {0.08f, 10}};
  const fd::Q8Prepared linear = fd::q8_prepare(fd::Q8Op::Add, in, {0.11f, -7}, fd::Q8Activation::kNone, 0.f);
  fd::Q8Prepared exact = linear;
  exact.linear = fd::Q8Linear{};
  std::printf("CPU: %s; int8 ADD (blocked form), Gvalues/s, one thread, median of 15 rounds\n",
              fd::bench::cpu_name().c_str());
  std::printf("%-10s %-24s %10s %10s\n", "values", "kernel", "exact", "linear");
  for (int64_t n : {int64_t{4096}, int64_t{56 * 56 * 24}, int64_t{56 * 56 * 256}})
    for (const std::string& isa : fd::available_isas()) {
      const fd::Q8Kernel& k = *fd::kernels_for(isa)->q8;
      std::printf("%-10lld %-24s %10.2f %10.2f\n", static_cast<long long>(n), k.name, gvalues(k, exact, n),
                  gvalues(k, linear, n));
    }
  return 0;
}
