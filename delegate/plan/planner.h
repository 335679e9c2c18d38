// The fusion planner: decides which nodes run fused, in which groups, and
// which fold into an anchor. Pure C++ over the IR; its output is data
// (ir/fusion_plan.h) that the front ends turn into partitions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/fusion_plan.h"
#include "ir/graph.h"
#include "ops/op_registry.h"

namespace fd {

struct PlannerOptions {
  uint32_t families = kFamilyDefault;
  // An elementwise group of n ops saves n-1 intermediate round trips, but claiming it
  // splits the runtime's own (XNNPACK) partition: one saved tensor does not pay for that
  // (measured: 2-node swish groups made EfficientNet-B0 3% slower beside XNNPACK).
  int min_nodes_per_group = 3;
};

// A MUL of an NHWC (or [rows, k]) tensor by a per-channel vector (the gate of a
// squeeze-excite block), feeding a CONV_2D or FULLY_CONNECTED: which of its
// inputs is the vector (0 or 1), or -1. Such a MUL folds into the weights
// when they are no larger than the input it saves a pass over.
int channel_scale_side(const Graph& g, const Node& mul);

// A CONV_2D's input as an affine map, channel by channel, of another tensor:
// source * scale[c] + shift[c], through a chain of MUL, ADD and SUB by constant
// scalars or per-channel vectors (a model's input normalisation), each value
// read only by the next: a fold of kind kInputAffine into node `conv`, if there
// is one (no scale is 0).
std::optional<Fold> input_affine(const Graph& g, int conv);

// A TRANSPOSE that BATCH_MATMUL node `bmm` reads as operand `i`, read by
// nothing else, and foldable into it (the first operand keeps its last axis
// and is not adj_x): the TRANSPOSE's position, or -1. The product then reads
// the TRANSPOSE's input through permuted strides, with no copy.
int folded_transpose(const Graph& g, int bmm, int i);

// Why `node` cannot join any group ("" if it can).
std::string node_legality(const Graph& g, const Node& node, uint32_t families);

FusionPlan plan_fusion(const Graph& g, const PlannerOptions& opts);

}  // namespace fd
