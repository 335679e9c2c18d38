#include "shape.h"

namespace fd {

int64_t num_elements(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
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
