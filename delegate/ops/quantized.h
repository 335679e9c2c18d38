// Elementwise ops on int8 tensors (full-integer models): which ops have an
// int8 form the runtime reproduces bit for bit (kernels/q8_ops.h), and the
// rule a node of them meets to be claimed.
#pragma once

#include <optional>
#include <string>

#include "ir/graph.h"

namespace fd {

// A node of int8 output: it runs in int8 (the rules below), and groups only with
// int8 nodes (plan/grouping.cc), whose programs are tables (runtime/q8_program.h).
inline bool is_int8_node(const Graph& g, const Node& n) { return g.tensors[n.outputs[0]].dtype == DType::kI8; }

// An int8 tensor of one scale and zero point (TFLite's per-tensor affine
// quantization, a positive scale, the zero point in int8's range).
bool is_q8_tensor(const Tensor& t);

// Whether the elementwise op has an int8 form.
bool has_q8_form(EwOp op);

// "" if the int8 elementwise node can be claimed, else why not: its op has an
// int8 form, every tensor is is_q8_tensor, its run-time inputs have the
// output's shape, its constant inputs one value or one per channel (the last
// axis), at least one input runs.
// An op of two independent inputs: its run-time inputs are not tables of one
// source (runtime/q8_program.h), so it runs TFLite's arithmetic on both; one of
// them must come from an int8 layer (the rule above), and the policy claims it
// only in that layer's group (plan/policy.cc).
std::string q8_elementwise_rule(const Graph& g, const Node& node);
bool q8_of_two_sources(const Graph& g, const Node& node);
// Whether the node's second input holds one value per row of its output (a
// SQUARED_DIFFERENCE's mean): read from outside its group, not a second source.
bool q8_has_row_operand(const Graph& g, const Node& node);
// The int8 layer (an anchor node) whose output the int8 tensor t is a table of, or null.
const Node* q8_source_layer(const Graph& g, int t);

// "" if the int8 anchor can be claimed, else why not: a FULLY_CONNECTED of an
// int8 input, int8 weights [n, k] (FULLY_CONNECTED) or [oc, kh, kw, ic]
// (CONV_2D) of zero point 0 (one scale, or one per output channel), an
// optional int32 bias, an int8 output (x86 only: ARM's
// TFLite rounds its requantization once, which the runtime does not yet).
std::string q8_anchor_rule(const Graph& g, const Node& node);

// An int8 BATCH_MATMUL's output shape: lhs [..., m, k] times rhs [..., k, n]
// ([..., n, k] where adj_y) of the same batch axes, k <= 32768 (its sums fit
// int32); nothing where they do not fit. The rule and the runtime's resizes read it.
std::optional<Shape> q8_batch_matmul_shape(const Shape& lhs, const Shape& rhs, bool adj_y);

}  // namespace fd
