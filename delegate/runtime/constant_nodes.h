// Constant nodes made by an elementwise op (OpKind::kConstant with Node::ew
// set): weight math a front end finds on constants and on weights known only
// at run time (TensorFlow's batch norm written out on variables:
// rsqrt(variance + eps) * gamma, ...). Their values are computed here, by the
// scalar kernels, whenever the weights they read are (re)filled.
#pragma once

#include "ir/graph.h"

namespace fd {

// Whether elementwise node `n` can make constant values: every input is a
// float32 constant of one value, or of the output's (static) shape but for
// leading ones, and it has no fused activation.
bool computes_constant(const Graph& g, const Node& n);

// The values of node `pos` (a constant node with an elementwise op that
// computes_constant) from its inputs' values, into its output tensor, which
// becomes constant (its values known only at run time if any input's are).
void compute_constant_node(Graph* g, int pos);

// compute_constant_node on every constant node with an elementwise op, in
// order; false if one cannot compute (an input without values).
bool compute_constant_nodes(Graph* g);

}  // namespace fd
