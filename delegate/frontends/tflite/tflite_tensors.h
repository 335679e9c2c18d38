// Reading a TFLite context's tensors: their shapes and integer values.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"
#include "frontends/tflite/tflite_abi.h"

namespace fd {

Shape shape_of(const TfLiteTensor& t);

// The values of an int32 or int64 tensor, or false (no data, another type).
bool int_values(const TfLiteTensor& x, std::vector<int64_t>* out);

// The same of tensor t if it is a constant (the model's own bytes), else false.
bool constant_ints(TfLiteContext* ctx, int t, std::vector<int64_t>* out);

}  // namespace fd
