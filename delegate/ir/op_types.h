// The op vocabulary of the graph IR: which op a node is and its enumerated
// attributes. Front ends translate into it; the planner and the runtime read it.
#pragma once

#include <cstdint>

namespace fd {

// The graph's elementwise ops (name, arity). The runtime lowers each onto the
// kernel op of the same name (kernels/ew_ops.h).
#define FD_GRAPH_EW_OPS(X)                                                        \
  X(Add, 2) X(Sub, 2) X(Mul, 2) X(Div, 2) X(Maximum, 2) X(Minimum, 2)             \
  X(SquaredDifference, 2) X(Pow, 2) X(Prelu, 2)                                   \
  X(Relu, 1) X(Relu6, 1) X(ReluN1To1, 1) X(Relu0To1, 1) X(LeakyRelu, 1)           \
  X(Elu, 1) X(Logistic, 1) X(Tanh, 1) X(HardSwish, 1) X(Gelu, 1) X(GeluTanh, 1)   \
  X(Exp, 1) X(Log, 1) X(Sqrt, 1) X(Rsqrt, 1) X(Square, 1) X(Neg, 1) X(Abs, 1)     \
  X(Softplus, 1) X(Quantize, 1)

enum class EwOp : uint8_t {
#define FD_ENUM(name, arity) name,
  FD_GRAPH_EW_OPS(FD_ENUM)
#undef FD_ENUM
  kCount
};

inline int ew_arity(EwOp op) {
  static const uint8_t arity[] = {
#define FD_ARITY(name, a) a,
      FD_GRAPH_EW_OPS(FD_ARITY)
#undef FD_ARITY
  };
  return arity[static_cast<int>(op)];
}

inline const char* ew_name(EwOp op) {
  static const char* const names[] = {
#define FD_NAME(name, a) #name,
      FD_GRAPH_EW_OPS(FD_NAME)
#undef FD_NAME
  };
  return names[static_cast<int>(op)];
}

// How the planner treats an op.
enum class OpKind : uint8_t {
  kElementwise,  // one output, same-shape or broadcast inputs, pure per element
  kAnchor,       // heavy op whose output rows start a group: see AnchorOp
  kPad,          // PAD / PADV2 / MIRROR_PAD: folded into the convolution that reads it
  kConstant,     // computes a constant from constants (DEQUANTIZE of float16 weights): the front
                 // end stores its values in the output tensor; it runs only folded into the anchor
                 // that packs them, and disappears
  kOpaque,       // anything we do not fuse (yet)
};

// Heavy anchors. Each computes rows of its output (the last dim is the row) from
// its whole input and constant weights; elementwise epilogues then run on them.
enum class AnchorOp : uint8_t {
  kFullyConnected,   // input rows times weights [n, k]
  kConv2D,           // NHWC input, filter [oc, kh, kw, ic]
  kDepthwiseConv2D,  // NHWC input, filter [1, kh, kw, ic * multiplier]
  kMaxPool2D,        // NHWC, max over the window (padding excluded)
  kAveragePool2D,    // NHWC, mean over the window's pixels inside the input
  kMean,             // MEAN over H and W of NHWC: one window covering the image
  kPad,              // a PAD whose output must be stored (else it is folded): copies rows
  kBatchMatMul,      // [..., m, k] x [..., k, n] (adj_x / adj_y: transposed), both run-time values
  kSoftmax,          // softmax of each row (the last axis), scaled by beta
  kRowReduce,        // MEAN, SUM, MAX or MIN (Node::reduce) over the last axis: rows of one value
  kReshape,          // the same floats under another shape: copies rows
  kTranspose,        // a permutation of the axes: gathers rows
  kConcatenation,    // its inputs side by side along `axis` (variadic); a group of its own
  kResizeBilinear,   // NHWC to dims = {out_h, out_w}: each pixel a weighted sum of 4 input pixels
  kResizeNearest,    // NHWC to dims = {out_h, out_w}: each pixel a copy of one input pixel
  kTransposeConv,    // NHWC input, filter [oc, kh, kw, ic] spread over the output at the stride;
                     // dims: the output's shape (TFLite's constant output_shape)
  kExpandDims,       // the same floats with an axis of 1 inserted at `axis` (negative: from the end)
  kSqueeze,          // the same floats with the axes `dims` (each of size 1) dropped; no dims: every
                     // axis of size 1, at the sizes of the run
  kIndexView,        // each output value one input value, found through Node::params (ops/index_view.h):
                     // SLICE, STRIDED_SLICE, GATHER, TILE, a part of SPLIT, SPLIT_V or UNPACK,
                     // DEPTH_TO_SPACE, SPACE_TO_DEPTH
};

// Activation fused into a binary op or an anchor.
enum class Activation : uint8_t { kNone, kRelu, kReluN1To1, kRelu6, kUnsupported };

enum class PadMode : uint8_t { kConstant, kReflect, kSymmetric };

// How kRowReduce makes a row one value.
enum class Reduce : uint8_t { kMean, kSum, kMax, kMin };

}  // namespace fd
