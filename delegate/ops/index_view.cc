#include "ops/index_view.h"

namespace fd {

Shape row_major_strides(const Shape& s) {
  Shape strides(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) strides[d - 1] = strides[d] * s[d];
  return strides;
}

std::vector<int64_t> stepped_offsets(int64_t first, int64_t step, int64_t count, int64_t stride) {
  std::vector<int64_t> v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) v[i] = (first + i * step) * stride;
  return v;
}

std::string join(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

}  // namespace fd
