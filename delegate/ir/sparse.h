// Sparse constants: the storage format TFLite's schema defines (and its
// DENSIFY op reads), and the dense tensor it stands for.
//
// A tensor of rank n may split k of its dims into blocks: dim block_map[j] is
// then an outer dim of size shape / b_j and a block dim n + j of size b_j.
// The n + k dims are stored level by level in traversal_order (its first n
// entries a permutation of 0..n-1, the last k one of n..n+k-1). A level is
// dense (every coordinate of its dim, dense_size of them) or compressed
// (CSR: position p of the level above holds the coordinates
// indices[segments[p] .. segments[p+1]]). The values are the leaves, in
// storage order; the dense tensor is zero elsewhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/graph.h"

namespace fd {

struct SparseLevel {
  bool compressed = false;  // CSR; else dense
  int dense_size = 0;       // dense: how many coordinates
  std::vector<int> segments, indices;  // compressed
};

struct SparseFormat {
  std::vector<int> traversal_order;  // per level: the dim it stores (0..n-1, then block dims n..n+k-1)
  std::vector<int> block_map;        // per block dim n + j: the dim it splits
  std::vector<SparseLevel> levels;   // one per entry of traversal_order
};

// Where each of `count` stored values lies in the dense tensor of `shape`
// (its row-major position), in storage order. Empty, with *error set, if the
// format does not describe such a tensor holding exactly `count` values, or
// reads blocks in an order TFLite's DENSIFY reads differently.
std::vector<int64_t> sparse_positions(const SparseFormat& f, const Shape& shape, int64_t count,
                                      std::string* error);

// The dense tensor of `shape`: zeros, and each stored value (elements of
// `dtype`, `values` holding exactly those the format stores) at its position,
// bit for bit. Empty, with *error set, where sparse_positions fails.
ConstantData densify(const SparseFormat& f, const Shape& shape, DType dtype, const ConstantData& values,
                     std::string* error);

}  // namespace fd
