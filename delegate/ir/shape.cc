#include "ir/shape.h"

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
