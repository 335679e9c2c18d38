// The Grappler pass "fusedelegate": GraphDef -> IR (graphdef_ir.h), the same
// planner as the TFLite delegate, then each partition of planned groups
// replaced by one FdFusedPartition node (tf_rewrite.h). A graph the pass
// cannot read is returned unchanged; reasons are logged.
#include <algorithm>
#include <cstdio>
#include <unordered_set>
#include <map>
#include <set>

#include "frontends/options.h"
#include "frontends/tf/graphdef_ir.h"
#include "frontends/tf/tf_options.h"
#include "frontends/tf/tf_rewrite.h"
#include "ir/serialize.h"
#include "plan/planner.h"
#include "tensorflow/core/grappler/costs/graph_properties.h"
#include "tensorflow/core/grappler/grappler_item.h"
#include "tensorflow/core/grappler/optimizers/custom_graph_optimizer.h"
#include "tensorflow/core/grappler/optimizers/custom_graph_optimizer_registry.h"

namespace fd {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;
using tensorflow::grappler::GrapplerItem;

void log(const Options& o, LogLevel level, const std::string& message) {
  if (static_cast<int>(level) <= static_cast<int>(o.log)) std::fprintf(stderr, "fusedelegate: %s\n", message.c_str());
}

// log="verbose": each planned group as its ops joined by '+' (constant nodes left out).
void log_groups(const Options& o, const Graph& g, const FusionPlan& plan) {
  if (o.log != LogLevel::kVerbose) return;
  for (size_t k = 0; k < plan.groups.size(); ++k) {
    std::string ops;
    for (int pos : plan.groups[k])
      if (g.nodes[pos].kind != OpKind::kConstant) ops += (ops.empty() ? "" : "+") + g.nodes[pos].name;
    log(o, LogLevel::kVerbose, "group " + std::to_string(k) + ": " + ops);
  }
}

// What static shape inference knows of every node's outputs.
// `aggressive`: also evaluate shapes computed from shapes (Shape, Pack, ...).
TfOutputInfos output_infos(const GrapplerItem& item, std::string* error, bool aggressive = false) {
  tensorflow::grappler::GraphProperties props(item);
  const absl::Status s = props.InferStatically(/*assume_valid_feeds=*/true, aggressive, aggressive, false);
  if (!s.ok()) {
    *error = "shape inference failed: " + std::string(s.message());
    return {};
  }
  TfOutputInfos infos;
  for (const NodeDef& d : item.graph.node()) {
    if (!props.HasOutputProperties(d.name())) continue;
    auto& outs = infos[d.name()];
    for (const auto& p : props.GetOutputProperties(d.name())) {
      TfOutputInfo info;
      info.dtype = dtype_from_tf(p.dtype());
      info.rank_known = !p.shape().unknown_rank();
      for (const auto& dim : p.shape().dim()) info.dims.push_back(dim.size() < 0 ? -1 : dim.size());  // -2, -3...: symbolic
      outs.push_back(info);
    }
  }
  return infos;
}

// ---- The pass.
// The item with its inputs' unknown batch made `batch` (_Arg and Placeholder
// of rank >= 2 whose other dimensions are known); false if there is none.
bool with_batch(const GrapplerItem& item, const TfOutputInfos& infos, int64_t batch, GrapplerItem* out) {
  *out = item;
  bool any = false;
  for (NodeDef& d : *out->graph.mutable_node()) {
    auto it = infos.find(d.name());
    if ((d.op() != "_Arg" && d.op() != "Placeholder") || it == infos.end() || it->second.size() != 1) continue;
    const TfOutputInfo& o = it->second[0];
    if (!o.rank_known || o.dims.size() < 2 || o.dims[0] != -1 ||
        std::count(o.dims.begin(), o.dims.end(), -1) != 1)
      continue;
    tensorflow::TensorShapeProto shape;
    for (size_t i = 0; i < o.dims.size(); ++i) shape.add_dim()->set_size(i == 0 ? batch : o.dims[i]);
    auto& attrs = *d.mutable_attr();
    attrs["_output_shapes"].mutable_list()->clear_shape();
    *attrs["_output_shapes"].mutable_list()->add_shape() = shape;
    if (d.op() == "Placeholder") *attrs["shape"].mutable_shape() = shape;
    any = true;
  }
  return any;
}

// Every output's shapes inferred at batch `batch` (shapes computed from
// shapes evaluated too); empty if there is no batch to set or inference fails.
TfOutputInfos infos_at_batch(const GrapplerItem& item, const TfOutputInfos& infos, int64_t batch) {
  GrapplerItem at;
  std::string error;
  if (!with_batch(item, infos, batch, &at)) return {};
  TfOutputInfos out = output_infos(at, &error, /*aggressive=*/true);
  return error.empty() ? out : TfOutputInfos{};
}

// Sets TfOutputInfo::planned: the shape at batch 1 where inference at batch 1
// and at batch 2 knows it whole and the two differ at most in dim 0 (so only
// the batch is open: a Tensordot's computed reshapes, say).
void add_planned_shapes(const GrapplerItem& item, TfOutputInfos* infos) {
  const TfOutputInfos one = infos_at_batch(item, *infos, 1), two = infos_at_batch(item, *infos, 2);
  auto whole = [](const TfOutputInfo& o) { return o.rank_known && std::count(o.dims.begin(), o.dims.end(), -1) == 0; };
  for (auto& [name, outs] : *infos) {
    auto a = one.find(name), b = two.find(name);
    if (a == one.end() || b == two.end() || a->second.size() != outs.size() || b->second.size() != outs.size())
      continue;
    for (size_t k = 0; k < outs.size(); ++k) {
      const Shape &s1 = a->second[k].dims, &s2 = b->second[k].dims;
      if (!whole(a->second[k]) || !whole(b->second[k]) || s1.size() != s2.size() || s1.empty()) continue;
      if (std::equal(s1.begin() + 1, s1.end(), s2.begin() + 1)) outs[k].planned = s1;
    }
  }
}

class FuseDelegatePass : public tensorflow::grappler::CustomGraphOptimizer {
 public:
  std::string name() const override { return "fusedelegate"; }
  bool UsesFunctionLibrary() const override { return false; }
  absl::Status Init(const tensorflow::RewriterConfig_CustomGraphOptimizer* config) override;
  absl::Status Optimize(tensorflow::grappler::Cluster*, const GrapplerItem& item, GraphDef* out) override;

 private:
  std::string rewrite(const GrapplerItem& item, GraphDef* out) const;
  Options opts_;
  std::string options_;  // for the kernels
};

absl::Status FuseDelegatePass::Init(const tensorflow::RewriterConfig_CustomGraphOptimizer* config) {
  std::vector<std::pair<std::string, std::string>> kv;
  if (config)
    for (const auto& [key, value] : config->parameter_map())
      kv.emplace_back(key, value.value_case() == tensorflow::AttrValue::kI ? std::to_string(value.i()) : value.s());
  const std::string error = parse_options(kv, &opts_);
  if (!error.empty()) return absl::InvalidArgumentError(error);
  options_ = join_options(kv);
  return absl::OkStatus();
}

std::string FuseDelegatePass::rewrite(const GrapplerItem& item, GraphDef* out) const {
  std::string error;
  TfOutputInfos infos = output_infos(item, &error);
  if (!error.empty()) return error;
  add_planned_shapes(item, &infos);
  const std::unordered_set<std::string> keep = item.NodesToPreserve();
  const std::set<std::string> preserve(keep.begin(), keep.end());
  const GraphDefIr ir = graph_from_graphdef(item.graph, infos, preserve);
  if (!ir.error.empty()) return ir.error;
  PlannerOptions po;
  po.families = opts_.families;
  po.min_nodes_per_group = opts_.min_nodes_per_partition;
  const FusionPlan plan = plan_fusion(ir.graph, po);
  log_groups(opts_, ir.graph, plan);
  for (size_t pos = 0; pos < ir.graph.nodes.size(); ++pos) {
    auto declined = ir.declined.find(static_cast<int>(pos));
    if (plan.group_of[pos] < 0 && ir.node_index[pos] >= 0)
      log(opts_, LogLevel::kVerbose, item.graph.node(ir.node_index[pos]).name() + " (" + ir.graph.nodes[pos].name +
                                         ") left: " + (declined != ir.declined.end() ? declined->second : plan.reason[pos]));
  }
  Rewriter rewriter(item.graph, out, ir, plan, infos, preserve, options_);
  int placed = 0, ops = 0;
  for (const std::vector<int>& part : partitions_of(ir.graph, plan)) {
    std::vector<std::vector<int>> groups;
    for (int k : part) groups.push_back(plan.groups[k]);
    std::string why = rewriter.fuse(groups);
    if (!why.empty() && groups.size() > 1) {  // one fused node per group, then
      log(opts_, LogLevel::kVerbose, "a partition of " + std::to_string(groups.size()) + " groups splits: " + why);
      for (const std::vector<int>& group : groups) {
        why = rewriter.fuse({group});
        if (!why.empty()) log(opts_, LogLevel::kInfo, "a group of " + std::to_string(group.size()) + " nodes stays: " + why);
        else ++placed, ++ops;
      }
      continue;
    }
    if (!why.empty()) log(opts_, LogLevel::kInfo, "a group of " + std::to_string(groups[0].size()) + " nodes stays: " + why);
    else placed += static_cast<int>(groups.size()), ++ops;
  }
  rewriter.drop_unread_skipped();
  log(opts_, LogLevel::kInfo, item.id + ": " + std::to_string(placed) + " of " + std::to_string(plan.groups.size()) +
                                  " fused groups placed in " + std::to_string(ops) + " fused ops, graph of " +
                                  std::to_string(item.graph.node_size()) + " nodes");
  return "";
}

absl::Status FuseDelegatePass::Optimize(tensorflow::grappler::Cluster*, const GrapplerItem& item, GraphDef* out) {
  *out = item.graph;
  std::string why;
  try {
    why = rewrite(item, out);
  } catch (const std::exception& e) {
    why = std::string("internal error: ") + e.what();
  }
  if (!why.empty()) {
    *out = item.graph;
    std::fprintf(stderr, "fusedelegate: graph %s left as it was: %s\n", item.id.c_str(), why.c_str());
  }
  return absl::OkStatus();
}

REGISTER_GRAPH_OPTIMIZER_AS(FuseDelegatePass, "fusedelegate");

}  // namespace
}  // namespace fd
