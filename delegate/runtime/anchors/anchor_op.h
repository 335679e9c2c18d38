// What one anchor op does at each stage of runtime/anchor.h: an AnchorOpDef,
// a row of the table in anchor.cc that make_anchor, bind_anchor, before_run,
// run_anchor, run_row_op, depth and to_string dispatch through.
//
// Each file of this folder defines the AnchorOpDef of one op (or of a family
// sharing code: pool.cc, row_ops.cc, reshape.cc), plus the helpers a family shares
// (window.cc: the convolutions, pools and PAD; gemm_anchor.cc: FULLY_CONNECTED
// and CONV_2D). To add an anchor op: its AnchorOp value (ir/op_types.h), a
// file here defining `extern const AnchorOpDef kXxxAnchor` (reshape.cc is the
// smallest to copy), and its row in anchor.cc's table.
// The op reads its parameters from AnchorStep::params (ops/<op>.h); what it
// derives when made or bound is a StepState or BoundState of its own file
// (batch_matmul.cc, concatenation.cc) or of its family's (gemm_anchor.cc's
// GemmStep, which conv2d.cc's ConvStep extends), not a field of the shared structs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ops/affine_steps.h"
#include "runtime/anchor.h"
#include "runtime/sparse_gemm.h"
#include "runtime/winograd.h"

namespace fd {

// The kernels an anchor packs for: kernels.rounded (summing as TFLite's
// builtin kernels) where an int8-weight layer quantizes its output.
inline const Kernels& anchor_kernels(const Kernels& kernels, const AnchorFolds& folds) {
  return folds.rounds_as_builtin && kernels.rounded ? *kernels.rounded : kernels;
}

struct AnchorOpDef {
  const char* name;  // in AnchorStep::to_string and in errors
  // Without activation (and at RELU's top) clamps to [-FLT_MAX, FLT_MAX] as
  // TFLite's kernel does; false: an infinite range.
  bool clamps;
  // make_anchor: the op's fields of `a` (kernels, packed weights, window);
  // a.op, pad, conv, the clamp and the node's attributes are set already.
  // `folds`: see make_anchor (the pad and scale_input are in `a` already).
  void (*make)(const Graph& g, const Node& node, const Kernels& kernels, const AnchorFolds& folds, AnchorStep& a);
  // bind_anchor: b.output, b.n and the op's fields of b for the input shapes
  // (b.step, b.n = step.n and b.row_unit, the GEMM kernel's rows, are set; with
  // step.scale_input b.state holds the scaled weights: keep it); false, with
  // *error, if they do not fit.
  bool (*bind)(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error);
  // BoundAnchor::before_run: take this run's inputs.
  void (*before_run)(const BoundAnchor& a, const float* const* inputs);
  // run_anchor: output rows [first, first + count) into out.
  void (*run)(const BoundAnchor& a, int64_t first, int64_t count, float* out);
  // run_row_op: `rows` rows at `in`, rows [first_row, first_row + rows) of the
  // input (the ops of reads_tile_rows); else null.
  void (*run_tile)(const BoundAnchor& a, const float* in, int64_t first_row, int64_t rows, float* out);
  // BoundAnchor::depth (multiply-adds or reads per output value); null: 1.
  int64_t (*depth)(const BoundAnchor& a);
  // AnchorStep::to_string: what stands between the brackets after the name.
  std::string (*describe)(const AnchorStep& s);
  // run_anchor_panels: the same rows as run, the columns of weight panels
  // [first_panel, last_panel) only (-1: to the last); null: no such split.
  void (*run_panels)(const BoundAnchor& a, int64_t first, int64_t count, int first_panel, int last_panel, float* out);
  // anchor_panels: the panels run_panels divides the columns into (with run_panels).
  int (*panels)(const BoundAnchor& a);
};

// anchor.cc: the row of `op` in the table.
const AnchorOpDef& anchor_op_def(AnchorOp op);

// anchor.cc: what program.cc folded into the step (a PAD, a per-channel input
// scale, an output map) as to_string shows it: "pad 1,1,1,1 folded, ".
std::string describe_folds(const AnchorStep& s);

// anchor_weights.cc: an output map's MUL/ADD/SUB steps composed per output
// channel (the last axis of `out`): value = x * a + b.
std::vector<AffineMap> output_channel_map(const Graph& g, const Fold& f, const Shape& out);

// anchor_weights.cc: the weights (input 1) and bias (input 2, may be absent)
// a weighted anchor packs: the graph's, or with an output map (a
// kOutputAffine fold, AnchorStep::output_map set) taken in, copies: w * scale
// and bias * scale + shift per output channel, the first axis of the weights
// (channels_last: the last).
class AnchorWeights {
 public:
  AnchorWeights(const Graph& g, const Node& node, const AnchorFolds& folds, bool channels_last, AnchorStep& a);
  // As packing reads them: a converted constant's source where no map applies.
  WeightValues values() const;
  // As float32 (a converted constant's floats, made once).
  const float* floats() const { return w_copy_.empty() ? w_->f32_data() : w_copy_.data(); }
  const float* bias() const { return bias_copy_.empty() ? bias_ : bias_copy_.data(); }

 private:
  const Tensor* w_ = nullptr;
  const float* bias_ = nullptr;
  std::vector<float> w_copy_, bias_copy_;
};

// anchor_weights.cc: int8 weights' scales (ops/dynamic_range.h), one per
// output channel (a.n), and the bias (zeros if none), an output map taken into
// both (x * m + s: scale * m, bias * m + s; a.output_map set).
void qd8_scale_and_bias(const Graph& g, const Node& node, const AnchorFolds& folds, AnchorStep& a,
                        std::vector<float>* scale, std::vector<float>* bias);

// window.cc: the anchors that read windows of an NHWC input through
// indirection rows (CONV_2D, DEPTHWISE_CONV_2D, pools, MEAN, PAD).
// Geometry of a kh x kw window over `input` (its offsets due), zero_row (zeros) and
// pad_row (the folded PAD's value); false (and *error) if it does not fit.
bool bind_window(BoundAnchor& b, const Shape& input, int kh, int kw, const ConvParams& p, std::string* error);
// b.offsets, computed now if they are due (bind_window and read_ring leave them due).
const std::vector<int32_t>& window_offsets(const BoundAnchor& b);
Shape window_output(const BoundAnchor& b);  // NHWC of b.n channels
void point_window_rows(const BoundAnchor& a, const float* const* inputs);  // before_run: rows into inputs[0]
int64_t window_depth(const BoundAnchor& a);        // depth: the taps
// The windows of int8 weights (a.step.qd8), before_run: the input's
// images quantized (a.qd8_images) and the windows' offsets made.
void quantize_window_input(const BoundAnchor& a, const float* input);
Qd8Windows qd8_windows(const BoundAnchor& a);  // where output pixels read a.qd8_images
std::string describe_window(const AnchorStep& s);  // "3x3/2, "

// gemm_anchor.cc: the GEMM anchors (FULLY_CONNECTED, CONV_2D).
// What their make derives beyond AnchorStep::weights: the weights' other forms.
struct GemmStep : StepState {
  // Mostly zero (runtime/sparse_gemm.h: sparse_enough): their nonzero groups
  // for the sparse GEMM (AnchorStep::weights then null).
  const SpmmKernel* spmm = nullptr;
  std::shared_ptr<const SparseWeights> sparse;
  // Int8 (ops/dynamic_range.h): packed for the qd8 GEMM AnchorStep::qd8 (gemm and weights then null).
  std::shared_ptr<const Qd8PackedWeights> qd8_weights;
};
inline const GemmStep& gemm_step(const AnchorStep& s) { return static_cast<const GemmStep&>(*s.state); }
// A constant weight tensor's values as packing reads them: a converted
// constant's source (its float32 copy never made), else its floats.
WeightValues weight_values(const Tensor& w);
// Chooses the GEMM kernel for n columns and packs W [n x k] and bias (may be
// null): for the sparse GEMM where pack_sparse_gemm_weights takes them.
void pack_gemm_weights(const Kernels& kernels, WeightValues w, const float* bias, int n, int k, AnchorStep& a,
                       GemmStep& made);
// Packs W for the sparse GEMM if it is mostly zeros (runtime/sparse_gemm.h:
// sparse_enough) and the kernels have one; false, nothing packed, if not.
bool pack_sparse_gemm_weights(const Kernels& kernels, WeightValues w, const float* bias, int n, int k,
                              AnchorStep& a, GemmStep& made);
// Int8 weights (ops/dynamic_range.h) [n, k] (k: the rest of their axes), their
// scales and bias (qd8_scale_and_bias) packed for the qd8 GEMM (a.qd8,
// made.qd8_weights; a.n set).
void pack_qd8_weights(const Graph& g, const Node& node, const Kernels& kernels, const AnchorFolds& folds,
                      AnchorStep& a, GemmStep& made);
// bind_anchor calls it first when step.scale_input: the scale (inputs[1]) must
// hold one value per input channel; false (and *error) if not. Sizes the
// weights' scaled copy (b.state: the op's bind makes no other).
bool bind_input_scale(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error);
// before_run, with step.scale_input: the weights times this run's `scale`, one per input channel.
void scale_gemm_weights(const BoundAnchor& a, const float* scale, int channels);
// The float weights a run reads: their scaled copy with step.scale_input.
const PackedWeights& gemm_weights(const BoundAnchor& a);
// bind: rows per tile of the sparse GEMM, where it runs (else b.row_unit stays the GEMM's).
void bind_gemm_row_unit(BoundAnchor& b);
void run_gemm_panels(const BoundAnchor& a, int64_t first, int64_t count, int first_panel, int last_panel,
                     float* out);  // run_panels
void run_gemm_rows(const BoundAnchor& a, int64_t first, int64_t count, float* out);  // all panels
int gemm_panels(const BoundAnchor& a);  // panels: those of the packed weights
int64_t gemm_depth(const AnchorStep& s);  // depth: the weights' k
std::string gemm_kernel_name(const AnchorStep& s);  // describe: the kernel that runs

// conv2d_winograd.cc: output pixels [first, first + count) of a CONV_2D in
// Winograd form (`weights`), the columns of panels [first_panel, last_panel).
void run_winograd_panels(const BoundAnchor& a, const WinogradKernel& kernel, const WinogradWeights& weights,
                         int64_t first, int64_t count, int first_panel, int last_panel, float* out);

// row_ops.cc: the row ops (BATCH_MATMUL, SOFTMAX, row MEAN, RESHAPE, TRANSPOSE).
// Sets b.output to `out` and b.n to its last axis; false with "<op> does not
// fit its input ..." if there is no `out`.
bool bind_row_output(BoundAnchor& b, const std::optional<Shape>& out, const std::vector<Shape>& inputs,
                     std::string* error);
void read_whole_input(const BoundAnchor& a, const float* const* inputs);  // before_run: a.src = inputs[0]

}  // namespace fd
