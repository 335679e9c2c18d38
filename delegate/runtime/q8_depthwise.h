// An int8 DEPTHWISE_CONV_2D as the first step of an int8 group
// (runtime/q8_layer.h), as TFLite's x86 wheels compute it
// (kernels/q8_depthwise.h): each output pixel's taps read through row
// pointers (a padding tap: a row of the input's zero point, which adds nothing).
#pragma once

#include <memory>
#include <vector>

#include "kernels/q8_depthwise.h"
#include "runtime/q8_window_layer.h"

namespace fd {

class Q8Depthwise : public Q8WindowLayer {
 public:
  // The layer `node` (ops/quantized.h's q8_anchor_rule holds) reading program input `input`,
  // through `pad` where a PAD folds into it (else null).
  Q8Depthwise(const Graph& g, const Node& node, const Node* pad, int input, const Q8DepthwiseKernel& kernel);
  const char* name() const override { return "DepthwiseConv2D"; }
  void run_from(const int8_t* input, int64_t first, int64_t rows, int8_t* out) const override;

 private:
  std::shared_ptr<Q8WindowLayer> copy() const override { return std::make_shared<Q8Depthwise>(*this); }

  const Q8DepthwiseKernel* kernel_;
  int multiplier_ = 1;
  Q8GemmOutput output_;
  std::shared_ptr<const std::vector<int64_t>> packed_;  // q8_pack_depthwise's bytes, 8-byte aligned; shared
};

}  // namespace fd
