// The fusion planner: decides which nodes run fused, and in which groups.
// Pure C++ over the IR; the front ends turn its groups into partitions.
#pragma once

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

// Why `node` cannot join any group ("" if it can).
std::string node_legality(const Graph& g, const Node& node, uint32_t families);

Plan plan_fusion(const Graph& g, const PlannerOptions& opts);

}  // namespace fd
