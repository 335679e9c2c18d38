// Nodes that share a front-end op (SPLIT: one IR node per output, all with the
// op's id) are claimed together or not at all: the runtime replaces the whole
// op or leaves it. A group holding a node whose sibling is left is left too.
#include <map>

#include "plan/passes.h"

namespace fd {
namespace {

// Leaves group k, each member with `why`.
void leave_group(FusionPlan* plan, int k, const std::string& why) {
  for (int m : plan->groups[k]) {
    plan->group_of[m] = -1;
    plan->reason[m] = why;
  }
}

// Keeps the groups with a member still claimed, renumbered.
void drop_left_groups(FusionPlan* plan) {
  std::vector<std::vector<int>> kept;
  for (auto& group : plan->groups) {
    if (plan->group_of[group[0]] < 0) continue;
    for (int m : group) plan->group_of[m] = static_cast<int>(kept.size());
    kept.push_back(std::move(group));
  }
  plan->groups = std::move(kept);
}

}  // namespace

void claim_siblings_together(const Graph& g, FusionPlan* plan) {
  std::map<int, std::vector<int>> siblings;  // front-end id -> its nodes
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].id >= 0) siblings[g.nodes[i].id].push_back(static_cast<int>(i));
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [id, nodes] : siblings) {
      int left = -1;
      for (int m : nodes)
        if (plan->group_of[m] < 0) left = m;
      if (left < 0 || nodes.size() < 2) continue;
      const std::string why = "policy: another output of " + g.nodes[left].name + " is left (" +
                              plan->reason[left] + ")";
      for (int m : nodes)
        if (plan->group_of[m] >= 0) {
          leave_group(plan, plan->group_of[m], why);
          changed = true;
        }
    }
  }
  drop_left_groups(plan);
}

}  // namespace fd
