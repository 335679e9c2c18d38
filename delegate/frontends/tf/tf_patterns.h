// Subgraphs of TF ops the translation reads as one IR op: GELU in the forms
// TensorFlow and Keras write it with erfc or erf (its tanh form is a chain of
// ops the IR has), and Keras' hard swish.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/op_types.h"

namespace tensorflow {
class GraphDef;
}

namespace fd {

struct TfPattern {
  EwOp op = EwOp::kCount;     // what the root node's output is, of `input`
  std::string input;          // the root's one IR input (a GraphDef input string)
  std::vector<int> absorbed;  // GraphDef indices of the other nodes: inside it, read by nothing else
  // A Tensordot (Reshape to rows, MatMul, Reshape back): the MatMul (GraphDef
  // index) whose weights make the root one FULLY_CONNECTED of `input` keeping
  // its leading dims, if the shapes fit (the translation checks); else -1.
  int matmul = -1;
  // Its Reshape to rows when other Tensordots read it too: not absorbed (the
  // translation skips it when only patterns read it).
  int shared_rows = -1;
};

// Per root node (GraphDef index). Exact GELU, 0.5 * x * erfc(-x / sqrt(2)) or
// 0.5 * x * (1 + erf(x / sqrt(2))), as Grappler leaves it (MULs by constant
// scalars, in either operand order); hard swish, relu6(x + 3) * x / 6; a
// Tensordot's Reshape, MatMul (weights a Const or variable), Reshape.
std::map<int, TfPattern> find_tf_patterns(const tensorflow::GraphDef& gd);

}  // namespace fd
