// Throughput of the full-integer int8 GEMM kernels (kernels/q8_gemm.h) on the
// shapes of MobileNet's 1x1 convolutions and a batch-1 FULLY_CONNECTED, one
// thread, weights packed once, data warm in the caches: GOP/s (2 m n k per
// call), the median of 15 rounds. A benchmark, not a test:
//   build/benchmarks/q8_gemm_bench
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

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
    {8, 1024, 1000, "FULLY_CONNECTED batch 8"},
};

// This CPU's model name, family and model (/proc/cpuinfo).
std::string cpu_name() {
  std::ifstream info("/proc/cpuinfo");
  std::string line, name, family, model;
  const auto value = [](const std::string& l) { return l.substr(l.find(':') + 2); };
  while (std::getline(info, line)) {
    if (name.empty() && line.rfind("model name", 0) == 0) name = value(line);
    if (family.empty() && line.rfind("cpu family", 0) == 0) family = value(line);
    if (model.empty() && line.rfind("model\t", 0) == 0) model = value(line);
  }
  return name + " (family " + family + ", model " + model + ")";
}

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
  std::vector<double> rounds;
  for (int r = 0; r < 15; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int c = 0; c < calls; ++c)
      fd::q8_gemm(kernel, fd::Q8Rounding::kRuyX86, s.m, s.n, s.k, a.data(), s.k, packed.data(), out.data(), s.n,
                  params);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rounds.push_back(ops * calls / seconds / 1e9);
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];
}

}  // namespace

int main() {
  const fd::Q8GemmKernel* kernels[8];
  const int count = fd::q8_gemm_kernels_runnable(kernels, 8);
  std::printf("CPU: %s; GOP/s, one thread, median of 15 rounds\n%-45s", cpu_name().c_str(), "m x k -> n");
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
