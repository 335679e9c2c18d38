// The row ops of family transformer work on rows (the last axis) of run-time
// inputs: BATCH_MATMUL, SOFTMAX, row reductions (MEAN, SUM, REDUCE_MAX,
// REDUCE_MIN), RESHAPE, TRANSPOSE. Here what they share, and SOFTMAX and the
// row reductions, which also run on tiles of rows computed in their own
// program (run_row_op).
#include <algorithm>
#include <cfloat>
#include <cmath>

#include "ops/row_reduce.h"
#include "ops/shape_rules.h"
#include "ops/softmax.h"
#include "runtime/anchors/anchor_op.h"

namespace fd {

bool bind_row_output(BoundAnchor& b, const std::optional<Shape>& out, const std::vector<Shape>& inputs,
                     std::string* error) {
  if (!out) {
    *error = std::string(anchor_op_def(b.step.op).name) + " does not fit its input " + fd::to_string(inputs[0]) +
             (inputs.size() > 1 ? " and " + fd::to_string(inputs[1]) : "");
    return false;
  }
  b.output = *out;
  b.n = out->empty() ? 1 : out->back();
  return true;
}

void read_whole_input(const BoundAnchor& a, const float* const* inputs) { a.src = inputs[0]; }

namespace {

void make_rows(const Graph&, const Node&, const Kernels& kernels, const AnchorFolds& folds, AnchorStep& a) {
  a.rows = anchor_kernels(kernels, folds).rows;
}

// SOFTMAX: of each row, scaled by beta.
bool bind_softmax(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  return bind_row_output(b, inputs[0].empty() ? std::nullopt : std::optional<Shape>(inputs[0]), inputs, error);
}

void softmax_tile(const BoundAnchor& a, const float* in, int64_t first_row, int64_t rows, float* out) {
  const RowKernel& k = *a.step.rows;
  const float beta = params_as<SoftmaxParams>(a.step.params).beta;
  if (k.softmax_at)
    return k.softmax_at(static_cast<int>(rows), static_cast<int>(a.n), in, out, beta, first_row,
                        num_elements(a.output) / std::max<int64_t>(a.n, 1));
  k.softmax(static_cast<int>(rows), static_cast<int>(a.n), in, out, beta);
}

void run_softmax(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  softmax_tile(a, a.src + first * a.n, first, count, out);
}

std::string describe_softmax(const AnchorStep& s) {
  const std::string beta = s.params->describe();
  return describe_folds(s) + (beta.empty() ? "" : beta + ", ") + s.rows->name;
}

// A row reduction: rows of k values (the last axis) to one each. Its axis as
// the model gives it must still name the last one at the rank of the run.
bool bind_row_reduce(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  const auto& p = params_as<RowReduceParams>(b.step.params);
  const int rank = static_cast<int>(inputs[0].size());
  if (resolve_axis(p.axis, rank) != rank - 1) {
    *error = "the axis " + std::to_string(p.axis) + " reduced is not the last of " + fd::to_string(inputs[0]);
    return false;
  }
  if (!bind_row_output(b, row_reduce_shape(inputs[0], p.keep_dims), inputs, error)) return false;
  b.k = inputs[0].back();
  b.n = 1;  // one value per input row
  return true;
}

RowReduction row_reduction(Reduce r) {
  switch (r) {
    case Reduce::kSum: return RowReduction::kSum;
    case Reduce::kMax: return RowReduction::kMax;
    case Reduce::kMin: return RowReduction::kMin;
    case Reduce::kMean: break;
  }
  return RowReduction::kMean;
}

// What TFLite's kernels give for a row of no values: the sum 0, the mean
// 0 / 0, the max and min the float range's far ends.
float empty_row_value(Reduce r) {
  switch (r) {
    case Reduce::kSum: return 0.f;
    case Reduce::kMax: return -FLT_MAX;
    case Reduce::kMin: return FLT_MAX;
    case Reduce::kMean: break;
  }
  return NAN;
}

void row_reduce_tile(const BoundAnchor& a, const float* in, int64_t first_row, int64_t rows, float* out) {
  const Reduce reduce = params_as<RowReduceParams>(a.step.params).reduce;
  if (a.k == 0) return std::fill(out, out + rows, empty_row_value(reduce));
  const RowKernel& k = *a.step.rows;
  const RowReduction r = row_reduction(reduce);
  if (r == RowReduction::kMean && k.mean_at)
    return k.mean_at(static_cast<int>(rows), static_cast<int>(a.k), in, out, first_row);
  k.reduce[static_cast<int>(r)](static_cast<int>(rows), static_cast<int>(a.k), in, out);
}

void run_row_reduce(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  row_reduce_tile(a, a.src + first * a.k, first, count, out);
}

int64_t row_reduce_depth(const BoundAnchor& a) { return a.k; }

std::string describe_row_reduce(const AnchorStep& s) {
  return describe_folds(s) + reduce_name(params_as<RowReduceParams>(s.params).reduce) + ", " + s.rows->name;
}

}  // namespace

extern const AnchorOpDef kSoftmaxAnchor = {
    "Softmax", /*clamps=*/false, make_rows, bind_softmax, read_whole_input, run_softmax, softmax_tile,
    /*depth=*/nullptr, describe_softmax, /*run_panels=*/nullptr, /*panels=*/nullptr,
};

extern const AnchorOpDef kRowReduceAnchor = {
    "RowReduce", /*clamps=*/false, make_rows, bind_row_reduce, read_whole_input, run_row_reduce, row_reduce_tile,
    row_reduce_depth, describe_row_reduce, /*run_panels=*/nullptr, /*panels=*/nullptr,
};

}  // namespace fd
