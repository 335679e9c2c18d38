#include "shape.h"

#include <algorithm>

namespace fd {

int64_t num_elements(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

bool same_layout(const Shape& a, const Shape& b) {
  auto first = [](const Shape& s) { return std::find_if(s.begin(), s.end(), [](int64_t d) { return d != 1; }); };
  return std::equal(first(a), a.end(), first(b), b.end());
}

bool is_row_of(const Shape& r, const Shape& d) {
  if (r.empty() || d.empty() || r.back() != 1 || d.back() <= 1) return false;
  return same_layout(Shape(r.begin(), r.end() - 1), Shape(d.begin(), d.end() - 1));
}

std::string to_string(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

std::optional<Shape> broadcast(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::optional<Shape> fully_connected_shape(const Shape& input, const Shape& weights, bool keep_num_dims) {
  if (weights.size() != 2 || weights[1] <= 0 || input.empty()) return std::nullopt;
  const int64_t n = weights[0], k = weights[1];
  if (keep_num_dims) {
    if (input.back() != k) return std::nullopt;
    Shape out = input;
    out.back() = n;
    return out;
  }
  const int64_t elements = num_elements(input);
  if (elements % k) return std::nullopt;
  return Shape{elements / k, n};
}

std::optional<Shape> batch_matmul_shape(const Shape& a, const Shape& b, bool adj_x, bool adj_y) {
  const size_t r = a.size();
  if (r < 2 || b.size() != r) return std::nullopt;
  const int64_t m = a[r - (adj_x ? 1 : 2)], k = a[r - (adj_x ? 2 : 1)];
  const int64_t kb = b[r - (adj_y ? 1 : 2)], n = b[r - (adj_y ? 2 : 1)];
  if (k != kb || k <= 0) return std::nullopt;
  bool same = true, one = true;
  for (size_t d = 0; d + 2 < r; ++d) {
    same &= a[d] == b[d];
    one &= b[d] == 1;
  }
  if (!same && !one) return std::nullopt;
  Shape out = a;
  out[r - 2] = m;
  out[r - 1] = n;
  return out;
}

std::optional<Shape> row_mean_shape(const Shape& input, bool keep_dims) {
  if (input.empty()) return std::nullopt;
  Shape out = input;
  if (keep_dims) out.back() = 1;
  else out.pop_back();
  return out;
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

Shape broadcast_strides(const Shape& s, const Shape& domain) {
  Shape strides(domain.size(), 0);
  int64_t stride = 1;
  for (size_t k = 0; k < s.size(); ++k) {
    const size_t i = s.size() - 1 - k;           // dim of s
    const size_t j = domain.size() - 1 - k;      // matching dim of domain
    strides[j] = s[i] == 1 && domain[j] != 1 ? 0 : stride;
    stride *= s[i];
  }
  return strides;
}

}  // namespace fd
