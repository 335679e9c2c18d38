// Shapes and numpy-style broadcasting.
#pragma once

#include <optional>
#include <string>

#include "ir.h"

namespace fd {

constexpr int kMaxRank = 8;

int64_t num_elements(const Shape& s);
std::string to_string(const Shape& s);

// The broadcast of a and b, or nothing if they are incompatible.
std::optional<Shape> broadcast(const Shape& a, const Shape& b);

// FULLY_CONNECTED: input [..., k] (rows = elements / k) times weights [n, k]
// gives [rows, n], or [..., n] when keep_num_dims; nothing if k does not fit.
std::optional<Shape> fully_connected_shape(const Shape& input, const Shape& weights, bool keep_num_dims);

// Element strides of `s` seen through a broadcast to `domain` (0 where `s` is
// broadcast). `s` must broadcast to `domain`.
Shape broadcast_strides(const Shape& s, const Shape& domain);

}  // namespace fd
