// What the ops' own rules (AnchorInfo::rule, each in its op's file) share.
#pragma once

#include <optional>
#include <string>

#include "ir/graph.h"
#include "ir/shape.h"

namespace fd {

// The output the op gives at the planning shapes (`expect`; nothing: the op
// does not fit its inputs) against the stored one, which may differ on the
// axes its signature leaves open (a run sizes them, binding derives them again).
std::string output_legality(const Graph& g, const Node& node, const std::optional<Shape>& expect);

// Constant float32 weights of `rank` (input 1) and an optional constant
// float32 bias [n] (input 2), n being the weights' axis `n_axis`.
std::string weights_legality(const Graph& g, const Node& node, size_t rank, int n_axis);

// A row op's input: rank 1 to kMaxRank, not empty.
std::string row_input_legality(const Graph& g, const Node& node);

// takes_run_time_shapes of the ops that bind to any input shape.
inline bool always(const Node&) { return true; }

}  // namespace fd
