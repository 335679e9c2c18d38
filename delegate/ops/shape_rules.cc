#include "ops/shape_rules.h"

#include <algorithm>

namespace fd {

std::optional<Shape> fully_connected_shape(const Shape& input, const Shape& weights, bool keep_num_dims) {
  if (weights.size() != 2 || weights[1] <= 0 || input.empty()) return std::nullopt;
  const int64_t n = weights[0], k = weights[1];
  if (keep_num_dims) {  // the dims before the trailing ones that make up k, then n
    size_t lead = input.size();
    int64_t trailing = 1;
    do {
      trailing *= input[--lead];
    } while (lead > 0 && trailing > 0 && trailing < k);
    if (trailing != k) return std::nullopt;
    Shape out(input.begin(), input.begin() + lead);
    out.push_back(n);
    return out;
  }
  const int64_t elements = num_elements(input);
  if (elements % k) return std::nullopt;
  return Shape{elements / k, n};
}

std::optional<Shape> batch_matmul_shape(const Shape& a, const Shape& b, bool adj_x, bool adj_y) {
  const size_t r = a.size(), rb = b.size();
  if (r < 2 || rb < 2 || rb > r) return std::nullopt;
  const int64_t m = a[r - (adj_x ? 1 : 2)], k = a[r - (adj_x ? 2 : 1)];
  const int64_t kb = b[rb - (adj_y ? 1 : 2)], n = b[rb - (adj_y ? 2 : 1)];
  if (k != kb || k < 0) return std::nullopt;
  bool same = true, one = true;
  for (size_t d = 0; d + 2 < r; ++d) {  // b's batch axes, aligned at the end (missing ones are 1)
    const int64_t bd = d + rb >= r ? b[d + rb - r] : 1;
    same &= a[d] == bd;
    one &= bd == 1;
  }
  if (!same && !one) return std::nullopt;
  Shape out = a;
  out[r - 2] = m;
  out[r - 1] = n;
  return out;
}

std::optional<Shape> row_reduce_shape(const Shape& input, bool keep_dims) {
  if (input.empty()) return std::nullopt;
  Shape out = input;
  if (keep_dims) out.back() = 1;
  else out.pop_back();
  return out;
}

int resolve_axis(int64_t axis, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  const int64_t a = axis < 0 ? axis + r : axis;
  return a >= 0 && a < r ? static_cast<int>(a) : -1;
}

std::optional<Shape> reshape_shape(const Shape& input, const std::vector<int64_t>& dims) {
  int64_t known = 1;
  int inferred = -1;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == -1 && inferred < 0) inferred = static_cast<int>(d);
    else if (dims[d] < 0) return std::nullopt;
    else known *= dims[d];
  }
  const int64_t total = num_elements(input);
  Shape out(dims.begin(), dims.end());
  if (inferred >= 0) {
    if (known == 0 || total % known) return std::nullopt;
    out[inferred] = total / known;
  }
  if (num_elements(out) != total) return std::nullopt;
  return out;
}

std::optional<Shape> expand_dims_shape(const Shape& input, int64_t axis) {
  const int at = resolve_axis(axis, input.size() + 1);
  if (at < 0) return std::nullopt;
  Shape out = input;
  out.insert(out.begin() + at, 1);
  return out;
}

std::optional<Shape> squeeze_shape(const Shape& input, const std::vector<int64_t>& axes) {
  std::vector<bool> drop(input.size(), axes.empty());
  for (int64_t a : axes) {
    const int d = resolve_axis(a, input.size());
    if (d < 0) return std::nullopt;
    drop[d] = true;
  }
  Shape out;
  for (size_t d = 0; d < input.size(); ++d) {
    if (drop[d] && input[d] != 1 && !axes.empty()) return std::nullopt;
    if (!drop[d] || input[d] != 1) out.push_back(input[d]);
  }
  return out;
}

std::optional<Shape> transpose_shape(const Shape& input, const std::vector<int64_t>& perm) {
  if (perm.size() != input.size()) return std::nullopt;
  std::vector<bool> seen(perm.size(), false);
  Shape out;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm.size()) || seen[p]) return std::nullopt;
    seen[p] = true;
    out.push_back(input[p]);
  }
  return out;
}

}  // namespace fd
