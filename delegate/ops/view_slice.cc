// SLICE and STRIDED_SLICE as TFLite's kernels read them: a box of the input,
// each axis walked from its first index at its stride.
#include <algorithm>

#include "ir/shape.h"
#include "ops/index_view.h"

namespace fd {
namespace {

class Slice : public IndexView {
 public:
  Slice(std::vector<int64_t> begin, std::vector<int64_t> size) : begin_(std::move(begin)), size_(std::move(size)) {}
  std::string describe() const override { return "begin " + join(begin_) + " size " + join(size_); }

  std::optional<AxisOffsets> bind(const Shape& in, std::string* error) const override {
    if (in.size() != begin_.size()) return fail(in, error);
    AxisOffsets m;
    const Shape strides = row_major_strides(in);
    for (size_t d = 0; d < in.size(); ++d) {
      const int64_t count = size_[d] == -1 ? in[d] - begin_[d] : size_[d];
      if (begin_[d] < 0 || count < 0 || begin_[d] + count > in[d]) return fail(in, error);
      m.output.push_back(count);
      m.offsets.push_back(stepped_offsets(begin_[d], 1, count, strides[d]));
    }
    m.walked = m.output;
    return m;
  }

 private:
  std::optional<AxisOffsets> fail(const Shape& in, std::string* error) const {
    *error = "SLICE " + describe() + " does not fit its input " + to_string(in);
    return std::nullopt;
  }
  std::vector<int64_t> begin_, size_;
};

// Python's slice(start, stop, step).indices(dim), which TFLite's kernel follows:
// negative indices count from the end, then each is clamped into the axis
// ([-1, dim - 1] when walking backwards); a masked one takes the axis's end.
struct AxisWalk {
  int64_t first, count;
};
AxisWalk walk(int64_t dim, int64_t begin, int64_t end, int64_t step, bool begin_masked, bool end_masked) {
  auto clamp = [&](int64_t i) {
    if (i < 0) i += dim;
    return step > 0 ? std::clamp<int64_t>(i, 0, dim) : std::clamp<int64_t>(i, -1, dim - 1);
  };
  const int64_t first = begin_masked ? (step > 0 ? 0 : dim - 1) : clamp(begin);
  const int64_t stop = end_masked ? (step > 0 ? dim : -1) : clamp(end);
  const int64_t span = step > 0 ? stop - first : first - stop, by = step > 0 ? step : -step;
  return {first, span > 0 ? (span + by - 1) / by : 0};
}

class StridedSlice : public IndexView {
 public:
  explicit StridedSlice(StridedSliceSpec s) : s_(std::move(s)) {}
  std::string describe() const override {
    return "begin " + join(s_.begin) + " end " + join(s_.end) + " strides " + join(s_.strides) + " masks " +
           std::to_string(s_.begin_mask) + "," + std::to_string(s_.end_mask) + "," +
           std::to_string(s_.shrink_axis_mask);
  }

  std::optional<AxisOffsets> bind(const Shape& in, std::string* error) const override {
    const size_t r = in.size();
    if (r != s_.begin.size() || r != s_.end.size() || r != s_.strides.size()) return fail(in, error);
    if (std::count(s_.strides.begin(), s_.strides.end(), 0)) return fail(in, error);
    AxisOffsets m;
    const Shape strides = row_major_strides(in);
    for (size_t d = 0; d < in.size(); ++d) {
      if (s_.shrink_axis_mask >> d & 1) {  // one index, its axis dropped
        const int64_t i = s_.begin[d] < 0 ? s_.begin[d] + in[d] : s_.begin[d];
        if (i < 0 || i >= in[d]) return fail(in, error);
        m.walked.push_back(1);
        m.offsets.push_back({i * strides[d]});
        continue;
      }
      const AxisWalk w = walk(in[d], s_.begin[d], s_.end[d], s_.strides[d], s_.begin_mask >> d & 1,
                              s_.end_mask >> d & 1);
      m.walked.push_back(w.count);
      m.output.push_back(w.count);
      m.offsets.push_back(stepped_offsets(w.first, s_.strides[d], w.count, strides[d]));
    }
    if (m.output.empty()) return fail(in, error);  // a scalar: every axis shrunk
    return m;
  }

 private:
  std::optional<AxisOffsets> fail(const Shape& in, std::string* error) const {
    *error = "STRIDED_SLICE " + describe() + " does not fit its input " + to_string(in);
    return std::nullopt;
  }
  StridedSliceSpec s_;
};

}  // namespace

std::shared_ptr<const IndexView> slice_view(std::vector<int64_t> begin, std::vector<int64_t> size) {
  return std::make_shared<Slice>(std::move(begin), std::move(size));
}

std::shared_ptr<const IndexView> strided_slice_view(StridedSliceSpec spec) {
  return std::make_shared<StridedSlice>(std::move(spec));
}

}  // namespace fd
