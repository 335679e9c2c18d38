// Per-channel affine steps: a MUL, ADD or SUB of a tensor x by a constant k
// that is one number or one per channel (the last axis). Chains of them fold
// into a weighted anchor: before it (its input, plan/folds.cc) or after it
// (its output, runtime/anchor.cc); both read the steps here.
#pragma once

#include "ir/graph.h"

namespace fd {

// Which input of `n` is x, of shape `x` (the other a float32 constant, scalar
// or [..., x.back()] of x.back() values); -1 if `n` is no such step or has a
// fused activation.
int affine_step_x_side(const Graph& g, const Node& n, const Shape& x);

// The step as a map of x: a * x + b, for the constant's value v (in channel c).
struct AffineMap {
  double a = 1, b = 0;
};
AffineMap affine_step_map(const Node& n, int x_side, double v);

// The constant's value in channel c of x_side's step `n`.
double affine_step_value(const Graph& g, const Node& n, int x_side, int64_t c);

}  // namespace fd
