// DEPTH_TO_SPACE and SPACE_TO_DEPTH of NHWC tensors, as TFLite's kernels: output
// pixel (y * b + dy, x * b + dx) channel c of DEPTH_TO_SPACE is input pixel (y, x)
// channel (dy * b + dx) * C + c (C: the output's channels); SPACE_TO_DEPTH is its
// inverse. Each output axis reads a term of its own.
#include "ir/shape.h"
#include "ops/index_view.h"

namespace fd {
namespace {

constexpr int64_t kMinRun = 64;  // floats

class DepthSpace : public IndexView {
 public:
  DepthSpace(int64_t block, bool to_space) : b_(block), to_space_(to_space) {}
  std::string describe() const override { return "block " + std::to_string(b_); }
  // Measured against XNNPACK's kernels (Zen 5, claimed / left): DEPTH_TO_SPACE of 3 channels
  // (block 4) 1.4x, of 16 channels 1.3x, of 64 channels 0.93x; SPACE_TO_DEPTH 2 of 3, 32 and 64
  // channels 1.2x, 1.02x and 1.05x: a pixel's channels of fewer than 64 floats, and every
  // SPACE_TO_DEPTH, copy faster there than the index view walks them.
  std::string left_because(const Shape& in) const override {
    if (!to_space_) return "policy: SPACE_TO_DEPTH runs as fast in the runtime's kernel";
    const int64_t run = in.size() == 4 ? in[3] / (b_ * b_) : 0;
    if (run >= kMinRun) return "";
    return "policy: pixels of " + std::to_string(run) + " channels copy faster in the runtime's kernel";
  }
  std::optional<AxisOffsets> bind(const Shape& in, std::string* error) const override {
    const bool fits = in.size() == 4 && b_ >= 1 &&
                      (to_space_ ? in[3] % (b_ * b_) == 0 : in[1] % b_ == 0 && in[2] % b_ == 0);
    if (!fits) {
      *error = std::string(to_space_ ? "DEPTH_TO_SPACE " : "SPACE_TO_DEPTH ") + describe() +
               " does not fit its input " + to_string(in);
      return std::nullopt;
    }
    return to_space_ ? depth_to_space(in) : space_to_depth(in);
  }

 private:
  AxisOffsets depth_to_space(const Shape& in) const {
    const Shape s = row_major_strides(in);
    const int64_t c = in[3] / (b_ * b_);
    AxisOffsets m;
    m.output = {in[0], in[1] * b_, in[2] * b_, c};
    m.offsets = {stepped_offsets(0, 1, in[0], s[0]), {}, {}, stepped_offsets(0, 1, c, 1)};
    for (int64_t y = 0; y < m.output[1]; ++y) m.offsets[1].push_back(y / b_ * s[1] + y % b_ * b_ * c);
    for (int64_t x = 0; x < m.output[2]; ++x) m.offsets[2].push_back(x / b_ * s[2] + x % b_ * c);
    m.walked = m.output;
    return m;
  }
  AxisOffsets space_to_depth(const Shape& in) const {
    const Shape s = row_major_strides(in);
    const int64_t c = in[3];
    AxisOffsets m;
    m.output = {in[0], in[1] / b_, in[2] / b_, c * b_ * b_};
    m.offsets = {stepped_offsets(0, 1, in[0], s[0]), stepped_offsets(0, b_, m.output[1], s[1]),
                 stepped_offsets(0, b_, m.output[2], s[2]), {}};
    for (int64_t k = 0; k < m.output[3]; ++k) m.offsets[3].push_back(k / (b_ * c) * s[1] + k / c % b_ * s[2] + k % c);
    m.walked = m.output;
    return m;
  }
  int64_t b_;
  bool to_space_;
};

}  // namespace

std::shared_ptr<const IndexView> depth_to_space_view(int64_t block) {
  return std::make_shared<DepthSpace>(block, true);
}
std::shared_ptr<const IndexView> space_to_depth_view(int64_t block) {
  return std::make_shared<DepthSpace>(block, false);
}

}  // namespace fd
