// Builds small IR graphs by hand for planner and program tests.
#pragma once

#include "ir.h"

namespace fd::test {

class GraphBuilder {
 public:
  int tensor(Shape shape, bool float32 = true, const float* constant = nullptr) {
    Tensor t;
    t.shape = std::move(shape);
    t.is_float32 = float32;
    t.is_constant = constant != nullptr;
    t.data = constant;
    g.tensors.push_back(t);
    return static_cast<int>(g.tensors.size()) - 1;
  }
  // Adds an elementwise node; its output takes the broadcast shape given.
  int ew(EwOp op, std::vector<int> inputs, Shape out_shape, Activation act = Activation::kNone) {
    const int out = tensor(std::move(out_shape));
    Node n;
    n.id = static_cast<int>(g.nodes.size());
    n.name = ew_name(op);
    n.kind = OpKind::kElementwise;
    n.ew = op;
    n.act = act;
    n.inputs = std::move(inputs);
    n.outputs = {out};
    g.nodes.push_back(n);
    return out;
  }
  // FULLY_CONNECTED: weights [n, k] and optional bias [n] are constants.
  int fc(int input, const float* weights, const float* bias, int64_t n, int64_t k, Shape out_shape,
         Activation act = Activation::kNone, bool keep_num_dims = false) {
    const int w = tensor({n, k}, true, weights);
    std::vector<int> inputs = {input, w};
    if (bias) inputs.push_back(tensor({n}, true, bias));
    const int out = tensor(std::move(out_shape));
    Node node;
    node.id = static_cast<int>(g.nodes.size());
    node.name = "FULLY_CONNECTED";
    node.kind = OpKind::kGemm;
    node.act = act;
    node.keep_num_dims = keep_num_dims;
    node.inputs = std::move(inputs);
    node.outputs = {out};
    g.nodes.push_back(node);
    return out;
  }
  int opaque(const char* name, std::vector<int> inputs, Shape out_shape) {
    const int out = tensor(std::move(out_shape));
    Node n;
    n.id = static_cast<int>(g.nodes.size());
    n.name = name;
    n.inputs = std::move(inputs);
    n.outputs = {out};
    g.nodes.push_back(n);
    return out;
  }
  Graph g;
};

}  // namespace fd::test
