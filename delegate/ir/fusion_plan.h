// What the planner decided, as data: which nodes run fused, in which groups,
// and which nodes fold into an anchor of their group. The runtime builds its
// programs from this and re-derives no decision; a plan file shows it whole.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fd {

// A node (or chain of nodes) that does not run on its own: a node of its
// group (an anchor, or an elementwise op rewritten as one kernel op) reads
// through it. Where its value must be stored all the same (a partition's
// output), it runs too, and a rewrite is not made (nor where an output map
// computes its node, or its MUL runs as a SWISH already: plan/rewrites.cc).
// kSquare and kSqrt fold no node: the POW itself runs as a cheaper exact op.
enum class FoldKind : uint8_t {
  kPad,           // a PAD before a convolution or pool: read through the anchor's window
  kChannelScale,  // a MUL by a per-channel vector (a squeeze-excite gate): scales the weights on each run
  kInputAffine,   // MUL/ADD/SUB by constants before a CONV_2D: taken into its weights, bias and padding
  kTranspose,     // a TRANSPOSE before a BATCH_MATMUL: read through permuted strides
  kConstant,      // a node of kind kConstant making an anchor's weights or bias: packed from its values
  kOutputAffine,  // MUL/ADD/SUB by constants per output channel after a weighted anchor, then an optional
                  // RELU / RELU6 / RELU_N1_TO_1: taken into its weights, bias and clamp when it is packed
  kSwish,         // a LOGISTIC(x) whose one reader is MUL(x, it): the MUL runs as SWISH(x), exact
  kMultiplyAdd,   // a MUL whose one reader is an ADD or SUB: that runs as one FMA, FMS or FNMA (rounded once);
                  // an ADD of two MULs has a fold per MUL, of which the runtime makes the first it can
  kSquare,        // a POW by the constant scalar 2: runs as SQUARE(x), exact; it folds no node (nodes empty)
  kSqrt,          // a POW by the constant scalar 0.5: runs as SQRT(x) (as std::pow at -0 and -inf too)
};

struct Fold {
  FoldKind kind = FoldKind::kPad;
  int anchor = -1;  // the node (graph position) it folds into: an anchor, kSwish's MUL, kMultiplyAdd's ADD, kSquare's POW
  std::vector<int> nodes;  // the folded nodes, in execution order
  // kChannelScale: which input of the MUL is the vector; kTranspose: which
  // operand of the BATCH_MATMUL the TRANSPOSE is; kSwish, kMultiplyAdd: which
  // input of the node folded into the folded node makes.
  int operand = 0;
  int source = -1;                  // kInputAffine: the tensor the chain starts from
  std::vector<float> scale, shift;  // kInputAffine: per input channel, value = source * scale + shift
};

// A producer that writes its output straight into its slice of a
// CONCATENATION's output: the part is never stored on its own, and the
// concatenation copies only the parts no claimed producer writes.
struct SliceWrite {
  int concat = -1;    // the CONCATENATION (graph position)
  int operand = 0;    // which of its inputs
  int producer = -1;  // the node computing that input, claimed in another group
};

struct FusionPlan {
  std::vector<std::vector<int>> groups;  // node positions per group, in execution order
  std::vector<int> group_of;             // per node: its group, or -1
  std::vector<std::string> reason;       // per node: why it is not claimed ("" if claimed)
  std::vector<Fold> folds;               // every fold; its nodes are in its anchor's group
  std::vector<SliceWrite> slice_writes;  // every part written in place
  // Per node: a dynamic-range layer quantizes its output (directly or through
  // other nodes), so it rounds as TFLite's builtin kernels do: convolutions sum
  // rounded products in order, no multiply-add contracts, no map or scale folds
  // into its weights. One ulp off could move the quantized input a whole step.
  std::vector<bool> rounds_as_builtin;
};

// kSquare or kSqrt: a POW run as a cheaper exact op, folding no node.
inline bool is_power(const Fold& f) { return f.kind == FoldKind::kSquare || f.kind == FoldKind::kSqrt; }

// The folds whose anchor and folded nodes all lie in `group`.
inline std::vector<Fold> folds_within(const std::vector<Fold>& folds, const std::vector<int>& group) {
  auto in = [&](int pos) {
    for (int m : group)
      if (m == pos) return true;
    return false;
  };
  std::vector<Fold> out;
  for (const Fold& f : folds) {
    bool all = in(f.anchor);
    for (int m : f.nodes) all = all && in(m);
    if (all) out.push_back(f);
  }
  return out;
}

}  // namespace fd
