#include "runtime/q8_fully_connected.h"

#include "ir/shape.h"
#include "ops/fully_connected.h"
#include "ops/shape_rules.h"

namespace fd {

Q8FullyConnected::Q8FullyConnected(const Graph& g, const Node& node, int input, const Q8GemmKernel& kernel)
    : kernel_(&q8_gemm_kernel_for_columns(kernel, static_cast<int>(g.tensors[node.inputs[1]].shape[0]))) {
  const Tensor& w = g.tensors[node.inputs[1]];
  input_ = input;
  channels_ = static_cast<int>(w.shape[0]);
  block_rows_ = kernel_->mr;
  k_ = static_cast<int>(w.shape[1]);
  keep_num_dims_ = params_as<FullyConnectedParams>(node.params).keep_num_dims;
  Q8PackedLayer l = q8_pack_layer(g, node, channels_, k_, /*float_product=*/true, *kernel_);
  packed_ = std::move(l.packed);
  output_ = l.output;
}

std::optional<Shape> Q8FullyConnected::output_shape(const std::vector<Shape>& in, std::string* error) const {
  auto shape = fully_connected_shape(in[input_], {channels_, k_}, keep_num_dims_);
  if (!shape) *error = "int8 FULLY_CONNECTED of " + std::to_string(k_) + " depths on " + to_string(in[input_]);
  return shape;
}

void Q8FullyConnected::run(const int8_t* const* inputs, int64_t first, int64_t rows, int8_t* out) const {
  q8_gemm(*kernel_, rounding_, static_cast<int>(rows), channels_, k_, inputs[input_] + first * k_, k_, packed_.data(),
          out, channels_, output_);
}

}  // namespace fd
