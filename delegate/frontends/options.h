// Delegate options: the same string keys wherever they come from
// (fusedelegate.load(**kw), load_delegate(path, {...}), benchmark_model's
// --external_delegate_options "k:v;k:v").
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/op_types.h"
#include "plan/planner.h"

namespace fd {

enum class LogLevel { kQuiet, kInfo, kVerbose };

struct Options {
  int num_threads = -1;  // -1: the interpreter's
  std::string isa = "auto";
  uint32_t families = kFamilyDefault;
  int min_nodes_per_partition = PlannerOptions{}.min_nodes_per_group;
  LogLevel log = LogLevel::kQuiet;
  std::string plan_file;     // where to write the fusion plan (JSON) when preparing
  std::string profile_file;  // where to write per-partition invoke times (JSON) at exit
};

// Parses key/value pairs into *out. Returns "" or a message naming the key and
// the accepted values.
std::string parse_options(const std::vector<std::pair<std::string, std::string>>& kv, Options* out);

}  // namespace fd
