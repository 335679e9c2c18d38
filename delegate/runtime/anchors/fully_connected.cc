// FULLY_CONNECTED: input rows times weights [n, k] (a GEMM anchor, see
// gemm_anchor.cc); the input's rows are read in place. Int8 weights of a float
// input (ops/dynamic_range.h) run through the qd8 GEMM: each tile's input rows
// quantized as TFLite's hybrid kernel does, the weights packed as stored.
#include <algorithm>

#include "ir/float_source.h"
#include "ir/shape.h"
#include "ops/dynamic_range.h"
#include "ops/fully_connected.h"
#include "ops/shape_rules.h"
#include "runtime/anchors/anchor_op.h"

namespace fd {
namespace {

static_assert(kDynamicRangeMaxDepth == kQd8MaxDepth, "the planner's depth bound is the qd8 GEMM's");

void make(const Graph& g, const Node& node, const Kernels& kernels, const AnchorFolds& folds, AnchorStep& a) {
  const Tensor& w = g.tensors[node.inputs[1]];  // [n, k]
  a.n = static_cast<int>(w.shape[0]);
  auto made = std::make_shared<GemmStep>();
  if (is_dynamic_range_fc(g, node) && kernels.qd8_gemm && !folds.scale_input) {
    pack_qd8_weights(g, node, kernels, folds, a, *made);
  } else {
    const AnchorWeights weights(g, node, folds, false, a);
    const int k = static_cast<int>(num_elements(w.shape) / a.n);
    pack_gemm_weights(kernels, weights.values(), weights.bias(), a.n, k, a, *made);
  }
  a.state = std::move(made);
}

bool bind(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  const bool keep_num_dims = params_as<FullyConnectedParams>(b.step.params).keep_num_dims;
  const auto out = fully_connected_shape(inputs[0], {b.step.n, gemm_depth(b.step)}, keep_num_dims);
  if (!out) {
    *error = "input " + fd::to_string(inputs[0]) + " does not fit the fully connected weights";
    return false;
  }
  b.output = *out;
  b.k = gemm_depth(b.step);
  bind_gemm_row_unit(b);
  return true;
}

void before_run(const BoundAnchor& a, const float* const* inputs) {
  if (a.step.scale_input) scale_gemm_weights(a, inputs[1], static_cast<int>(a.k));
  const float* input = inputs[0];
  if (a.rows_for == input && !a.rows.empty()) return;
  a.rows_for = input;
  const int64_t rows = num_elements(a.output) / a.n;
  a.rows.resize(rows);
  for (int64_t i = 0; i < rows; ++i) a.rows[i] = input + i * a.k;
}

// Rows [first, first + count), the columns of panels [first_panel, last_panel):
// with int8 weights, the rows quantized here a block at a time (per thread:
// threads sharing the columns of the same rows quantize them each).
void run_panels(const BoundAnchor& a, int64_t first, int64_t count, int first_panel, int last_panel, float* out) {
  if (!a.step.qd8) return run_gemm_panels(a, first, count, first_panel, last_panel, out);
  const Qd8GemmKernel& kernel = *a.step.qd8;
  const int64_t block = qd8_rows_per_block(kernel, a.k);
  thread_local Qd8Rows rows;
  for (int64_t r = first; r < first + count; r += block) {
    const int64_t m = std::min(block, first + count - r);
    qd8_quantize_rows(kernel, static_cast<int>(m), static_cast<int>(a.k), a.rows[r], a.k, &rows);
    qd8_gemm(kernel, *gemm_step(a.step).qd8_weights, rows, out + (r - first) * a.n, a.n, a.step.lo, a.step.hi, first_panel,
             last_panel);
  }
}

void run(const BoundAnchor& a, int64_t first, int64_t count, float* out) { run_panels(a, first, count, 0, -1, out); }

int64_t bound_depth(const BoundAnchor& a) { return a.k; }

std::string describe(const AnchorStep& s) {
  return std::to_string(s.n) + "x" + std::to_string(gemm_depth(s)) + ", " + describe_folds(s) + gemm_kernel_name(s);
}

}  // namespace

extern const AnchorOpDef kFullyConnectedAnchor = {
    "FullyConnected", /*clamps=*/true, make, bind, before_run, run, /*run_tile=*/nullptr,
    bound_depth, describe, run_panels, gemm_panels,
};

}  // namespace fd
