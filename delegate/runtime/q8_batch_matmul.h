// An int8 BATCH_MATMUL as the first step of an int8 group (runtime/q8_layer.h):
// rows of lhs [..., m, k] times rhs [..., k, n] (adj_y: [..., n, k]) of the
// same batch, both run-time values, as TFLite's int8 kernel computes it
// (kernels/q8_matmul.h). The right side is packed per batch as each call
// reaches it; the output rows are [batch * m + i] of n values.
#pragma once

#include "kernels/q8_kernel.h"
#include "runtime/q8_layer.h"

namespace fd {

class Q8BatchMatMul : public Q8Layer {
 public:
  // The node (ops/quantized.h's q8_anchor_rule holds) reading program inputs lhs and rhs.
  Q8BatchMatMul(const Graph& g, const Node& node, int lhs, int rhs, const Q8Kernel& kernel);
  const char* name() const override { return "BatchMatMul"; }
  std::optional<Shape> output_shape(const std::vector<Shape>& in, std::string* error) const override;
  std::shared_ptr<const Q8Layer> for_input(const std::vector<Shape>& in) const override;
  void run(const int8_t* const* inputs, int64_t first, int64_t rows, int8_t* out) const override;

 private:
  bool take(const Shape& lhs, const Shape& rhs);  // these operands' shapes, if they fit

  const Q8Kernel* kernel_;
  Shape lhs_shape_, rhs_shape_, out_shape_;
  int m_ = 0, k_ = 0;
  bool adj_y_ = false;
  int32_t rhs_zp_ = 0;
  Q8MatMulParams params_;
};

}  // namespace fd
