#include "frontends/tf/weight_layouts.h"

#include "ir/shape.h"

namespace fd {

Shape ir_weight_shape(const Shape& s, WeightLayout layout, bool depthwise) {
  switch (layout) {
    case WeightLayout::kAsIs:
      if (!depthwise) return s;
      return s.size() == 4 ? Shape{1, s[0], s[1], s[2] * s[3]} : Shape{};
    case WeightLayout::kHwioToOhwi: return s.size() == 4 ? Shape{s[3], s[0], s[1], s[2]} : Shape{};
    case WeightLayout::kTranspose: return s.size() == 2 ? Shape{s[1], s[0]} : Shape{};
  }
  return {};
}

std::vector<float> ir_weights(const float* w, const Shape& s, WeightLayout layout) {
  std::vector<float> out(num_elements(s));
  if (layout == WeightLayout::kTranspose) {
    const int64_t k = s[0], m = s[1];
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < m; ++j) out[j * k + i] = w[i * m + j];
  } else if (layout == WeightLayout::kHwioToOhwi) {
    const int64_t kh = s[0], kw = s[1], ic = s[2], oc = s[3];
    for (int64_t o = 0; o < oc; ++o)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t x = 0; x < kw; ++x)
          for (int64_t i = 0; i < ic; ++i) out[((o * kh + y) * kw + x) * ic + i] = w[((y * kw + x) * ic + i) * oc + o];
  } else {
    out.assign(w, w + out.size());
  }
  return out;
}

}  // namespace fd
