// The op registry: what the planner and the runtime know of each anchor op,
// one row per op (the elementwise ops are one list in ir/op_types.h), each
// row an AnchorInfo defined in the op's own file of ops/ beside its
// parameters and rules. The planner reads these rows, never op names; the
// runtime's steps per op live in runtime/anchors/.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ir/graph.h"
#include "ir/op_types.h"
#include "ir/wire.h"

namespace fd {

// Fusion families a user can switch on and off (option `fusions`).
enum Family : uint32_t {
  kFamilyElementwise = 1u << 0,
  kFamilyFullyConnected = 1u << 1,  // FULLY_CONNECTED with its elementwise epilogue
  kFamilyConv = 1u << 2,            // CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, pools, spatial MEAN, PADs before them
  kFamilyTransformer = 1u << 3,     // BATCH_MATMUL, SOFTMAX, last-axis MEAN, RESHAPE, EXPAND_DIMS, SQUEEZE, TRANSPOSE
  kFamilyAll = kFamilyElementwise | kFamilyFullyConnected | kFamilyConv | kFamilyTransformer,
  // On by default: every family. What runs slower fused than in the runtime's
  // kernels is declined by the planner's policy, not by a family.
  kFamilyDefault = kFamilyAll,
  // Off unless named (not in "all"): int8 CONV_2D and DEPTHWISE_CONV_2D in fusedelegate's own kernels,
  // exact but slower than XNNPACK's so far (docs/ops.md), for tests and tuning.
  kFamilyInt8Conv = 1u << 4,
};

// How an op reads its inputs.
enum class Pattern : uint8_t {
  kMatmul,     // rows times a matrix: FULLY_CONNECTED, BATCH_MATMUL
  kWindowed,   // windows of an NHWC input: convolutions, pools
  kReduction,  // an axis reduced: MEAN
  kRowWise,    // each row (the last axis) on its own: SOFTMAX
  kView,       // values moved (or interpolated), not computed: PAD, TRANSPOSE, CONCATENATION, resizes,
               // the index views (SLICE, GATHER, ...)
  kRelabel,    // the same values in the same order under another shape: RESHAPE, EXPAND_DIMS, SQUEEZE
  kSpread,     // each input pixel spread over a window of a larger output: TRANSPOSE_CONV (no PAD folds in)
};

// What the planner and the runtime may do with an op: AnchorInfo::traits.
enum Trait : uint32_t {
  kConstantWeights = 1u << 0,  // its second (and third: bias) input is a constant
  kRowOp = 1u << 1,            // no weights, works on rows of the last axis (family transformer)
  kReadsTileRows = 1u << 2,    // may read whole rows of its own group's tile (a prologue)
  kStandsAlone = 1u << 3,      // alone in its group: no epilogue joins it
  kOneValuePerRow = 1u << 4,   // its output is one value per input row (a row reduction)
  kPartsInPlace = 1u << 5,     // its producers may write its parts in place in its output (CONCATENATION)
  // Folds (plan/folds.cc) it takes: an input map x * scale + shift per channel
  // (the values its padding taps read follow), a per-channel input scale, a
  // TRANSPOSE before either operand (read through permuted strides).
  kFoldsInputAffine = 1u << 6,
  kFoldsChannelScale = 1u << 7,
  kFoldsOperandTranspose = 1u << 8,
};

struct AnchorInfo {
  const char* name;  // for plans and messages
  Pattern pattern;
  uint32_t families;            // claimed when any of these is on
  int min_inputs, max_inputs;   // max_inputs -1: variadic
  uint32_t traits;              // Trait bits
  bool has(Trait t) const { return (traits & t) != 0; }
  // The op's own legality, after the checks every anchor shares (family,
  // arity, activation, dtypes): its parameters, weights and the output it
  // gives at the node's input shapes; "" if it fits, else why not.
  std::string (*rule)(const Graph& g, const Node& node);
  // Whether it binds to an input shape known only at run time (a RESHAPE to a
  // computed shape: ops/rule_helpers.h); null: never.
  bool (*takes_run_time_shapes)(const Node& node);
  // Reads back what its OpParams::write wrote; null: the op has no OpParams.
  std::shared_ptr<const OpParams> (*read_params)(WireReader& r);
};

const AnchorInfo& anchor_info(AnchorOp op);

// The ParamsReader of ir/serialize.h: `op`'s read_params (none: null, nothing read).
std::shared_ptr<const OpParams> read_anchor_params(AnchorOp op, WireReader& r);

}  // namespace fd
