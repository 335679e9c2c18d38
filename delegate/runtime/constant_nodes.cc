#include "runtime/constant_nodes.h"

#include <vector>

#include "ir/shape.h"
#include "kernels/ew_table.h"
#include "runtime/program.h"

namespace fd {
namespace {

Shape without_leading_ones(const Shape& s) {
  size_t i = 0;
  while (i < s.size() && s[i] == 1) ++i;
  return Shape(s.begin() + static_cast<std::ptrdiff_t>(i), s.end());
}

}  // namespace

bool computes_constant(const Graph& g, const Node& n) {
  if (n.ew == EwOp::kCount || n.act != Activation::kNone || n.outputs.size() != 1 ||
      static_cast<int>(n.inputs.size()) != ew_arity(n.ew))
    return false;
  const Tensor& out = g.tensors[n.outputs[0]];
  if (!out.is_f32() || out.has_dynamic_shape) return false;
  for (int t : n.inputs) {
    const Tensor& x = g.tensors[t];
    if (!x.is_constant || !x.f32_data() || x.has_dynamic_shape) return false;
    if (num_elements(x.shape) != 1 && without_leading_ones(x.shape) != without_leading_ones(out.shape)) return false;
  }
  return true;
}

void compute_constant_node(Graph* g, int pos) {
  const Node& n = g->nodes[pos];
  Tensor& out = g->tensors[n.outputs[0]];
  const size_t size = static_cast<size_t>(num_elements(out.shape));
  std::vector<std::vector<float>> spread;  // single values, repeated to the output's size
  spread.reserve(3);
  const float* in[3] = {nullptr, nullptr, nullptr};
  bool at_run_time = false;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Tensor& x = g->tensors[n.inputs[i]];
    at_run_time = at_run_time || x.values_at_run_time;
    in[i] = x.f32_data();
    if (num_elements(x.shape) == 1 && size != 1) in[i] = spread.emplace_back(size, x.f32_data()[0]).data();
  }
  std::vector<float> values(size);
  ew_table_scalar().fn[static_cast<int>(kernel_op(n.ew))](in[0], in[1], in[2], values.data(), size, n.param);
  out.is_constant = true;
  out.values_at_run_time = at_run_time;
  out.data = ConstantData::own(std::move(values));
}

bool compute_constant_nodes(Graph* g) {
  for (size_t pos = 0; pos < g->nodes.size(); ++pos) {
    const Node& n = g->nodes[pos];
    if (n.kind != OpKind::kConstant || n.ew == EwOp::kCount) continue;
    if (!computes_constant(*g, n)) return false;
    compute_constant_node(g, static_cast<int>(pos));
  }
  return true;
}

}  // namespace fd
