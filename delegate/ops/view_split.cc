// SPLIT, SPLIT_V and UNPACK: one view per output, each a run of the split
// axis (UNPACK: one index, the axis dropped), sized at each bind as TFLite's
// kernels size them: equal parts, given sizes (one -1: the rest), or one per index.
#include <numeric>

#include "ir/shape.h"
#include "ops/index_view.h"
#include "ops/shape_rules.h"

namespace fd {
namespace {

class SplitPart : public IndexView {
 public:
  SplitPart(int64_t axis, std::vector<int64_t> sizes, int64_t parts, int64_t part, bool drop_axis)
      : axis_(axis), sizes_(std::move(sizes)), parts_(parts), part_(part), drop_(drop_axis) {}
  std::string describe() const override {
    return "axis " + std::to_string(axis_) + " part " + std::to_string(part_) + " of " +
           (sizes_.empty() ? std::to_string(parts_) : join(sizes_)) + (drop_ ? ", axis dropped" : "");
  }

  std::optional<AxisOffsets> bind(const Shape& in, std::string* error) const override {
    const int axis = resolve_axis(axis_, in.size());
    const auto run = axis < 0 ? std::nullopt : part_of(in[axis]);
    if (!run || (drop_ && in.size() < 2)) {
      *error = "SPLIT " + describe() + " does not fit its input " + to_string(in);
      return std::nullopt;
    }
    const Shape strides = row_major_strides(in);
    AxisOffsets m;
    for (int d = 0; d < static_cast<int>(in.size()); ++d) {
      const int64_t first = d == axis ? run->first : 0, count = d == axis ? run->second : in[d];
      m.walked.push_back(count);
      if (d != axis || !drop_) m.output.push_back(count);
      m.offsets.push_back(stepped_offsets(first, 1, count, strides[d]));
    }
    return m;
  }

 private:
  // The part's first index and count along an axis of `dim`, or nothing.
  std::optional<std::pair<int64_t, int64_t>> part_of(int64_t dim) const {
    if (sizes_.empty()) {
      if (parts_ < 1 || dim % parts_ || (drop_ && dim != parts_)) return std::nullopt;
      return std::make_pair(part_ * (dim / parts_), dim / parts_);
    }
    std::vector<int64_t> sizes = sizes_;
    const int64_t known = std::accumulate(sizes.begin(), sizes.end(), int64_t{0}, [](int64_t s, int64_t v) {
      return v == -1 ? s : s + v;
    });
    for (int64_t& s : sizes)
      if (s == -1) s = dim - known;
    int64_t first = 0, total = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] < 0) return std::nullopt;
      if (static_cast<int64_t>(i) < part_) first += sizes[i];
      total += sizes[i];
    }
    if (total != dim) return std::nullopt;
    return std::make_pair(first, sizes[part_]);
  }

  int64_t axis_;
  std::vector<int64_t> sizes_;
  int64_t parts_, part_;
  bool drop_;
};

}  // namespace

std::shared_ptr<const IndexView> split_view(int64_t axis, std::vector<int64_t> sizes, int64_t parts, int64_t part,
                                            bool drop_axis) {
  return std::make_shared<SplitPart>(axis, std::move(sizes), parts, part, drop_axis);
}

}  // namespace fd
