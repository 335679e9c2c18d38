// Shapes and numpy-style broadcasting.
#pragma once

#include <optional>
#include <string>

#include "ir.h"

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

// FULLY_CONNECTED: input [..., k] (rows = elements / k) times weights [n, k]
// gives [rows, n], or [..., n] when keep_num_dims; nothing if k does not fit.
std::optional<Shape> fully_connected_shape(const Shape& input, const Shape& weights, bool keep_num_dims);

// BATCH_MATMUL: a [..., m, k] times b [..., k, n] (adj_x / adj_y: the operand's
// last two axes swapped) gives [..., m, n]. Equal ranks >= 2; b's batch axes
// equal a's or all 1 (one b for every batch). Nothing if they do not fit.
std::optional<Shape> batch_matmul_shape(const Shape& a, const Shape& b, bool adj_x, bool adj_y);

// MEAN over the last axis: that axis becomes 1 (keep_dims) or goes; nothing
// for a rank-0 input.
std::optional<Shape> row_mean_shape(const Shape& input, bool keep_dims);

// RESHAPE to `dims`, one of which may be -1 (inferred); nothing if the element
// counts differ.
std::optional<Shape> reshape_shape(const Shape& input, const std::vector<int64_t>& dims);

// TRANSPOSE: output axis d is input axis perm[d]; nothing if perm is not a
// permutation of the input's axes.
std::optional<Shape> transpose_shape(const Shape& input, const std::vector<int64_t>& perm);

// Element strides of `s` seen through a broadcast to `domain` (0 where `s` is
// broadcast). `s` must broadcast to `domain`.
Shape broadcast_strides(const Shape& s, const Shape& domain);

}  // namespace fd
