#include "frontends/tflite/tflite_ops.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>

#include "frontends/tflite/tflite_abi.h"
#include "ops/window.h"

namespace fd {
namespace {

// A context of tensors of given shapes: float32 run-time ones, or constant int32 ones.
class FakeContext {
 public:
  FakeContext() { tensors_.reserve(16); }
  int add(std::vector<int> shape, std::vector<int32_t> values = {}) {
    TfLiteTensor t{};
    auto& dims = ints_.emplace_back(1, static_cast<int>(shape.size()));
    dims.insert(dims.end(), shape.begin(), shape.end());
    t.dims = reinterpret_cast<TfLiteIntArray*>(dims.data());
    t.type = values.empty() ? kTfLiteFloat32 : kTfLiteInt32;
    t.allocation_type = values.empty() ? kTfLiteArenaRw : kTfLiteMmapRo;
    if (!values.empty()) {
      t.data = ints_.emplace_back(values.begin(), values.end()).data();
      t.bytes = values.size() * sizeof(int32_t);
    }
    tensors_.push_back(t);
    ctx_.tensors = tensors_.data();
    ctx_.tensors_size = tensors_.size();
    return static_cast<int>(tensors_.size()) - 1;
  }
  TfLiteOp op(int code, const void* params, int version = 1) { return TfLiteOp{&ctx_, code, params, version}; }

 private:
  TfLiteContext ctx_{};
  std::vector<TfLiteTensor> tensors_;
  std::deque<std::vector<int>> ints_;
};

Node node_of(std::vector<int> inputs, std::vector<int> outputs) {
  Node n;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  return n;
}

// Plans name every op by its TFLite name: PRELU, not BUILTIN_54.
TEST(TfliteOps, EveryBuiltinCodeHasItsName) {
  EXPECT_STREQ(tflite_op_name(0), "ADD");
  EXPECT_STREQ(tflite_op_name(2), "CONCATENATION");
  EXPECT_STREQ(tflite_op_name(54), "PRELU");
  EXPECT_STREQ(tflite_op_name(126), "BATCH_MATMUL");
  EXPECT_STREQ(tflite_op_name(150), "GELU");
  EXPECT_EQ(tflite_op_name(-1), nullptr);
  EXPECT_EQ(tflite_op_name(100000), nullptr);
  Node unknown = node_of({0, -1}, {1});
  translate_tflite_op(TfLiteOp{nullptr, 100000}, &unknown);
  EXPECT_EQ(unknown.name, "BUILTIN_100000");
  EXPECT_EQ(unknown.kind, OpKind::kOpaque);
  EXPECT_EQ(unknown.inputs, (std::vector<int>{0}));  // every tensor it reads, the absent one dropped
}

TEST(TfliteOps, ConcatenationTakesItsAxisAndActivation) {
  FakeContext c;
  const int a = c.add({2, 3}), b = c.add({2, 3}), out = c.add({2, 6});
  TfLiteConcatenationParams p{-1, kTfLiteActNone};
  Node n = node_of({a, b}, {out});
  translate_tflite_op(c.op(kTfLiteBuiltinConcatenation, &p), &n);
  EXPECT_EQ(n.name, "CONCATENATION");
  EXPECT_EQ(n.kind, OpKind::kAnchor);
  EXPECT_EQ(n.anchor, AnchorOp::kConcatenation);
  EXPECT_EQ(n.params->describe(), "axis -1");  // as given: resolved against each run's rank
  EXPECT_EQ(n.act, Activation::kNone);
  p = {1, kTfLiteActRelu6};
  Node relu6 = node_of({a, b}, {out});
  translate_tflite_op(c.op(kTfLiteBuiltinConcatenation, &p), &relu6);
  EXPECT_EQ(relu6.params->describe(), "axis 1");
  EXPECT_EQ(relu6.act, Activation::kRelu6);
  p = {2, kTfLiteActNone};
  Node no_such_axis = node_of({a, b}, {out});
  translate_tflite_op(c.op(kTfLiteBuiltinConcatenation, &p), &no_such_axis);
  EXPECT_EQ(no_such_axis.kind, OpKind::kOpaque);
  Node missing = node_of({a, b}, {out});
  translate_tflite_op(c.op(kTfLiteBuiltinConcatenation, nullptr), &missing);
  EXPECT_EQ(missing.kind, OpKind::kOpaque);
  EXPECT_EQ(missing.inputs, (std::vector<int>{a, b}));
}

// The resizes take their corner options and their size from a constant; SQUEEZE and
// EXPAND_DIMS are views of their own: SQUEEZE takes the axes it drops (none: every 1),
// EXPAND_DIMS its axis from a constant; each then reads its data input alone. Without
// params, or a constant, they are left reading every input.
TEST(TfliteOps, ResizesAndViewsTranslate) {
  FakeContext c;
  const int x = c.add({1, 4, 4, 3}), size = c.add({2}, {8, 6}), out = c.add({1, 8, 6, 3});
  TfLiteResizeParams p{true, false};
  Node bilinear = node_of({x, size}, {out}), nearest = bilinear, missing = bilinear, run_time_size = bilinear;
  translate_tflite_op(c.op(kTfLiteBuiltinResizeBilinear, &p), &bilinear);
  EXPECT_EQ(bilinear.anchor, AnchorOp::kResizeBilinear);
  EXPECT_EQ(bilinear.inputs, (std::vector<int>{x}));
  EXPECT_EQ(bilinear.params->describe(), "8x6, align_corners");
  p = {false, true};
  translate_tflite_op(c.op(kTfLiteBuiltinResizeNearestNeighbor, &p), &nearest);
  EXPECT_EQ(nearest.name, "RESIZE_NEAREST_NEIGHBOR");
  EXPECT_EQ(nearest.kind, OpKind::kAnchor);
  EXPECT_EQ(nearest.anchor, AnchorOp::kResizeNearest);
  EXPECT_EQ(nearest.params->describe(), "8x6, half_pixel_centers");
  translate_tflite_op(c.op(kTfLiteBuiltinResizeBilinear, nullptr), &missing);
  EXPECT_EQ(missing.kind, OpKind::kOpaque);
  run_time_size.inputs[1] = c.add({2});
  // A reader that leaves its op says why (the plan's reason for the node).
  EXPECT_EQ(translate_tflite_op(c.op(kTfLiteBuiltinResizeBilinear, &p), &run_time_size),
            "RESIZE_BILINEAR: size computed at run time");
  EXPECT_EQ(run_time_size.kind, OpKind::kOpaque);
  EXPECT_EQ(translate_tflite_op(c.op(kTfLiteBuiltinResizeBilinear, nullptr), &missing), "");  // no reason given
  EXPECT_EQ(run_time_size.inputs.size(), 2u);
  const int y = c.add({2, 1, 3, 1}), sq_out = c.add({2, 3});
  TfLiteSqueezeParams sq{{1, -1}, 2};
  Node squeeze = node_of({y}, {sq_out}), squeeze_all = squeeze, squeeze_none = squeeze;
  translate_tflite_op(c.op(kTfLiteBuiltinSqueeze, &sq), &squeeze);
  EXPECT_EQ(squeeze.name, "SQUEEZE");
  EXPECT_EQ(squeeze.kind, OpKind::kAnchor);
  EXPECT_EQ(squeeze.anchor, AnchorOp::kSqueeze);
  EXPECT_EQ(squeeze.params->describe(), "axes 1,-1");
  sq.num_squeeze_dims = 0;
  translate_tflite_op(c.op(kTfLiteBuiltinSqueeze, &sq), &squeeze_all);
  EXPECT_EQ(squeeze_all.kind, OpKind::kAnchor);
  EXPECT_EQ(squeeze_all.params->describe(), "every 1");
  translate_tflite_op(c.op(kTfLiteBuiltinSqueeze, nullptr), &squeeze_none);
  EXPECT_EQ(squeeze_none.kind, OpKind::kOpaque);
  Node expand = node_of({y, c.add({1}, {-1})}, {c.add({2, 1, 3, 1, 1})});
  translate_tflite_op(c.op(kTfLiteBuiltinExpandDims, nullptr), &expand);
  EXPECT_EQ(expand.kind, OpKind::kAnchor);
  EXPECT_EQ(expand.anchor, AnchorOp::kExpandDims);
  EXPECT_EQ(expand.params->describe(), "axis -1");
  EXPECT_EQ(expand.inputs, (std::vector<int>{y}));
}

// An absent bias is dropped; any other absent input leaves the op.
TEST(TfliteOps, OnlyABiasMayBeAbsent) {
  FakeContext c;
  const int x = c.add({2, 4}), w = c.add({3, 4}), out = c.add({2, 3});
  Node fc = node_of({x, w, -1}, {out}), no_weights = node_of({x, -1, -1}, {out});
  translate_tflite_op(c.op(kTfLiteBuiltinFullyConnected, nullptr), &fc);
  EXPECT_EQ(fc.kind, OpKind::kAnchor);
  EXPECT_EQ(fc.inputs, (std::vector<int>{x, w}));
  translate_tflite_op(c.op(kTfLiteBuiltinFullyConnected, nullptr), &no_weights);
  EXPECT_EQ(no_weights.kind, OpKind::kOpaque);
  EXPECT_EQ(no_weights.inputs, (std::vector<int>{x}));
}

// TRANSPOSE_CONV takes its strides and padding, and its activation only from
// version 4, the version whose params hold it.
TEST(TfliteOps, TransposeConvTakesItsActivationFromVersionFour) {
  FakeContext c;
  const int shape = c.add({4}, {1, 6, 4, 2}), w = c.add({2, 3, 3, 5}), x = c.add({1, 2, 2, 5});
  const int out = c.add({1, 6, 4, 2});
  TfLiteTransposeConvParams p{kTfLitePaddingSame, 2, 3, kTfLiteActRelu6};
  Node v4 = node_of({shape, w, x, -1}, {out}), v3 = v4, unknown_padding = v4, missing = v4;
  translate_tflite_op(c.op(kTfLiteBuiltinTransposeConv, &p, 4), &v4);
  EXPECT_EQ(v4.name, "TRANSPOSE_CONV");
  EXPECT_EQ(v4.kind, OpKind::kAnchor);
  EXPECT_EQ(v4.anchor, AnchorOp::kTransposeConv);
  EXPECT_EQ(window_of(v4).stride_w, 2);
  EXPECT_EQ(window_of(v4).stride_h, 3);
  EXPECT_TRUE(window_of(v4).same_padding);
  EXPECT_EQ(v4.act, Activation::kRelu6);
  EXPECT_EQ(v4.inputs, (std::vector<int>{x, w}));  // an anchor's order
  EXPECT_EQ(v4.params->describe(), "stride 3x2, dilation 1x1, same, to 1,6,4,2");
  translate_tflite_op(c.op(kTfLiteBuiltinTransposeConv, &p, 3), &v3);
  EXPECT_EQ(v3.kind, OpKind::kAnchor);
  EXPECT_EQ(v3.act, Activation::kNone);
  p.padding = kTfLitePaddingUnknown;
  translate_tflite_op(c.op(kTfLiteBuiltinTransposeConv, &p, 4), &unknown_padding);
  EXPECT_EQ(unknown_padding.kind, OpKind::kOpaque);
  translate_tflite_op(c.op(kTfLiteBuiltinTransposeConv, nullptr, 4), &missing);
  EXPECT_EQ(missing.kind, OpKind::kOpaque);
}

}  // namespace
}  // namespace fd
