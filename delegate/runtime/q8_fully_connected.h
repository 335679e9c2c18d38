// An int8 FULLY_CONNECTED as the first step of an int8 group (runtime/q8_layer.h):
// its weights packed once for the CPU's int8 GEMM (kernels/q8_gemm.h) with
// TFLite's multipliers, bias and fused activation.
#pragma once

#include <memory>
#include <vector>

#include "kernels/q8_gemm.h"
#include "runtime/q8_layer.h"

namespace fd {

class Q8FullyConnected : public Q8Layer {
 public:
  // The layer `node` (ops/quantized.h's q8_anchor_rule holds) reading program input `input`.
  Q8FullyConnected(const Graph& g, const Node& node, int input, const Q8GemmKernel& kernel);
  const char* name() const override { return "FullyConnected"; }
  std::optional<Shape> output_shape(const std::vector<Shape>& in, std::string* error) const override;
  void run(const int8_t* const* inputs, int64_t first, int64_t rows, int8_t* out) const override;

 private:
  const Q8GemmKernel* kernel_;
  Q8Rounding rounding_ = Q8Rounding::kRuyX86;  // what TFLite's x86 kernels (ruy) round as
  int k_ = 0;
  bool keep_num_dims_ = false;
  Q8GemmOutput output_;          // the output's zero point and the activation's clamp
  std::vector<int32_t> packed_;  // q8_pack_weights' bytes
};

}  // namespace fd
