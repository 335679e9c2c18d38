// Shapes and numpy-style broadcasting.
#pragma once

#include <optional>
#include <string>

#include "ir/graph.h"

namespace fd {

constexpr int kMaxRank = 8;

int64_t num_elements(const Shape& s);
std::string to_string(const Shape& s);

// Whether a and b differ at most in leading 1s ([128, 256] and [1, 128, 256]):
// the same elements in the same order.
bool same_layout(const Shape& a, const Shape& b);

// Whether r holds one value per row (last axis) of d, broadcasting along it:
// d's layout with its last dimension, which is over 1, made 1 ([1, 128, 1] of
// [1, 128, 256]; also [128, 1]). A LayerNorm's mean and variance.
bool is_row_of(const Shape& r, const Shape& d);

// The broadcast of a and b, or nothing if they are incompatible.
std::optional<Shape> broadcast(const Shape& a, const Shape& b);

// Element strides of `s` seen through a broadcast to `domain` (0 where `s` is
// broadcast). `s` must broadcast to `domain`.
Shape broadcast_strides(const Shape& s, const Shape& domain);

}  // namespace fd
