// The one list of elementwise operations the runtime knows. Each entry names an
// op and its arity; its math lives in kernels/ew_math.h (struct <Name>Op), and
// each ISA instantiates every entry from that single definition. Fma, Fms, Fnma
// and Swish have no TFLite op: the program builder makes them from MUL+ADD/SUB
// and x * LOGISTIC(x).
#pragma once

#include <cstdint>

namespace fd {

#define FD_EW_OPS(X)                                                              \
  X(Add, 2) X(Sub, 2) X(Mul, 2) X(Div, 2) X(Maximum, 2) X(Minimum, 2)             \
  X(SquaredDifference, 2) X(Pow, 2)                                               \
  X(Fma, 3) X(Fms, 3) X(Fnma, 3)                                                  \
  X(Relu, 1) X(Relu6, 1) X(ReluN1To1, 1) X(Relu0To1, 1) X(LeakyRelu, 1)           \
  X(Elu, 1) X(Logistic, 1) X(Tanh, 1) X(HardSwish, 1) X(Gelu, 1) X(GeluTanh, 1)   \
  X(Exp, 1) X(Log, 1) X(Sqrt, 1) X(Rsqrt, 1) X(Square, 1) X(Neg, 1) X(Abs, 1)     \
  X(Swish, 1)

enum class EwOp : uint8_t {
#define FD_ENUM(name, arity) name,
  FD_EW_OPS(FD_ENUM)
#undef FD_ENUM
  kCount
};
constexpr int kEwOpCount = static_cast<int>(EwOp::kCount);

inline int ew_arity(EwOp op) {
  static const uint8_t arity[] = {
#define FD_ARITY(name, a) a,
      FD_EW_OPS(FD_ARITY)
#undef FD_ARITY
  };
  return arity[static_cast<int>(op)];
}

inline const char* ew_name(EwOp op) {
  static const char* const names[] = {
#define FD_NAME(name, a) #name,
      FD_EW_OPS(FD_NAME)
#undef FD_NAME
  };
  return names[static_cast<int>(op)];
}

// How the planner treats an op.
enum class OpKind : uint8_t {
  kElementwise,  // one output, same-shape or broadcast inputs, pure per element
  kAnchor,       // heavy op whose output rows start a group: see AnchorOp
  kPad,          // PAD / PADV2 / MIRROR_PAD: folded into the convolution that reads it
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
  kRowMean,          // MEAN over the last axis: rows of one value
  kReshape,          // the same floats under another shape: copies rows
  kTranspose,        // a permutation of the axes: gathers rows
};

// Anchors without weights: they reduce windows of their input.
inline bool is_pool(AnchorOp op) {
  return op == AnchorOp::kMaxPool2D || op == AnchorOp::kAveragePool2D || op == AnchorOp::kMean;
}

// Anchors of family transformer: no constant weights, work on rows (the last axis).
inline bool is_row_op(AnchorOp op) {
  return op == AnchorOp::kBatchMatMul || op == AnchorOp::kSoftmax || op == AnchorOp::kRowMean ||
         op == AnchorOp::kReshape || op == AnchorOp::kTranspose;
}

// Row ops that read their input row by row: the input may be computed in
// their own group, one tile of whole rows at a time (a prologue).
inline bool reads_tile_rows(AnchorOp op) { return op == AnchorOp::kSoftmax || op == AnchorOp::kRowMean; }

// Anchors that read windows of an NHWC input: a PAD can fold into them.
inline bool reads_windows(AnchorOp op) {
  return op == AnchorOp::kConv2D || op == AnchorOp::kDepthwiseConv2D || op == AnchorOp::kMaxPool2D ||
         op == AnchorOp::kAveragePool2D;
}

// Activation fused into a binary op or an anchor.
enum class Activation : uint8_t { kNone, kRelu, kReluN1To1, kRelu6, kUnsupported };

enum class PadMode : uint8_t { kConstant, kReflect, kSymmetric };

// Fusion families a user can switch on and off (option `fusions`).
enum Family : uint32_t {
  kFamilyElementwise = 1u << 0,
  kFamilyFullyConnected = 1u << 1,  // FULLY_CONNECTED with its elementwise epilogue
  kFamilyConv = 1u << 2,            // CONV_2D, DEPTHWISE_CONV_2D, pools, spatial MEAN, PADs before them
  kFamilyTransformer = 1u << 3,     // BATCH_MATMUL, SOFTMAX, last-axis MEAN, RESHAPE, TRANSPOSE
  kFamilyAll = kFamilyElementwise | kFamilyFullyConnected | kFamilyConv | kFamilyTransformer,
  // On by default: elementwise only, so far. `all` is faster than XNNPACK on every
  // model of benchmarks/model_set.py at one and two threads; making it the default
  // changes what every test expects of the default options.
  kFamilyDefault = kFamilyElementwise,
};

}  // namespace fd
