// The TFLite front end: context -> IR, plan -> partitions, and the partition
// kernel that runs the fused programs. Plus the two plugin entry points.
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "cpu.h"
#include "depth_first.h"
#include "memory.h"
#include "options.h"
#include "planner.h"
#include "program.h"
#include "report.h"
#include "thread_pool.h"
#include "tflite_abi.h"
#include "tflite_ops.h"

namespace fd {
namespace {

// The delegate's state; TfLiteDelegate is its first member.
struct Delegate {
  TfLiteDelegate base{};
  Options opts;
  const EwTable* table = nullptr;
  const Kernels* kernels = nullptr;
  std::mutex pool_mu;
  std::map<int, std::shared_ptr<ThreadPool>> pools;  // by thread count; shared with invokes in flight
  // Handed from Prepare to the kernels' init, which runs inside Replace...().
  std::shared_ptr<const Graph> graph;
  Plan plan;
  std::map<int, int> position_of_node;  // TFLite node index -> graph position
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

std::shared_ptr<ThreadPool> pool_for(Delegate& d, int threads) {
  if (threads <= 1) return nullptr;
  std::lock_guard<std::mutex> lock(d.pool_mu);
  auto& pool = d.pools[threads];
  if (!pool) pool = std::make_shared<ThreadPool>(threads);
  return pool;
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

Shape shape_of(const TfLiteTensor& t) {
  Shape s;
  if (t.dims)
    for (int i = 0; i < t.dims->size; ++i) s.push_back(t.dims->data[i]);
  return s;
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
    if (t.type == kTfLiteFloat32 && t.allocation_type == kTfLiteMmapRo && t.dims && t.data &&
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

// The values of a constant int32 or int64 tensor, or false.
bool constant_ints(TfLiteContext* ctx, int t, std::vector<int64_t>* out) {
  const TfLiteTensor& x = ctx->tensors[t];
  if (x.allocation_type != kTfLiteMmapRo || !x.data || (x.type != kTfLiteInt32 && x.type != kTfLiteInt64))
    return false;
  const int64_t count = num_elements(shape_of(x));
  if (static_cast<size_t>(count) * (x.type == kTfLiteInt32 ? 4 : 8) > x.bytes) return false;
  out->clear();
  for (int64_t i = 0; i < count; ++i)
    out->push_back(x.type == kTfLiteInt32 ? static_cast<const int32_t*>(x.data)[i]
                                          : static_cast<const int64_t*>(x.data)[i]);
  return true;
}

// A PAD's constant paddings [rank, 2] (int32 or int64) and PADV2's constant
// value into the node, which then keeps only its data input.
bool read_pad(TfLiteContext* ctx, Node* n) {
  if (n->inputs.size() < 2 || n->inputs.size() > 3) return false;
  const Shape ps = shape_of(ctx->tensors[n->inputs[1]]);
  if (ps.size() != 2 || ps[1] != 2 || !constant_ints(ctx, n->inputs[1], &n->pads)) return false;
  if (n->inputs.size() == 3) {  // PADV2
    const TfLiteTensor& v = ctx->tensors[n->inputs[2]];
    if (v.type != kTfLiteFloat32 || v.allocation_type != kTfLiteMmapRo || !v.data || v.bytes != sizeof(float))
      return false;
    n->param = *static_cast<const float*>(v.data);
  }
  n->inputs.resize(1);
  return true;
}

// RESHAPE's new shape (a constant tensor, else the output's static shape) and
// TRANSPOSE's permutation (a constant tensor) into node.dims; the node then
// keeps only its data input.
bool read_dims(TfLiteContext* ctx, Node* n) {
  if (n->inputs.size() == 2 && constant_ints(ctx, n->inputs[1], &n->dims)) {
    n->inputs.resize(1);
    return true;
  }
  if (n->anchor != AnchorOp::kReshape || n->inputs.size() != 1 || n->outputs.size() != 1) return false;
  n->dims = shape_of(ctx->tensors[n->outputs[0]]);
  return true;
}

// MEAN's axes: a constant int32 tensor (the type TFLite's MEAN takes), or false.
bool mean_axes(TfLiteContext* ctx, const Node& n, std::vector<int64_t>* axes) {
  return n.inputs.size() == 2 && ctx->tensors[n.inputs[1]].type == kTfLiteInt32 &&
         constant_ints(ctx, n.inputs[1], axes);
}

// MEAN over the last axis only (a constant axis rank - 1, or -1): a row mean.
bool last_axis_mean(TfLiteContext* ctx, Node* n) {
  std::vector<int64_t> axes;
  if (!mean_axes(ctx, *n, &axes) || axes.size() != 1) return false;
  const TfLiteTensor& x = ctx->tensors[n->inputs[0]];
  const int rank = x.dims ? x.dims->size : 0;
  if (rank < 1 || (axes[0] != rank - 1 && axes[0] != -1)) return false;
  n->anchor = AnchorOp::kRowMean;
  n->inputs.resize(1);
  return true;
}

// MEAN over exactly H and W of a 4-D tensor (constant axes 1, 2, in any order
// or negative); the node then keeps only its data input.
bool spatial_mean(TfLiteContext* ctx, Node* n) {
  std::vector<int64_t> axes;
  if (!mean_axes(ctx, *n, &axes)) return false;
  const TfLiteTensor& x = ctx->tensors[n->inputs[0]];
  if (!x.dims || x.dims->size != 4) return false;
  bool h = false, w = false;
  for (int64_t a : axes) {
    const int64_t axis = (a + 4) % 4;
    if (axis == 1) h = true;
    else if (axis == 2) w = true;
    else return false;
  }
  n->inputs.resize(1);
  return h && w;
}

Graph graph_from_context(TfLiteContext* ctx, TfLiteIntArray* plan, std::map<int, int>* position) {
  Graph g;
  g.tensors.resize(ctx->tensors_size);
  for (size_t i = 0; i < ctx->tensors_size; ++i) {
    const TfLiteTensor& t = ctx->tensors[i];
    Tensor& out = g.tensors[i];
    out.is_float32 = t.type == kTfLiteFloat32;
    out.is_constant = t.allocation_type == kTfLiteMmapRo;
    out.has_dynamic_shape = t.allocation_type == kTfLiteDynamic || !t.dims;
    out.shape = shape_of(t);
    if (out.is_constant && out.is_float32) out.data = static_cast<const float*>(t.data);
  }
  for (int i = 0; i < plan->size; ++i) {
    TfLiteNode* node = nullptr;
    TfLiteRegistration* reg = nullptr;
    ctx->GetNodeAndRegistration(ctx, plan->data[i], &node, &reg);
    Node n;
    n.id = plan->data[i];
    translate_tflite_op(reg->builtin_code, node->builtin_data, &n);
    for (int k = 0; k < node->inputs->size; ++k) {
      if (node->inputs->data[k] < 0) {  // optional input absent: only a GEMM's bias may be
        if (!(n.kind == OpKind::kAnchor && k == 2)) n.kind = OpKind::kOpaque;
        continue;
      }
      n.inputs.push_back(node->inputs->data[k]);
    }
    for (int k = 0; k < node->outputs->size; ++k) {
      if (node->outputs->data[k] < 0) {  // no output tensor: nothing we would fuse
        n.kind = OpKind::kOpaque;
        continue;
      }
      n.outputs.push_back(node->outputs->data[k]);
    }
    if (n.kind == OpKind::kPad && !read_pad(ctx, &n)) n.kind = OpKind::kOpaque;
    if (n.kind == OpKind::kAnchor && n.anchor == AnchorOp::kMean && !last_axis_mean(ctx, &n) &&
        !spatial_mean(ctx, &n))
      n.kind = OpKind::kOpaque;
    const bool has_dims = n.anchor == AnchorOp::kReshape || n.anchor == AnchorOp::kTranspose;
    if (n.kind == OpKind::kAnchor && has_dims && !read_dims(ctx, &n)) n.kind = OpKind::kOpaque;
    (*position)[n.id] = static_cast<int>(g.nodes.size());
    g.nodes.push_back(std::move(n));
  }
  return g;
}

// ---- The partition kernel: one or more fused programs run in order.
struct Partition {
  Delegate* delegate;
  std::shared_ptr<const Graph> graph;
  std::vector<std::vector<int>> groups;  // node positions per group, in dependency order
  std::vector<Program> planned;          // one per group
  std::vector<bool> written;             // tensors a group must store
  std::set<int> outputs;                 // the partition's outputs
  // Bound at prepare: the planned programs, or node by node where a group's
  // values no longer share one shape after a resize.
  std::vector<Program> programs;
  std::vector<std::unique_ptr<BoundProgram>> bound;
  std::vector<std::string> labels;  // per bound program: its ops, for the profile
  // Tensors that live only inside the partition, in buffers reused once dead.
  std::map<int, Shape> owned_shape;
  std::map<int, int> owned;  // tensor -> index into buffers
  std::vector<std::vector<float, HugePageAllocator<float>>> buffers;
  // A lone RESHAPE between two owned tensors does not run: its output is its
  // input's buffer under another shape.
  std::map<int, int> alias_of;  // the RESHAPE's output -> its input
  std::vector<bool> skipped;    // per bound program
  std::vector<DepthFirstChain> chains;  // runs of programs executed depth-first, a part per thread
  std::vector<const float*> in;  // one program's input and output pointers, reused every invoke
  std::vector<float*> out;
  int threads = 1;
  int report = -1;  // index into Delegate::reports
};

// Which group (index into `groups`) produces each tensor the groups output.
std::map<int, int> group_of_output(const Graph& g, const std::vector<std::vector<int>>& groups) {
  std::map<int, int> of;
  for (size_t k = 0; k < groups.size(); ++k)
    for (int pos : groups[k]) of[g.nodes[pos].outputs[0]] = static_cast<int>(k);
  return of;
}

// Orders the partition's groups so each runs after the groups it reads from.
// Groups that still depend on each other (the planner prevents it; this is a
// guard) run node by node, in execution order.
std::vector<std::vector<int>> order_groups(const Graph& g, const std::vector<std::vector<int>>& groups) {
  const std::map<int, int> producer = group_of_output(g, groups);
  std::vector<std::vector<int>> ordered;
  std::vector<bool> done(groups.size(), false);
  size_t placed = 0;
  for (bool progress = true; progress && placed < groups.size();) {
    progress = false;
    for (size_t k = 0; k < groups.size(); ++k) {
      if (done[k]) continue;
      bool ready = true;
      for (int pos : groups[k])
        for (int t : g.nodes[pos].inputs)
          if (auto it = producer.find(t); it != producer.end() && it->second != static_cast<int>(k))
            ready &= done[it->second];
      if (!ready) continue;
      done[k] = progress = true;
      ++placed;
      ordered.push_back(groups[k]);
    }
  }
  std::vector<int> rest;
  for (size_t k = 0; k < groups.size(); ++k)
    if (!done[k]) rest.insert(rest.end(), groups[k].begin(), groups[k].end());
  std::sort(rest.begin(), rest.end());
  for (int pos : rest) ordered.push_back({pos});
  return ordered;
}

void* kernel_init(TfLiteContext* ctx, const char* buffer, size_t) {
  const auto* params = reinterpret_cast<const TfLiteDelegateParams*>(buffer);
  Delegate* d = state(params->delegate);
  auto* part = new Partition();
  part->delegate = d;
  part->graph = d->graph;
  part->report = static_cast<int>(d->reports.size());
  const Graph& g = *part->graph;
  part->outputs.insert(params->output_tensors->data, params->output_tensors->data + params->output_tensors->size);
  PartitionReport report;
  std::map<int, std::vector<int>> groups;  // plan group -> positions
  for (int i = 0; i < params->nodes_to_replace->size; ++i) {
    const int pos = d->position_of_node.at(params->nodes_to_replace->data[i]);
    groups[d->plan.group_of[pos]].push_back(pos);
    report.nodes.push_back(pos);
  }
  std::vector<std::vector<int>> unordered;
  for (auto& [gid, members] : groups) unordered.push_back(std::move(members));
  part->groups = order_groups(g, unordered);
  // A group's value reaches memory when the partition exports it or another
  // group reads it.
  const std::map<int, int> producer = group_of_output(g, part->groups);
  part->written.assign(ctx->tensors_size, false);
  for (int t : part->outputs) part->written[t] = true;
  for (size_t k = 0; k < part->groups.size(); ++k)
    for (int pos : part->groups[k])
      for (int t : g.nodes[pos].inputs)
        if (auto it = producer.find(t); it != producer.end() && it->second != static_cast<int>(k))
          part->written[t] = true;
  for (const auto& members : part->groups) {
    part->planned.push_back(build_program(g, members, part->written, *d->kernels));
    const Program& prog = part->planned.back();
    report.group_nodes.push_back(members);
    report.programs.push_back(prog.to_string());
    report.group_inputs.push_back(prog.inputs);
    report.group_outputs.push_back(prog.outputs);
    report.group_bytes_saved.push_back(intermediate_bytes_saved(g, members, prog));
    log(*d, LogLevel::kVerbose, "fused program:\n%s", report.programs.back().c_str());
  }
  d->reports.push_back(std::move(report));
  return part;
}

void kernel_free(TfLiteContext*, void* buffer) { delete static_cast<Partition*>(buffer); }

// Gives each owned tensor a buffer, reusing the buffers of tensors no later
// program reads (a program's outputs never share with its inputs). A chain runs
// its programs interleaved: what any of them reads stays live to its end.
void assign_buffers(Partition* part) {
  std::vector<size_t> end(part->programs.size());
  for (size_t k = 0; k < end.size(); ++k) end[k] = k;
  for (const DepthFirstChain& c : part->chains)
    for (int k = c.first(); k < c.first() + c.size(); ++k) end[k] = c.first() + c.size() - 1;
  auto root = [&](int t) {  // the tensor whose buffer t uses
    for (auto it = part->alias_of.find(t); it != part->alias_of.end(); it = part->alias_of.find(t)) t = it->second;
    return t;
  };
  std::map<int, size_t> last_read;  // by root
  for (size_t k = 0; k < part->programs.size(); ++k)
    for (int t : part->programs[k].inputs) last_read[root(t)] = std::max(last_read[root(t)], end[k]);
  std::vector<int> free;  // buffer indices
  part->owned.clear();
  for (size_t k = 0; k < part->programs.size(); ++k) {
    if (part->skipped[k]) continue;
    for (int t : part->programs[k].outputs) {
      auto shape = part->owned_shape.find(t);
      if (shape == part->owned_shape.end()) continue;
      const size_t need = num_elements(shape->second);
      // The smallest free buffer that fits, else the largest one, grown.
      auto size = [&](std::vector<int>::iterator it) { return part->buffers[*it].size(); };
      auto best = free.end();
      for (auto it = free.begin(); it != free.end(); ++it)
        if (size(it) >= need && (best == free.end() || size(it) < size(best))) best = it;
      for (auto it = free.begin(); best == free.end() && it != free.end(); ++it)
        if (best == free.end() || size(it) > size(best)) best = it;
      int b;
      if (best == free.end()) {
        b = static_cast<int>(part->buffers.size());
        part->buffers.emplace_back();
      } else {
        b = *best;
        free.erase(best);
      }
      if (part->buffers[b].size() < need) part->buffers[b].resize(need);
      part->owned[t] = b;
    }
    std::set<int> dying;
    for (int t : part->programs[k].inputs)
      if (part->owned.count(root(t)) && last_read[root(t)] == k) dying.insert(root(t));
    for (int t : dying) free.push_back(part->owned[t]);
  }
  for (const auto& [t, source] : part->alias_of) part->owned[t] = part->owned.at(root(source));
}

TfLiteStatus kernel_prepare(TfLiteContext* ctx, TfLiteNode* node) {
  auto* part = static_cast<Partition*>(node->user_data);
  const Graph& g = *part->graph;
  const EwTable& table = *part->delegate->table;
  part->programs.clear();
  part->bound.clear();
  part->labels.clear();
  part->owned_shape.clear();  // refilled below before any program reads it
  auto shape_now = [&](int t) {
    auto it = part->owned_shape.find(t);
    return it != part->owned_shape.end() ? it->second : shape_of(ctx->tensors[t]);
  };
  // Binds p and records its outputs' shapes; false (with a reported error) if p cannot run.
  auto add = [&](const Program& p, const std::vector<int>& nodes, bool* mixed) {
    std::vector<Shape> shapes;
    for (int t : p.inputs) shapes.push_back(shape_now(t));
    std::string error;
    auto b = BoundProgram::bind(p, shapes, table, &error, mixed);
    if (!b) {
      if (!mixed || !*mixed) ctx->ReportError(ctx, "fusedelegate: %s", error.c_str());
      return false;
    }
    for (size_t o = 0; o < p.outputs.size(); ++o) {
      const int t = p.outputs[o];
      const Shape& s = b->output_shapes()[o];
      if (!part->outputs.count(t)) {
        part->owned_shape[t] = s;
      } else if (shape_of(ctx->tensors[t]) != s) {
        std::vector<int> dims(s.begin(), s.end());
        if (ctx->ResizeTensor(ctx, &ctx->tensors[t], int_array(dims)) != kTfLiteOk) return false;
      }
    }
    part->programs.push_back(p);
    part->bound.push_back(std::move(b));
    std::string label;
    for (int pos : nodes) label += (label.empty() ? "" : "+") + g.nodes[pos].name;
    part->labels.push_back(label);
    return true;
  };
  for (size_t k = 0; k < part->groups.size(); ++k) {
    bool mixed = false;
    if (add(part->planned[k], part->groups[k], &mixed)) continue;
    if (!mixed) return kTfLiteError;
    // After a resize the group's values differ in shape: run it node by node.
    for (int pos : part->groups[k]) {
      std::vector<bool> written = part->written;
      written[g.nodes[pos].outputs[0]] = true;
      if (!add(build_program(g, {pos}, written, *part->delegate->kernels), {pos}, nullptr)) return kTfLiteError;
    }
  }
  const Options& o = part->delegate->opts;
  part->threads = thread_count(o, ctx);
  part->chains = DepthFirstChain::find(part->programs, part->bound, part->outputs, kDepthFirstMinBytes,
                                       kDepthFirstBudgetBytes, part->threads);
  for (const DepthFirstChain& c : part->chains) {
    log(*part->delegate, LogLevel::kVerbose, "depth-first chain: programs %d..%d, strips of %lld rows", c.first(),
        c.first() + c.size() - 1, static_cast<long long>(c.strip_rows()));
    // The tensors between links live in the chain's rings: no buffer.
    for (int k = c.first(); k + 1 < c.first() + c.size(); ++k) part->owned_shape.erase(part->programs[k].outputs[0]);
  }
  // A lone RESHAPE of an owned tensor into an owned tensor becomes an alias.
  part->alias_of.clear();
  part->skipped.assign(part->programs.size(), false);
  for (size_t k = 0; k < part->programs.size(); ++k) {
    const Program& p = part->programs[k];
    const bool reshape = p.code.size() == 1 && p.code[0].anchor >= 0 && p.anchors[0].op == AnchorOp::kReshape;
    if (reshape && part->owned_shape.count(p.inputs[0]) && part->owned_shape.count(p.outputs[0])) {
      part->alias_of[p.outputs[0]] = p.inputs[0];
      part->skipped[k] = true;
    }
  }
  assign_buffers(part);
  if (part->report < static_cast<int>(part->delegate->reports.size())) {
    PartitionReport& r = part->delegate->reports[part->report];
    r.program_ops = part->labels;
    r.program_seconds.assign(part->labels.size(), 0.0);
    r.program_strip_rows.assign(part->labels.size(), 0);
    for (const DepthFirstChain& c : part->chains)
      for (int k = c.first(); k < c.first() + c.size(); ++k) r.program_strip_rows[k] = c.strip_rows();
  }
  return kTfLiteOk;
}

TfLiteStatus kernel_invoke(TfLiteContext* ctx, TfLiteNode* node) {
  auto* part = static_cast<Partition*>(node->user_data);
  Delegate* d = part->delegate;
  const std::shared_ptr<ThreadPool> pool = pool_for(*d, part->threads);
  const bool profile = !d->opts.profile_file.empty();
  const auto start = profile ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  std::vector<const float*>& in = part->in;
  std::vector<float*>& out = part->out;
  const bool reporting = profile && part->report < static_cast<int>(d->reports.size());
  std::function<float*(int)> data = [&](int t) {
    auto it = part->owned.find(t);
    return it != part->owned.end() ? part->buffers[it->second].data() : static_cast<float*>(ctx->tensors[t].data);
  };
  size_t next_chain = 0;
  for (size_t k = 0; k < part->programs.size(); ++k) {
    if (next_chain < part->chains.size() && part->chains[next_chain].first() == static_cast<int>(k)) {
      const DepthFirstChain& c = part->chains[next_chain++];
      c.run(part->programs, part->bound, data,
            reporting ? d->reports[part->report].program_seconds.data() + k : nullptr, pool.get());
      k += c.size() - 1;
      continue;
    }
    if (part->skipped[k]) continue;  // an alias
    const Program& p = part->programs[k];
    in.clear();
    out.clear();
    for (int t : p.inputs) in.push_back(data(t));
    for (int t : p.outputs) out.push_back(data(t));
    const auto t0 = profile ? std::chrono::steady_clock::now() : start;
    part->bound[k]->run(in.data(), out.data(), pool.get());
    if (reporting)
      d->reports[part->report].program_seconds[k] +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  if (profile && part->report < static_cast<int>(d->reports.size())) {
    PartitionReport& r = d->reports[part->report];
    r.invokes += 1;
    r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return kTfLiteOk;
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
  d->position_of_node.clear();
  d->graph = std::make_shared<const Graph>(graph_from_context(ctx, plan, &d->position_of_node));
  const Graph& g = *d->graph;
  PlannerOptions po;
  po.families = d->opts.families;
  po.min_nodes_per_group = d->opts.min_nodes_per_partition;
  d->plan = plan_fusion(g, po);

  std::vector<int> claimed;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (d->plan.group_of[i] >= 0) claimed.push_back(g.nodes[i].id);
    else log(*d, LogLevel::kVerbose, "node %d %s left: %s", g.nodes[i].id, g.nodes[i].name.c_str(),
             d->plan.reason[i].c_str());
  }
  log(*d, LogLevel::kInfo, "claimed %zu of %zu nodes in %zu fused groups (isa %s)", claimed.size(),
      g.nodes.size(), d->plan.groups.size(), d->table->isa);
  TfLiteRegistration reg{};
  reg.init = kernel_init;
  reg.free = kernel_free;
  reg.prepare = kernel_prepare;
  reg.invoke = kernel_invoke;
  reg.builtin_code = kTfLiteBuiltinDelegate;
  reg.custom_name = "FuseDelegate";
  reg.version = 1;
  d->reports.clear();
  TfLiteStatus st = kTfLiteOk;
  if (!claimed.empty()) {
    TfLiteIntArray* nodes = int_array(claimed);
    st = ctx->ReplaceNodeSubsetsWithDelegateKernels(ctx, reg, nodes, base);
    std::free(nodes);
  }
  if (!d->opts.plan_file.empty()) {
    const std::string err = write_text_file(
        d->opts.plan_file, plan_json(g, d->plan, d->reports, d->table->isa, thread_count(d->opts, ctx)));
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
  d->table = d->kernels->ew;
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
