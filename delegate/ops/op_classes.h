// How each anchor op reads its inputs: the classes the planner and the
// runtime both go by, read off the op registry.
#pragma once

#include "ops/op_registry.h"

namespace fd {

// Anchors without weights that reduce windows of their input.
inline bool is_pool(AnchorOp op) {
  const AnchorInfo& a = anchor_info(op);
  return !a.has(kConstantWeights) && !a.has(kRowOp) && (a.pattern == Pattern::kWindowed || a.pattern == Pattern::kReduction);
}

// Anchors of family transformer: no constant weights, work on rows (the last axis).
inline bool is_row_op(AnchorOp op) { return anchor_info(op).has(kRowOp); }

// Row ops that read their input row by row: the input may be computed in
// their own group, one tile of whole rows at a time (a prologue).
inline bool reads_tile_rows(AnchorOp op) { return anchor_info(op).has(kReadsTileRows); }

// Anchors that read windows of an NHWC input: a PAD can fold into them.
inline bool reads_windows(AnchorOp op) { return anchor_info(op).pattern == Pattern::kWindowed; }

// Anchors that keep their input's values in order under another shape
// (RESHAPE, EXPAND_DIMS, SQUEEZE): a copy, or an alias of the input.
inline bool relabels(AnchorOp op) { return anchor_info(op).pattern == Pattern::kRelabel; }

// Anchors alone in their group: no epilogue joins a CONCATENATION, whose
// output its producers may write in place.
inline bool stands_alone(AnchorOp op) { return anchor_info(op).has(kStandsAlone); }

}  // namespace fd
