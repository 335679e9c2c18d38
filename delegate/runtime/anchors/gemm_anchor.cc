// What the GEMM anchors share (FULLY_CONNECTED, CONV_2D): weights packed in
// panels for the GEMM kernel (or, mostly zero, as their nonzero groups for the
// sparse GEMM), a per-channel input scale folded into a copy of them on every
// run (scale_input), and output rows through the GEMM driver.
#include "ir/float_source.h"
#include "ir/shape.h"
#include "runtime/anchors/anchor_op.h"
#include "runtime/tiling.h"

namespace fd {

WeightValues weight_values(const Tensor& w) {
  const Float32Source* source = w.data.float32_source();
  return source ? WeightValues(nullptr, source) : WeightValues(w.f32_data());
}

bool pack_sparse_gemm_weights(const Kernels& kernels, WeightValues w, const float* bias, int n, int k,
                              AnchorStep& a) {
  if (!kernels.spmm || a.scale_input || !sparse_enough(w, n, k)) return false;
  a.gemm = &gemm_for(kernels, n);
  a.spmm = kernels.spmm;
  a.sparse = std::make_shared<const SparseWeights>(pack_sparse_weights(w, bias, n, k, tiling().sparse_chunk_depths));
  return true;
}

void pack_gemm_weights(const Kernels& kernels, WeightValues w, const float* bias, int n, int k, AnchorStep& a) {
  if (pack_sparse_gemm_weights(kernels, w, bias, n, k, a)) return;
  a.gemm = &gemm_for(kernels, n);
  a.weights = std::make_shared<const PackedWeights>(pack_weights(w, bias, n, k, a.gemm->nr, true));
}

bool bind_input_scale(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  const Shape& input = inputs[0];
  const Shape* s = inputs.size() == 2 ? &inputs[1] : nullptr;  // one scale per input channel, the same for every row
  if (!s || input.empty() || s->empty() || s->back() != input.back() || num_elements(*s) != input.back() ||
      (b.step.op == AnchorOp::kFullyConnected && input.back() != b.step.weights->k)) {
    *error = "the input's scale must hold one value per channel of " + fd::to_string(input);
    return false;
  }
  b.scaled = *b.step.weights;  // sized once; refilled on every run
  return true;
}

void run_gemm_panels(const BoundAnchor& a, int64_t first, int64_t count, int first_panel, int last_panel,
                     float* out) {
  const int taps = a.row_taps();
  if (a.step.sparse)
    return sparse_gemm(*a.step.spmm, *a.step.sparse, static_cast<int>(count), taps, a.rows.data() + first * taps, out,
                       a.n, a.step.lo, a.step.hi, first_panel, last_panel);
  if (a.builtin_gemv && count == 1)
    return gemm_one_row_as_builtin(*a.step.gemm, a.weights(), taps, a.rows.data() + first * taps, out, a.step.lo,
                                   a.step.hi, first_panel, last_panel);
  gemm(*a.step.gemm, a.weights(), static_cast<int>(count), taps, a.rows.data() + first * taps, out, a.n, a.step.lo,
       a.step.hi, first_panel, last_panel);
  if (a.step.builtin_order && a.n % 4 && (last_panel < 0 || last_panel >= a.weights().panels()))
    redo_last_columns_as_builtin(a.weights(), a.geo.pixels(), first, count, taps, a.rows.data(), out, a.n, a.step.lo,
                                 a.step.hi);
}

void pack_qd8_weights(const Graph& g, const Node& node, const Kernels& kernels, const AnchorFolds& folds,
                      AnchorStep& a) {
  const Tensor& w = g.tensors[node.inputs[1]];
  std::vector<float> scale, bias;
  qd8_scale_and_bias(g, node, folds, a, &scale, &bias);
  a.qd8 = kernels.qd8_gemm;
  const int k = static_cast<int>(num_elements(w.shape) / a.n);
  a.qd8_weights = std::make_shared<const Qd8PackedWeights>(
      qd8_pack_weights(*a.qd8, w.data.float32_source()->i8_values(), scale.data(), bias.data(), a.n, k));
}

int gemm_panels(const BoundAnchor& a) { return a.step.sparse ? a.step.sparse->panels() : a.weights().panels(); }

void run_gemm_rows(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  run_gemm_panels(a, first, count, 0, -1, out);
}

int64_t gemm_depth(const BoundAnchor& a) { return a.step.sparse ? a.step.sparse->k : a.step.weights->k; }

}  // namespace fd
