// Weight formats of TFLite models that the front end turns into the float32
// constants the kernels pack: float16 weights read through a DEQUANTIZE, int8
// weights with float activations (the converter's dynamic-range quantization)
// and sparse weights (its sparsity optimization) read through a DENSIFY or by
// a FULLY_CONNECTED directly.
#pragma once

#include <string>

#include "frontends/tflite/tflite_abi.h"
#include "ir/graph.h"
#include "ir/sparse.h"

namespace fd {

// A tensor's affine quantization (per tensor, or per index of one axis), if
// its arrays fit its shape; else empty.
Quantization quantization_of(const TfLiteTensor& t, const Shape& shape);

// A layer of float activations reading int8 constant weights: the graph
// takes the weights' float32 values ((q - zero point) * scale), which the
// layer then packs like any float weights. False if there is nothing to do.
bool dequantize_int8_weights(const Node& n, Graph* g);

// The storage format of a sparse tensor, copied from the runtime's arrays;
// "" or why they do not make one (the values are checked by densify).
std::string sparse_format_of(const TfLiteTensor& t, SparseFormat* f);

// A constant node's output as a constant the graph owns, the values the
// runtime computes: a DEQUANTIZE of a float16 constant (the conversion is
// exact), a DENSIFY of a sparse float32, float16 or int8 constant (the int8
// one then dequantized for its layers by dequantize_int8_weights). "" or why
// not. `tensors` is the context's tensor table.
std::string constant_node_values(const TfLiteTensor* tensors, int builtin_code, const Node& n, Graph* g);

// A FULLY_CONNECTED reading sparse float32 weights directly (TFLite's sparse
// kernels do): the graph takes their dense values. "" (also when there is
// nothing to do) or why they cannot be read.
std::string densify_fully_connected_weights(const TfLiteTensor* tensors, const Node& n, Graph* g);

}  // namespace fd
