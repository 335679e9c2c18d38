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

// Why `node` cannot join any group ("" if it can).
std::string node_legality(const Graph& g, const Node& node, uint32_t families);

Plan plan_fusion(const Graph& g, const PlannerOptions& opts);

}  // namespace fd
