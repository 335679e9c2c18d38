// How each anchor op reads its inputs: the classes the planner and the
// runtime both go by.
#pragma once

#include "ir/op_types.h"

namespace fd {

// Anchors without weights: they reduce windows of their input.
inline bool is_pool(AnchorOp op) {
  return op == AnchorOp::kMaxPool2D || op == AnchorOp::kAveragePool2D || op == AnchorOp::kMean;
}

// Anchors of family transformer: no constant weights, work on rows (the last axis).
inline bool is_row_op(AnchorOp op) {
  return op == AnchorOp::kBatchMatMul || op == AnchorOp::kSoftmax || op == AnchorOp::kRowMean ||
         op == AnchorOp::kReshape || op == AnchorOp::kTranspose;
}

// Row ops that read their input row by row: the input may be computed in
// their own group, one tile of whole rows at a time (a prologue).
inline bool reads_tile_rows(AnchorOp op) { return op == AnchorOp::kSoftmax || op == AnchorOp::kRowMean; }

// Anchors that read windows of an NHWC input: a PAD can fold into them.
inline bool reads_windows(AnchorOp op) {
  return op == AnchorOp::kConv2D || op == AnchorOp::kDepthwiseConv2D || op == AnchorOp::kMaxPool2D ||
         op == AnchorOp::kAveragePool2D;
}

// Anchors alone in their group: no epilogue joins a CONCATENATION, whose
// output its producers may write in place.
inline bool stands_alone(AnchorOp op) { return op == AnchorOp::kConcatenation; }

}  // namespace fd
