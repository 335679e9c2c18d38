// GATHER of constant indices along one axis (batch_dims 0), as TFLite's kernel:
// the axis replaced by the indices' axes, which the offsets walk as one.
#include "ir/shape.h"
#include "ops/index_view.h"
#include "ops/shape_rules.h"

namespace fd {
namespace {

class Gather : public IndexView {
 public:
  Gather(int64_t axis, Shape indices_shape, std::vector<int64_t> indices)
      : axis_(axis), shape_(std::move(indices_shape)), indices_(std::move(indices)) {}
  std::string describe() const override {
    return "axis " + std::to_string(axis_) + " indices " + to_string(shape_) +
           (indices_.size() <= 8 ? " " + join(indices_) : "");
  }

  std::optional<AxisOffsets> bind(const Shape& in, std::string* error) const override {
    const int axis = resolve_axis(axis_, in.size());
    if (axis < 0) return fail(in, error);
    const Shape strides = row_major_strides(in);
    AxisOffsets m;
    for (int d = 0; d < static_cast<int>(in.size()); ++d) {
      if (d == axis) {
        m.output.insert(m.output.end(), shape_.begin(), shape_.end());
        m.walked.push_back(static_cast<int64_t>(indices_.size()));
        std::vector<int64_t> offsets;
        for (int64_t i : indices_) {
          if (i < 0 || i >= in[d]) return fail(in, error);
          offsets.push_back(i * strides[d]);
        }
        m.offsets.push_back(std::move(offsets));
        continue;
      }
      m.output.push_back(in[d]);
      m.walked.push_back(in[d]);
      m.offsets.push_back(stepped_offsets(0, 1, in[d], strides[d]));
    }
    if (m.output.empty()) return fail(in, error);  // a scalar
    return m;
  }

 private:
  std::optional<AxisOffsets> fail(const Shape& in, std::string* error) const {
    *error = "GATHER " + describe() + " does not fit its input " + to_string(in);
    return std::nullopt;
  }
  int64_t axis_;
  Shape shape_;
  std::vector<int64_t> indices_;
};

}  // namespace

std::shared_ptr<const IndexView> gather_view(int64_t axis, Shape indices_shape, std::vector<int64_t> indices) {
  return std::make_shared<Gather>(axis, std::move(indices_shape), std::move(indices));
}

}  // namespace fd
