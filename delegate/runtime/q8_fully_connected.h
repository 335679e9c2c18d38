// An int8 FULLY_CONNECTED as the first step of an int8 group (runtime/q8_program.h):
// its weights packed once for the CPU's int8 GEMM (kernels/q8_gemm.h) with
// TFLite's per-channel multipliers, bias and fused activation; its output a
// source the group's tables read.
#pragma once

#include <memory>
#include <vector>

#include "ir/graph.h"
#include "kernels/q8_gemm.h"

namespace fd {

struct Q8FullyConnected {
  const Q8GemmKernel* kernel = nullptr;
  Q8Rounding rounding = Q8Rounding::kRuyX86;  // what TFLite's x86 kernels (ruy) round as
  int input = -1;  // the program input it reads: rows of k
  int n = 0, k = 0;
  bool keep_num_dims = false;
  Q8GemmOutput output;          // the output's zero point and the activation's clamp
  std::vector<int32_t> packed;  // q8_pack_weights' bytes
};

// The layer `node` (ops/quantized.h's q8_anchor_rule holds) reading program input `input`.
std::shared_ptr<const Q8FullyConnected> make_q8_fully_connected(const Graph& g, const Node& node, int input,
                                                                const Q8GemmKernel& kernel);

// Rows [first_row, first_row + rows) of its output into out (rows * n values).
void run_q8_fully_connected(const Q8FullyConnected& fc, const int8_t* input, int64_t first_row, int64_t rows,
                            int8_t* out);

}  // namespace fd
