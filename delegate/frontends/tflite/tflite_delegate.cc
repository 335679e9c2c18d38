// The TFLite front end: context -> IR, plan -> partitions, and the partition
// kernel that runs the fused programs. Plus the two plugin entry points.
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "kernels/cpu.h"
#include "ops/op_classes.h"
#include "ops/shape_rules.h"
#include "runtime/executor.h"
#include "frontends/options.h"
#include "plan/planner.h"
#include "runtime/program.h"
#include "runtime/report.h"
#include "runtime/thread_pool.h"
#include "frontends/tflite/tflite_abi.h"
#include "frontends/tflite/tflite_ops.h"
#include "frontends/tflite/tflite_tensors.h"
#include "frontends/tflite/tflite_weights.h"

namespace fd {
namespace {

// The delegate's state; TfLiteDelegate is its first member.
struct Delegate {
  TfLiteDelegate base{};
  Options opts;
  const Kernels* kernels = nullptr;
  ThreadPools pools;
  // Handed from Prepare to the kernels' init, which runs inside Replace...().
  std::shared_ptr<const Graph> graph;
  FusionPlan plan;
  std::map<int, std::vector<int>> position_of_node;  // TFLite node index -> its graph positions (SPLIT: several)
  std::vector<PartitionReport> reports;  // one per partition kernel, for plan and profile
};

Delegate* state(TfLiteDelegate* d) { return static_cast<Delegate*>(d->data_); }

void log(const Delegate& d, LogLevel level, const char* fmt, ...) {
  if (static_cast<int>(level) > static_cast<int>(d.opts.log)) return;
  std::va_list args;
  va_start(args, fmt);
  std::fprintf(stderr, "fusedelegate: ");
  std::vfprintf(stderr, fmt, args);
  std::fprintf(stderr, "\n");
  va_end(args);
}

// The option's thread count, else the interpreter's (-1 there means one).
int thread_count(const Options& o, const TfLiteContext* ctx) {
  return o.num_threads > 0 ? o.num_threads : std::max(1, ctx->recommended_num_threads);
}

TfLiteIntArray* int_array(const std::vector<int>& v) {
  auto* a = static_cast<TfLiteIntArray*>(std::malloc(sizeof(TfLiteIntArray) + v.size() * sizeof(int)));
  a->size = static_cast<int>(v.size());
  for (size_t i = 0; i < v.size(); ++i) a->data[i] = v[i];
  return a;
}

bool sane_array(const TfLiteIntArray* a, size_t tensors) {
  if (!a || a->size < 0 || a->size > 4096) return false;
  for (int i = 0; i < a->size; ++i)
    if (a->data[i] < -1 || a->data[i] >= static_cast<int64_t>(tensors)) return false;
  return true;
}

// A cheap check that the runtime's structs look like the ones we declared.
// Returns "" or what looks wrong.
std::string check_abi(TfLiteContext* ctx, TfLiteIntArray* plan) {
  if (!ctx->tensors || ctx->tensors_size > (1u << 26)) return "implausible tensor table";
  if (!plan || plan->size < 0 || plan->size > (1 << 24)) return "implausible execution plan";
  for (size_t i = 0; i < ctx->tensors_size; ++i) {
    const TfLiteTensor& t = ctx->tensors[i];
    if (t.type < 0 || t.type > 32 || t.allocation_type < 0 || t.allocation_type > 16)
      return "tensor " + std::to_string(i) + " has an unknown type or allocation type";
    if (t.dims && (t.dims->size < 0 || t.dims->size > 16))
      return "tensor " + std::to_string(i) + " has an implausible rank";
    if (t.sparsity && (t.sparsity->dim_metadata_size < 0 || t.sparsity->dim_metadata_size > 64))
      return "tensor " + std::to_string(i) + " has implausible sparsity parameters";
    if (t.type == kTfLiteFloat32 && t.allocation_type == kTfLiteMmapRo && t.dims && t.data && !t.sparsity &&
        t.bytes != sizeof(float) * static_cast<size_t>(num_elements(shape_of(t))))
      return "tensor " + std::to_string(i) + ": size in bytes does not match its shape";
  }
  for (int i = 0; i < plan->size; ++i) {
    TfLiteNode* node = nullptr;
    TfLiteRegistration* reg = nullptr;
    if (ctx->GetNodeAndRegistration(ctx, plan->data[i], &node, &reg) != kTfLiteOk || !node || !reg)
      return "cannot read node " + std::to_string(plan->data[i]);
    if (!sane_array(node->inputs, ctx->tensors_size) || !sane_array(node->outputs, ctx->tensors_size))
      return "node " + std::to_string(plan->data[i]) + " has implausible inputs or outputs";
    if (reg->builtin_code < 0 || reg->builtin_code > 100000)
      return "node " + std::to_string(plan->data[i]) + " has an implausible op code";
  }
  return "";
}

DType dtype_of(TfLiteType t) {
  switch (t) {
    case kTfLiteFloat32: return DType::kF32;
    case kTfLiteFloat16: return DType::kF16;
    case kTfLiteInt8: return DType::kI8;
    case kTfLiteUInt8: return DType::kU8;
    case kTfLiteInt32: return DType::kI32;
    case kTfLiteInt64: return DType::kI64;
    case kTfLiteBool: return DType::kBool;
    default: return DType::kOther;
  }
}

// One tensor of the context in the IR. Constants borrow the model's bytes,
// except sparse ones (their bytes are the stored values only, not the shape's):
// a DENSIFY or a FULLY_CONNECTED reading them densifies them (tflite_weights.cc).
// Quantization is read where its arrays fit the shape.
Tensor tensor_from_tflite(const TfLiteTensor& t) {
  Tensor out;
  out.dtype = dtype_of(t.type);
  out.is_constant = t.allocation_type == kTfLiteMmapRo;
  out.has_dynamic_shape = t.allocation_type == kTfLiteDynamic || !t.dims;
  out.shape = shape_of(t);
  if (t.dims_signature && t.dims_signature->size == static_cast<int>(out.shape.size()))
    out.signature.assign(t.dims_signature->data, t.dims_signature->data + t.dims_signature->size);
  out.quantization = quantization_of(t, out.shape);
  if (out.is_constant && t.data && !t.sparsity) out.data = ConstantData::borrow(t.data, t.bytes);
  return out;
}

// The weight formats the front end reads (tflite_weights.h) for node n at
// graph position `pos`; why it declines one goes into *declined.
void read_weights(TfLiteContext* ctx, int code, int pos, Node* n, Graph* g, std::map<int, std::string>* declined) {
  std::string why;
  if (n->kind == OpKind::kConstant) why = constant_node_values(ctx->tensors, code, *n, g);
  if (!why.empty()) n->kind = OpKind::kOpaque;
  dequantize_int8_weights(*n, g);
  if (why.empty()) why = densify_fully_connected_weights(ctx->tensors, *n, g);
  if (!why.empty()) (*declined)[pos] = why;
}

// A RESHAPE to a shape computed at run time (SHAPE, PACK, ...) that the front
// end could not read (signature_dims): its output's shape is known only then
// (TFLite prepares the ops after it when it runs), where its signature leaves
// an axis open; so are the outputs of the ops that derive their shape from
// such an input: FULLY_CONNECTED's rows, EXPAND_DIMS and SQUEEZE (a RESHAPE the
// front end read fixes all but its one inferred axis, as an open batch does).
// Other open axes are as any other: the partition binds again when they change.
void mark_run_time_shapes(TfLiteContext* ctx, int code, const Node& n, Graph* g) {
  const bool derives = code == kTfLiteBuiltinFullyConnected || code == kTfLiteBuiltinExpandDims ||
                       code == kTfLiteBuiltinSqueeze;
  if (derives && !n.inputs.empty() && g->tensors[n.inputs[0]].has_dynamic_shape)
    for (int t : n.outputs) g->tensors[t].has_dynamic_shape = true;
  if (code != kTfLiteBuiltinReshape || n.inputs.size() != 2 || g->tensors[n.inputs[1]].is_constant) return;
  for (int t : n.outputs) {
    const TfLiteIntArray* sig = ctx->tensors[t].dims_signature;
    const bool open = !sig || sig->size == 0 || std::count(sig->data, sig->data + sig->size, -1) > 0;
    if (open) g->tensors[t].has_dynamic_shape = true;
  }
}

// The context's nodes and tensors as our IR; `position` maps a node index to
// its graph position, `declined` says why the front end left some nodes.
Graph graph_from_context(TfLiteContext* ctx, TfLiteIntArray* plan, std::map<int, std::vector<int>>* position,
                         std::map<int, std::string>* declined) {
  Graph g;
  g.tensors.reserve(ctx->tensors_size);
  for (size_t i = 0; i < ctx->tensors_size; ++i) g.tensors.push_back(tensor_from_tflite(ctx->tensors[i]));
  for (int i = 0; i < plan->size; ++i) {
    TfLiteNode* node = nullptr;
    TfLiteRegistration* reg = nullptr;
    ctx->GetNodeAndRegistration(ctx, plan->data[i], &node, &reg);
    Node n;
    n.id = plan->data[i];
    n.inputs.assign(node->inputs->data, node->inputs->data + node->inputs->size);
    n.outputs.assign(node->outputs->data, node->outputs->data + node->outputs->size);
    const TfLiteOp op{ctx, reg->builtin_code, node->builtin_data, reg->version};
    if (std::string why = translate_tflite_op(op, &n); !why.empty()) (*declined)[static_cast<int>(g.nodes.size())] = why;
    read_weights(ctx, reg->builtin_code, static_cast<int>(g.nodes.size()), &n, &g, declined);
    mark_run_time_shapes(ctx, reg->builtin_code, n, &g);
    for (Node& part : translate_tflite_outputs(op, std::move(n))) {
      (*position)[part.id].push_back(static_cast<int>(g.nodes.size()));
      g.nodes.push_back(std::move(part));
    }
  }
  return g;
}

// ---- The partition kernel: the executor over one partition's groups.
struct Partition {
  Delegate* delegate;
  std::unique_ptr<Executor> exec;
  int report = -1;  // index into Delegate::reports
};

// The context's tensors, for the executor.
class ContextTensors : public TensorHost {
 public:
  explicit ContextTensors(TfLiteContext* ctx) : ctx_(ctx) {}
  Shape shape(int t) const override { return shape_of(ctx_->tensors[t]); }
  float* data(int t) const override { return static_cast<float*>(ctx_->tensors[t].data); }
  bool resize(int t, const Shape& s) override {
    return ctx_->ResizeTensor(ctx_, &ctx_->tensors[t], int_array(std::vector<int>(s.begin(), s.end()))) == kTfLiteOk;
  }
  void error(const std::string& message) override { ctx_->ReportError(ctx_, "fusedelegate: %s", message.c_str()); }
  std::optional<std::vector<int64_t>> ints(int t) const override {
    std::vector<int64_t> values;
    if (!int_values(ctx_->tensors[t], &values)) return std::nullopt;
    return values;
  }

 private:
  TfLiteContext* ctx_;
};

// The partition's outputs the runtime reads (TFLite's output_tensors), less the
// values of folded constant nodes that only claimed nodes read: those pack them
// or read them from the graph, so nothing reads the tensor.
std::set<int> exported_tensors(const Graph& g, const FusionPlan& plan, const TfLiteIntArray* outs) {
  std::set<int> exported(outs->data, outs->data + outs->size);
  for (const Fold& f : plan.folds) {
    if (f.kind != FoldKind::kConstant) continue;
    const int t = g.nodes[f.nodes[0]].outputs[0];
    bool claimed_readers = true;
    for (size_t r = 0; r < g.nodes.size(); ++r)
      for (int in : g.nodes[r].inputs) claimed_readers = claimed_readers && (in != t || plan.group_of[r] >= 0);
    if (claimed_readers) exported.erase(t);
  }
  return exported;
}

void* kernel_init(TfLiteContext*, const char* buffer, size_t) {
  const auto* params = reinterpret_cast<const TfLiteDelegateParams*>(buffer);
  Delegate* d = state(params->delegate);
  const Graph& g = *d->graph;
  PartitionReport report;
  std::map<int, std::vector<int>> groups;  // plan group -> positions
  for (int i = 0; i < params->nodes_to_replace->size; ++i) {
    for (int pos : d->position_of_node.at(params->nodes_to_replace->data[i])) {
      groups[d->plan.group_of[pos]].push_back(pos);
      report.nodes.push_back(pos);
    }
  }
  std::vector<std::vector<int>> members;
  for (auto& [gid, nodes] : groups) members.push_back(std::move(nodes));
  const TfLiteIntArray* outs = params->output_tensors;
  auto* part = new Partition{d, std::make_unique<Executor>(d->graph, members, d->plan.folds,
                                                           exported_tensors(g, d->plan, outs), *d->kernels,
                                                           d->plan.slice_writes, d->plan.rounds_as_builtin),
                             static_cast<int>(d->reports.size())};
  // Programs as text only for a plan, a profile or the log to show.
  const bool describe = !d->opts.plan_file.empty() || !d->opts.profile_file.empty() || d->opts.log == LogLevel::kVerbose;
  for (size_t k = 0; k < part->exec->groups().size(); ++k) {
    const Program& prog = part->exec->planned()[k];
    report.group_nodes.push_back(part->exec->groups()[k]);
    report.programs.push_back(describe ? prog.to_string() : std::string());
    report.group_inputs.push_back(prog.inputs);
    report.group_outputs.push_back(prog.outputs);
    report.group_bytes_saved.push_back(intermediate_bytes_saved(g, part->exec->groups()[k], prog));
    log(*d, LogLevel::kVerbose, "fused program:\n%s", report.programs.back().c_str());
  }
  for (const auto& nodes : members) {  // constant nodes TFLite cut off from their layer: no program
    if (!g.only_constants(nodes)) continue;
    report.group_nodes.push_back(nodes);
    report.programs.push_back("");
    report.group_inputs.emplace_back();
    report.group_outputs.emplace_back();
    report.group_bytes_saved.push_back(0);
  }
  d->reports.push_back(std::move(report));
  return part;
}

void kernel_free(TfLiteContext*, void* buffer) { delete static_cast<Partition*>(buffer); }

TfLiteStatus kernel_prepare(TfLiteContext* ctx, TfLiteNode* node) {
  auto* part = static_cast<Partition*>(node->user_data);
  ContextTensors tensors(ctx);
  if (!part->exec->prepare(tensors, thread_count(part->delegate->opts, ctx))) return kTfLiteError;
  for (const DepthFirstChain& c : part->exec->chains())
    log(*part->delegate, LogLevel::kVerbose, "depth-first chain: programs %d..%d, strips of %lld rows", c.first(),
        c.first() + c.size() - 1, static_cast<long long>(c.strip_rows()));
  if (part->report < static_cast<int>(part->delegate->reports.size())) {
    PartitionReport& r = part->delegate->reports[part->report];
    r.program_ops = part->exec->labels();
    r.program_seconds.assign(r.program_ops.size(), 0.0);
    r.program_strip_rows = part->exec->strip_rows();
  }
  return kTfLiteOk;
}

TfLiteStatus kernel_invoke(TfLiteContext* ctx, TfLiteNode* node) {
  auto* part = static_cast<Partition*>(node->user_data);
  Delegate* d = part->delegate;
  const std::shared_ptr<ThreadPool> pool = d->pools.get(part->exec->threads());
  const bool reporting = !d->opts.profile_file.empty() && part->report < static_cast<int>(d->reports.size());
  const auto start = reporting ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  ContextTensors tensors(ctx);
  if (!part->exec->invoke(tensors, pool.get(), reporting ? d->reports[part->report].program_seconds.data() : nullptr))
    return kTfLiteError;
  if (reporting) {
    PartitionReport& r = d->reports[part->report];
    r.invokes += 1;
    r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return kTfLiteOk;
}

// Translates the context and plans it (d->graph, d->plan); the front end's
// reasons stand for the nodes it could not read.
void plan_context(Delegate* d, TfLiteContext* ctx, TfLiteIntArray* plan) {
  d->position_of_node.clear();
  std::map<int, std::string> declined;  // by graph position: what the front end could not read
  d->graph = std::make_shared<const Graph>(graph_from_context(ctx, plan, &d->position_of_node, &declined));
  PlannerOptions po;
  po.families = d->opts.families;
  po.min_nodes_per_group = d->opts.min_nodes_per_partition;
  d->plan = plan_fusion(*d->graph, po);
  for (const auto& [pos, why] : declined)
    if (d->plan.group_of[pos] < 0) d->plan.reason[pos] = why;
}

// The claimed TFLite nodes, each once (SPLIT's outputs are several IR nodes); logs the rest.
std::vector<int> claimed_nodes(const Delegate& d) {
  const Graph& g = *d.graph;
  std::vector<int> claimed;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (d.plan.group_of[i] >= 0 && (claimed.empty() || claimed.back() != g.nodes[i].id))
      claimed.push_back(g.nodes[i].id);
    else log(d, LogLevel::kVerbose, "node %d %s left: %s", g.nodes[i].id, g.nodes[i].name.c_str(),
             d.plan.reason[i].c_str());
  }
  log(d, LogLevel::kInfo, "claimed %zu of %zu nodes in %zu fused groups (isa %s)", claimed.size(), g.nodes.size(),
      d.plan.groups.size(), d.kernels->ew->isa);
  return claimed;
}

// Hands the claimed nodes to TFLite as partitions of our kernel.
TfLiteStatus replace_claimed(TfLiteContext* ctx, TfLiteDelegate* base, const std::vector<int>& claimed) {
  TfLiteRegistration reg{};
  reg.init = kernel_init;
  reg.free = kernel_free;
  reg.prepare = kernel_prepare;
  reg.invoke = kernel_invoke;
  reg.builtin_code = kTfLiteBuiltinDelegate;
  reg.custom_name = "FuseDelegate";
  reg.version = 1;
  if (claimed.empty()) return kTfLiteOk;
  TfLiteIntArray* nodes = int_array(claimed);
  const TfLiteStatus st = ctx->ReplaceNodeSubsetsWithDelegateKernels(ctx, reg, nodes, base);
  std::free(nodes);
  return st;
}

TfLiteStatus delegate_prepare(TfLiteContext* ctx, TfLiteDelegate* base) {
  Delegate* d = state(base);
  TfLiteIntArray* plan = nullptr;
  if (ctx->GetExecutionPlan(ctx, &plan) != kTfLiteOk) return kTfLiteOk;
  const std::string abi = check_abi(ctx, plan);
  if (!abi.empty()) {
    std::fprintf(stderr,
                 "fusedelegate: the runtime's TFLite structures do not look as this build expects (%s); "
                 "claiming nothing\n", abi.c_str());
    return kTfLiteOk;
  }
  plan_context(d, ctx, plan);
  d->reports.clear();
  const TfLiteStatus st = replace_claimed(ctx, base, claimed_nodes(*d));
  if (!d->opts.plan_file.empty()) {  // after the partitions' init: their reports are in
    const std::string err = write_text_file(d->opts.plan_file, plan_json(*d->graph, d->plan, d->reports,
                                                                         d->kernels->ew->isa, thread_count(d->opts, ctx)));
    if (!err.empty()) std::fprintf(stderr, "fusedelegate: plan_file: %s\n", err.c_str());
  }
  return st;
}

}  // namespace
}  // namespace fd

extern "C" {

__attribute__((visibility("default"))) TfLiteDelegate* tflite_plugin_create_delegate(
    char** keys, char** values, size_t count, void (*report_error)(const char*)) {
  count &= 0xffffffffu;  // Python's loader passes a C int in this size_t slot
  std::vector<std::pair<std::string, std::string>> kv;
  for (size_t i = 0; i < count; ++i) kv.emplace_back(keys[i] ? keys[i] : "", values[i] ? values[i] : "");
  fd::Options opts;
  const std::string error = fd::parse_options(kv, &opts);
  if (!error.empty()) {
    if (report_error) report_error(error.c_str());
    else std::fprintf(stderr, "%s\n", error.c_str());
    return nullptr;
  }
  auto* d = new fd::Delegate();
  d->opts = opts;
  d->kernels = fd::kernels_for(opts.isa);
  d->base.data_ = d;
  d->base.Prepare = fd::delegate_prepare;
  d->base.flags = kTfLiteDelegateFlagsAllowDynamicTensors;
  return &d->base;
}

__attribute__((visibility("default"))) void tflite_plugin_destroy_delegate(TfLiteDelegate* delegate) {
  if (!delegate) return;
  fd::Delegate* d = fd::state(delegate);
  if (!d->opts.profile_file.empty() && d->graph) {
    const std::string err = fd::write_text_file(d->opts.profile_file, fd::profile_json(*d->graph, d->reports));
    if (!err.empty()) std::fprintf(stderr, "fusedelegate: profile_file: %s\n", err.c_str());
  }
  delete d;
}

}  // extern "C"
