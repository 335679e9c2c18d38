#include "frontends/tflite/tflite_ops.h"

#include <gtest/gtest.h>

#include <string>

#include "frontends/tflite/tflite_abi.h"

namespace fd {
namespace {

// Plans name every op by its TFLite name: PRELU, not BUILTIN_54.
TEST(TfliteOps, EveryBuiltinCodeHasItsName) {
  EXPECT_STREQ(tflite_op_name(0), "ADD");
  EXPECT_STREQ(tflite_op_name(2), "CONCATENATION");
  EXPECT_STREQ(tflite_op_name(54), "PRELU");
  EXPECT_STREQ(tflite_op_name(126), "BATCH_MATMUL");
  EXPECT_STREQ(tflite_op_name(150), "GELU");
  EXPECT_EQ(tflite_op_name(-1), nullptr);
  EXPECT_EQ(tflite_op_name(100000), nullptr);
  Node unknown;
  translate_tflite_op(100000, nullptr, &unknown);
  EXPECT_EQ(unknown.name, "BUILTIN_100000");
  EXPECT_EQ(unknown.kind, OpKind::kOpaque);
}

TEST(TfliteOps, ConcatenationTakesItsAxisAndActivation) {
  TfLiteConcatenationParams p{-1, kTfLiteActNone};
  Node n;
  translate_tflite_op(kTfLiteBuiltinConcatenation, &p, &n);
  EXPECT_EQ(n.name, "CONCATENATION");
  EXPECT_EQ(n.kind, OpKind::kAnchor);
  EXPECT_EQ(n.anchor, AnchorOp::kConcatenation);
  EXPECT_EQ(n.axis, -1);  // made positive by the front end, which knows the rank
  EXPECT_EQ(n.act, Activation::kNone);
  p = {2, kTfLiteActRelu6};
  Node relu6;
  translate_tflite_op(kTfLiteBuiltinConcatenation, &p, &relu6);
  EXPECT_EQ(relu6.axis, 2);
  EXPECT_EQ(relu6.act, Activation::kRelu6);
  Node missing;
  translate_tflite_op(kTfLiteBuiltinConcatenation, nullptr, &missing);
  EXPECT_EQ(missing.kind, OpKind::kOpaque);
}

// The resizes take their corner options; SQUEEZE and EXPAND_DIMS are views of
// their own: SQUEEZE takes the axes it drops (none: every 1), EXPAND_DIMS its
// axis from a tensor (the front end reads it); a SQUEEZE without params is left.
TEST(TfliteOps, ResizesAndViewsTranslate) {
  TfLiteResizeParams p{true, false};
  Node bilinear, nearest, squeeze, squeeze_all, squeeze_none, expand, missing;
  translate_tflite_op(kTfLiteBuiltinResizeBilinear, &p, &bilinear);
  EXPECT_EQ(bilinear.anchor, AnchorOp::kResizeBilinear);
  EXPECT_TRUE(bilinear.align_corners);
  EXPECT_FALSE(bilinear.half_pixel_centers);
  p = {false, true};
  translate_tflite_op(kTfLiteBuiltinResizeNearestNeighbor, &p, &nearest);
  EXPECT_EQ(nearest.name, "RESIZE_NEAREST_NEIGHBOR");
  EXPECT_EQ(nearest.kind, OpKind::kAnchor);
  EXPECT_EQ(nearest.anchor, AnchorOp::kResizeNearest);
  EXPECT_TRUE(nearest.half_pixel_centers);
  translate_tflite_op(kTfLiteBuiltinResizeBilinear, nullptr, &missing);
  EXPECT_EQ(missing.kind, OpKind::kOpaque);
  TfLiteSqueezeParams sq{{1, -1}, 2};
  translate_tflite_op(kTfLiteBuiltinSqueeze, &sq, &squeeze);
  EXPECT_EQ(squeeze.name, "SQUEEZE");
  EXPECT_EQ(squeeze.kind, OpKind::kAnchor);
  EXPECT_EQ(squeeze.anchor, AnchorOp::kSqueeze);
  EXPECT_EQ(squeeze.dims, (std::vector<int64_t>{1, -1}));
  sq.num_squeeze_dims = 0;
  translate_tflite_op(kTfLiteBuiltinSqueeze, &sq, &squeeze_all);
  EXPECT_EQ(squeeze_all.kind, OpKind::kAnchor);
  EXPECT_TRUE(squeeze_all.dims.empty());
  translate_tflite_op(kTfLiteBuiltinSqueeze, nullptr, &squeeze_none);
  EXPECT_EQ(squeeze_none.kind, OpKind::kOpaque);
  translate_tflite_op(kTfLiteBuiltinExpandDims, nullptr, &expand);
  EXPECT_EQ(expand.kind, OpKind::kAnchor);
  EXPECT_EQ(expand.anchor, AnchorOp::kExpandDims);
}

// TRANSPOSE_CONV takes its strides and padding, and its activation only from
// version 4, the version whose params hold it.
TEST(TfliteOps, TransposeConvTakesItsActivationFromVersionFour) {
  TfLiteTransposeConvParams p{kTfLitePaddingSame, 2, 3, kTfLiteActRelu6};
  Node v4, v3, unknown_padding, missing;
  translate_tflite_op(kTfLiteBuiltinTransposeConv, &p, &v4, 4);
  EXPECT_EQ(v4.name, "TRANSPOSE_CONV");
  EXPECT_EQ(v4.kind, OpKind::kAnchor);
  EXPECT_EQ(v4.anchor, AnchorOp::kTransposeConv);
  EXPECT_EQ(v4.conv.stride_w, 2);
  EXPECT_EQ(v4.conv.stride_h, 3);
  EXPECT_TRUE(v4.conv.same_padding);
  EXPECT_EQ(v4.act, Activation::kRelu6);
  translate_tflite_op(kTfLiteBuiltinTransposeConv, &p, &v3, 3);
  EXPECT_EQ(v3.kind, OpKind::kAnchor);
  EXPECT_EQ(v3.act, Activation::kNone);
  p.padding = kTfLitePaddingUnknown;
  translate_tflite_op(kTfLiteBuiltinTransposeConv, &p, &unknown_padding, 4);
  EXPECT_EQ(unknown_padding.kind, OpKind::kOpaque);
  translate_tflite_op(kTfLiteBuiltinTransposeConv, nullptr, &missing, 4);
  EXPECT_EQ(missing.kind, OpKind::kOpaque);
}

}  // namespace
}  // namespace fd
