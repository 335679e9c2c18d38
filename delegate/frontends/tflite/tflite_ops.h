// How TFLite builtin ops map onto our op list: the front end's half of the op
// table (the Grappler front end keeps the same for TF op names).
#pragma once

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

constexpr int kTfLiteBuiltinSlice = 65;
constexpr int kTfLiteBuiltinStridedSlice = 45;
constexpr int kTfLiteBuiltinGather = 36;
constexpr int kTfLiteBuiltinTile = 69;
constexpr int kTfLiteBuiltinDepthToSpace = 5;
constexpr int kTfLiteBuiltinSpaceToDepth = 26;
constexpr int kTfLiteBuiltinSplit = 49;
constexpr int kTfLiteBuiltinSplitV = 102;
constexpr int kTfLiteBuiltinUnpack = 88;
constexpr int kTfLiteBuiltinPack = 83;

// Name of a builtin op code, for plans and messages.
const char* tflite_op_name(int builtin_code);

// Fills kind, ew, act, param and name of `node` from a TFLite registration code
// and its builtin_data. `op_version` is the registration's version: a field a
// params struct gained in a later version of its op is read only from nodes
// of that version (TRANSPOSE_CONV's activation, version 4).
void translate_tflite_op(int builtin_code, const void* builtin_data, Node* node, int op_version = 1);

// The index views (ops/index_view.h), one reader per op in tflite_views.cc: if
// `builtin_code` is one, makes `node` (its tensors read already) a kIndexView
// anchor of its data input alone, or opaque where it takes other parameters
// than ours (a run-time begin, an ellipsis), and returns true; else false.
bool translate_tflite_view(TfLiteContext* ctx, int builtin_code, const void* builtin_data, int op_version, Node* node);

// SPLIT, SPLIT_V and UNPACK (tflite_views.cc): one kIndexView node per output,
// each of the data input alone and all with the op's id (the planner claims
// them together or not at all); opaque where they take other parameters than
// ours. Any other op: `node` itself.
std::vector<Node> translate_tflite_outputs(TfLiteContext* ctx, int builtin_code, const void* builtin_data, Node node);

}  // namespace fd
