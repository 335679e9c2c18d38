// Throughput of the full-integer int8 depthwise kernels (kernels/q8_depthwise.h)
// on MobileNet-style 3x3 and 5x5 layers, stride 1, padding SAME, multiplier 1:
// Mpixel/s of output (all channels of a pixel), one thread, weights packed
// once, the taps' row pointers built once, the median of 15 rounds. A
// benchmark, not a test:
//   build/benchmarks/q8_depthwise_bench
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench_util.h"
#include "kernels/q8_depthwise.h"

namespace {

struct Shape {
  int size, depth, kernel;  // size x size pixels, kernel x kernel taps
};

const Shape kShapes[] = {{56, 32, 3},  {56, 96, 3},  {56, 144, 3},  {56, 576, 3}, {14, 32, 3}, {14, 96, 3},
                         {14, 144, 3}, {14, 576, 3}, {14, 100, 3}, {14, 576, 5}, {7, 960, 3}};

// The row pointers of every output pixel's taps: the padding taps read `pad`.
std::vector<const int8_t*> tap_rows(const Shape& s, const std::vector<int8_t>& image, const std::vector<int8_t>& pad) {
  std::vector<const int8_t*> rows;
  const int half = s.kernel / 2;
  for (int y = 0; y < s.size; ++y)
    for (int x = 0; x < s.size; ++x)
      for (int ky = 0; ky < s.kernel; ++ky)
        for (int kx = 0; kx < s.kernel; ++kx) {
          const int iy = y + ky - half, ix = x + kx - half;
          const bool inside = iy >= 0 && iy < s.size && ix >= 0 && ix < s.size;
          rows.push_back(inside ? image.data() + (static_cast<size_t>(iy) * s.size + ix) * s.depth : pad.data());
        }
  return rows;
}

double mpixels(const fd::Q8DepthwiseKernel& kernel, const Shape& s) {
  std::mt19937 rng(s.depth);
  std::uniform_int_distribution<int> i8(-128, 127);
  const int taps = s.kernel * s.kernel, pixels = s.size * s.size;
  std::vector<int8_t> image(static_cast<size_t>(pixels) * s.depth), w(static_cast<size_t>(taps) * s.depth);
  for (auto& v : image) v = static_cast<int8_t>(i8(rng));
  for (auto& v : w) v = static_cast<int8_t>(i8(rng));
  const std::vector<int8_t> pad(s.depth, 3);
  const std::vector<const int8_t*> rows = tap_rows(s, image, pad);
  std::vector<int32_t> bias(s.depth, 1000);
  std::vector<fd::Q8Multiplier> mult(s.depth, fd::q8_multiplier(1.0 / 4096));
  std::vector<char> packed(fd::q8_depthwise_packed_bytes(kernel, s.depth, taps));
  fd::q8_pack_depthwise(kernel, s.depth, taps, w.data(), bias.data(), mult.data(), 3, packed.data());
  std::vector<int8_t> out(static_cast<size_t>(pixels) * s.depth);
  const fd::Q8DepthwiseOutput params{-5, -128, 127};
  const int calls = std::max(1, static_cast<int>(3e7 / (static_cast<double>(pixels) * s.depth * taps)));
  return fd::bench::median_rate(15, calls, pixels / 1e6, [&] {
    kernel.pixels(pixels, s.depth, 1, taps, rows.data(), packed.data(), out.data(), s.depth, params);
  });
}

}  // namespace

int main() {
  const fd::Q8DepthwiseKernel* kernels[8];
  const int count = fd::q8_depthwise_kernels_runnable(kernels, 8);
  std::printf("CPU: %s; Mpixel/s, one thread, median of 15 rounds\n%-20s", fd::bench::cpu_name().c_str(),
              "pixels x depth, kxk");
  for (int i = 0; i < count; ++i) std::printf(" %24s", kernels[i]->name);
  std::printf("\n");
  for (const Shape& s : kShapes) {
    const std::string shape = std::to_string(s.size) + "x" + std::to_string(s.size) + "x" + std::to_string(s.depth) +
                              ", " + std::to_string(s.kernel) + "x" + std::to_string(s.kernel);
    std::printf("%-20s", shape.c_str());
    for (int i = 0; i < count; ++i) std::printf(" %24.2f", mpixels(*kernels[i], s));
    std::printf("\n");
  }
  return 0;
}
