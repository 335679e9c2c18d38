// Our own small graph IR: what the planner and the fused programs read. The
// TFLite front end (and later the Grappler pass) translate into it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops.h"

namespace fd {

using Shape = std::vector<int64_t>;

struct Tensor {
  bool is_float32 = false;
  bool is_constant = false;
  bool has_dynamic_shape = false;  // shape known only at run time (data-dependent)
  Shape shape;
  const float* data = nullptr;  // constants only, valid while planning
};

struct Node {
  int id = -1;  // the front end's node index
  std::string name;  // op name, for plans and messages
  OpKind kind = OpKind::kOpaque;
  EwOp ew = EwOp::kCount;  // for kElementwise
  Activation act = Activation::kNone;
  float param = 0.f;  // LeakyRelu alpha
  bool keep_num_dims = false;  // kGemm: output keeps the input's leading dims
  std::vector<int> inputs;   // tensor indices (kGemm: input, weights [n, k], optional bias [n])
  std::vector<int> outputs;  // tensor indices
};

// Nodes are in execution (topological) order.
struct Graph {
  std::vector<Tensor> tensors;
  std::vector<Node> nodes;
};

}  // namespace fd
