// An int8 DEPTHWISE_CONV_2D as the first step of an int8 group
// (runtime/q8_layer.h), as TFLite's x86 wheels compute it
// (kernels/q8_depthwise.h): each output pixel's taps read through row
// pointers (a padding tap: a row of the input's zero point, which adds nothing).
#pragma once

#include <vector>

#include "kernels/q8_depthwise.h"
#include "ops/conv_geometry.h"
#include "runtime/q8_layer.h"

namespace fd {

class Q8Depthwise : public Q8Layer {
 public:
  // The layer `node` (ops/quantized.h's q8_anchor_rule holds) reading program input `input`.
  Q8Depthwise(const Graph& g, const Node& node, int input, const Q8DepthwiseKernel& kernel);
  const char* name() const override { return "DepthwiseConv2D"; }
  std::optional<Shape> output_shape(const Shape& in, std::string* error) const override;
  std::shared_ptr<const Q8Layer> for_input(const Shape& in) const override;
  void run(const int8_t* input, int64_t first, int64_t rows, int8_t* out) const override;

 private:
  const Q8DepthwiseKernel* kernel_;
  Shape input_shape_;
  ConvGeometry geo_;
  std::vector<int32_t> offsets_;      // conv_offsets(geo_): empty when dense
  std::vector<int8_t> zero_row_;      // the input's zero point, one pixel of it
  int multiplier_ = 1;
  Q8GemmOutput output_;
  std::vector<int64_t> packed_;       // q8_pack_depthwise's bytes, 8-byte aligned
};

}  // namespace fd
