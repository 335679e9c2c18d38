// Readers of the anchors that read windows or weights, and of the ops that
// join or pad: FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D, the pools, PAD,
// PADV2, MIRROR_PAD, the resizes, TRANSPOSE_CONV, CONCATENATION and PACK.
#include <iterator>

#include "frontends/tflite/tflite_tensors.h"
#include "frontends/tflite/tflite_translate.h"
#include "ops/concatenation.h"
#include "ops/fully_connected.h"
#include "ops/pad.h"
#include "ops/resize.h"
#include "ops/transpose_conv.h"
#include "ops/shape_rules.h"

namespace fd {
namespace {

constexpr int kTfLiteBuiltinPack = 83;

// {input, weights, bias}: an absent bias dropped.
void drop_absent_bias(Node* n, size_t bias) {
  if (n->inputs.size() == bias + 1 && n->inputs[bias] < 0) n->inputs.resize(bias);
}

template <class P>
ConvParams conv_params(const P& p) {
  ConvParams c;
  c.stride_h = p.stride_height;
  c.stride_w = p.stride_width;
  c.dilation_h = p.dilation_height_factor;
  c.dilation_w = p.dilation_width_factor;
  c.same_padding = p.padding == kTfLitePaddingSame;
  return c;
}

// CONV_2D (P: TfLiteConvParams) and DEPTHWISE_CONV_2D (TfLiteDepthwiseConvParams).
template <class P, AnchorOp kOp>
bool read_conv(const TfLiteOp& op, Node* n) {
  const auto* p = static_cast<const P*>(op.params);
  if (!p) return false;
  if (p->padding == kTfLitePaddingUnknown) return op.leave("padding of an unknown kind");
  set_anchor(n, kOp);
  n->params = window_op_params(conv_params(*p));
  n->act = tflite_activation(&p->activation);
  drop_absent_bias(n, 2);
  return true;
}

// FULLY_CONNECTED (shuffled weight formats are not ours).
bool read_fully_connected(const TfLiteOp& op, Node* n) {
  const auto* p = static_cast<const TfLiteFullyConnectedParams*>(op.params);
  if (p && p->weights_format != 0) return op.leave("weights in a shuffled format");
  set_anchor(n, AnchorOp::kFullyConnected);
  n->act = tflite_activation(op.params);
  n->params = fully_connected_params(p && p->keep_num_dims, p && p->asymmetric_quantize_inputs);
  drop_absent_bias(n, 2);
  return true;
}

bool read_pool(const TfLiteOp& op, Node* n) {
  const auto* p = static_cast<const TfLitePoolParams*>(op.params);
  if (!p) return false;
  if (p->padding == kTfLitePaddingUnknown) return op.leave("padding of an unknown kind");
  set_anchor(n, op.code == kTfLiteBuiltinMaxPool2D ? AnchorOp::kMaxPool2D : AnchorOp::kAveragePool2D);
  ConvParams window;
  window.stride_h = p->stride_height;
  window.stride_w = p->stride_width;
  window.window_h = p->filter_height;
  window.window_w = p->filter_width;
  window.same_padding = p->padding == kTfLitePaddingSame;
  n->params = window_op_params(window);
  n->act = tflite_activation(&p->activation);
  return true;
}

// PAD, PADV2, MIRROR_PAD: constant paddings [rank, 2] (int32 or int64) and
// PADV2's constant value; the node keeps its data input.
bool read_pad(const TfLiteOp& op, Node* n) {
  n->kind = OpKind::kPad;
  PadMode pad_mode = PadMode::kConstant;
  if (op.code == kTfLiteBuiltinMirrorPad) {
    const int mode = op.params ? static_cast<const TfLiteMirrorPaddingParams*>(op.params)->mode : 0;
    if (mode != kTfLiteMirrorPaddingReflect && mode != kTfLiteMirrorPaddingSymmetric)
      return op.leave("a mirror mode of an unknown kind");
    pad_mode = mode == kTfLiteMirrorPaddingReflect ? PadMode::kReflect : PadMode::kSymmetric;
  }
  std::vector<int64_t> pads;
  if (n->inputs.size() < 2 || n->inputs.size() > 3 || !op.tensor(n->inputs[1])) return false;
  const Shape ps = shape_of(*op.tensor(n->inputs[1]));
  if (ps.size() != 2 || ps[1] != 2 || !op.ints(n->inputs[1], &pads)) return op.leave("paddings computed at run time");
  float value = 0.f;
  if (n->inputs.size() == 3) {  // PADV2
    const TfLiteTensor* v = op.tensor(n->inputs[2]);
    if (!v || v->type != kTfLiteFloat32 || v->allocation_type != kTfLiteMmapRo || !v->data ||
        v->bytes != sizeof(float))
      return op.leave("the value padded with is not a constant float32 scalar");
    value = *static_cast<const float*>(v->data);
  }
  n->params = pad_params(std::move(pads), pad_mode, value);
  n->inputs.resize(1);
  return true;
}

// The resizes: the size a constant tensor (not two values: 0 x 0, which the rule declines).
bool read_resize(const TfLiteOp& op, Node* n) {
  const auto* p = static_cast<const TfLiteResizeParams*>(op.params);
  std::vector<int64_t> size;
  if (!p || n->inputs.size() != 2) return false;
  if (!take_ints(op, n, 1, &size)) return op.leave("size computed at run time");
  set_anchor(n, op.code == kTfLiteBuiltinResizeBilinear ? AnchorOp::kResizeBilinear : AnchorOp::kResizeNearest);
  const bool two = size.size() == 2;
  n->params = resize_params(two ? size[0] : 0, two ? size[1] : 0, p->align_corners, p->half_pixel_centers);
  return true;
}

// TRANSPOSE_CONV {output_shape, weights, input, bias}: strides, padding, the
// activation from version 4 on; the output shape (a constant int32 tensor; left
// empty when computed at run time, which the planner declines), the
// inputs in an anchor's order: input, weights, then the bias if any.
bool read_transpose_conv(const TfLiteOp& op, Node* n) {
  const auto* p = static_cast<const TfLiteTransposeConvParams*>(op.params);
  if (!p || p->padding == kTfLitePaddingUnknown || n->inputs.size() < 3 || n->inputs.size() > 4) return false;
  set_anchor(n, AnchorOp::kTransposeConv);
  ConvParams window;
  window.stride_h = p->stride_height;
  window.stride_w = p->stride_width;
  window.same_padding = p->padding == kTfLitePaddingSame;
  n->act = op.version >= 4 ? tflite_activation(&p->activation) : Activation::kNone;
  const TfLiteTensor* shape = op.tensor(n->inputs[0]);
  std::vector<int64_t> out;
  if (!shape || shape->type != kTfLiteInt32 || !op.ints(n->inputs[0], &out)) out.clear();
  n->params = transpose_conv_params(window, std::move(out));
  std::vector<int> inputs = {n->inputs[2], n->inputs[1]};
  if (n->inputs.size() == 4 && n->inputs[3] >= 0) inputs.push_back(n->inputs[3]);
  n->inputs = std::move(inputs);
  return true;
}

// CONCATENATION and PACK: the axis as given (negative: from the end of the
// shapes of the run), which the output must have.
bool read_concatenation(const TfLiteOp& op, Node* n) {
  if (!op.params || n->outputs.size() != 1) return false;
  set_anchor(n, AnchorOp::kConcatenation);
  int axis = 0;
  if (op.code == kTfLiteBuiltinPack) {
    axis = static_cast<const TfLitePackParams*>(op.params)->axis;
  } else {
    const auto& p = *static_cast<const TfLiteConcatenationParams*>(op.params);
    axis = p.axis;
    n->act = tflite_activation(&p.activation);
  }
  n->params = concatenation_params(axis, op.code == kTfLiteBuiltinPack);
  return resolve_axis(axis, static_cast<size_t>(std::max(0, op.rank(n->outputs[0])))) >= 0;
}

constexpr TfLiteReaderRow kReaders[] = {
    {kTfLiteBuiltinFullyConnected, read_fully_connected},
    {kTfLiteBuiltinConv2D, read_conv<TfLiteConvParams, AnchorOp::kConv2D>},
    {kTfLiteBuiltinDepthwiseConv2D, read_conv<TfLiteDepthwiseConvParams, AnchorOp::kDepthwiseConv2D>},
    {kTfLiteBuiltinMaxPool2D, read_pool},
    {kTfLiteBuiltinAveragePool2D, read_pool},
    {kTfLiteBuiltinPad, read_pad},
    {kTfLiteBuiltinPadV2, read_pad},
    {kTfLiteBuiltinMirrorPad, read_pad},
    {kTfLiteBuiltinResizeBilinear, read_resize},
    {kTfLiteBuiltinResizeNearestNeighbor, read_resize},
    {kTfLiteBuiltinTransposeConv, read_transpose_conv},
    {kTfLiteBuiltinConcatenation, read_concatenation},
    {kTfLiteBuiltinPack, read_concatenation},
};

}  // namespace

TfLiteReader anchor_reader(int code) { return find_reader(kReaders, code); }

}  // namespace fd
