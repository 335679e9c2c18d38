// The IR's quantization and fused activations as the int8 kernels take them.
#pragma once

#include "ir/graph.h"
#include "kernels/q8_ops.h"

namespace fd {

// An int8 tensor's one scale and zero point (ops/quantized.h's is_q8_tensor).
inline Q8Quant q8_quant_of(const Tensor& t) {
  return {t.quantization.scales[0], static_cast<int32_t>(t.quantization.zero_points[0])};
}

inline Q8Activation q8_activation_of(Activation act) {
  switch (act) {
    case Activation::kRelu: return Q8Activation::kRelu;
    case Activation::kRelu6: return Q8Activation::kRelu6;
    case Activation::kReluN1To1: return Q8Activation::kReluN1To1;
    default: return Q8Activation::kNone;
  }
}

}  // namespace fd
