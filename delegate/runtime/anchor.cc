// The anchor interface (anchor.h) over the table of anchor ops: each function
// finds the op's AnchorOpDef (anchors/anchor_op.h) and calls it.
#include "runtime/anchor.h"

#include <cfloat>
#include <iterator>

#include "ops/window.h"
#include "runtime/anchors/anchor_op.h"

namespace fd {

// Each op's step, defined in its file of runtime/anchors/ (pool.cc, row_ops.cc, reshape.cc, resize.cc: several).
extern const AnchorOpDef kFullyConnectedAnchor, kConv2DAnchor, kDepthwiseConv2DAnchor, kMaxPool2DAnchor,
    kAveragePool2DAnchor, kMeanAnchor, kPadAnchor, kBatchMatMulAnchor, kSoftmaxAnchor, kRowReduceAnchor,
    kReshapeAnchor, kExpandDimsAnchor, kSqueezeAnchor, kTransposeAnchor, kConcatenationAnchor, kResizeBilinearAnchor,
    kResizeNearestAnchor, kTransposeConvAnchor, kIndexViewAnchor;

namespace {

// The anchor ops, one row per AnchorOp in its order (checked below). A new op
// is one more row; its AnchorOpDef lives in its own file of runtime/anchors/.
struct AnchorOpRow {
  AnchorOp op;
  const AnchorOpDef* def;
};
constexpr AnchorOpRow kAnchorOps[] = {
    {AnchorOp::kFullyConnected, &kFullyConnectedAnchor},
    {AnchorOp::kConv2D, &kConv2DAnchor},
    {AnchorOp::kDepthwiseConv2D, &kDepthwiseConv2DAnchor},
    {AnchorOp::kMaxPool2D, &kMaxPool2DAnchor},
    {AnchorOp::kAveragePool2D, &kAveragePool2DAnchor},
    {AnchorOp::kMean, &kMeanAnchor},
    {AnchorOp::kPad, &kPadAnchor},
    {AnchorOp::kBatchMatMul, &kBatchMatMulAnchor},
    {AnchorOp::kSoftmax, &kSoftmaxAnchor},
    {AnchorOp::kRowReduce, &kRowReduceAnchor},
    {AnchorOp::kReshape, &kReshapeAnchor},
    {AnchorOp::kTranspose, &kTransposeAnchor},
    {AnchorOp::kConcatenation, &kConcatenationAnchor},
    {AnchorOp::kResizeBilinear, &kResizeBilinearAnchor},
    {AnchorOp::kResizeNearest, &kResizeNearestAnchor},
    {AnchorOp::kTransposeConv, &kTransposeConvAnchor},
    {AnchorOp::kExpandDims, &kExpandDimsAnchor},
    {AnchorOp::kSqueeze, &kSqueezeAnchor},
    {AnchorOp::kIndexView, &kIndexViewAnchor},
};
constexpr AnchorOp kLastAnchorOp = AnchorOp::kIndexView;  // AnchorOp's last value

constexpr bool rows_in_order() {
  for (size_t i = 0; i < std::size(kAnchorOps); ++i)
    if (static_cast<size_t>(kAnchorOps[i].op) != i) return false;
  return std::size(kAnchorOps) == static_cast<size_t>(kLastAnchorOp) + 1;
}
static_assert(rows_in_order(), "kAnchorOps: one row per AnchorOp, in AnchorOp's order");

}  // namespace

const AnchorOpDef& anchor_op_def(AnchorOp op) { return *kAnchorOps[static_cast<size_t>(op)].def; }

std::string describe_folds(const AnchorStep& s) {
  std::string t;
  if (s.pad.any())
    t += "pad " + std::to_string(s.pad.top) + "," + std::to_string(s.pad.bottom) + "," + std::to_string(s.pad.left) +
         "," + std::to_string(s.pad.right) + " folded, ";
  if (s.scale_input) t += "input scaled per channel, ";
  if (s.output_map) t += "output map folded, ";
  return t;
}

std::string AnchorStep::to_string() const {
  const AnchorOpDef& d = anchor_op_def(op);
  return std::string(d.name) + "[" + d.describe(*this) + "]";
}

namespace {

// The anchor's activation, or the clamp its output map ends with.
Activation activation_of(const Graph& g, const Node& node, const Fold* output_affine) {
  if (!output_affine) return node.act;
  const Node& last = g.nodes[output_affine->nodes.back()];
  switch (last.kind == OpKind::kElementwise ? last.ew : EwOp::kCount) {
    case EwOp::Relu: return Activation::kRelu;
    case EwOp::Relu6: return Activation::kRelu6;
    case EwOp::ReluN1To1: return Activation::kReluN1To1;
    default: return node.act;
  }
}

}  // namespace

AnchorStep make_anchor(const Graph& g, const Node& node, const AnchorFolds& folds, const Kernels& kernels) {
  AnchorStep a;
  a.scale_input = folds.scale_input;
  a.op = node.kind == OpKind::kPad ? AnchorOp::kPad : node.anchor;
  const AnchorOpDef& d = anchor_op_def(a.op);
  a.pad = folds.pad;
  a.conv = window_of(node);  // the window ops'
  // As TFLite's kernels: without activation (or at RELU's top) convolutions, FULLY_CONNECTED
  // and pools clamp to the float range, an overflow gives FLT_MAX, not inf; MEAN and
  // BATCH_MATMUL do not clamp. The kernels clamp anyway: no extra cost.
  const float range = d.clamps ? FLT_MAX : INFINITY;
  const Activation act = activation_of(g, node, folds.output_affine);
  a.lo = act == Activation::kRelu || act == Activation::kRelu6 ? 0.f : act == Activation::kReluN1To1 ? -1.f : -range;
  a.hi = act == Activation::kRelu6 ? 6.f : act == Activation::kReluN1To1 ? 1.f : range;
  a.params = node.params;
  if (d.make) d.make(g, node, kernels, folds, a);
  if (a.weights && !a.weight_bytes) a.weight_bytes = a.weights->data.size() * sizeof(float);
  return a;
}

std::optional<BoundAnchor> bind_anchor(const AnchorStep& step, const std::vector<Shape>& inputs, std::string* error,
                                       bool* fold_broken) {
  BoundAnchor b;
  b.step = step;
  b.n = step.n;
  b.row_unit = step.gemm ? step.gemm->mr : step.qd8 ? step.qd8->mr : 1;
  if (step.scale_input && !bind_input_scale(b, inputs, error)) {
    if (fold_broken) *fold_broken = true;
    return std::nullopt;
  }
  if (!anchor_op_def(step.op).bind(b, inputs, error)) return std::nullopt;
  return b;
}

void BoundAnchor::before_run(const float* const* inputs) const { anchor_op_def(step.op).before_run(*this, inputs); }

void BoundAnchor::read_ring(int64_t ring) {
  geo.ring_rows = ring;
  offsets.clear();
  offsets_due = true;
  rows.clear();
  rows_for = nullptr;
}

int64_t BoundAnchor::depth() const {
  const AnchorOpDef& d = anchor_op_def(step.op);
  return d.depth ? d.depth(*this) : 1;
}

void run_anchor(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  anchor_op_def(a.step.op).run(a, first, count, out);
}

void run_row_op(const BoundAnchor& a, const float* in, int64_t first_row, int64_t rows, float* out) {
  anchor_op_def(a.step.op).run_tile(a, in, first_row, rows, out);
}

int anchor_panels(const BoundAnchor& a) {
  const AnchorOpDef& d = anchor_op_def(a.step.op);
  return d.run_panels ? d.panels(a) : 0;
}

void run_anchor_panels(const BoundAnchor& a, int64_t first, int64_t count, int first_panel, int last_panel,
                       float* out) {
  anchor_op_def(a.step.op).run_panels(a, first, count, first_panel, last_panel, out);
}

}  // namespace fd
