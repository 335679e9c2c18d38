// Weight formats of TFLite models that the front end turns into the float32
// constants the kernels pack: int8 weights with float activations (the
// converter's dynamic-range quantization).
#pragma once

#include "frontends/tflite/tflite_abi.h"
#include "ir/graph.h"

namespace fd {

// A tensor's affine quantization (per tensor, or per index of one axis), if
// its arrays fit its shape; else empty.
Quantization quantization_of(const TfLiteTensor& t, const Shape& shape);

// A layer of float activations reading int8 constant weights: the graph
// takes the weights' float32 values ((q - zero point) * scale), which the
// layer then packs like any float weights. False if there is nothing to do.
bool dequantize_int8_weights(const Node& n, Graph* g);

}  // namespace fd
