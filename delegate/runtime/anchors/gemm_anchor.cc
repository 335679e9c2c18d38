// What the GEMM anchors share (FULLY_CONNECTED, CONV_2D): weights packed in
// panels for the GEMM kernel (or, mostly zero, as their nonzero groups for the
// sparse GEMM; or int8 for the qd8 GEMM: a GemmStep), a per-channel input
// scale folded into a copy of them on every run (scale_input), and output rows
// through the GEMM driver.
#include "ir/float_source.h"
#include "ir/shape.h"
#include "runtime/anchors/anchor_op.h"
#include "runtime/tiling.h"

namespace fd {
namespace {

// Bound, with step.scale_input: the weights times this run's scale.
struct ScaledWeights : BoundState {
  mutable PackedWeights weights;
  std::shared_ptr<const BoundState> clone() const override { return std::make_shared<ScaledWeights>(*this); }
};

}  // namespace

WeightValues weight_values(const Tensor& w) {
  const Float32Source* source = w.data.float32_source();
  return source ? WeightValues(nullptr, source) : WeightValues(w.f32_data());
}

bool pack_sparse_gemm_weights(const Kernels& kernels, WeightValues w, const float* bias, int n, int k,
                              AnchorStep& a, GemmStep& made) {
  if (!kernels.spmm || a.scale_input || !sparse_enough(w, n, k)) return false;
  a.gemm = &gemm_for(kernels, n);
  made.spmm = kernels.spmm;
  made.sparse =
      std::make_shared<const SparseWeights>(pack_sparse_weights(w, bias, n, k, tiling().sparse_chunk_depths));
  return true;
}

void pack_gemm_weights(const Kernels& kernels, WeightValues w, const float* bias, int n, int k, AnchorStep& a,
                       GemmStep& made) {
  if (pack_sparse_gemm_weights(kernels, w, bias, n, k, a, made)) return;
  a.gemm = &gemm_for(kernels, n);
  a.weights = std::make_shared<const PackedWeights>(pack_weights(w, bias, n, k, a.gemm->nr, true));
}

void pack_qd8_weights(const Graph& g, const Node& node, const Kernels& kernels, const AnchorFolds& folds,
                      AnchorStep& a, GemmStep& made) {
  const Tensor& w = g.tensors[node.inputs[1]];
  std::vector<float> scale, bias;
  qd8_scale_and_bias(g, node, folds, a, &scale, &bias);
  a.qd8 = kernels.qd8_gemm;
  const int k = static_cast<int>(num_elements(w.shape) / a.n);
  made.qd8_weights = std::make_shared<const Qd8PackedWeights>(
      qd8_pack_weights(*a.qd8, w.data.float32_source()->i8_values(), scale.data(), bias.data(), a.n, k));
  a.weight_bytes = made.qd8_weights->data.size();
}

bool bind_input_scale(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  const Shape& input = inputs[0];
  const Shape* s = inputs.size() == 2 ? &inputs[1] : nullptr;  // one scale per input channel, the same for every row
  if (!s || input.empty() || s->empty() || s->back() != input.back() || num_elements(*s) != input.back() ||
      (b.step.op == AnchorOp::kFullyConnected && input.back() != b.step.weights->k)) {
    *error = "the input's scale must hold one value per channel of " + fd::to_string(input);
    return false;
  }
  auto scaled = std::make_shared<ScaledWeights>();
  scaled->weights = *b.step.weights;  // sized once; refilled on every run
  b.state = std::move(scaled);
  return true;
}

void scale_gemm_weights(const BoundAnchor& a, const float* scale, int channels) {
  scale_weights_into(*a.step.weights, scale, channels, &static_cast<const ScaledWeights&>(*a.state).weights);
}

const PackedWeights& gemm_weights(const BoundAnchor& a) {
  return a.step.scale_input ? static_cast<const ScaledWeights&>(*a.state).weights : *a.step.weights;
}

void bind_gemm_row_unit(BoundAnchor& b) {
  if (gemm_step(b.step).sparse) b.row_unit = kSpmmRows;
}

void run_gemm_panels(const BoundAnchor& a, int64_t first, int64_t count, int first_panel, int last_panel,
                     float* out) {
  const int taps = a.row_taps();
  const GemmStep& s = gemm_step(a.step);
  if (s.sparse)
    return sparse_gemm(*s.spmm, *s.sparse, static_cast<int>(count), taps, a.rows.data() + first * taps, out, a.n,
                       a.step.lo, a.step.hi, first_panel, last_panel);
  gemm(*a.step.gemm, gemm_weights(a), static_cast<int>(count), taps, a.rows.data() + first * taps, out, a.n,
       a.step.lo, a.step.hi, first_panel, last_panel);
}

int gemm_panels(const BoundAnchor& a) {
  const GemmStep& s = gemm_step(a.step);
  return s.qd8_weights ? s.qd8_weights->panels() : s.sparse ? s.sparse->panels() : gemm_weights(a).panels();
}

void run_gemm_rows(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  run_gemm_panels(a, first, count, 0, -1, out);
}

int64_t gemm_depth(const AnchorStep& a) {
  const GemmStep& s = gemm_step(a);
  return s.qd8_weights ? s.qd8_weights->k : s.sparse ? s.sparse->k : a.weights->k;
}

std::string gemm_kernel_name(const AnchorStep& a) {
  const GemmStep& s = gemm_step(a);
  return s.qd8_weights ? a.qd8->name : s.spmm ? s.spmm->name : a.gemm->name;
}

}  // namespace fd
