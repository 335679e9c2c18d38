// What the TFLite op readers (tflite_ops.cc, tflite_anchors.cc,
// tflite_rows.cc, tflite_views.cc) share.
#pragma once

#include <cstddef>

#include "frontends/tflite/tflite_abi.h"
#include "frontends/tflite/tflite_ops.h"
#include "ir/graph.h"

namespace fd {

// From any params struct that starts with (or is) a TfLiteFusedActivation.
Activation tflite_activation(const void* data);

inline void set_anchor(Node* n, AnchorOp op) {
  n->kind = OpKind::kAnchor;
  n->anchor = op;
}

// Reads `tensor`'s constant int values; the node then keeps only input 0 (an
// attribute held in a tensor: a permutation, an axis, a size). False if not.
inline bool take_ints(const TfLiteOp& op, Node* n, size_t tensor, std::vector<int64_t>* values) {
  if (n->inputs.size() <= tensor || !op.ints(n->inputs[tensor], values)) return false;
  n->inputs.resize(1);
  return true;
}

// A reader by builtin code, in a file's table.
struct TfLiteReaderRow {
  int code;
  TfLiteReader read;
};

// The row of a table (of rows with a `code`) for builtin `code`, or null.
template <class Row, size_t N>
const Row* find_row(const Row (&rows)[N], int code) {
  for (const Row& r : rows)
    if (r.code == code) return &r;
  return nullptr;
}

template <size_t N>
TfLiteReader find_reader(const TfLiteReaderRow (&rows)[N], int code) {
  const TfLiteReaderRow* r = find_row(rows, code);
  return r ? r->read : nullptr;
}

}  // namespace fd
