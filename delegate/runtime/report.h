// What the delegate decided (the plan) and measured (per-partition times), as
// JSON: read by `fusedelegate plan` and `fusedelegate bench --op_profile`.
#pragma once

#include <string>
#include <vector>

#include "ir/fusion_plan.h"
#include "runtime/program.h"

namespace fd {

struct PartitionReport {
  std::vector<int> nodes;                      // graph positions, execution order
  std::vector<std::vector<int>> group_nodes;   // per fused program
  std::vector<std::string> programs;           // Program::to_string()
  std::vector<std::vector<int>> group_inputs, group_outputs;  // tensors
  std::vector<int64_t> group_bytes_saved;
  int64_t invokes = 0;
  double seconds = 0;
  // Per bound program (a fused group, or one node where a group runs node by
  // node): its ops joined by '+', and its time over all invokes.
  std::vector<std::string> program_ops;
  std::vector<double> program_seconds;
  std::vector<int64_t> program_strip_rows;  // run depth-first in strips of this many rows; 0: whole
};

// Memory traffic a fused program avoids: every intermediate it keeps in tiles
// would have been written once and read by each consumer.
int64_t intermediate_bytes_saved(const Graph& g, const std::vector<int>& group, const Program& p);

std::string plan_json(const Graph& g, const FusionPlan& plan, const std::vector<PartitionReport>& parts,
                      const std::string& isa, int threads);
std::string profile_json(const Graph& g, const std::vector<PartitionReport>& parts);

// Writes text to path; returns "" or why not.
std::string write_text_file(const std::string& path, const std::string& text);

}  // namespace fd
