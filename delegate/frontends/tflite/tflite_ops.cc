// The elementwise ops' and constant nodes' readers, and the dispatch to every
// op's reader (tflite_anchors.cc, tflite_rows.cc, tflite_views.cc).
#include "frontends/tflite/tflite_ops.h"

#include <algorithm>
#include <iterator>
#include <string>

#include "frontends/tflite/tflite_builtin_names.h"
#include "frontends/tflite/tflite_tensors.h"
#include "frontends/tflite/tflite_translate.h"

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
    {114, EwOp::Quantize, Params::kNone},  // int8 to int8 (a requantize); float to int8: not yet
};

const Entry* find(int code) {
  for (const Entry& e : kElementwise)
    if (e.code == code) return &e;
  return nullptr;
}

void translate_elementwise(const Entry& e, const void* data, Node* node) {
  node->kind = OpKind::kElementwise;
  node->ew = e.ew;
  switch (e.params) {
    case Params::kNone: break;
    case Params::kFusedActivation: node->act = tflite_activation(data); break;
    case Params::kLeakyReluAlpha:
      node->param = data ? static_cast<const TfLiteLeakyReluParams*>(data)->alpha : 0.2f;
      break;
    case Params::kGeluApproximate:
      if (data && static_cast<const TfLiteGeluParams*>(data)->approximate) node->ew = EwOp::GeluTanh;
      break;
  }
}

// The op's reader: its own file's, or none.
TfLiteReader reader_of(int code) {
  if (code == kTfLiteBuiltinDequantize || code == kTfLiteBuiltinDensify)  // of a float16 or sparse constant:
    return [](const TfLiteOp&, Node* n) {                                // the front end computes its values
      n->kind = OpKind::kConstant;
      return true;
    };
  for (TfLiteReader (*file)(int) : {anchor_reader, row_op_reader, view_reader})
    if (TfLiteReader r = file(code)) return r;
  return nullptr;
}

}  // namespace

const char* tflite_op_name(int code) {
  if (code >= 0 && code < static_cast<int>(std::size(kTfLiteBuiltinNames))) return kTfLiteBuiltinNames[code];
  return nullptr;
}

bool TfLiteOp::ints(int t, std::vector<int64_t>* values) const { return ctx && t >= 0 && constant_ints(ctx, t, values); }

int TfLiteOp::rank(int t) const {
  const TfLiteTensor* x = tensor(t);
  return x && x->dims ? x->dims->size : -1;
}

Activation tflite_activation(const void* data) {
  if (!data) return Activation::kNone;
  switch (static_cast<const TfLiteFusedActivationParams*>(data)->activation) {
    case kTfLiteActNone: return Activation::kNone;
    case kTfLiteActRelu: return Activation::kRelu;
    case kTfLiteActReluN1To1: return Activation::kReluN1To1;
    case kTfLiteActRelu6: return Activation::kRelu6;
    default: return Activation::kUnsupported;
  }
}

std::string translate_tflite_op(TfLiteOp op, Node* node) {
  std::string why;
  op.why = &why;
  const char* name = tflite_op_name(op.code);
  node->name = name ? name : "BUILTIN_" + std::to_string(op.code);
  node->kind = OpKind::kOpaque;
  const std::vector<int> given = node->inputs;
  bool taken = false;
  if (const Entry* e = find(op.code)) {
    translate_elementwise(*e, op.params, node);
    taken = true;
  } else if (TfLiteReader read = reader_of(op.code)) {
    taken = read(op, node);
  }
  auto absent = [](int t) { return t < 0; };
  if (taken && std::none_of(node->inputs.begin(), node->inputs.end(), absent) &&
      std::none_of(node->outputs.begin(), node->outputs.end(), absent))
    return "";
  node->kind = OpKind::kOpaque;  // reading every tensor it was given
  node->inputs.clear();
  std::copy_if(given.begin(), given.end(), std::back_inserter(node->inputs), [](int t) { return t >= 0; });
  node->outputs.erase(std::remove_if(node->outputs.begin(), node->outputs.end(), absent), node->outputs.end());
  return why.empty() ? "" : node->name + ": " + why;
}

}  // namespace fd
