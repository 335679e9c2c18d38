#include "frontends/tflite/tflite_weights.h"

#include "frontends/tflite/tflite_ops.h"
#include "ir/float_source.h"
#include "ir/shape.h"
#include "ops/op_registry.h"

namespace fd {
namespace {

constexpr int kMaxSparseLevels = 64;
constexpr int kMaxSparseIndices = 1 << 28;

// A runtime array's values; false if it is missing or of implausible size.
bool ints_of(const TfLiteIntArray* a, std::vector<int>* out) {
  if (!a || a->size < 0 || a->size > kMaxSparseIndices) return false;
  out->assign(a->data, a->data + a->size);
  return true;
}

// The dense values of sparse constant t (of `shape` and `dtype`) into *out;
// "" or why its format does not hold together.
std::string dense_values(const TfLiteTensor& t, const Shape& shape, DType dtype, ConstantData* out) {
  SparseFormat f;
  std::string why = sparse_format_of(t, &f);
  if (why.empty()) *out = densify(f, shape, dtype, ConstantData::borrow(t.data, t.bytes), &why);
  return why;
}

// A DENSIFY of a sparse float32, float16 or int8 constant.
std::string densify_constant(const TfLiteTensor* tensors, const Node& n, Graph* g) {
  if (n.inputs.size() != 1 || n.outputs.size() != 1) return "DENSIFY without one input and one output";
  const TfLiteTensor& sparse = tensors[n.inputs[0]];
  const Tensor& in = g->tensors[n.inputs[0]];
  Tensor& out = g->tensors[n.outputs[0]];
  if (sparse.allocation_type != kTfLiteMmapRo || !sparse.sparsity || !sparse.data)
    return "DENSIFY of something that is not a sparse constant";
  if (in.dtype != DType::kF32 && in.dtype != DType::kF16 && in.dtype != DType::kI8)
    return std::string("DENSIFY of ") + dtype_name(in.dtype) + " values";
  if (out.dtype != in.dtype || out.shape != in.shape) return "DENSIFY to another type or shape";
  const std::string why = dense_values(sparse, in.shape, in.dtype, &out.data);
  if (!why.empty()) return "DENSIFY of a malformed sparse constant: " + why;
  out.is_constant = true;
  out.has_dynamic_shape = false;
  return "";
}

// A DEQUANTIZE of a float16 constant: the same floats the runtime's DEQUANTIZE
// computes (the conversion is exact), computed where they are read.
std::string dequantize_constant(const TfLiteTensor* tensors, const Node& n, Graph* g) {
  if (n.inputs.size() != 1 || n.outputs.size() != 1) return "DEQUANTIZE without one input and one output";
  if (tensors[n.inputs[0]].sparsity) return "DEQUANTIZE of a sparse constant not read through a DENSIFY";
  const Tensor& in = g->tensors[n.inputs[0]];
  Tensor& out = g->tensors[n.outputs[0]];
  const int64_t count = num_elements(in.shape);
  if (in.dtype != DType::kF16 || !in.is_constant || in.data.size() != static_cast<size_t>(count) * 2 ||
      !out.is_f32() || out.shape != in.shape)
    return "DEQUANTIZE of something that is not a float16 constant";
  out.data = ConstantData::converted(Float32Source::from_f16(in.data, count));
  out.stored_as = DType::kF16;
  out.is_constant = true;
  out.has_dynamic_shape = false;
  return "";
}

}  // namespace

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
  if (n.kind != OpKind::kAnchor || !anchor_info(n.anchor).has(kConstantWeights) || n.inputs.size() < 2) return false;
  if (!g->tensors[n.inputs[0]].is_f32()) return false;  // a quantized model: its layers stay int8
  Tensor& w = g->tensors[n.inputs[1]];
  if (w.dtype != DType::kI8 || !w.is_constant || w.data.size() != static_cast<size_t>(num_elements(w.shape)))
    return false;
  Float32Source values;
  if (!Float32Source::from_i8(w.data, w.shape, w.quantization, &values)) return false;
  w.stored_as = w.dtype;
  w.dtype = DType::kF32;
  w.data = ConstantData::converted(std::move(values));
  return true;
}

std::string sparse_format_of(const TfLiteTensor& t, SparseFormat* f) {
  const TfLiteSparsity* s = t.sparsity;
  if (!s) return "not a sparse tensor";
  if (!ints_of(s->traversal_order, &f->traversal_order)) return "no traversal order";
  f->block_map.clear();
  if (s->block_map && !ints_of(s->block_map, &f->block_map)) return "an implausible block map";
  const int levels = s->dim_metadata_size;
  if (levels < 0 || levels > kMaxSparseLevels || (levels > 0 && !s->dim_metadata))
    return "implausible dimension metadata";
  f->levels.assign(levels, {});
  for (int l = 0; l < levels; ++l) {
    const TfLiteDimensionMetadata& m = s->dim_metadata[l];
    SparseLevel& v = f->levels[l];
    if (m.format != kTfLiteDimDense && m.format != kTfLiteDimSparseCSR)
      return "level " + std::to_string(l) + " has an unknown format";
    v.compressed = m.format == kTfLiteDimSparseCSR;
    v.dense_size = m.dense_size;
    if (v.compressed && (!ints_of(m.array_segments, &v.segments) || !ints_of(m.array_indices, &v.indices)))
      return "level " + std::to_string(l) + " is compressed without segments and indices";
  }
  return "";
}

std::string constant_node_values(const TfLiteTensor* tensors, int builtin_code, const Node& n, Graph* g) {
  return builtin_code == kTfLiteBuiltinDensify ? densify_constant(tensors, n, g) : dequantize_constant(tensors, n, g);
}

std::string densify_fully_connected_weights(const TfLiteTensor* tensors, const Node& n, Graph* g) {
  if (n.kind != OpKind::kAnchor || n.anchor != AnchorOp::kFullyConnected || n.inputs.size() < 2) return "";
  const TfLiteTensor& sparse = tensors[n.inputs[1]];
  Tensor& w = g->tensors[n.inputs[1]];
  if (!sparse.sparsity || !w.data.empty()) return "";  // dense, or densified for an earlier reader
  if (sparse.allocation_type != kTfLiteMmapRo || !sparse.data || !w.is_f32())
    return "FULLY_CONNECTED of sparse weights that are not a float32 constant";
  const std::string why = dense_values(sparse, w.shape, w.dtype, &w.data);
  return why.empty() ? "" : "FULLY_CONNECTED of malformed sparse weights: " + why;
}

}  // namespace fd
