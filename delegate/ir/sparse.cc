#include "ir/sparse.h"

#include <cstring>

#include "ir/shape.h"

namespace fd {
namespace {

constexpr int64_t kMaxDenseElements = (int64_t{1} << 31) - 1;  // TFLite counts elements in an int

// The traversal order stores the n dims, then the k block dims, each once;
// the block map splits increasing dims (TFLite's DENSIFY reads it in order).
std::string check_orders(const SparseFormat& f, size_t n) {
  const size_t k = f.block_map.size();
  if (f.traversal_order.size() != n + k || f.levels.size() != n + k)
    return std::to_string(f.levels.size()) + " levels and a traversal order of " +
           std::to_string(f.traversal_order.size()) + " for rank " + std::to_string(n) + " and " +
           std::to_string(k) + " block dims";
  const int dims = static_cast<int>(n), all = static_cast<int>(n + k);
  std::vector<bool> seen(n + k, false);
  for (size_t l = 0; l < n + k; ++l) {
    const int d = f.traversal_order[l];
    const int lo = l < n ? 0 : dims, hi = l < n ? dims : all;  // a dim, then a block dim
    if (d < lo || d >= hi || seen[d]) return "the traversal order is not the dims, then the block dims, each once";
    seen[d] = true;
  }
  for (size_t j = 0; j < k; ++j) {
    const int d = f.block_map[j];
    if (d < 0 || d >= dims || (j > 0 && d <= f.block_map[j - 1])) return "the block map does not name increasing dims";
  }
  return "";
}

// The size of each stored dim: the n dims (a split one divided by its block),
// then the k block dims. "" or what is wrong.
std::string dim_sizes(const SparseFormat& f, const Shape& shape, std::vector<int64_t>* sizes) {
  const size_t n = shape.size(), k = f.block_map.size();
  std::vector<size_t> level_of(n + k);
  for (size_t l = 0; l < n + k; ++l) level_of[f.traversal_order[l]] = l;
  sizes->assign(shape.begin(), shape.end());
  sizes->resize(n + k);
  for (size_t j = 0; j < k; ++j) {
    const SparseLevel& block = f.levels[level_of[n + j]];
    // TFLite's DENSIFY takes block j's size from level traversal_order[n + j].
    const SparseLevel& as_read = f.levels[f.traversal_order[n + j]];
    if (block.compressed || block.dense_size <= 0) return "block dim " + std::to_string(j) + " is not dense";
    if (as_read.compressed || as_read.dense_size != block.dense_size)
      return "block dims stored in an order TFLite's DENSIFY reads differently";
    const int64_t split = shape[f.block_map[j]];
    if (split % block.dense_size != 0)
      return "block of " + std::to_string(block.dense_size) + " does not divide dim " +
             std::to_string(f.block_map[j]) + " of " + std::to_string(split);
    (*sizes)[f.block_map[j]] = split / block.dense_size;
    (*sizes)[n + j] = block.dense_size;
  }
  return "";
}

// A compressed level below `above` positions, storing a dim of `size`: one
// segment per position, together covering its indices in order, each
// segment's indices increasing and within the dim. "" or what is wrong.
std::string check_segments(const SparseLevel& v, int64_t above, int64_t size) {
  const auto& s = v.segments;
  if (static_cast<int64_t>(s.size()) != above + 1)
    return std::to_string(s.size()) + " segments for " + std::to_string(above) + " positions above";
  if (s.front() != 0 || s.back() != static_cast<int64_t>(v.indices.size()))
    return "segments do not span the " + std::to_string(v.indices.size()) + " indices";
  for (int64_t p = 0; p < above; ++p) {
    if (s[p] > s[p + 1]) return "segments decrease";
    for (int i = s[p]; i < s[p + 1]; ++i) {
      if (v.indices[i] < 0 || v.indices[i] >= size)
        return "index " + std::to_string(v.indices[i]) + " outside a dim of " + std::to_string(size);
      if (i > s[p] && v.indices[i] <= v.indices[i - 1]) return "indices not increasing within a segment";
    }
  }
  return "";
}

// Checks every level against the dim it stores; fills, per compressed level,
// the position above each of its positions, and the number of leaves.
std::string walk_levels(const SparseFormat& f, const std::vector<int64_t>& sizes,
                        std::vector<std::vector<int64_t>>* parent, int64_t* leaves) {
  int64_t above = 1;
  parent->assign(f.levels.size(), {});
  for (size_t l = 0; l < f.levels.size(); ++l) {
    const SparseLevel& v = f.levels[l];
    const int64_t size = sizes[f.traversal_order[l]];
    if (!v.compressed) {
      if (v.dense_size != size)
        return "level " + std::to_string(l) + " is dense of " + std::to_string(v.dense_size) + ", its dim has " +
               std::to_string(size);
      above *= size;  // at most the dense tensor's size: every level below holds unique coordinates
      continue;
    }
    const std::string why = check_segments(v, above, size);
    if (!why.empty()) return "level " + std::to_string(l) + ": " + why;
    std::vector<int64_t>& up = (*parent)[l];
    up.resize(v.indices.size());
    for (int64_t p = 0; p < above; ++p)
      for (int i = v.segments[p]; i < v.segments[p + 1]; ++i) up[i] = p;
    above = static_cast<int64_t>(v.indices.size());
  }
  *leaves = above;
  return "";
}

// The dense position of every leaf: its coordinates read level by level from
// the bottom, a split dim's outer one times its block plus the inner one.
std::vector<int64_t> leaf_positions(const SparseFormat& f, const Shape& shape, const std::vector<int64_t>& sizes,
                                    const std::vector<std::vector<int64_t>>& parent, int64_t leaves) {
  const size_t n = shape.size();
  std::vector<int> block_of(n, -1);
  for (size_t j = 0; j < f.block_map.size(); ++j) block_of[f.block_map[j]] = static_cast<int>(j);
  std::vector<int64_t> stride(n, 1), coord(sizes.size()), out(leaves);
  for (size_t d = n - 1; d > 0; --d) stride[d - 1] = stride[d] * shape[d];
  for (int64_t leaf = 0; leaf < leaves; ++leaf) {
    int64_t p = leaf;
    for (size_t l = f.levels.size(); l-- > 0;) {
      const SparseLevel& v = f.levels[l];
      const int dim = f.traversal_order[l];
      coord[dim] = v.compressed ? v.indices[p] : p % v.dense_size;
      p = v.compressed ? parent[l][p] : p / v.dense_size;
    }
    int64_t at = 0;
    for (size_t d = 0; d < n; ++d) {
      const int j = block_of[d];
      at += (j < 0 ? coord[d] : coord[d] * sizes[n + j] + coord[n + j]) * stride[d];
    }
    out[leaf] = at;
  }
  return out;
}

}  // namespace

std::vector<int64_t> sparse_positions(const SparseFormat& f, const Shape& shape, int64_t count,
                                      std::string* error) {
  int64_t dense = 1;
  for (int64_t d : shape) {
    if (d <= 0 || dense > kMaxDenseElements / d) {
      *error = "a sparse tensor of shape " + to_string(shape) + ": an empty dim, or more elements than an int counts";
      return {};
    }
    dense *= d;
  }
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> parent;
  int64_t leaves = 0;
  *error = shape.empty() ? "a sparse scalar" : check_orders(f, shape.size());
  if (error->empty()) *error = dim_sizes(f, shape, &sizes);
  if (error->empty()) *error = walk_levels(f, sizes, &parent, &leaves);
  if (error->empty() && leaves != count)
    *error = "the format stores " + std::to_string(leaves) + " values, the tensor holds " + std::to_string(count);
  if (!error->empty()) return {};
  return leaf_positions(f, shape, sizes, parent, leaves);
}

ConstantData densify(const SparseFormat& f, const Shape& shape, DType dtype, const ConstantData& values,
                     std::string* error) {
  const size_t size = dtype_size(dtype);
  if (size == 0 || values.empty() || values.size() % size != 0) {
    *error = std::string("sparse values of type ") + dtype_name(dtype) + " in " + std::to_string(values.size()) +
             " bytes";
    return {};
  }
  const int64_t count = static_cast<int64_t>(values.size() / size);
  const std::vector<int64_t> at = sparse_positions(f, shape, count, error);
  if (!error->empty()) return {};
  std::vector<uint8_t> dense(static_cast<size_t>(num_elements(shape)) * size, 0);
  const auto* from = static_cast<const uint8_t*>(values.bytes());
  for (int64_t i = 0; i < count; ++i) std::memcpy(dense.data() + at[i] * size, from + i * size, size);
  return ConstantData::copy_of(dense.data(), dense.size());
}

}  // namespace fd
