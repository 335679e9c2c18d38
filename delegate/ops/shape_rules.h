// The output shapes of the anchor ops, from their inputs and attributes.
#pragma once

#include <optional>
#include <vector>

#include "ir/shape.h"

namespace fd {

// FULLY_CONNECTED: input [..., k] (rows = elements / k) times weights [n, k]
// gives [rows, n], or when keep_num_dims [..., n]: the input's dims before
// the trailing ones that make up k (the last one, in TFLite); nothing if k
// does not fit.
std::optional<Shape> fully_connected_shape(const Shape& input, const Shape& weights, bool keep_num_dims);

// BATCH_MATMUL: a [..., m, k] times b [..., k, n] (adj_x / adj_y: the operand's
// last two axes swapped) gives [..., m, n]. Ranks >= 2, b's no higher than a's;
// b's batch axes (aligned at the end, the missing ones 1) equal a's or are all 1
// (one b for every batch). Nothing if they do not fit.
std::optional<Shape> batch_matmul_shape(const Shape& a, const Shape& b, bool adj_x, bool adj_y);

// MEAN over the last axis: that axis becomes 1 (keep_dims) or goes; nothing
// for a rank-0 input.
std::optional<Shape> row_reduce_shape(const Shape& input, bool keep_dims);

// An axis given as TFLite takes it (negative: counted from the end) in
// [0, rank), or -1 if there is no such axis.
int resolve_axis(int64_t axis, size_t rank);

// RESHAPE to `dims`, one of which may be -1 (inferred); nothing if the element
// counts differ.
std::optional<Shape> reshape_shape(const Shape& input, const std::vector<int64_t>& dims);

// EXPAND_DIMS: an axis of 1 inserted before input axis `axis` (negative: from
// the end, -1 appends); nothing outside [-rank - 1, rank].
std::optional<Shape> expand_dims_shape(const Shape& input, int64_t axis);

// SQUEEZE: the axes `axes` dropped (negative: from the end), each of which
// must be 1; no axes: every axis of size 1. Nothing if one does not fit.
std::optional<Shape> squeeze_shape(const Shape& input, const std::vector<int64_t>& axes);

// TRANSPOSE: output axis d is input axis perm[d]; nothing if perm is not a
// permutation of the input's axes.
std::optional<Shape> transpose_shape(const Shape& input, const std::vector<int64_t>& perm);

}  // namespace fd
