#include "runtime/q8_batch_matmul.h"

#include <algorithm>
#include <vector>

#include "ir/shape.h"
#include "ops/batch_matmul.h"
#include "ops/quantized.h"
#include "runtime/q8_quant.h"

namespace fd {

// TFLite's Prepare: the multiplier (s_lhs * s_rhs in float) / s_out in double, no activation.
Q8BatchMatMul::Q8BatchMatMul(const Graph& g, const Node& node, int lhs, int rhs, const Q8Kernel& kernel)
    : kernel_(&kernel) {
  const Tensor& l = g.tensors[node.inputs[0]];
  const Tensor& r = g.tensors[node.inputs[1]];
  const Tensor& o = g.tensors[node.outputs[0]];
  input_ = lhs;
  second_input_ = rhs;
  adj_y_ = params_as<BatchMatMulParams>(node.params).adj_y;
  take(l.shape, r.shape);
  const Q8Quant lq = q8_quant_of(l), rq = q8_quant_of(r), oq = q8_quant_of(o);
  rhs_zp_ = rq.zero_point;
  params_.a_zp = lq.zero_point;
  params_.m = q8_multiplier(static_cast<double>(lq.scale * rq.scale) / static_cast<double>(oq.scale));
  params_.out_zp = oq.zero_point;
}

// The operands' shapes where they fit (ops/quantized.h q8_batch_matmul_shape).
bool Q8BatchMatMul::take(const Shape& lhs, const Shape& rhs) {
  const std::optional<Shape> out = q8_batch_matmul_shape(lhs, rhs, adj_y_);
  if (!out) return false;
  lhs_shape_ = lhs;
  rhs_shape_ = rhs;
  out_shape_ = *out;
  m_ = static_cast<int>(lhs[lhs.size() - 2]);
  k_ = static_cast<int>(lhs.back());
  channels_ = static_cast<int>(out->back());
  block_rows_ = std::max(m_, 1);  // a tile holds whole matrices: each packs its right side once
  return true;
}

std::shared_ptr<const Q8Layer> Q8BatchMatMul::for_input(const std::vector<Shape>& in) const {
  if (in[input_] == lhs_shape_ && in[second_input_] == rhs_shape_) return nullptr;
  auto resized = std::make_shared<Q8BatchMatMul>(*this);
  return resized->take(in[input_], in[second_input_]) ? resized : nullptr;
}

std::optional<Shape> Q8BatchMatMul::output_shape(const std::vector<Shape>& in, std::string* error) const {
  if (in[input_] == lhs_shape_ && in[second_input_] == rhs_shape_) return out_shape_;
  *error = "int8 BATCH_MATMUL prepared for " + to_string(lhs_shape_) + " x " + to_string(rhs_shape_) + " given " +
           to_string(in[input_]) + " x " + to_string(in[second_input_]);
  return std::nullopt;
}

// Rows [first, first + rows) of the [batch * m, n] output, batch by batch.
void Q8BatchMatMul::run(const int8_t* const* inputs, int64_t first, int64_t rows, int8_t* out) const {
  const int n = channels_;
  thread_local std::vector<int16_t> packed;
  packed.resize(q8_matmul_packed_size(k_, n));
  for (int64_t row = first; row < first + rows;) {
    const int64_t batch = row / m_, end = std::min(first + rows, (batch + 1) * m_);
    q8_pack_matmul_rhs(inputs[second_input_] + batch * k_ * n, k_, n, adj_y_, rhs_zp_, packed.data());
    kernel_->matmul(inputs[input_] + row * k_, end - row, k_, n, packed.data(), params_, out + (row - first) * n);
    row = end;
  }
}

}  // namespace fd
