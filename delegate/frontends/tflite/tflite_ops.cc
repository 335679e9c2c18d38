#include "frontends/tflite/tflite_ops.h"

#include <iterator>
#include <string>

#include "frontends/tflite/tflite_builtin_names.h"
#include "ops/pack.h"

namespace fd {
namespace {

enum class Params { kNone, kFusedActivation, kLeakyReluAlpha, kGeluApproximate };

struct Entry {
  int code;  // its name: kTfLiteBuiltinNames[code]
  EwOp ew;
  Params params;
};

// Builtin codes from TFLite's schema (BuiltinOperator).
constexpr Entry kElementwise[] = {
    {0, EwOp::Add, Params::kFusedActivation},
    {41, EwOp::Sub, Params::kFusedActivation},
    {18, EwOp::Mul, Params::kFusedActivation},
    {42, EwOp::Div, Params::kFusedActivation},
    {55, EwOp::Maximum, Params::kNone},
    {57, EwOp::Minimum, Params::kNone},
    {99, EwOp::SquaredDifference, Params::kNone},
    {78, EwOp::Pow, Params::kNone},
    {54, EwOp::Prelu, Params::kNone},
    {19, EwOp::Relu, Params::kNone},
    {21, EwOp::Relu6, Params::kNone},
    {20, EwOp::ReluN1To1, Params::kNone},
    {152, EwOp::Relu0To1, Params::kNone},
    {98, EwOp::LeakyRelu, Params::kLeakyReluAlpha},
    {111, EwOp::Elu, Params::kNone},
    {14, EwOp::Logistic, Params::kNone},
    {28, EwOp::Tanh, Params::kNone},
    {117, EwOp::HardSwish, Params::kNone},
    {150, EwOp::Gelu, Params::kGeluApproximate},
    {47, EwOp::Exp, Params::kNone},
    {73, EwOp::Log, Params::kNone},
    {75, EwOp::Sqrt, Params::kNone},
    {76, EwOp::Rsqrt, Params::kNone},
    {92, EwOp::Square, Params::kNone},
    {59, EwOp::Neg, Params::kNone},
    {101, EwOp::Abs, Params::kNone},
};

const Entry* find(int code) {
  for (const Entry& e : kElementwise)
    if (e.code == code) return &e;
  return nullptr;
}

// From any params struct that starts with (or is) a TfLiteFusedActivation.
Activation activation(const void* data) {
  if (!data) return Activation::kNone;
  switch (static_cast<const TfLiteFusedActivationParams*>(data)->activation) {
    case kTfLiteActNone: return Activation::kNone;
    case kTfLiteActRelu: return Activation::kRelu;
    case kTfLiteActReluN1To1: return Activation::kReluN1To1;
    case kTfLiteActRelu6: return Activation::kRelu6;
    default: return Activation::kUnsupported;
  }
}

}  // namespace

const char* tflite_op_name(int code) {
  if (code >= 0 && code < static_cast<int>(std::size(kTfLiteBuiltinNames))) return kTfLiteBuiltinNames[code];
  return nullptr;
}

namespace {

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

// CONV_2D and DEPTHWISE_CONV_2D; false if the params are missing or unknown.
bool translate_conv(int code, const void* data, Node* node) {
  if (!data) return false;
  node->kind = OpKind::kAnchor;
  if (code == kTfLiteBuiltinConv2D) {
    const auto& p = *static_cast<const TfLiteConvParams*>(data);
    node->anchor = AnchorOp::kConv2D;
    node->conv = conv_params(p);
    node->act = activation(&p.activation);
    return p.padding != kTfLitePaddingUnknown;
  }
  const auto& p = *static_cast<const TfLiteDepthwiseConvParams*>(data);
  node->anchor = AnchorOp::kDepthwiseConv2D;
  node->conv = conv_params(p);
  node->act = activation(&p.activation);
  return p.padding != kTfLitePaddingUnknown;
}

// FULLY_CONNECTED (shuffled weight formats are not ours).
void translate_fully_connected(const void* data, Node* node) {
  const auto* p = static_cast<const TfLiteFullyConnectedParams*>(data);
  node->kind = p && p->weights_format != 0 ? OpKind::kOpaque : OpKind::kAnchor;
  node->anchor = AnchorOp::kFullyConnected;
  node->act = activation(data);
  node->keep_num_dims = p && p->keep_num_dims;
  node->asymmetric_quantize_inputs = p && p->asymmetric_quantize_inputs;
}

void translate_pool(int code, const void* data, Node* node) {
  if (!data) return;
  const auto& p = *static_cast<const TfLitePoolParams*>(data);
  node->kind = p.padding == kTfLitePaddingUnknown ? OpKind::kOpaque : OpKind::kAnchor;
  node->anchor = code == kTfLiteBuiltinMaxPool2D ? AnchorOp::kMaxPool2D : AnchorOp::kAveragePool2D;
  node->conv.stride_h = p.stride_height;
  node->conv.stride_w = p.stride_width;
  node->conv.window_h = p.filter_height;
  node->conv.window_w = p.filter_width;
  node->conv.same_padding = p.padding == kTfLitePaddingSame;
  node->act = activation(&p.activation);
}

// SQUEEZE: the axes it drops (none: every axis of size 1, decided at each run).
bool translate_squeeze(const void* data, Node* node) {
  const auto* p = static_cast<const TfLiteSqueezeParams*>(data);
  if (!p || p->num_squeeze_dims < 0 || p->num_squeeze_dims > 8) return false;
  node->dims.assign(p->squeeze_dims, p->squeeze_dims + p->num_squeeze_dims);
  return true;
}

// BATCH_MATMUL, SOFTMAX, RESHAPE, EXPAND_DIMS, SQUEEZE, TRANSPOSE. RESHAPE's
// shape, EXPAND_DIMS' axis and TRANSPOSE's perm are tensors: the front end reads them.
void translate_row_op(int code, const void* data, Node* node) {
  node->anchor = code == kTfLiteBuiltinBatchMatMul ? AnchorOp::kBatchMatMul
                 : code == kTfLiteBuiltinSoftmax   ? AnchorOp::kSoftmax
                 : code == kTfLiteBuiltinReshape   ? AnchorOp::kReshape
                 : code == kTfLiteBuiltinExpandDims ? AnchorOp::kExpandDims
                 : code == kTfLiteBuiltinSqueeze   ? AnchorOp::kSqueeze
                                                   : AnchorOp::kTranspose;
  const bool has_params = code == kTfLiteBuiltinBatchMatMul || code == kTfLiteBuiltinSoftmax;
  node->kind = has_params && !data ? OpKind::kOpaque : OpKind::kAnchor;
  if (node->kind == OpKind::kOpaque) return;
  if (code == kTfLiteBuiltinBatchMatMul) {
    const auto& p = *static_cast<const TfLiteBatchMatMulParams*>(data);
    node->adj_x = p.adj_x;
    node->adj_y = p.adj_y;
  } else if (code == kTfLiteBuiltinSoftmax) {
    node->param = static_cast<const TfLiteSoftmaxParams*>(data)->beta;
  } else if (code == kTfLiteBuiltinSqueeze && !translate_squeeze(data, node)) {
    node->kind = OpKind::kOpaque;
  }
}

// PAD, PADV2, MIRROR_PAD: the paddings (and PADV2's constant) are tensors,
// read by the front end.
void translate_pad(int code, const void* data, Node* node) {
  node->kind = OpKind::kPad;
  if (code != kTfLiteBuiltinMirrorPad) return;
  const int mode = data ? static_cast<const TfLiteMirrorPaddingParams*>(data)->mode : 0;
  node->pad_mode = mode == kTfLiteMirrorPaddingReflect ? PadMode::kReflect : PadMode::kSymmetric;
  if (mode != kTfLiteMirrorPaddingReflect && mode != kTfLiteMirrorPaddingSymmetric) node->kind = OpKind::kOpaque;
}

// CONCATENATION: its axis as given (negative: from the end).
void translate_concatenation(const void* data, Node* node) {
  if (!data) return;
  const auto& p = *static_cast<const TfLiteConcatenationParams*>(data);
  node->kind = OpKind::kAnchor;
  node->anchor = AnchorOp::kConcatenation;
  node->axis = p.axis;
  node->act = activation(&p.activation);
}

// PACK: a CONCATENATION of parts that each gain the axis (ops/pack.h).
void translate_pack(const void* data, Node* node) {
  if (!data) return;
  node->kind = OpKind::kAnchor;
  node->anchor = AnchorOp::kConcatenation;
  node->axis = static_cast<const TfLitePackParams*>(data)->axis;
  node->params = pack_params();
}

// The resizes: the size is a tensor, read by the front end.
void translate_resize(int code, const void* data, Node* node) {
  if (!data) return;
  const auto& p = *static_cast<const TfLiteResizeParams*>(data);
  node->kind = OpKind::kAnchor;
  node->anchor = code == kTfLiteBuiltinResizeBilinear ? AnchorOp::kResizeBilinear : AnchorOp::kResizeNearest;
  node->align_corners = p.align_corners;
  node->half_pixel_centers = p.half_pixel_centers;
}

// TRANSPOSE_CONV: strides and padding; the activation from version 4 on. Its
// output shape is a tensor, read by the front end, which also puts the inputs
// in an anchor's order.
void translate_transpose_conv(const void* data, int op_version, Node* node) {
  if (!data) return;
  const auto& p = *static_cast<const TfLiteTransposeConvParams*>(data);
  if (p.padding == kTfLitePaddingUnknown) return;
  node->kind = OpKind::kAnchor;
  node->anchor = AnchorOp::kTransposeConv;
  node->conv.stride_h = p.stride_height;
  node->conv.stride_w = p.stride_width;
  node->conv.same_padding = p.padding == kTfLitePaddingSame;
  node->act = op_version >= 4 ? activation(&p.activation) : Activation::kNone;
}

void translate_elementwise(const Entry& e, const void* data, Node* node) {
  node->kind = OpKind::kElementwise;
  node->ew = e.ew;
  switch (e.params) {
    case Params::kNone: break;
    case Params::kFusedActivation: node->act = activation(data); break;
    case Params::kLeakyReluAlpha:
      node->param = data ? static_cast<const TfLiteLeakyReluParams*>(data)->alpha : 0.2f;
      break;
    case Params::kGeluApproximate:
      if (data && static_cast<const TfLiteGeluParams*>(data)->approximate) node->ew = EwOp::GeluTanh;
      break;
  }
}

}  // namespace

void translate_tflite_op(int code, const void* data, Node* node, int op_version) {
  const char* name = tflite_op_name(code);
  node->name = name ? name : "BUILTIN_" + std::to_string(code);
  node->kind = OpKind::kOpaque;
  switch (code) {
    case kTfLiteBuiltinFullyConnected: return translate_fully_connected(data, node);
    case kTfLiteBuiltinMaxPool2D:
    case kTfLiteBuiltinAveragePool2D: return translate_pool(code, data, node);
    case kTfLiteBuiltinBatchMatMul:
    case kTfLiteBuiltinSoftmax:
    case kTfLiteBuiltinReshape:
    case kTfLiteBuiltinSqueeze:
    case kTfLiteBuiltinExpandDims:
    case kTfLiteBuiltinTranspose: return translate_row_op(code, data, node);
    case kTfLiteBuiltinMean:  // the axes are a tensor: the front end checks them
    case kTfLiteBuiltinSum:
    case kTfLiteBuiltinReduceMax:
    case kTfLiteBuiltinReduceMin:
      node->kind = OpKind::kAnchor;
      node->anchor = code == kTfLiteBuiltinMean ? AnchorOp::kMean : AnchorOp::kRowReduce;
      node->reduce = code == kTfLiteBuiltinSum         ? Reduce::kSum
                     : code == kTfLiteBuiltinReduceMax ? Reduce::kMax
                     : code == kTfLiteBuiltinReduceMin ? Reduce::kMin
                                                       : Reduce::kMean;
      node->keep_num_dims = data && static_cast<const TfLiteReducerParams*>(data)->keep_dims;
      return;
    case kTfLiteBuiltinConv2D:
    case kTfLiteBuiltinDepthwiseConv2D:
      if (!translate_conv(code, data, node)) node->kind = OpKind::kOpaque;
      return;
    case kTfLiteBuiltinPad:
    case kTfLiteBuiltinPadV2:
    case kTfLiteBuiltinMirrorPad: return translate_pad(code, data, node);
    case kTfLiteBuiltinConcatenation: return translate_concatenation(data, node);
    case kTfLiteBuiltinPack: return translate_pack(data, node);
    case kTfLiteBuiltinResizeBilinear:
    case kTfLiteBuiltinResizeNearestNeighbor: return translate_resize(code, data, node);
    case kTfLiteBuiltinTransposeConv: return translate_transpose_conv(data, op_version, node);
    case kTfLiteBuiltinDequantize:  // of a float16 constant, and DENSIFY of a sparse one:
    case kTfLiteBuiltinDensify:     // the front end computes their values
      node->kind = OpKind::kConstant;
      return;
    default:
      if (const Entry* e = find(code)) translate_elementwise(*e, data, node);
  }
}

}  // namespace fd
