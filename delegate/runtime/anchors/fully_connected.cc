// FULLY_CONNECTED: input rows times weights [n, k] (a GEMM anchor, see
// gemm_anchor.cc); the input's rows are read in place.
#include "ir/shape.h"
#include "ops/shape_rules.h"
#include "runtime/anchors/anchor_op.h"

namespace fd {
namespace {

void make(const Graph& g, const Node& node, const Kernels& kernels, const AnchorFolds& folds, AnchorStep& a) {
  const Tensor& w = g.tensors[node.inputs[1]];  // [n, k]
  const AnchorWeights weights(g, node, folds, false, a);
  a.n = static_cast<int>(w.shape[0]);
  pack_gemm_weights(kernels, weights.values(), weights.bias(), a.n, static_cast<int>(num_elements(w.shape) / a.n), a);
}

bool bind(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  const PackedWeights& w = *b.step.weights;
  const auto out = fully_connected_shape(inputs[0], {w.n, w.k}, b.step.keep_num_dims);
  if (!out) {
    *error = "input " + fd::to_string(inputs[0]) + " does not fit the fully connected weights";
    return false;
  }
  b.output = *out;
  b.k = w.k;
  return true;
}

void before_run(const BoundAnchor& a, const float* const* inputs) {
  if (a.step.scale_input) scale_weights_into(*a.step.weights, inputs[1], static_cast<int>(a.k), &a.scaled);
  const float* input = inputs[0];
  if (a.rows_for == input && !a.rows.empty()) return;
  a.rows_for = input;
  const int64_t rows = num_elements(a.output) / a.n;
  a.rows.resize(rows);
  for (int64_t i = 0; i < rows; ++i) a.rows[i] = input + i * a.k;
}

std::string describe(const AnchorStep& s) {
  return std::to_string(s.weights->n) + "x" + std::to_string(s.weights->k) + ", " + describe_folds(s) + s.gemm->name;
}

}  // namespace

const AnchorOpDef kFullyConnectedAnchor = {
    "FullyConnected", /*clamps=*/true, make, bind, before_run, run_gemm_rows, /*run_tile=*/nullptr,
    gemm_depth, describe, run_gemm_panels, gemm_panels,
};

}  // namespace fd
