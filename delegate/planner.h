// The fusion planner: decides which nodes run fused, and in which groups.
// Pure C++ over the IR; the front ends turn its groups into partitions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir.h"

namespace fd {

struct PlannerOptions {
  uint32_t families = kFamilyDefault;
  // An elementwise group of n ops saves n-1 intermediate round trips, but claiming it
  // splits the runtime's own (XNNPACK) partition: one saved tensor does not pay for that
  // (measured: 2-node swish groups made EfficientNet-B0 3% slower beside XNNPACK).
  int min_nodes_per_group = 3;
};

struct Plan {
  // Groups of node positions (indices into Graph::nodes), each in execution order.
  std::vector<std::vector<int>> groups;
  std::vector<int> group_of;        // per node: its group, or -1
  std::vector<std::string> reason;  // per node: why it is not claimed ("" if claimed)
};

// A MUL of an NHWC (or [rows, k]) tensor by a per-channel vector (the gate of a
// squeeze-excite block), feeding a CONV_2D or FULLY_CONNECTED: which of its
// inputs is the vector (0 or 1), or -1. Such a MUL folds into the weights
// when they are no larger than the input it saves a pass over.
int channel_scale_side(const Graph& g, const Node& mul);

// A CONV_2D's input as an affine map, channel by channel, of another tensor:
// source * scale[c] + shift[c], through a chain of MUL, ADD and SUB by constant
// scalars or per-channel vectors (a model's input normalisation), each value
// read only by the next. It folds into the weights, bias and padding.
struct ChannelAffine {
  std::vector<int> nodes;  // the chain, in execution order
  int source = -1;         // the tensor the chain starts from
  std::vector<float> scale, shift;
};
// The chain ending at node `conv`'s input, if there is one (no scale is 0).
std::optional<ChannelAffine> input_affine(const Graph& g, int conv);

// A TRANSPOSE that BATCH_MATMUL node `bmm` reads as operand `i`, read by
// nothing else, and foldable into it (the first operand keeps its last axis
// and is not adj_x): the TRANSPOSE's position, or -1. The product then reads
// the TRANSPOSE's input through permuted strides, with no copy.
int folded_transpose(const Graph& g, int bmm, int i);

// Why `node` cannot join any group ("" if it can).
std::string node_legality(const Graph& g, const Node& node, uint32_t families);

Plan plan_fusion(const Graph& g, const PlannerOptions& opts);

}  // namespace fd
