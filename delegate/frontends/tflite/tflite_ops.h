// How TFLite builtin ops map onto our op list: the front end's half of the op
// table (the Grappler front end keeps the same for TF op names).
#pragma once

#include <vector>

#include "ir/graph.h"
#include "frontends/tflite/tflite_abi.h"

namespace fd {

constexpr int kTfLiteBuiltinDelegate = 51;
constexpr int kTfLiteBuiltinFullyConnected = 9;
constexpr int kTfLiteBuiltinAveragePool2D = 1;
constexpr int kTfLiteBuiltinConv2D = 3;
constexpr int kTfLiteBuiltinMaxPool2D = 17;
constexpr int kTfLiteBuiltinMean = 40;
constexpr int kTfLiteBuiltinSum = 74;
constexpr int kTfLiteBuiltinReduceMax = 82;
constexpr int kTfLiteBuiltinReduceMin = 89;
constexpr int kTfLiteBuiltinDepthwiseConv2D = 4;
constexpr int kTfLiteBuiltinPad = 34;
constexpr int kTfLiteBuiltinPadV2 = 60;
constexpr int kTfLiteBuiltinMirrorPad = 100;
constexpr int kTfLiteBuiltinReshape = 22;
constexpr int kTfLiteBuiltinSoftmax = 25;
constexpr int kTfLiteBuiltinTranspose = 39;
constexpr int kTfLiteBuiltinBatchMatMul = 126;
constexpr int kTfLiteBuiltinConcatenation = 2;
constexpr int kTfLiteBuiltinDequantize = 6;
constexpr int kTfLiteBuiltinDensify = 124;
constexpr int kTfLiteBuiltinResizeBilinear = 23;
constexpr int kTfLiteBuiltinSqueeze = 43;
constexpr int kTfLiteBuiltinExpandDims = 70;
constexpr int kTfLiteBuiltinResizeNearestNeighbor = 97;
constexpr int kTfLiteBuiltinTransposeConv = 67;


// Name of a builtin op code, for plans and messages.
const char* tflite_op_name(int builtin_code);

// One TFLite node as its reader sees it.
struct TfLiteOp {
  TfLiteContext* ctx = nullptr;  // its tensors (null: reading one fails)
  int code = 0;
  const void* params = nullptr;  // builtin_data
  // The registration's version: a field a params struct gained in a later
  // version of its op is read only from nodes of that version.
  int version = 1;
  const TfLiteTensor* tensor(int t) const { return ctx && t >= 0 ? &ctx->tensors[t] : nullptr; }
  // The values of constant int32/int64 tensor t, or false.
  bool ints(int t, std::vector<int64_t>* values) const;
  // Tensor t's rank, or -1.
  int rank(int t) const;
  // Where a reader that leaves the op says why (translate_tflite_op returns it).
  std::string* why = nullptr;
  // Records `reason` (the first given) and returns false: how a reader leaves an op with its reason.
  bool leave(const char* reason) const {
    if (why && why->empty()) *why = reason;
    return false;
  }
};

// One op's reader: checks the op's parameters and constant inputs and, if it
// takes them, translates the node (kind, attributes; an anchor keeps only the
// inputs it reads at run time, in its order) and returns true; false leaves it.
using TfLiteReader = bool (*)(const TfLiteOp& op, Node* node);

// Each file's readers, by builtin code (null: none): tflite_ops.cc the
// elementwise ops and constants, tflite_anchors.cc the convolutions, pools,
// FULLY_CONNECTED, PAD, resizes, CONCATENATION and PACK, tflite_rows.cc the row
// ops and reductions, tflite_views.cc the index views.
TfLiteReader anchor_reader(int builtin_code);
TfLiteReader row_op_reader(int builtin_code);
TfLiteReader view_reader(int builtin_code);

// Translates one TFLite node: `node` holds its tensors (-1: an optional input
// absent) and gets its name, kind and attributes from its op's reader; an op
// without a reader, one its reader leaves, or an absent tensor the reader does
// not take makes it opaque, reading every tensor it was given. Returns why its
// reader left it ("" if taken, or if the reader gave no reason).
std::string translate_tflite_op(TfLiteOp op, Node* node);

// SPLIT, SPLIT_V and UNPACK (tflite_views.cc): one kIndexView node per output,
// each of the data input alone and all with the op's id (the planner claims
// them together or not at all); opaque where they take other parameters than
// ours. Any other op: `node` itself.
std::vector<Node> translate_tflite_outputs(const TfLiteOp& op, Node node);

}  // namespace fd
