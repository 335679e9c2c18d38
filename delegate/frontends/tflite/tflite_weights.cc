#include "frontends/tflite/tflite_weights.h"

#include "ir/shape.h"
#include "ops/op_registry.h"

namespace fd {

Quantization quantization_of(const TfLiteTensor& t, const Shape& shape) {
  if (t.quantization.type != kTfLiteAffineQuantization || !t.quantization.params) return {};
  const auto& a = *static_cast<const TfLiteAffineQuantization*>(t.quantization.params);
  if (!a.scale || !a.zero_point || a.scale->size != a.zero_point->size) return {};
  const int n = a.scale->size, axis = a.quantized_dimension;
  const bool per_axis = n > 1;
  if (n < 1 || (per_axis && (axis < 0 || static_cast<size_t>(axis) >= shape.size() || shape[axis] != n))) return {};
  Quantization q;
  q.axis = per_axis ? axis : -1;
  q.scales.assign(a.scale->data, a.scale->data + n);
  q.zero_points.assign(a.zero_point->data, a.zero_point->data + n);
  return q;
}

bool dequantize_int8_weights(const Node& n, Graph* g) {
  if (n.kind != OpKind::kAnchor || !anchor_info(n.anchor).constant_weights || n.inputs.size() < 2) return false;
  if (!g->tensors[n.inputs[0]].is_f32()) return false;  // a quantized model: its layers stay int8
  Tensor& w = g->tensors[n.inputs[1]];
  if (w.dtype != DType::kI8 || !w.is_constant || w.data.size() != static_cast<size_t>(num_elements(w.shape)))
    return false;
  std::vector<float> values =
      dequantize_i8(static_cast<const int8_t*>(w.data.bytes()), w.shape, w.quantization);
  if (values.empty()) return false;
  w.stored_as = w.dtype;
  w.dtype = DType::kF32;
  w.data = ConstantData::own(std::move(values));
  return true;
}

}  // namespace fd
