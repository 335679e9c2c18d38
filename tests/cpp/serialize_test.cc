// A fused partition as a string: every field round-trips, corrupt or truncated
// strings are refused with a message, and an executor built from the parsed
// partition gives the same bits as one built from the original graph.
#include "ir/serialize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>

#include "graph_builder.h"
#include "ir/shape.h"
#include "ops/op_registry.h"
#include "ops/resize.h"
#include "ops/batch_matmul.h"
#include "ops/concatenation.h"
#include "ops/fully_connected.h"
#include "ops/pool.h"
#include "ops/pad.h"
#include "ops/reshape.h"
#include "ops/row_reduce.h"
#include "ops/softmax.h"
#include "ops/transpose.h"
#include "ops/transpose_conv.h"
#include "ops/window.h"
#include "kernels/cpu.h"
#include "plan/planner.h"
#include "runtime/executor.h"
#include "runtime/thread_pool.h"

namespace fd {
namespace {

using test::GraphBuilder;
using test::random_weights;

uint32_t bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof(b));
  return b;
}

std::vector<uint32_t> bits(const std::vector<float>& v) {
  std::vector<uint32_t> out;
  for (float x : v) out.push_back(bits(x));
  return out;
}

// Field by field, through structured bindings: a field added to the IR stops
// these compiling until the comparison (and the serialiser) covers it.
void expect_same(const Tensor& a, const Tensor& b) {
  const auto& [dtype, is_constant, dynamic, shape, signature, quantization, data, stored_as, at_run_time] = a;
  EXPECT_EQ(dtype, b.dtype);
  EXPECT_EQ(at_run_time, b.values_at_run_time);
  EXPECT_EQ(stored_as, b.stored_as);
  EXPECT_EQ(is_constant, b.is_constant);
  EXPECT_EQ(dynamic, b.has_dynamic_shape);
  EXPECT_EQ(shape, b.shape);
  EXPECT_EQ(signature, b.signature);
  const auto& [scales, zero_points, axis] = quantization;
  EXPECT_EQ(bits(scales), bits(b.quantization.scales));
  EXPECT_EQ(zero_points, b.quantization.zero_points);
  EXPECT_EQ(axis, b.quantization.axis);
  ASSERT_EQ(data.empty(), b.data.empty());
  ASSERT_EQ(data.size(), b.data.size());
  if (!data.empty()) {
    EXPECT_EQ(std::memcmp(data.bytes(), b.data.bytes(), data.size()), 0);
    EXPECT_TRUE(b.data.is_owned());
  }
}

void expect_same(const ConvParams& a, const ConvParams& b) {
  const auto& [stride_h, stride_w, dilation_h, dilation_w, same_padding, window_h, window_w] = a;
  EXPECT_EQ(stride_h, b.stride_h);
  EXPECT_EQ(stride_w, b.stride_w);
  EXPECT_EQ(dilation_h, b.dilation_h);
  EXPECT_EQ(dilation_w, b.dilation_w);
  EXPECT_EQ(same_padding, b.same_padding);
  EXPECT_EQ(window_h, b.window_h);
  EXPECT_EQ(window_w, b.window_w);
}

// Inputs and outputs compared through `tensor`: new index -> original one.
void expect_same(const Node& a, const Node& b, const std::vector<int>& tensor) {
  const auto& [id, name, kind, ew, anchor, act, param, shape_input, params, inputs, outputs] = a;
  ASSERT_EQ(params == nullptr, b.params == nullptr);  // an op's own parameters, read back by its reader
  if (params) {
    EXPECT_EQ(params->describe(), b.params->describe());
  }
  EXPECT_EQ(id, b.id);
  EXPECT_EQ(name, b.name);
  EXPECT_EQ(kind, b.kind);
  EXPECT_EQ(ew, b.ew);
  EXPECT_EQ(anchor, b.anchor);
  EXPECT_EQ(act, b.act);
  EXPECT_EQ(bits(param), bits(b.param));
  if (dynamic_cast<const WindowParams*>(params.get())) expect_same(window_of(a), window_of(b));  // every field
  EXPECT_EQ(shape_input, b.shape_input < 0 ? -1 : tensor.at(b.shape_input));
  std::vector<int> in, out;
  for (int t : b.inputs) in.push_back(tensor.at(t));
  for (int t : b.outputs) out.push_back(tensor.at(t));
  EXPECT_EQ(inputs, in);
  EXPECT_EQ(outputs, out);
}

// `b` parsed from `a`'s partition.
void expect_same(const Fold& a, const Fold& b, const PartitionGraph& p) {
  const auto& [kind, anchor, nodes, operand, source, scale, shift] = a;
  EXPECT_EQ(kind, b.kind);
  EXPECT_EQ(anchor, p.node_origin.at(b.anchor));
  std::vector<int> folded;
  for (int m : b.nodes) folded.push_back(p.node_origin.at(m));
  EXPECT_EQ(nodes, folded);
  EXPECT_EQ(operand, b.operand);
  EXPECT_EQ(source, b.source < 0 ? b.source : p.tensor_origin.at(b.source));
  EXPECT_EQ(bits(scale), bits(b.scale));
  EXPECT_EQ(bits(shift), bits(b.shift));
}

// Every node and tensor of `p` against the original graph, through its origins.
void expect_same_partition(const Graph& g, const PartitionGraph& p) {
  ASSERT_EQ(p.tensor_origin.size(), p.graph.tensors.size());
  ASSERT_EQ(p.node_origin.size(), p.graph.nodes.size());
  for (size_t t = 0; t < p.graph.tensors.size(); ++t) expect_same(g.tensors[p.tensor_origin[t]], p.graph.tensors[t]);
  for (size_t n = 0; n < p.graph.nodes.size(); ++n)
    expect_same(g.nodes[p.node_origin[n]], p.graph.nodes[n], p.tensor_origin);
}

PartitionGraph round_trip(const Graph& g, const std::vector<std::vector<int>>& groups,
                          const std::vector<Fold>& folds, const std::vector<SliceWrite>& slice_writes = {}) {
  std::string error;
  auto p = parse_partition(serialize_partition(g, groups, folds, slice_writes), read_anchor_params, &error);
  EXPECT_TRUE(p) << error;
  return p ? std::move(*p) : PartitionGraph{};
}

// A graph whose nodes and tensors set every field away from its default
// (no planner would claim it: this is about the format only).
Graph every_field_graph() {
  Graph g;
  Tensor in;
  in.dtype = DType::kF16;
  in.has_dynamic_shape = true;
  in.shape = {1, -1, 5};
  in.signature = {-1, -1, 5};
  in.quantization = {{0.5f, NAN, -0.f}, {1, -2, 3}, 2};
  Tensor k;
  k.dtype = DType::kI64;
  k.is_constant = true;
  k.shape = {3};
  k.data = ConstantData::own(std::vector<int64_t>{-1, 1LL << 40, 7});
  k.stored_as = DType::kI8;
  k.values_at_run_time = true;
  Tensor w;
  w.dtype = DType::kF32;
  w.is_constant = true;
  w.shape = {2, 0};
  w.data = ConstantData::borrow(&w, 0);  // present but empty
  Tensor out;
  out.dtype = DType::kBool;
  out.quantization = {{0.25f}, {-128}, -1};
  g.tensors = {in, k, w, out};
  Node n;
  n.id = 42;
  n.name = std::string("every \0 field", 13);
  n.kind = OpKind::kAnchor;
  n.ew = EwOp::Prelu;
  n.anchor = AnchorOp::kDepthwiseConv2D;
  n.act = Activation::kReluN1To1;
  n.param = -1.75e-30f;
  n.params = window_op_params({2, 3, 4, 5, true, 6, 7});
  n.shape_input = 1;
  n.inputs = {0, 1, 2};
  n.outputs = {3};
  Node m = n;
  m.id = 43;
  m.name = "second";
  m.kind = OpKind::kElementwise;
  m.params = nullptr;  // an elementwise op has none
  m.inputs = {3, 3};
  m.outputs = {0};
  Node r;  // an op of its own parameters (Node::params), which its reader reads back
  r.id = 44;
  r.name = "RESIZE_NEAREST_NEIGHBOR";
  r.kind = OpKind::kAnchor;
  r.anchor = AnchorOp::kResizeNearest;
  r.params = resize_params(7, int64_t{1} << 40, true, true);
  r.inputs = {0};
  r.outputs = {3};
  g.nodes = {n, m, r};
  return g;
}

TEST(Serialize, EveryFieldRoundTrips) {
  const Graph g = every_field_graph();
  Fold f;
  f.kind = FoldKind::kInputAffine;
  f.anchor = 1;
  f.nodes = {0};
  f.operand = 1;
  f.source = 2;
  f.scale = {0.5f, -3.f};
  f.shift = {NAN, 1e-40f};
  const PartitionGraph p = round_trip(g, {{0, 1}, {2}}, {f}, {SliceWrite{1, 1, 0}});
  expect_same_partition(g, p);
  EXPECT_EQ(p.graph.nodes[2].params->describe(), "7x1099511627776, align_corners, half_pixel_centers");
  ASSERT_EQ(p.slice_writes.size(), 1u);
  const auto& [concat, operand, producer] = p.slice_writes[0];
  EXPECT_EQ(std::vector<int>({concat, operand, producer}), std::vector<int>({1, 1, 0}));
  EXPECT_EQ(p.node_origin, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(p.tensor_origin, (std::vector<int>{0, 1, 2, 3}));  // all touched: numbers kept
  EXPECT_EQ(p.groups, (std::vector<std::vector<int>>{{0, 1}, {2}}));
  ASSERT_EQ(p.folds.size(), 1u);
  expect_same(f, p.folds[0], p);
}

TEST(Serialize, ASubsetIsRenumberedAndDropsOutsideFolds) {
  GraphBuilder b;
  const Shape s = {1, 4, 4, 8};
  const int x = b.ew(EwOp::Abs, {b.tensor(s)}, s);                   // node 0, outside
  const int y = b.ew(EwOp::Add, {x, b.tensor({8}, true, random_weights(8, 1))}, s);  // node 1
  b.ew(EwOp::Tanh, {b.ew(EwOp::Exp, {y}, s)}, s);                    // nodes 2, 3
  Fold outside;
  outside.anchor = 1;
  outside.nodes = {0};
  Fold inside;
  inside.kind = FoldKind::kChannelScale;
  inside.anchor = 3;
  inside.nodes = {1};
  inside.operand = 1;
  const PartitionGraph p = round_trip(b.g, {{1, 2}, {3}}, {outside, inside});
  expect_same_partition(b.g, p);
  EXPECT_EQ(p.node_origin, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(p.tensor_origin, (std::vector<int>{1, 2, 3, 4, 5}));  // not the Abs's input 0
  EXPECT_EQ(p.groups, (std::vector<std::vector<int>>{{0, 1}, {2}}));
  ASSERT_EQ(p.folds.size(), 1u);
  expect_same(inside, p.folds[0], p);
  EXPECT_EQ(p.graph.nodes[0].inputs, (std::vector<int>{0, 1}));  // x and the constant, renumbered
}

uint64_t fnv1a(const std::string& s, size_t from) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = from; i < s.size(); ++i) h = (h ^ static_cast<uint8_t>(s[i])) * 1099511628211ull;
  return h;
}

// The header's checksum made to match a changed payload.
void reseal(std::string& s) {
  const uint64_t h = fnv1a(s, 28);
  for (int i = 0; i < 8; ++i) s[20 + i] = static_cast<char>(h >> (8 * i));
}

std::string sample_partition() {
  const Graph g = every_field_graph();
  Fold f;
  f.kind = FoldKind::kPad;
  f.anchor = 1;
  f.nodes = {0};
  return serialize_partition(g, {{0, 1}}, {f});
}

std::string parse_error(const std::string& s) {
  std::string error;
  const auto p = parse_partition(s, read_anchor_params, &error);
  EXPECT_FALSE(p);
  EXPECT_FALSE(error.empty());
  return error;
}

TEST(Serialize, TruncatedOrCorruptStringsGiveAClearError) {
  const std::string good = sample_partition();
  for (size_t n = 0; n < good.size(); ++n) parse_error(good.substr(0, n));
  EXPECT_NE(parse_error(good.substr(0, 10)).find("truncated"), std::string::npos);
  EXPECT_NE(parse_error(good.substr(0, good.size() - 1)).find("truncated"), std::string::npos);
  EXPECT_NE(parse_error(good + "x").find("corrupt"), std::string::npos);
  EXPECT_NE(parse_error("PK" + good.substr(2)).find("magic"), std::string::npos);
  std::string other = good;
  other[8] = static_cast<char>(kPartitionFormatVersion + 1);
  EXPECT_NE(parse_error(other).find("version " + std::to_string(kPartitionFormatVersion + 1)), std::string::npos);
  for (size_t i = 28; i < good.size(); ++i) {  // every payload byte, flipped
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    EXPECT_NE(parse_error(bad).find("checksum"), std::string::npos) << i;
  }
}

// Changes behind a valid checksum: parsing checks what it reads, and never
// crashes, whatever the bytes.
TEST(Serialize, ResealedGarbageIsRefusedOrParsedButNeverCrashes) {
  const std::string good = sample_partition();
  std::mt19937 rng(7);
  int refused = 0;
  for (int k = 0; k < 20000; ++k) {
    std::string bad = good;
    for (int j = 0; j < 1 + k % 4; ++j) bad[28 + rng() % (good.size() - 28)] = static_cast<char>(rng());
    reseal(bad);
    std::string error;
    refused += !parse_partition(bad, read_anchor_params, &error);
  }
  EXPECT_GT(refused, 1000);
}

TEST(Serialize, InconsistentPartitionsAreRefused) {
  Graph g = every_field_graph();
  g.nodes[1].ew = EwOp::kCount;  // an elementwise node without its op
  EXPECT_NE(parse_error(serialize_partition(g, {{0, 1}}, {})).find("node 1: elementwise without its op"),
            std::string::npos);
  g = every_field_graph();
  g.tensors[2].shape = {3};  // 0 bytes of float32 for 3 elements
  EXPECT_NE(parse_error(serialize_partition(g, {{0, 1}}, {})).find("tensor 2: float32 constant"), std::string::npos);
  Fold empty;
  empty.anchor = 1;
  EXPECT_NE(parse_error(serialize_partition(every_field_graph(), {{0, 1}}, {empty})).find("fold 0: no folded nodes"),
            std::string::npos);
}

// Parameters of each op that has its own (the front ends always give them).
std::shared_ptr<const OpParams> sample_params(AnchorOp op) {
  switch (op) {
    case AnchorOp::kResizeBilinear: case AnchorOp::kResizeNearest: return resize_params(3, 4, false, true);
    case AnchorOp::kSoftmax: return softmax_params(0.5f);
    case AnchorOp::kBatchMatMul: return batch_matmul_params(true, false);
    case AnchorOp::kRowReduce: return row_reduce_params(Reduce::kMax, -1, true);
    case AnchorOp::kTranspose: return transpose_params({1, 0});
    case AnchorOp::kReshape: return reshape_params({4, -1, INT64_MAX});
    case AnchorOp::kExpandDims: return expand_dims_params(-3);
    case AnchorOp::kSqueeze: return squeeze_params({});
    case AnchorOp::kConcatenation: return concatenation_params(-2, true);
    case AnchorOp::kTransposeConv: return transpose_conv_params({2, 3, 4, 5, true, 6, 7}, {1, 2, 3, 4});
    case AnchorOp::kFullyConnected: return fully_connected_params(true, true);
    case AnchorOp::kConv2D: case AnchorOp::kDepthwiseConv2D: case AnchorOp::kMaxPool2D: case AnchorOp::kAveragePool2D:
      return window_op_params({1, 2, 3, 4, true, 5, 6});
    case AnchorOp::kMean: return mean_params(true);
    case AnchorOp::kPad: return pad_params({0, 1, -2, 3}, PadMode::kSymmetric, -0.f);
    default: return nullptr;
  }
}

// Every value of every enum the format stores is read back, and each op's
// parameters; a byte past them is refused.
TEST(Serialize, EveryEnumValueRoundTripsAndUnknownOnesAreRefused) {
  Graph g = every_field_graph();
  for (int a = 0; a <= static_cast<int>(AnchorOp::kSqueeze); ++a) {
    g.nodes[0].anchor = static_cast<AnchorOp>(a);
    const auto params = sample_params(g.nodes[0].anchor);
    ASSERT_EQ(params != nullptr, anchor_info(g.nodes[0].anchor).read_params != nullptr) << a;
    g.tensors[0].dtype = static_cast<DType>(a % (static_cast<int>(DType::kOther) + 1));
    g.nodes[0].kind = static_cast<OpKind>(a % (static_cast<int>(OpKind::kOpaque) + 1));
    g.nodes[0].act = static_cast<Activation>(a % (static_cast<int>(Activation::kUnsupported) + 1));
    // An anchor's parameters travel, and a PAD's (every PadMode).
    const auto pad = pad_params({0, 1}, static_cast<PadMode>(a % (static_cast<int>(PadMode::kSymmetric) + 1)), 2.f);
    g.nodes[0].params = g.nodes[0].kind == OpKind::kAnchor ? params : g.nodes[0].kind == OpKind::kPad ? pad : nullptr;
    Fold f;
    f.kind = static_cast<FoldKind>(a % (static_cast<int>(FoldKind::kSqrt) + 1));
    const bool rewrite = f.kind == FoldKind::kSwish || f.kind == FoldKind::kMultiplyAdd;
    const bool power = f.kind == FoldKind::kSquare || f.kind == FoldKind::kSqrt;
    f.anchor = 1;
    // A rewrite's nodes are elementwise ops of two inputs; a power folds none.
    f.nodes = power ? std::vector<int>{} : std::vector<int>{rewrite ? 1 : 0};
    const EwOp ew = g.nodes[1].ew;
    if (power) g.nodes[1].ew = EwOp::Pow;  // a power folds into a POW
    f.source = 0;
    const PartitionGraph p = round_trip(g, {{0, 1}}, {f});
    expect_same_partition(g, p);
    ASSERT_EQ(p.folds.size(), 1u);
    EXPECT_EQ(p.folds[0].kind, f.kind);
    g.nodes[1].ew = ew;
  }
  g.nodes[0].anchor = static_cast<AnchorOp>(200);
  EXPECT_NE(parse_error(serialize_partition(g, {{0, 1}}, {})).find("corrupt: anchor op 200 out of range"),
            std::string::npos);
  g = every_field_graph();  // a rewrite into an anchor
  EXPECT_NE(parse_error(serialize_partition(g, {{0, 1}}, {Fold{FoldKind::kMultiplyAdd, 0, {1}, 0, -1, {}, {}}}))
                .find("a rewrite of nodes that are not elementwise ops of two inputs"),
            std::string::npos);
  for (const Fold& power : {Fold{FoldKind::kSquare, 0, {}, 1, -1, {}, {}}, Fold{FoldKind::kSqrt, 1, {0}, 1, -1, {}, {}}})
    EXPECT_NE(parse_error(serialize_partition(g, {{0, 1}}, {power}))
                  .find("a power fold that is not into a POW, or folds nodes"),
              std::string::npos);
  g = every_field_graph();
  g.tensors[1].dtype = static_cast<DType>(static_cast<int>(DType::kOther) + 1);
  EXPECT_NE(parse_error(serialize_partition(g, {{0, 1}}, {})).find("corrupt: dtype"), std::string::npos);
  g = every_field_graph();
  g.nodes[2].anchor = AnchorOp::kRowReduce;  // an op's own parameters are checked by its reader
  g.nodes[2].params = row_reduce_params(static_cast<Reduce>(static_cast<int>(Reduce::kMin) + 1), -1, false);
  EXPECT_NE(parse_error(serialize_partition(g, {{0, 1, 2}}, {})).find("corrupt: reduction 4 out of range"),
            std::string::npos);
}

// ---- Executors from the original graph and from the parsed partition.

// The front end's tensors for a test: a buffer per run-time tensor, the
// graph's values for constants.
class TestHost : public TensorHost {
 public:
  // `unwritten`: constants the host holds no values of (a claimed DEQUANTIZE's output).
  explicit TestHost(const Graph& g, std::set<int> unwritten = {}) : g_(g), unwritten_(std::move(unwritten)) {
    for (size_t t = 0; t < g.tensors.size(); ++t) {
      shapes_[t] = g.tensors[t].shape;
      if (!g.tensors[t].is_constant || unwritten_.count(t)) buffers_[t].assign(num_elements(g.tensors[t].shape), NAN);
    }
  }
  std::vector<float>& values(int t) { return buffers_.at(t); }
  Shape shape(int t) const override { return shapes_.at(t); }
  float* data(int t) const override {
    const Tensor& ten = g_.tensors[t];
    return ten.is_constant && !unwritten_.count(t) ? const_cast<float*>(ten.f32_data()) : buffers_.at(t).data();
  }
  bool resize(int t, const Shape& s) override {
    shapes_[t] = s;
    buffers_[t].resize(num_elements(s));
    return true;
  }
  void error(const std::string& message) override { ADD_FAILURE() << message; }

 private:
  const Graph& g_;
  std::set<int> unwritten_;
  std::map<int, Shape> shapes_;
  mutable std::map<int, std::vector<float>> buffers_;
};

// Every family, groups of any size.
FusionPlan plan_all(const Graph& g) {
  PlannerOptions all;
  all.families = kFamilyAll;
  all.min_nodes_per_group = 1;
  return plan_fusion(g, all);
}

// A DEQUANTIZE of a float16 scalar, claimed with the MUL and ADD reading it:
// the host never computes its output, the programs read the graph's values.
TEST(Executor, ProgramsReadAClaimedConstantNodesValuesFromTheGraph) {
  test::GraphBuilder b;
  const Shape s = {1, 3, 5, 8};
  const int half = b.dequantize({}, 0.75f);
  const int x = b.tensor(s);
  const int y = b.ew(EwOp::Add, {b.ew(EwOp::Mul, {x, half}, s), half}, s);
  const FusionPlan plan = plan_all(b.g);
  ASSERT_EQ(plan.groups.size(), 1u);
  for (const auto& isa : available_isas()) {
    Executor exec(std::make_shared<const Graph>(b.g), plan.groups, plan.folds, {y}, *kernels_for(isa));
    TestHost host(b.g, {half});
    for (size_t i = 0; i < host.values(x).size(); ++i) host.values(x)[i] = 0.25f * static_cast<float>(i % 7) - 1.f;
    ASSERT_TRUE(exec.prepare(host, 1));
    exec.invoke(host, nullptr, nullptr);
    for (size_t i = 0; i < host.values(y).size(); ++i)
      EXPECT_EQ(host.values(y)[i], host.values(x)[i] * 0.75f + 0.75f) << isa << " element " << i;
  }
}

// Resized again and again, a partition reuses the buffers of its own tensors:
// what it holds stays that of its largest binding (each prepare used to add
// a new set of buffers), and it still computes the right values.
TEST(Executor, ResizingReusesThePartitionsBuffers) {
  test::GraphBuilder b;
  const Shape s = {4, 16, 16, 8};
  const int x = b.tensor(s);
  const int y = b.ew(EwOp::Neg, {b.ew(EwOp::Abs, {x}, s)}, s);  // abs(x): a tensor of the partition's own
  Executor exec(std::make_shared<const Graph>(b.g), {{0}, {1}}, {}, {y}, *kernels_for("scalar"));
  TestHost host(b.g);
  size_t largest = 0;
  for (int i = 0; i < 40; ++i) {
    const int64_t batch = 1 + i % 4;
    ASSERT_TRUE(host.resize(x, {batch, 16, 16, 8}));
    for (size_t j = 0; j < host.values(x).size(); ++j) host.values(x)[j] = static_cast<float>(j % 5) - 2.f;
    ASSERT_TRUE(exec.prepare(host, 1));
    exec.invoke(host, nullptr, nullptr);
    ASSERT_EQ(host.shape(y), (Shape{batch, 16, 16, 8}));
    for (size_t j = 0; j < host.values(y).size(); ++j) ASSERT_EQ(host.values(y)[j], -std::fabs(host.values(x)[j]));
    if (i < 4) largest = std::max(largest, exec.owned_floats());
    EXPECT_LE(exec.owned_floats(), largest) << "prepare " << i;
  }
  EXPECT_GE(largest, static_cast<size_t>(num_elements(s)));
}

// A group whose values take different shapes after a resize runs node by node,
// a POW by 0.5 still as the plan's SqrtAsPow (a correctly rounded square root,
// where the POW kernel's exp(y log x) is not).
TEST(Executor, NodeByNodePowStaysThePlansSqrt) {
  static const float half[1] = {0.5f};
  test::GraphBuilder b;
  const Shape s = {1, 1, 1, 64};
  const int x = b.tensor(s), y = b.tensor(s);
  const int root = b.ew(EwOp::Pow, {x, b.tensor({}, true, half)}, s);
  const int z = b.ew(EwOp::Mul, {root, y}, s);
  const FusionPlan plan = plan_all(b.g);
  ASSERT_EQ(plan.groups.size(), 1u);
  for (const auto& isa : available_isas()) {
    Executor exec(std::make_shared<const Graph>(b.g), plan.groups, plan.folds, {root, z}, *kernels_for(isa));
    TestHost host(b.g);
    ASSERT_TRUE(host.resize(y, {3, 1, 1, 64}));  // the MUL's output grows, the POW's does not
    for (size_t i = 0; i < 64; ++i) host.values(x)[i] = 0.37f * static_cast<float>(i) + 0.01f;
    std::fill(host.values(y).begin(), host.values(y).end(), 1.f);
    ASSERT_TRUE(exec.prepare(host, 1));
    exec.invoke(host, nullptr, nullptr);
    for (size_t i = 0; i < 64; ++i) ASSERT_EQ(host.values(root)[i], std::sqrt(host.values(x)[i])) << isa << " " << i;
  }
}

// The tensors `groups` produce that a node outside them reads, or no node does.
std::set<int> exported_tensors(const Graph& g, const std::vector<std::vector<int>>& groups) {
  std::set<int> inside, produced, read_outside;
  for (const auto& group : groups) inside.insert(group.begin(), group.end());
  for (size_t pos = 0; pos < g.nodes.size(); ++pos)
    for (int t : g.nodes[pos].inputs)
      if (!inside.count(static_cast<int>(pos))) read_outside.insert(t);
  std::set<int> read;
  for (const Node& n : g.nodes) read.insert(n.inputs.begin(), n.inputs.end());
  std::set<int> out;
  for (int pos : inside)
    for (int t : g.nodes[pos].outputs)
      if (read_outside.count(t) || !read.count(t)) out.insert(t);
  return out;
}

// Runs `groups` of g, and the same parsed from their string, on every ISA with
// the same inputs: the exported tensors must agree bit for bit.
void expect_bit_identical(const Graph& g, const std::vector<std::vector<int>>& groups, const std::vector<Fold>& folds) {
  const PartitionGraph p = round_trip(g, groups, folds);
  ASSERT_FALSE(p.graph.nodes.empty());
  std::map<int, int> renumbered;
  for (size_t t = 0; t < p.tensor_origin.size(); ++t) renumbered[p.tensor_origin[t]] = static_cast<int>(t);
  const std::set<int> exported = exported_tensors(g, groups);
  std::set<int> parsed_exported;
  for (int t : exported) parsed_exported.insert(renumbered.at(t));
  for (const auto& isa : available_isas()) {
    const Kernels& kernels = *kernels_for(isa);
    Executor original(std::make_shared<const Graph>(g), groups, folds, exported, kernels);
    Executor parsed(std::make_shared<const Graph>(p.graph), p.groups, p.folds, parsed_exported, kernels);
    TestHost host(g), parsed_host(p.graph);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-2.f, 2.f);
    for (const auto& [orig, t] : renumbered) {
      if (g.tensors[orig].is_constant) continue;
      for (float& v : host.values(orig)) v = u(rng);
      parsed_host.values(t) = host.values(orig);
    }
    ThreadPool pool(2);
    ASSERT_TRUE(original.prepare(host, 2));
    ASSERT_TRUE(parsed.prepare(parsed_host, 2));
    original.invoke(host, &pool, nullptr);
    parsed.invoke(parsed_host, &pool, nullptr);
    EXPECT_EQ(original.labels(), parsed.labels());
    ASSERT_FALSE(exported.empty());
    for (int t : exported) {
      const std::vector<float>& want = host.values(t);
      EXPECT_TRUE(std::none_of(want.begin(), want.end(), [](float v) { return std::isnan(v); })) << "not written";
      EXPECT_EQ(bits(want), bits(parsed_host.values(renumbered.at(t)))) << isa << " tensor " << t;
    }
  }
}

ConvParams conv_params(int stride, bool same) {
  ConvParams c;
  c.stride_h = c.stride_w = stride;
  c.same_padding = same;
  return c;
}

// An input normalisation folded into a CONV_2D with an epilogue and a
// residual, then a PAD folded into a strided CONV_2D with its activation.
Graph conv_graph() {
  static const float scale[1] = {0.75f};
  GraphBuilder b;
  const Shape in = {2, 9, 9, 3}, mid = {2, 9, 9, 8}, out = {2, 4, 4, 16};
  int t = b.ew(EwOp::Mul, {b.tensor(in), b.tensor({}, true, scale)}, in);
  t = b.ew(EwOp::Add, {t, b.tensor({3}, true, random_weights(3, 11))}, in);
  t = b.conv(AnchorOp::kConv2D, t, random_weights(8 * 9 * 3, 12), {8, 3, 3, 3}, random_weights(8, 13),
             conv_params(1, true), mid, Activation::kRelu);
  t = b.ew(EwOp::Add, {b.ew(EwOp::Tanh, {t}, mid), b.tensor(mid)}, mid);
  t = b.pad(t, {0, 0, 1, 0, 1, 0, 0, 0}, {2, 10, 10, 8});
  t = b.conv(AnchorOp::kConv2D, t, random_weights(16 * 9 * 8, 14), {16, 3, 3, 8}, random_weights(16, 15),
             conv_params(2, false), out, Activation::kRelu6);
  b.opaque("CUSTOM", {b.ew(EwOp::Logistic, {t}, out)}, out);
  return b.g;
}

TEST(Serialize, ConvolutionGroupsRunBitIdenticalFromTheString) {
  const Graph g = conv_graph();
  const FusionPlan plan = plan_all(g);
  ASSERT_EQ(plan.groups.size(), 2u);
  ASSERT_EQ(plan.folds.size(), 3u);  // the input map, the PAD, the map's MUL into its ADD where it runs
  expect_bit_identical(g, plan.groups, plan.folds);
  for (const auto& group : plan.groups) expect_bit_identical(g, {group}, plan.folds);
  // The parsed nodes are as legal as the originals.
  const PartitionGraph p = round_trip(g, plan.groups, plan.folds);
  for (size_t n = 0; n < p.graph.nodes.size(); ++n)
    EXPECT_EQ(node_legality(p.graph, p.graph.nodes[n], kFamilyAll),
              node_legality(g, g.nodes[p.node_origin[n]], kFamilyAll));
}

TEST(Serialize, AnElementwiseChainRunsBitIdenticalFromTheString) {
  static const float two[1] = {2.f};
  GraphBuilder b;
  const Shape s = {2, 5, 7, 16};
  const int x = b.tensor(s);
  int t = b.ew(EwOp::Mul, {x, b.tensor({16}, true, random_weights(16, 21))}, s);
  t = b.ew(EwOp::Add, {t, b.tensor({5, 1, 16})}, s);
  t = b.ew(EwOp::Mul, {t, b.ew(EwOp::Logistic, {t}, s)}, s);  // swish
  const int kept = b.ew(EwOp::Pow, {t, b.tensor({}, true, two)}, s);  // a square
  b.opaque("CUSTOM", {kept}, s);                                       // read outside: stored
  b.ew(EwOp::Sub, {b.ew(EwOp::Tanh, {kept}, s), x}, s, Activation::kRelu6);
  const FusionPlan plan = plan_all(b.g);
  ASSERT_FALSE(plan.groups.empty());
  expect_bit_identical(b.g, plan.groups, plan.folds);
}

}  // namespace
}  // namespace fd
