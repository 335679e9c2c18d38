#include "ops/affine_steps.h"

#include "ir/shape.h"

namespace fd {

int affine_step_x_side(const Graph& g, const Node& n, const Shape& x) {
  if (n.kind != OpKind::kElementwise || n.act != Activation::kNone || n.inputs.size() != 2 ||
      (n.ew != EwOp::Mul && n.ew != EwOp::Add && n.ew != EwOp::Sub) || x.empty())
    return -1;
  const int side = g.tensors[n.inputs[1]].is_constant ? 0 : 1;  // x's
  const Tensor& k = g.tensors[n.inputs[1 - side]];
  const Tensor& in = g.tensors[n.inputs[side]];
  const int64_t size = num_elements(k.shape), channels = x.back();
  if (!k.is_constant || !k.f32_data() || in.is_constant || in.shape != x || g.tensors[n.outputs[0]].shape != x)
    return -1;
  if (size != 1 && (size != channels || k.shape.back() != channels || k.shape.size() > x.size())) return -1;
  return side;
}

AffineMap affine_step_map(const Node& n, int x_side, double v) {
  if (n.ew == EwOp::Mul) return {v, 0};
  if (n.ew == EwOp::Add) return {1, v};
  return x_side == 0 ? AffineMap{1, -v} : AffineMap{-1, v};  // x - v, v - x
}

double affine_step_value(const Graph& g, const Node& n, int x_side, int64_t c) {
  const Tensor& k = g.tensors[n.inputs[1 - x_side]];
  return k.f32_data()[num_elements(k.shape) == 1 ? 0 : c];
}

}  // namespace fd
