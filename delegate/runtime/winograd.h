// Winograd F(2x2, 3x3) for 3x3 stride-1 convolutions: the filter transformed
// once into 16 GEMM weight packs (one per position of a 4x4 input tile), and a
// driver that runs a batch of tiles through the transforms of
// kernels/winograd_microkernel.h and the GEMM.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "kernels/cpu.h"
#include "runtime/gemm_driver.h"

namespace fd {

struct WinogradWeights {
  int n = 0, c = 0;                   // output and input channels
  std::array<PackedWeights, 16> u;    // position p: (G g G^T)[p] as [n x c], zero bias
  std::vector<float> bias;            // n, added after the output transform
  size_t bytes() const { return 16 * u[0].data.size() * sizeof(float); }
};

// The filter w [n, 3, 3, c] (bias: n floats or null; w may be a converted
// source, read a filter at a time) in Winograd form, packed in panels of nr
// columns (the last nr / 2 wide where that covers the rest).
std::shared_ptr<const WinogradWeights> winograd_weights(WeightValues w, const float* bias, int n, int c, int nr);

// `tiles` tiles: patches[16 t + i] is input pixel i (row-major 4x4) of tile t,
// outs[4 t + k] output pixel k (row-major 2x2) or null. Writes the columns of
// panels [first_panel, last_panel) (-1: all), clamped to [lo, hi].
void winograd_tiles(const WinogradKernel& kernel, const GemmKernel& gemm, const WinogradWeights& w, int tiles,
                    const float* const* patches, float* const* outs, float lo, float hi, int first_panel = 0,
                    int last_panel = -1);

}  // namespace fd
