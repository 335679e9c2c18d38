// Our own small graph IR: what the planner and the fused programs read. The
// TFLite front end (and later the Grappler pass) translate into it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/op_params.h"
#include "ir/op_types.h"

namespace fd {

using Shape = std::vector<int64_t>;

struct Tensor {
  DType dtype = DType::kOther;
  bool is_constant = false;
  bool has_dynamic_shape = false;  // shape known only at run time (data-dependent)
  Shape shape;
  // The model's shape signature: -1 on each axis a run may size (the shape above
  // holds a placeholder there, often 1); empty where the model gives none.
  Shape signature;
  Quantization quantization;  // empty: not quantized (or not known)
  ConstantData data;          // constants only: their values
  // A constant the front end converted to float32: its dtype in the model
  // (kF16, kI8), which the planner may weigh. Else kOther.
  DType stored_as = DType::kOther;
  // A constant whose values the front end fills only when the partition runs
  // (weights read from TensorFlow variables): when planning, only its shape is
  // known, and no decision may depend on its values.
  bool values_at_run_time = false;

  bool is_f32() const { return dtype == DType::kF32; }
  // A float32 constant's values; null for any other tensor.
  const float* f32_data() const { return is_f32() ? static_cast<const float*>(data.bytes()) : nullptr; }
};

struct Node {
  int id = -1;  // the front end's node index
  std::string name;  // op name, for plans and messages
  OpKind kind = OpKind::kOpaque;
  EwOp ew = EwOp::kCount;  // for kElementwise
  AnchorOp anchor = AnchorOp::kFullyConnected;  // for kAnchor
  Activation act = Activation::kNone;
  float param = 0.f;  // kElementwise: the op's scalar (LEAKY_RELU's alpha)
  // kReshape to a shape computed at run time (its params hold the output's
  // signature): that int32 tensor, which must agree with it at every run. Else -1.
  int shape_input = -1;
  // The op's own parameters (ir/op_params.h), a struct of its file in ops/
  // (ops/resize.h, ops/window.h, ...).
  std::shared_ptr<const OpParams> params;
  // Tensor indices. kAnchor: input, then weights and optional bias (none for
  // pools and MEAN; kBatchMatMul: the second operand, no bias; row ops: the
  // input only; kConcatenation: every part, in order). kPad: the input only.
  std::vector<int> inputs;
  std::vector<int> outputs;
};

// Nodes are in execution (topological) order.
struct Graph {
  std::vector<Tensor> tensors;
  std::vector<Node> nodes;
  // Whether every node at `positions` is a constant node (it runs nothing).
  bool only_constants(const std::vector<int>& positions) const {
    for (int pos : positions)
      if (nodes[pos].kind != OpKind::kConstant) return false;
    return true;
  }
};

}  // namespace fd
