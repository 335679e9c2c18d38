// Heavy anchors inside fused programs: FULLY_CONNECTED, CONV_2D,
// DEPTHWISE_CONV_2D, TRANSPOSE_CONV, pools (and a PAD that must be stored), and the row ops of
// family transformer (BATCH_MATMUL, SOFTMAX, last-axis MEAN, RESHAPE,
// TRANSPOSE). Weights are packed once when the program is built; binding to
// input shapes fixes the geometry; a run computes a range of output rows
// (pixels) from the whole inputs.
//
// This header is the interface program.cc and depth_first.cc use. Each op's
// code is a file of runtime/anchors/ (fully_connected.cc, conv2d.cc, ...),
// an AnchorOpDef (anchors/anchor_op.h) that the functions below reach through
// one table in anchor.cc, indexed by AnchorOp. An op's parameters are
// AnchorStep::params (ops/<op>.h), what it derives its StepState and BoundState;
// the fields below serve every op or, so marked, a family (the window ops: window.cc).
#pragma once

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ops/conv_geometry.h"
#include "ops/shape_rules.h"
#include "kernels/cpu.h"
#include "runtime/gemm_driver.h"
#include "runtime/qd8_conv.h"
#include "ir/fusion_plan.h"
#include "ir/graph.h"

namespace fd {

// What an op's make derives for its step beyond the node's parameters (a TRANSPOSE
// folded into an operand): a struct of its step's file, which only that file reads.
struct StepState {
  virtual ~StepState() = default;
};

struct AnchorStep {
  AnchorOp op = AnchorOp::kFullyConnected;
  // The kernel tables the step runs, picked for the CPU when it is made.
  const GemmKernel* gemm = nullptr;     // FULLY_CONNECTED, CONV_2D, BATCH_MATMUL, TRANSPOSE_CONV
  const DwKernel* dw = nullptr;         // DEPTHWISE_CONV_2D, pools, MEAN, resizes
  const RowKernel* rows = nullptr;      // SOFTMAX, row reductions
  const Qd8GemmKernel* qd8 = nullptr;   // weights of int8 (ops/dynamic_range.h): the input quantized per row
  // Float weights packed for gemm or dw (null where the op packs them otherwise:
  // its StepState, as CONV_2D's Winograd form and the GEMMs' sparse and int8 forms).
  std::shared_ptr<const PackedWeights> weights;
  // Bytes of weights a tile reads whatever its rows (a tile grows to more rows
  // when they outgrow tiling().streamed_weights_bytes).
  size_t weight_bytes = 0;
  int n = 0;  // output channels (the row length); pools and kPad: 0, taken from the input
  // The window ops' (window.cc): the filter or pool window and its strides, dilations, padding.
  int kh = 1, kw = 1;
  ConvParams conv;
  FoldedPad pad;  // a PAD folded into the window; kPad: the PAD itself
  float lo = -INFINITY, hi = INFINITY;  // the fused activation as a clamp (make_anchor: TFLite's range)
  // The folds taken in (AnchorFolds): the input arrives times a per-channel scale
  // (a second input), folded into a copy of the weights on each run (FULLY_CONNECTED, CONV_2D);
  // the weights, bias and clamp hold a folded output map (kOutputAffine).
  bool scale_input = false;
  bool output_map = false;
  std::shared_ptr<const OpParams> params;  // the node's own parameters (ir/op_params.h), if its op has them
  std::shared_ptr<const StepState> state;  // what the op's make derived (see StepState)
  std::string to_string() const;
};

// What a group folds into one of its anchors, as make_anchor packs it.
struct AnchorFolds {
  FoldedPad pad;  // a PAD folded into it (none: all zero)
  // kInputAffine (CONV_2D only): the input is source * scale + shift per
  // channel; the weights, bias and padding take it in and the anchor reads source.
  const Fold* input_affine = nullptr;
  // kOutputAffine: MUL/ADD/SUB by constants per output channel, then perhaps a
  // clamp, after the anchor: its weights, bias and clamp take them in.
  const Fold* output_affine = nullptr;
  bool scale_input = false;  // see AnchorStep
  // kTranspose: per operand, the TRANSPOSE folded into it (null: none).
  const Node* transposed[2] = {nullptr, nullptr};
  // Per input, whether its producer writes it in place (a CONCATENATION's parts: FusionPlan::slice_writes).
  std::vector<bool> in_place;
  // FusionPlan::rounds_as_builtin: CONV_2D and DEPTHWISE_CONV_2D take
  // kernels.rounded, which sum as TFLite's builtin kernels do.
  bool rounds_as_builtin = false;
};

// Packs `node`'s weights, with `folds` taken in, for `kernels`.
AnchorStep make_anchor(const Graph& g, const Node& node, const AnchorFolds& folds, const Kernels& kernels);

// What an op derives when it binds: a struct of its step's file, which only
// that file reads. One holding buffers that before_run fills returns a copy of
// itself from clone(), so that a copy of the anchor (a depth-first chain's
// part, run beside it) fills its own; copies share any other.
struct BoundState {
  virtual ~BoundState() = default;
  virtual std::shared_ptr<const BoundState> clone() const { return nullptr; }
};

// BoundAnchor::state: copying it shares the state, or clones it (see BoundState).
class BoundStatePtr {
 public:
  BoundStatePtr() = default;
  template <class T>
  BoundStatePtr(std::shared_ptr<T> p) : p_(std::move(p)) {}  // NOLINT: as a shared_ptr
  BoundStatePtr(const BoundStatePtr& o) : p_(o.copied()) {}
  BoundStatePtr& operator=(const BoundStatePtr& o) {
    p_ = o.copied();
    return *this;
  }
  BoundStatePtr(BoundStatePtr&&) = default;
  BoundStatePtr& operator=(BoundStatePtr&&) = default;
  const BoundState& operator*() const { return *p_; }
  const BoundState* get() const { return p_.get(); }

 private:
  std::shared_ptr<const BoundState> copied() const {
    std::shared_ptr<const BoundState> c = p_ ? p_->clone() : nullptr;
    return c ? c : p_;
  }
  std::shared_ptr<const BoundState> p_;
};

// An anchor bound to its inputs' shapes.
struct BoundAnchor {
  AnchorStep step;  // a copy: the weights are shared
  Shape output;
  int64_t k = 0, n = 0;  // FULLY_CONNECTED, BATCH_MATMUL, row MEAN: input row length; all: output row length
  // A tile's output rows are a multiple of this: the GEMM kernel's rows (bind_anchor:
  // gemm or qd8), the sparse GEMM's, a Winograd block's (their binds).
  int64_t row_unit = 1;
  // The window anchors (convolutions, pools, MEAN, PAD; anchors/window.cc).
  ConvGeometry geo;
  // conv_offsets(geo), computed when first needed (window_offsets; the pools'
  // counts): a depth-first chain's read_ring changes geo after bind.
  mutable std::vector<int32_t> offsets;
  mutable bool offsets_due = false;
  std::vector<float> zero_row, pad_row;
  // Indirection rows of every output pixel (taps each; filter_rows: kh each),
  // for the input at `rows_for`. FULLY_CONNECTED: the input's rows. In
  // huge-page blocks: a large table first written on the first run would
  // otherwise fault a 4 KiB page at a time (a run's worth of init time).
  bool filter_rows = false;  // a window of few channels: one row per filter row
  int row_taps() const { return filter_rows ? geo.kh : geo.taps(); }  // rows per output pixel
  mutable std::vector<const float*, HugePageAllocator<const float*>> rows;
  mutable const float* rows_for = nullptr;
  mutable std::vector<const float*> patch_taps;  // filter_rows cut by padding: their taps, kw each
  mutable std::vector<float> patches;            // ... copied here on every run
  mutable Qd8Images qd8_images;                  // a window of int8 weights: this run's input, quantized
  // before_run reads the whole input first (a depth multiplier's widening, int8
  // weights' quantizing), or a tile reads input rows past those its output rows
  // need (a Winograd tile's): a depth-first chain cannot feed it from a ring.
  bool reads_whole_input = false;
  bool reads_past_rows = false;
  // The row ops.
  mutable const float* src = nullptr;  // the input of this run
  BoundStatePtr state;  // the op's own (see BoundState)
  // Multiply-adds (or window reads) per output value: how much work a row is.
  int64_t depth() const;
  // Points the rows at `inputs` (the anchor's input tensors: two for
  // BATCH_MATMUL, else one) and packs BATCH_MATMUL's run-time operand. Not
  // thread-safe: call on every run, before running rows in parallel.
  void before_run(const float* const* inputs) const;
  // From now on the input holds only `ring` rows, row y at y % ring (ConvGeometry::ring_rows).
  void read_ring(int64_t ring);
};

// `inputs`: the shapes of the step's input tensors (two for BATCH_MATMUL and
// scale_input). *fold_broken (if given) is set when a fold made for the planned
// shapes no longer holds (a channel scale of one value per image past batch 1).
std::optional<BoundAnchor> bind_anchor(const AnchorStep& step, const std::vector<Shape>& inputs, std::string* error,
                                       bool* fold_broken = nullptr);

// Output rows [first, first + count) into out (count * n floats), from the
// inputs given to before_run.
void run_anchor(const BoundAnchor& a, int64_t first, int64_t count, float* out);

// A row op (SOFTMAX, row MEAN) on `rows` rows at `in` (a tile of the program).
void run_row_op(const BoundAnchor& a, const float* in, int64_t first_row, int64_t rows, float* out);

// The GEMM anchors (FULLY_CONNECTED, CONV_2D): their weight panels, and the
// same rows as run_anchor but only the columns of panels [first_panel, last_panel).
int anchor_panels(const BoundAnchor& a);
void run_anchor_panels(const BoundAnchor& a, int64_t first, int64_t count, int first_panel, int last_panel,
                       float* out);

}  // namespace fd
