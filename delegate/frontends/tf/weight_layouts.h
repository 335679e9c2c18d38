// TensorFlow weights in the IR's (TFLite's) layouts. Used on Const values at
// translation and, for weights read from variables or function arguments, by
// the FdFusedPartition kernel whenever their values change.
#pragma once

#include <vector>

#include "ir/graph.h"

namespace fd {

enum class WeightLayout : int {
  kAsIs = 0,        // the same floats (a bias; depthwise HWIM read as [1, H, W, I*M])
  kHwioToOhwi = 1,  // Conv2D filter [kh, kw, ic, oc] -> [oc, kh, kw, ic]
  kTranspose = 2,   // MatMul weights [in, out] -> [out, in]
};

// Weights an anchor reads from a run-time tensor (a variable, a function
// argument): the IR holds a constant placeholder of the IR's shape, which the
// kernel fills from `source` (an IR tensor) in `layout`.
struct RunTimeWeight {
  int source = -1;
  WeightLayout layout = WeightLayout::kAsIs;
};

// The IR shape of weights of TF shape `tf_shape` in `layout` (depthwise: pass
// kAsIs and `depthwise`); empty if the rank does not fit.
Shape ir_weight_shape(const Shape& tf_shape, WeightLayout layout, bool depthwise = false);

// `values` (of TF shape `tf_shape`) in `layout`.
std::vector<float> ir_weights(const float* values, const Shape& tf_shape, WeightLayout layout);

}  // namespace fd
