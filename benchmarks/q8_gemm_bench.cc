// Throughput of the full-integer int8 GEMM kernels (kernels/q8_gemm.h) on the
// shapes of MobileNet's 1x1 convolutions, a batch-1 FULLY_CONNECTED and the
// im2col GEMMs of a YOLO-like net's 3x3 convolutions, one
// thread, weights packed once, data warm in the caches: GOP/s (2 m n k per
// call), the median of 15 rounds. A benchmark, not a test:
//   build/benchmarks/q8_gemm_bench
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench_util.h"
#include "kernels/q8_gemm.h"

namespace {

struct Shape {
  int m, k, n;
  const char* what;
};

const Shape kShapes[] = {
    {3136, 96, 24, "MobileNetV2 56x56 project"}, {3136, 24, 144, "MobileNetV2 56x56 expand"},
    {196, 576, 96, "MobileNetV2 14x14 project"}, {196, 96, 576, "MobileNetV2 14x14 expand"},
    {49, 960, 320, "MobileNetV2 7x7 project"},   {1, 1024, 1000, "FULLY_CONNECTED batch 1"},
    {8, 1024, 1000, "FULLY_CONNECTED batch 8"},  {65536, 27, 16, "3x3 stem 256x256 3->16"},
    {16384, 144, 32, "3x3 128x128 16->32"},      {4096, 288, 64, "3x3 64x64 32->64"},
    {1024, 576, 128, "3x3 32x32 64->128"},       {16384, 32, 16, "1x1 128x128 32->16"},
    {3136, 64, 256, "ResNet-50 56x56 expand"},   {784, 512, 128, "ResNet-50 28x28 reduce"},
    {196, 256, 1024, "ResNet-50 14x14 expand"},  {49, 2048, 512, "ResNet-50 7x7 reduce"},
};

double gops(const fd::Q8GemmKernel& kernel, const Shape& s) {
  std::mt19937 rng(s.k + s.n);
  std::uniform_int_distribution<int> i8(-128, 127);
  std::vector<int8_t> a(static_cast<size_t>(s.m) * s.k), w(static_cast<size_t>(s.n) * s.k);
  std::vector<int8_t> out(static_cast<size_t>(s.m) * s.n);
  for (auto& x : a) x = static_cast<int8_t>(i8(rng));
  for (auto& x : w) x = static_cast<int8_t>(i8(rng));
  std::vector<int32_t> bias(s.n, 1000);
  std::vector<fd::Q8Multiplier> mult(s.n, fd::q8_multiplier(1.0 / 8192));
  std::vector<char> packed(fd::q8_packed_bytes(kernel, s.n, s.k));
  fd::q8_pack_weights(kernel, s.n, s.k, w.data(), bias.data(), mult.data(), 3, packed.data());
  const fd::Q8GemmOutput params{-5, -128, 127};
  const double ops = 2.0 * s.m * s.n * s.k;
  const int calls = std::max(1, static_cast<int>(2e8 / ops));
  return fd::bench::median_rate(15, calls, ops / 1e9, [&] {
    fd::q8_gemm(kernel, fd::Q8Rounding::kRuyX86, s.m, s.n, s.k, a.data(), s.k, packed.data(), out.data(), s.n,
                params);
  });
}

}  // namespace

int main() {
  const fd::Q8GemmKernel* kernels[8];
  const int count = fd::q8_gemm_kernels_runnable(kernels, 8);
  std::printf("CPU: %s; GOP/s, one thread, median of 15 rounds\n%-45s", fd::bench::cpu_name().c_str(), "m x k -> n");
  for (int i = 0; i < count; ++i) std::printf(" %24s", kernels[i]->name);
  std::printf("\n");
  for (const Shape& s : kShapes) {
    const std::string shape = std::to_string(s.m) + "x" + std::to_string(s.k) + "->" + std::to_string(s.n);
    std::printf("%-14s %-30s", shape.c_str(), s.what);
    for (int i = 0; i < count; ++i) std::printf(" %24.1f", gops(*kernels[i], s));
    std::printf("\n");
  }
  return 0;
}
