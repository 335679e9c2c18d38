// The TF pass's rewrite: planned groups of a GraphDef, merged into partitions,
// each replaced by one FdFusedPartition node. Readers outside a partition are
// rewired to the fused node's outputs; a preserved (fetched) member keeps its
// name as an Identity of its output. A partition the rewrite cannot make safe
// stays as it was (the caller may try its groups one by one).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "frontends/tf/graphdef_ir.h"
#include "ir/fusion_plan.h"
#include "tensorflow/core/framework/graph.pb.h"

namespace fd {

// Lists of indices into plan.groups: groups that exchange a tensor merge
// while their union stays convex in the IR (no path leaves it and comes back).
std::vector<std::vector<int>> partitions_of(const Graph& g, const FusionPlan& plan);

// Replaces partitions one at a time, each seeing the graph as the earlier ones left it.
class Rewriter {
 public:
  Rewriter(const tensorflow::GraphDef& original, tensorflow::GraphDef* gd, const GraphDefIr& ir,
           const FusionPlan& plan, const TfOutputInfos& infos, const std::set<std::string>& preserve,
           const std::string& options);
  // Replaces the groups (of plan_.groups) by one fused node: "" or why they stay.
  std::string fuse(const std::vector<std::vector<int>>& groups);
  // Removes the translation's skipped nodes that nothing reads any more.
  void drop_unread_skipped();

 private:
  std::string members_of(const std::vector<int>& group, std::set<std::string>* members) const;
  std::string inputs_of(const std::vector<int>& group, const std::set<int>& produced, std::vector<int>* in) const;
  std::string outputs_of(const std::set<std::string>& members, const std::set<int>& produced,
                         std::vector<int>* out) const;
  bool creates_cycle(const std::set<std::string>& members, const tensorflow::NodeDef& fused) const;
  void absorb_identities(std::set<std::string>* members) const;
  std::string fused_node(const std::vector<std::vector<int>>& groups, std::set<std::string>* members,
                         const std::vector<int>& in, const std::vector<int>& out, tensorflow::NodeDef* fused) const;
  std::vector<int> constants_made_outside(const std::vector<int>& group) const;
  std::map<std::string, std::vector<std::string>> readers() const;
  std::string weight_inputs(const std::vector<int>& group, const std::map<int, int>& renumbered,
                            std::set<std::string>* members, tensorflow::NodeDef* fused) const;
  void control_inputs(const std::set<std::string>& members, tensorflow::NodeDef* fused) const;
  void output_shapes(const std::vector<int>& out, tensorflow::NodeDef* fused) const;
  void replace(const std::set<std::string>& members, const tensorflow::NodeDef& fused, const std::vector<int>& out);
  std::string unique_name(const std::string& base) const;

  tensorflow::GraphDef* gd_;
  const GraphDefIr& ir_;
  const FusionPlan& plan_;
  const TfOutputInfos& infos_;
  const std::set<std::string>& preserve_;
  std::string options_;
  std::vector<std::string> names_;                 // per original tensorflow::GraphDef index
  std::map<std::string, const tensorflow::NodeDef*> original_; // by name
  std::map<int, std::vector<int>> positions_of_;   // original tensorflow::GraphDef index -> its IR nodes
  std::map<std::string, std::string> rewired_;     // "name:k" of a replaced output -> "fused:i"
  std::vector<int> producer_;                      // per IR tensor: the node computing it, or -1
  Graph serial_;  // the IR as serialized: run-time weights carry no values (the kernel fills them)
};

}  // namespace fd
