#include "runtime/report.h"

#include <cstdio>
#include <set>

#include "ir/shape.h"

namespace fd {
namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
    else out += c;
  }
  return out + "\"";
}

template <class T> std::string list(const std::vector<T>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

// The front end's ids of nodes at `positions`, each once (a SPLIT's nodes, one per output, share one).
std::vector<int> ids(const Graph& g, const std::vector<int>& positions) {
  std::vector<int> out;
  for (int p : positions)
    if (out.empty() || out.back() != g.nodes[p].id) out.push_back(g.nodes[p].id);
  return out;
}

const char* fold_kind_name(FoldKind k) {
  switch (k) {
    case FoldKind::kPad: return "pad";
    case FoldKind::kChannelScale: return "channel_scale";
    case FoldKind::kInputAffine: return "input_affine";
    case FoldKind::kTranspose: return "transpose";
    case FoldKind::kConstant: return "constant";
    case FoldKind::kOutputAffine: return "output_affine";
    case FoldKind::kSwish: return "swish";
    case FoldKind::kMultiplyAdd: return "multiply_add";
    case FoldKind::kSquare: return "square";
    case FoldKind::kSqrt: return "sqrt";
  }
  return "?";
}

// The plan's folds: which nodes (ids) run inside which anchor.
std::string folds_json(const Graph& g, const FusionPlan& plan) {
  std::string s = " \"folds\": [";
  for (size_t i = 0; i < plan.folds.size(); ++i) {
    const Fold& f = plan.folds[i];
    s += std::string(i ? "," : "") + "\n  {\"kind\": " + quote(fold_kind_name(f.kind)) +
         ", \"into\": " + std::to_string(g.nodes[f.anchor].id) + ", \"nodes\": " + list(ids(g, f.nodes)) + "}";
  }
  return s + (plan.folds.empty() ? "],\n" : "\n ],\n");
}

// The plan's slice writes: which producers (ids) write their output straight
// into which input of a CONCATENATION.
std::string slice_writes_json(const Graph& g, const FusionPlan& plan) {
  std::string s = " \"slice_writes\": [";
  for (size_t i = 0; i < plan.slice_writes.size(); ++i) {
    const SliceWrite& w = plan.slice_writes[i];
    s += std::string(i ? "," : "") + "\n  {\"producer\": " + std::to_string(g.nodes[w.producer].id) +
         ", \"concat\": " + std::to_string(g.nodes[w.concat].id) + ", \"operand\": " + std::to_string(w.operand) +
         "}";
  }
  return s + (plan.slice_writes.empty() ? "],\n" : "\n ],\n");
}

// Which partition each node (by position) is in, or -1.
std::vector<int> partition_of_nodes(const Graph& g, const std::vector<PartitionReport>& parts) {
  std::vector<int> partition_of(g.nodes.size(), -1);
  for (size_t k = 0; k < parts.size(); ++k)
    for (int pos : parts[k].nodes) partition_of[pos] = static_cast<int>(k);
  return partition_of;
}

// Every node: its partition, its group, whether it rounds as the builtin
// kernels (FusionPlan::rounds_as_builtin) and, unclaimed, why.
std::string nodes_json(const Graph& g, const FusionPlan& plan, const std::vector<int>& partition_of) {
  std::string s = " \"nodes\": [\n";
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const bool rounded = i < plan.rounds_as_builtin.size() && plan.rounds_as_builtin[i];
    s += "  {\"id\": " + std::to_string(n.id) + ", \"op\": " + quote(n.name) + ", \"inputs\": " + list(n.inputs) +
         ", \"outputs\": " + list(n.outputs) + ", \"partition\": " + std::to_string(partition_of[i]) +
         ", \"group\": " + std::to_string(plan.group_of[i]) +
         ", \"reason\": " + quote(partition_of[i] >= 0 ? "" : plan.reason[i]) +
         ", \"rounds_as_builtin\": " + (rounded ? "true" : "false") +
         "}" +
         (i + 1 < g.nodes.size() ? ",\n" : "\n");
  }
  return s + " ],\n";
}

// Every tensor a node reads or writes, by index.
std::string tensors_json(const Graph& g) {
  std::set<int> tensors;
  for (const Node& n : g.nodes) {
    tensors.insert(n.inputs.begin(), n.inputs.end());
    tensors.insert(n.outputs.begin(), n.outputs.end());
  }
  std::string s = " \"tensors\": {";
  bool first = true;
  for (int t : tensors) {
    const Tensor& ten = g.tensors[t];
    s += std::string(first ? "\n" : ",\n") + "  " + quote(std::to_string(t)) + ": {\"shape\": " + list(ten.shape) +
         ", \"float32\": " + (ten.is_f32() ? "true" : "false") + ", \"constant\": " +
         (ten.is_constant ? "true" : "false") + "}";
    first = false;
  }
  return s + "\n },\n";
}

int64_t bytes_saved(const PartitionReport& r) {
  int64_t saved = 0;
  for (size_t j = 0; j < r.programs.size(); ++j) saved += r.group_bytes_saved[j];
  return saved;
}

// A partition's nodes and fused groups.
std::string partition_json(const Graph& g, const PartitionReport& r) {
  std::string s = "  {\"nodes\": " + list(ids(g, r.nodes)) + ", \"groups\": [\n";
  for (size_t j = 0; j < r.programs.size(); ++j)
    s += "   {\"nodes\": " + list(ids(g, r.group_nodes[j])) + ", \"inputs\": " + list(r.group_inputs[j]) +
         ", \"outputs\": " + list(r.group_outputs[j]) + ", \"bytes_saved\": " +
         std::to_string(r.group_bytes_saved[j]) + ", \"program\": " + quote(r.programs[j]) + "}" +
         (j + 1 < r.programs.size() ? ",\n" : "\n");
  return s + "  ], \"bytes_saved\": " + std::to_string(bytes_saved(r)) + "}";
}

std::string partitions_json(const Graph& g, const std::vector<PartitionReport>& parts) {
  std::string s = " \"partitions\": [\n";
  for (size_t k = 0; k < parts.size(); ++k)
    s += partition_json(g, parts[k]) + (k + 1 < parts.size() ? ",\n" : "\n");
  return s + " ],\n";
}

std::string summary_json(const Graph& g, const std::vector<PartitionReport>& parts,
                         const std::vector<int>& partition_of) {
  std::set<int> ops, claimed;  // the front end's ops (a SPLIT's nodes, one per output, are one)
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ops.insert(g.nodes[i].id);
    if (partition_of[i] >= 0) claimed.insert(g.nodes[i].id);
  }
  int64_t total_saved = 0;
  for (const PartitionReport& r : parts) total_saved += bytes_saved(r);
  return " \"summary\": {\"nodes\": " + std::to_string(ops.size()) + ", \"claimed\": " +
         std::to_string(claimed.size()) + ", \"partitions\": " + std::to_string(parts.size()) +
         ", \"bytes_saved\": " + std::to_string(total_saved) + "}\n";
}

}  // namespace

int64_t intermediate_bytes_saved(const Graph& g, const std::vector<int>& group, const Program& p) {
  const std::set<int> written(p.outputs.begin(), p.outputs.end());
  int64_t saved = 0;
  for (int pos : group) {
    const int t = g.nodes[pos].outputs[0];
    if (written.count(t) || g.nodes[pos].kind == OpKind::kConstant) continue;  // weights: made once
    int reads = 0;
    for (int q : group)
      for (int in : g.nodes[q].inputs) reads += in == t;
    saved += num_elements(g.tensors[t].shape) * static_cast<int64_t>(dtype_size(g.tensors[t].dtype)) * (1 + reads);
  }
  return saved;
}

std::string plan_json(const Graph& g, const FusionPlan& plan, const std::vector<PartitionReport>& parts,
                      const std::string& isa, int threads) {
  const std::vector<int> partition_of = partition_of_nodes(g, parts);
  return "{\n \"isa\": " + quote(isa) + ",\n \"threads\": " + std::to_string(threads) + ",\n" +
         nodes_json(g, plan, partition_of) + tensors_json(g) + partitions_json(g, parts) + folds_json(g, plan) +
         slice_writes_json(g, plan) +
         summary_json(g, parts, partition_of) + "}\n";
}

std::string profile_json(const Graph& g, const std::vector<PartitionReport>& parts) {
  std::string s = "{\"partitions\": [\n";
  for (size_t k = 0; k < parts.size(); ++k) {
    const PartitionReport& r = parts[k];
    std::string ops = "[";
    for (size_t i = 0; i < r.nodes.size(); ++i) ops += (i ? "," : "") + quote(g.nodes[r.nodes[i]].name);
    std::string programs = "[";
    for (size_t i = 0; i < r.program_ops.size(); ++i)
      programs += std::string(i ? ", " : "") + "{\"ops\": " + quote(r.program_ops[i]) +
                  ", \"seconds\": " + number(r.program_seconds[i]) +
                  (i < r.program_strip_rows.size() && r.program_strip_rows[i]
                       ? ", \"depth_first_strip_rows\": " + std::to_string(r.program_strip_rows[i])
                       : std::string()) +
                  "}";
    s += " {\"nodes\": " + list(ids(g, r.nodes)) + ", \"ops\": " + ops + "], \"invokes\": " +
         std::to_string(r.invokes) + ", \"seconds\": " + number(r.seconds) + ", \"programs\": " + programs + "]}" +
         (k + 1 < parts.size() ? ",\n" : "\n");
  }
  return s + "]}\n";
}

std::string write_text_file(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return "cannot open " + path + " for writing";
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && ok ? "" : "cannot write " + path;
}

}  // namespace fd
