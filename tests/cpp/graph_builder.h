// Builds small IR graphs by hand for planner and program tests.
#pragma once

#include <random>
#include <vector>

#include "ir/float_source.h"
#include "ir/graph.h"
#include "ir/shape.h"
#include "ops/index_view.h"
#include "ops/batch_matmul.h"
#include "ops/concatenation.h"
#include "ops/fully_connected.h"
#include "ops/pool.h"
#include "ops/pad.h"
#include "ops/reshape.h"
#include "ops/resize.h"
#include "ops/row_reduce.h"
#include "ops/softmax.h"
#include "ops/transpose.h"
#include "ops/transpose_conv.h"
#include "ops/window.h"
#include "plan/planner.h"

namespace fd::test {

// Constant weights in [-0.5, 0.5) for hand-built anchors; kept alive for the whole test.
inline const float* random_weights(size_t n, uint32_t seed) {
  static std::vector<std::vector<float>> keep;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  keep.emplace_back(n);
  for (float& v : keep.back()) v = u(rng);
  return keep.back().data();
}

// n values in [-1, 1).
inline std::vector<float> random_vector(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

// Weights [n x k] (n rows of k depths) in [-0.5, 0.5) where `share` of each
// row's groups of 4 depths hold values, zeros elsewhere (the converter's
// sparsity); kept alive for the whole test.
inline const float* sparse_weights(int n, int k, double share, uint32_t seed) {
  static std::vector<std::vector<float>> keep;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  std::bernoulli_distribution nonzero(share);
  keep.emplace_back(static_cast<size_t>(n) * k, 0.f);
  for (int j = 0; j < n; ++j)
    for (int d = 0; d < k; d += 4)
      if (nonzero(rng))
        for (int i = d; i < k && i < d + 4; ++i) keep.back()[static_cast<size_t>(j) * k + i] = u(rng);
  return keep.back().data();
}

// The planner's folds for the whole graph (every family, groups of any size):
// what build_program takes in when a test fuses nodes by hand.
inline std::vector<Fold> planned_folds(const Graph& g) {
  PlannerOptions o;
  o.families = kFamilyAll;
  o.min_nodes_per_group = 1;
  return plan_fusion(g, o).folds;
}

class GraphBuilder {
 public:
  // float32 false: an int8 tensor. A constant borrows `constant`, which must
  // hold the shape's float32 values.
  int tensor(Shape shape, bool float32 = true, const float* constant = nullptr) {
    return tensor(std::move(shape), float32 ? DType::kF32 : DType::kI8, constant);
  }
  int tensor(Shape shape, DType dtype, const float* constant = nullptr) {
    Tensor t;
    t.shape = std::move(shape);
    t.dtype = dtype;
    t.is_constant = constant != nullptr;
    if (constant) t.data = ConstantData::borrow(constant, elements(t.shape) * sizeof(float));
    g.tensors.push_back(t);
    return static_cast<int>(g.tensors.size()) - 1;
  }
  // Adds an elementwise node; its output takes the broadcast shape given.
  int ew(EwOp op, std::vector<int> inputs, Shape out_shape, Activation act = Activation::kNone) {
    Node n;
    n.name = ew_name(op);
    n.kind = OpKind::kElementwise;
    n.ew = op;
    n.act = act;
    n.inputs = std::move(inputs);
    return add(std::move(n), std::move(out_shape));
  }
  // FULLY_CONNECTED: weights [n, k] and optional bias [n] are constants.
  int fc(int input, const float* weights, const float* bias, int64_t n, int64_t k, Shape out_shape,
         Activation act = Activation::kNone, bool keep_num_dims = false) {
    Node node;
    node.name = "FULLY_CONNECTED";
    node.kind = OpKind::kAnchor;
    node.anchor = AnchorOp::kFullyConnected;
    node.act = act;
    node.params = fully_connected_params(keep_num_dims, false);
    node.inputs = {input, tensor({n, k}, true, weights)};
    if (bias) node.inputs.push_back(tensor({n}, true, bias));
    return add(std::move(node), std::move(out_shape));
  }
  // Makes constant weights `t` int8 as the TFLite front end leaves them (its
  // dequantize_int8_weights): float32 converted from q (which must outlive the
  // graph) by `quantization`, stored_as int8.
  void int8_weights(int t, const int8_t* q, Quantization quantization) {
    Tensor& w = g.tensors[t];
    Float32Source source;
    if (!Float32Source::from_i8(ConstantData::borrow(q, elements(w.shape)), w.shape, quantization, &source)) return;
    w.quantization = std::move(quantization);
    w.data = ConstantData::converted(std::move(source));
    w.stored_as = DType::kI8;
  }
  // CONV_2D (filter [oc, kh, kw, ic]) or DEPTHWISE_CONV_2D (filter [1, kh, kw, c]).
  int conv(AnchorOp op, int input, const float* filter, Shape filter_shape, const float* bias, ConvParams p,
           Shape out_shape, Activation act = Activation::kNone) {
    Node node;
    node.name = op == AnchorOp::kConv2D          ? "CONV_2D"
                : op == AnchorOp::kTransposeConv ? "TRANSPOSE_CONV"
                                                 : "DEPTHWISE_CONV_2D";
    node.kind = OpKind::kAnchor;
    node.anchor = op;
    node.act = act;
    node.params = window_op_params(p);
    const int64_t n = op == AnchorOp::kDepthwiseConv2D ? filter_shape[3] : filter_shape[0];
    node.inputs = {input, tensor(std::move(filter_shape), true, filter)};
    if (bias) node.inputs.push_back(tensor({n}, true, bias));
    return add(std::move(node), std::move(out_shape));
  }
  // TRANSPOSE_CONV (filter [oc, kh, kw, ic]) to out_shape, its constant output shape.
  int transpose_conv(int input, const float* filter, Shape filter_shape, const float* bias, ConvParams p,
                     Shape out_shape, Activation act = Activation::kNone) {
    const int out = conv(AnchorOp::kTransposeConv, input, filter, std::move(filter_shape), bias, p, out_shape, act);
    g.nodes.back().params = transpose_conv_params(p, std::move(out_shape));
    return out;
  }
  // MAX_POOL_2D / AVERAGE_POOL_2D (p carries window and strides) or MEAN over H, W.
  int pool(AnchorOp op, int input, ConvParams p, Shape out_shape, bool keep_dims = true) {
    Node node;
    node.name = op == AnchorOp::kMean ? "MEAN" : op == AnchorOp::kMaxPool2D ? "MAX_POOL_2D" : "AVERAGE_POOL_2D";
    node.kind = OpKind::kAnchor;
    node.anchor = op;
    node.params = op == AnchorOp::kMean ? std::shared_ptr<const OpParams>(mean_params(keep_dims)) : window_op_params(p);
    node.inputs = {input};
    return add(std::move(node), std::move(out_shape));
  }
  // RESIZE_BILINEAR or RESIZE_NEAREST_NEIGHBOR to size {h, w}.
  int resize(AnchorOp op, int input, int64_t h, int64_t w, bool align_corners, bool half_pixel_centers,
             Shape out_shape) {
    Node node;
    node.name = op == AnchorOp::kResizeBilinear ? "RESIZE_BILINEAR" : "RESIZE_NEAREST_NEIGHBOR";
    node.kind = OpKind::kAnchor;
    node.anchor = op;
    node.params = resize_params(h, w, align_corners, half_pixel_centers);
    node.inputs = {input};
    return add(std::move(node), std::move(out_shape));
  }
  // PAD with pads {before, after} per dim of a 4-D input.
  int pad(int input, std::vector<int64_t> pads, Shape out_shape, PadMode mode = PadMode::kConstant,
          float value = 0.f) {
    Node node;
    node.name = "PAD";
    node.kind = OpKind::kPad;
    node.params = pad_params(std::move(pads), mode, value);
    node.inputs = {input};
    return add(std::move(node), std::move(out_shape));
  }
  // Family transformer: BATCH_MATMUL (two inputs, adj flags), SOFTMAX (beta),
  // last-axis MEAN (keep_dims), RESHAPE (dims: new shape), TRANSPOSE (dims: perm),
  // SQUEEZE (dims: the axes); EXPAND_DIMS appends (expand_dims_params for another axis).
  int row_op(AnchorOp op, std::vector<int> inputs, Shape out_shape, std::vector<int64_t> dims = {},
             bool adj_x = false, bool adj_y = false, float beta = 1.f, bool keep_dims = true,
             Reduce reduce = Reduce::kMean) {
    Node node;
    node.name = anchor_info(op).name;
    node.kind = OpKind::kAnchor;
    node.anchor = op;
    node.inputs = std::move(inputs);
    if (op == AnchorOp::kBatchMatMul) node.params = batch_matmul_params(adj_x, adj_y);
    if (op == AnchorOp::kSoftmax) node.params = softmax_params(beta);
    if (op == AnchorOp::kRowReduce) node.params = row_reduce_params(reduce, -1, keep_dims);  // the last axis
    if (op == AnchorOp::kTranspose) node.params = transpose_params(dims);
    if (op == AnchorOp::kReshape) node.params = reshape_params(dims);
    if (op == AnchorOp::kSqueeze) node.params = squeeze_params(dims);
    if (op == AnchorOp::kExpandDims) node.params = expand_dims_params(-1);  // appended
    return add(std::move(node), std::move(out_shape));
  }
  // CONCATENATION of `parts` along `axis`.
  int concat(std::vector<int> parts, int axis, Shape out_shape) {
    Node node;
    node.name = "CONCATENATION";
    node.kind = OpKind::kAnchor;
    node.anchor = AnchorOp::kConcatenation;
    node.params = concatenation_params(axis, false);
    node.inputs = std::move(parts);
    return add(std::move(node), std::move(out_shape));
  }
  // An index view (ops/index_view.h) of `input`.
  int view(const char* name, std::shared_ptr<const IndexView> params, int input, Shape out_shape) {
    Node node;
    node.name = name;
    node.kind = OpKind::kAnchor;
    node.anchor = AnchorOp::kIndexView;
    node.params = std::move(params);
    node.inputs = {input};
    return add(std::move(node), std::move(out_shape));
  }
  int opaque(const char* name, std::vector<int> inputs, Shape out_shape) {
    Node n;
    n.name = name;
    n.inputs = std::move(inputs);
    return add(std::move(n), std::move(out_shape));
  }
  // A DEQUANTIZE of a float16 constant as the front end makes it: a constant
  // node whose float32 output holds `value` everywhere.
  int dequantize(Shape shape, float value) {
    const int out = opaque("DEQUANTIZE", {tensor(shape, DType::kF16)}, shape);
    g.nodes.back().kind = OpKind::kConstant;
    g.tensors[out].is_constant = true;
    g.tensors[out].data = ConstantData::own(std::vector<float>(num_elements(shape), value));
    return out;
  }
  Graph g;

 private:
  static size_t elements(const Shape& s) {
    size_t n = 1;
    for (int64_t d : s) n *= static_cast<size_t>(d);
    return n;
  }
  int add(Node n, Shape out_shape) {
    const int out = tensor(std::move(out_shape));
    n.id = static_cast<int>(g.nodes.size());
    n.outputs = {out};
    g.nodes.push_back(std::move(n));
    return out;
  }
};

}  // namespace fd::test
