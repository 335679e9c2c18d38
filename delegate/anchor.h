// Heavy anchors inside fused programs: FULLY_CONNECTED, CONV_2D,
// DEPTHWISE_CONV_2D (and a PAD that must be stored). Weights are packed once
// when the program is built; binding to an input shape fixes the geometry; a
// run computes a range of output rows (pixels) from the whole input.
#pragma once

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "conv.h"
#include "cpu.h"
#include "gemm.h"
#include "ir.h"

namespace fd {

struct AnchorStep {
  AnchorOp op = AnchorOp::kFullyConnected;
  const GemmKernel* gemm = nullptr;  // FULLY_CONNECTED, CONV_2D
  const DwKernel* dw = nullptr;      // DEPTHWISE_CONV_2D, pools
  std::shared_ptr<const PackedWeights> weights;  // none for pools and kPad
  int n = 0;  // output channels (the row length); pools and kPad: 0, taken from the input
  bool keep_num_dims = false;  // FULLY_CONNECTED and MEAN
  int kh = 1, kw = 1;
  ConvParams conv;
  FoldedPad pad;  // a PAD folded into the convolution; kPad: the PAD itself
  float lo = -INFINITY, hi = INFINITY;  // the fused activation as a clamp
  std::string to_string() const;
};

// Packs `node`'s weights for `kernels`; `pad` is a PAD folded into it (if any).
AnchorStep make_anchor(const Graph& g, const Node& node, const FoldedPad& pad, const Kernels& kernels);

// An anchor bound to its input's shape.
struct BoundAnchor {
  AnchorStep step;  // a copy: the weights are shared
  Shape output;
  int64_t k = 0, n = 0;  // FULLY_CONNECTED: input row length; all: output row length
  ConvGeometry geo;      // convolutions and PAD
  std::vector<int32_t> offsets;  // conv_offsets(geo)
  std::vector<float> zero_row, pad_row;
  std::vector<float> count;  // average pools: per output pixel, the window's pixels inside the input
  // Indirection rows of every output pixel (taps each), for the input at `rows_for`.
  mutable std::vector<const float*> rows;
  mutable const float* rows_for = nullptr;
  // Points the rows at `input` (a no-op if they already do). Not thread-safe:
  // call before running rows in parallel.
  void point_at(const float* input) const;
};

std::optional<BoundAnchor> bind_anchor(const AnchorStep& step, const Shape& input, std::string* error);

// Output rows [first, first + count) into out (count * n floats), from the
// input the rows point at.
void run_anchor(const BoundAnchor& a, int64_t first, int64_t count, float* out);

}  // namespace fd
