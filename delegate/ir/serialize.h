// A fused partition as a string, so that a program can be rebuilt elsewhere
// (e.g. a TF custom op from a string attribute): the nodes of some groups,
// every tensor they touch (constants with their bytes), the groups, the
// folds within them and the slice writes between them.
//
// The parsed sub-graph is renumbered: its nodes are the groups' nodes in their
// original (execution) order, its tensors the touched ones in ascending
// original index; groups, folds and node inputs/outputs use the new numbers.
// node_origin / tensor_origin give the original position of each. Node::id
// (the front end's node index) is kept as is. Folds not wholly inside the
// groups are dropped. Constants are owned by the parsed graph.
//
// Format (all integers little-endian):
//   "FDPART\0\0"  u32 version  u64 payload bytes  u64 FNV-1a 64 of the payload
//   payload: tensors, nodes, groups, folds, slice writes, tensor_origin, node_origin.
// An anchor's or a PAD's own parameters (a presence byte, then OpParams::write) follow its
// fields, before its tensors.
// Floats are stored as their bit patterns; vectors and strings as a u32
// count then the elements; a constant's bytes as a u64 count then the bytes;
// enums as one byte, their number (so new enum values go last, or the
// version goes up).
//
// Parsing refuses a string that is truncated or corrupt (checksum), of another
// version, or whose references (tensors, nodes, folds), enum values or float32
// constant sizes do not hold together. It does not re-run the planner's
// legality: a consumer of strings it does not trust should (node_legality).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/fusion_plan.h"
#include "ir/graph.h"

namespace fd {

constexpr uint32_t kPartitionFormatVersion = 10;

struct PartitionGraph {
  Graph graph;                           // renumbered (see above)
  std::vector<std::vector<int>> groups;  // positions in graph.nodes
  std::vector<Fold> folds;               // positions and tensors of graph
  std::vector<SliceWrite> slice_writes;  // positions of graph
  std::vector<int> tensor_origin;        // per tensor of graph: its index in the original graph
  std::vector<int> node_origin;          // per node of graph: its position in the original graph
};

// The groups (valid node positions of g) and the folds within them, as bytes.
std::string serialize_partition(const Graph& g, const std::vector<std::vector<int>>& groups,
                                const std::vector<Fold>& folds, const std::vector<SliceWrite>& slice_writes = {});

// The inverse, each op's parameters read by `read_params` (ops/op_registry.h:
// read_anchor_params); nothing (and *error set) if `bytes` is truncated,
// corrupt, of another version, or does not describe a consistent partition.
std::optional<PartitionGraph> parse_partition(const std::string& bytes, ParamsReader read_params, std::string* error);

}  // namespace fd
