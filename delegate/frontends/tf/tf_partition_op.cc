// FdFusedPartition: the TensorFlow op the Grappler pass puts in place of one
// fused group. Its kernel parses the partition (ir/serialize.h) once, builds
// the same Executor the TFLite delegate runs, and binds it to the op's inputs
// and outputs; it binds again when the input shapes change.
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "frontends/options.h"
#include "frontends/tf/tf_options.h"
#include "frontends/tf/weight_layouts.h"
#include "ir/serialize.h"
#include "ops/op_registry.h"
#include "ir/shape.h"
#include "kernels/cpu.h"
#include "runtime/constant_nodes.h"
#include "runtime/executor.h"
#include "runtime/thread_pool.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"

// The TensorFlow version this library was compiled against, found by Python
// (fusedelegate.tf) in the file's bytes before it loads the library.
extern "C" __attribute__((visibility("default"), used)) const char fd_tf_built_against[] =
    "fusedelegate-tf-built-against=" FD_TF_BUILT_AGAINST;

namespace fd {
namespace {

using tensorflow::OpKernel;
using tensorflow::OpKernelConstruction;
using tensorflow::OpKernelContext;

REGISTER_OP("FdFusedPartition")
    .Input("inputs: N * float")
    .Input("weights: W * float")
    .Output("outputs: M * float")
    .Attr("N: int >= 1")
    .Attr("W: int >= 0")
    .Attr("M: int >= 1")
    .Attr("partition: string")
    .Attr("input_tensors: list(int)")
    .Attr("output_tensors: list(int)")
    .Attr("output_shapes: list(shape)")
    .Attr("weight_tensors: list(int) = []")
    .Attr("weight_layouts: list(int) = []")
    .Attr("options: string = ''")
    .SetShapeFn([](tensorflow::shape_inference::InferenceContext* c) {
      std::vector<tensorflow::PartialTensorShape> shapes;
      TF_RETURN_IF_ERROR(c->GetAttr("output_shapes", &shapes));
      if (static_cast<int>(shapes.size()) != c->num_outputs())
        return tensorflow::errors::InvalidArgument("FdFusedPartition: output_shapes does not match M");
      for (int i = 0; i < c->num_outputs(); ++i) {
        tensorflow::shape_inference::ShapeHandle s;
        TF_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shapes[i], &s));
        c->set_output(i, s);
      }
      return absl::OkStatus();
    });

ThreadPools& thread_pools() {  // shared by every partition op of the process
  static ThreadPools pools;
  return pools;
}

Shape shape_of(const tensorflow::Tensor& t) {
  Shape s;
  for (int i = 0; i < t.dims(); ++i) s.push_back(t.dim_size(i));
  return s;
}

// The partition's tensors as the executor sees them: the op's inputs, its
// outputs (shapes the executor binds, allocated before each run) and the
// partition's constants.
class OpTensors : public TensorHost {
 public:
  OpTensors(const Graph& g, const std::map<int, int>& input_of, const std::map<int, int>& output_of,
            std::vector<Shape>* output_shapes, OpKernelContext* ctx)
      : g_(g), input_of_(input_of), output_of_(output_of), output_shapes_(*output_shapes), ctx_(ctx) {}

  Shape shape(int t) const override {
    if (auto i = input_of_.find(t); i != input_of_.end()) return shape_of(ctx_->input(i->second));
    if (auto o = output_of_.find(t); o != output_of_.end()) return output_shapes_[o->second];
    return g_.tensors[t].shape;
  }
  float* data(int t) const override {
    if (auto i = input_of_.find(t); i != input_of_.end())
      return const_cast<float*>(ctx_->input(i->second).flat<float>().data());
    if (auto o = output_of_.find(t); o != output_of_.end()) return outputs_[o->second]->flat<float>().data();
    return const_cast<float*>(g_.tensors[t].f32_data());
  }
  bool resize(int t, const Shape& s) override {
    auto o = output_of_.find(t);
    if (o == output_of_.end()) return false;
    output_shapes_[o->second] = s;
    return true;
  }
  void error(const std::string& message) override { error_ = message; }

  const std::string& last_error() const { return error_; }
  std::vector<tensorflow::Tensor*>& outputs() { return outputs_; }

 private:
  const Graph& g_;
  const std::map<int, int>& input_of_;
  const std::map<int, int>& output_of_;
  std::vector<Shape>& output_shapes_;
  OpKernelContext* ctx_;
  std::vector<tensorflow::Tensor*> outputs_;
  std::string error_;
};

class FusedPartitionOp : public OpKernel {
 public:
  explicit FusedPartitionOp(OpKernelConstruction* c);
  void Compute(OpKernelContext* ctx) override;

 private:
  bool weight_changed(OpKernelContext* ctx, int first, size_t j);
  void empty_batch(OpKernelContext* ctx);
  std::string refresh_weights(OpKernelContext* ctx);
  bool bind(OpTensors& host, OpKernelContext* ctx);

  Options opts_;
  PartitionGraph part_;  // as parsed: run-time weights still placeholders
  std::set<int> exported_;
  std::shared_ptr<const Graph> graph_;  // part_.graph with the weights last seen
  std::unique_ptr<Executor> exec_;
  std::map<int, int> input_of_, output_of_;  // partition tensor -> op input / output index
  std::vector<int64_t> weight_tensors_;
  std::vector<WeightLayout> weight_layouts_;
  // Each weight input as last packed. Holding it makes TF copy a variable on its
  // next write (copy-on-write while shared), so the same buffer means the same values.
  std::vector<tensorflow::Tensor> weight_held_;
  std::vector<Shape> output_shapes_;
  std::vector<tensorflow::PartialTensorShape> planned_outputs_;  // the output_shapes attribute
  std::vector<Shape> bound_inputs_;  // the input shapes the executor is bound to
  bool bound_ = false;
  std::mutex mu_;  // one Compute at a time: the executor's buffers are shared
};

// Every index names a float32 tensor of the partition that is not a constant
// (inputs, outputs; run-time weights too: their values come with each run).
bool valid_tensors(const Graph& g, const std::vector<int64_t>& ids) {
  for (int64_t t : ids)
    if (t < 0 || t >= static_cast<int64_t>(g.tensors.size()) || !g.tensors[t].is_f32() || g.tensors[t].is_constant)
      return false;
  return true;
}

FusedPartitionOp::FusedPartitionOp(OpKernelConstruction* c) : OpKernel(c) {
  std::string bytes, options, error;
  std::vector<int64_t> ins, outs, layouts;
  OP_REQUIRES_OK(c, c->GetAttr("partition", &bytes));
  OP_REQUIRES_OK(c, c->GetAttr("input_tensors", &ins));
  OP_REQUIRES_OK(c, c->GetAttr("output_tensors", &outs));
  OP_REQUIRES_OK(c, c->GetAttr("weight_tensors", &weight_tensors_));
  OP_REQUIRES_OK(c, c->GetAttr("weight_layouts", &layouts));
  OP_REQUIRES_OK(c, c->GetAttr("options", &options));
  OP_REQUIRES_OK(c, c->GetAttr("output_shapes", &planned_outputs_));
  error = parse_options(split_options(options), &opts_);
  OP_REQUIRES(c, error.empty(), tensorflow::errors::InvalidArgument(error));
  std::optional<PartitionGraph> part = parse_partition(bytes, read_anchor_params, &error);
  OP_REQUIRES(c, part.has_value(), tensorflow::errors::InvalidArgument("FdFusedPartition: ", error));
  part_ = std::move(*part);
  const Graph& g = part_.graph;
  bool fits = valid_tensors(g, ins) && valid_tensors(g, outs) && valid_tensors(g, weight_tensors_) &&
              layouts.size() == weight_tensors_.size() &&
              ins.size() + weight_tensors_.size() == static_cast<size_t>(c->num_inputs()) &&
              static_cast<int>(outs.size()) == c->num_outputs() && planned_outputs_.size() == outs.size();
  for (int64_t l : layouts) fits = fits && l >= 0 && l <= static_cast<int>(WeightLayout::kTranspose);
  OP_REQUIRES(c, fits, tensorflow::errors::InvalidArgument("FdFusedPartition: tensor attributes do not fit"));
  for (size_t i = 0; i < ins.size(); ++i) input_of_[ins[i]] = static_cast<int>(i);
  for (size_t i = 0; i < outs.size(); ++i) output_of_[outs[i]] = static_cast<int>(i);
  for (int64_t l : layouts) weight_layouts_.push_back(static_cast<WeightLayout>(l));
  weight_held_.resize(weight_tensors_.size());
  output_shapes_.assign(outs.size(), Shape{});
  exported_.insert(outs.begin(), outs.end());
}

// Whether weight input j has other values than when last packed: another
// buffer with other bytes (the same buffer holds the same values, see weight_held_).
bool FusedPartitionOp::weight_changed(OpKernelContext* ctx, int first, size_t j) {
  const tensorflow::Tensor& src = ctx->input(first + static_cast<int>(j));
  tensorflow::Tensor& held = weight_held_[j];
  if (held.IsInitialized() && held.shape() == src.shape() && held.SharesBufferWith(src)) return false;
  const bool same = held.IsInitialized() && held.shape() == src.shape() &&
                    std::memcmp(held.flat<float>().data(), src.flat<float>().data(), src.NumElements() * 4) == 0;
  held = src;
  return !same;
}

// Builds the executor on the first run, and again when a run-time weight's
// values changed (its weights, and the constant nodes computed from them, are
// packed when it is built). "" or the error.
std::string FusedPartitionOp::refresh_weights(OpKernelContext* ctx) {
  const int first = ctx->num_inputs() - static_cast<int>(weight_tensors_.size());
  bool changed = !exec_;
  for (size_t j = 0; j < weight_tensors_.size(); ++j) changed = weight_changed(ctx, first, j) || changed;
  if (!changed) return "";
  Graph g = part_.graph;
  for (size_t j = 0; j < weight_tensors_.size(); ++j) {
    Tensor& t = g.tensors[weight_tensors_[j]];
    const Shape src = shape_of(ctx->input(first + static_cast<int>(j)));
    const Shape ir = ir_weight_shape(src, weight_layouts_[j]);
    if (num_elements(ir) != num_elements(t.shape) || (weight_layouts_[j] != WeightLayout::kAsIs && ir != t.shape))
      return "weights of shape " + to_string(src) + " where " + to_string(t.shape) + " was planned";
    t.is_constant = true;
    t.data = ConstantData::own(ir_weights(weight_held_[j].flat<float>().data(), src, weight_layouts_[j]));
  }
  if (!compute_constant_nodes(&g)) return "weight math on inputs that are not weights";  // a batch norm's vectors
  graph_ = std::make_shared<const Graph>(std::move(g));
  exec_ = std::make_unique<Executor>(graph_, part_.groups, part_.folds, exported_, *kernels_for(opts_.isa),
                                     part_.slice_writes);
  bound_ = false;
  return "";
}

// An empty input (batch 0): outputs of the planned shapes with an empty
// batch, where only the batch is open; else an error.
void FusedPartitionOp::empty_batch(OpKernelContext* ctx) {
  for (int o = 0; o < ctx->num_outputs(); ++o) {
    const tensorflow::PartialTensorShape& planned = planned_outputs_[o];
    tensorflow::TensorShape shape;
    for (int d = 0; d < planned.dims(); ++d) {
      const int64_t size = planned.dim_size(d) < 0 && d == 0 ? 0 : planned.dim_size(d);
      OP_REQUIRES(ctx, !planned.unknown_rank() && size >= 0,
                  tensorflow::errors::InvalidArgument("FdFusedPartition: an empty input where output ", o,
                                                      " has a shape known only at run time"));
      shape.AddDim(size);
    }
    tensorflow::Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(o, shape, &out));
  }
}

// Binds the executor to the current input shapes if they changed.
bool FusedPartitionOp::bind(OpTensors& host, OpKernelContext* ctx) {
  std::vector<Shape> shapes;
  for (int i = 0; i < static_cast<int>(input_of_.size()); ++i) shapes.push_back(shape_of(ctx->input(i)));
  if (bound_ && shapes == bound_inputs_) return true;
  bound_ = false;
  int threads = opts_.num_threads;
  if (threads <= 0) threads = ctx->device()->tensorflow_cpu_worker_threads()->num_threads;
  threads = std::max(1, std::min<int>(threads, std::max(1u, std::thread::hardware_concurrency())));
  for (const auto& [t, o] : output_of_)  // the executor copies constants out: their shapes are known
    if (graph_->tensors[t].is_constant) output_shapes_[o] = graph_->tensors[t].shape;
  if (!exec_->prepare(host, threads)) return false;
  bound_inputs_ = std::move(shapes);
  bound_ = true;
  return true;
}

void FusedPartitionOp::Compute(OpKernelContext* ctx) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int i = 0; i < static_cast<int>(input_of_.size()); ++i)
    if (num_elements(shape_of(ctx->input(i))) == 0) return empty_batch(ctx);
  const std::string error = refresh_weights(ctx);
  OP_REQUIRES(ctx, error.empty(), tensorflow::errors::InvalidArgument("FdFusedPartition: ", error));
  OpTensors host(*graph_, input_of_, output_of_, &output_shapes_, ctx);
  OP_REQUIRES(ctx, bind(host, ctx),
              tensorflow::errors::InvalidArgument("FdFusedPartition: cannot bind: ", host.last_error()));
  host.outputs().assign(ctx->num_outputs(), nullptr);
  for (int o = 0; o < ctx->num_outputs(); ++o) {
    tensorflow::TensorShape shape;
    for (int64_t d : output_shapes_[o]) shape.AddDim(d);
    OP_REQUIRES_OK(ctx, ctx->allocate_output(o, shape, &host.outputs()[o]));
  }
  const std::shared_ptr<ThreadPool> pool = thread_pools().get(exec_->threads());
  OP_REQUIRES(ctx, exec_->invoke(host, pool.get(), nullptr),
              tensorflow::errors::InvalidArgument("FdFusedPartition: ", host.last_error()));
}

REGISTER_KERNEL_BUILDER(Name("FdFusedPartition").Device(tensorflow::DEVICE_CPU), FusedPartitionOp);

}  // namespace
}  // namespace fd
