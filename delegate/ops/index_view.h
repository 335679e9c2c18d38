// Views that copy values: every output value is one input value, found at an
// input offset that is a sum of one term per axis (AxisOffsets). Each op's
// parameters and rule live in a file of its own (view_slice.cc, view_split.cc,
// view_gather.cc, view_tile.cc, view_depth_space.cc); one runtime step
// (runtime/anchors/index_view.cc) runs them all, and the planner reads only
// this interface. A new view is its file, a line below and its front-end reader.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/op_params.h"

namespace fd {

struct AxisOffsets {
  Shape output;  // the op's output shape
  // The output's values in order, walked as this shape (the same count; a GATHER
  // of a matrix of indices walks them as one axis): value [i0, i1, ...] is the
  // input's value at offsets[0][i0] + offsets[1][i1] + ...
  Shape walked;
  std::vector<std::vector<int64_t>> offsets;
};

class IndexView : public OpParams {
 public:
  // For an input of shape `in` (a run's sizes): the output and where its values
  // come from; nothing, with why in *error, where the op does not fit it (TFLite's
  // kernel refuses such an input too).
  virtual std::optional<AxisOffsets> bind(const Shape& in, std::string* error) const = 0;
  // Why the op is better left to the runtime's kernels at input `in` (measured), or "".
  virtual std::string left_because(const Shape&) const { return ""; }
};

// SLICE: per axis, the first index and the count (-1: to the end).
std::shared_ptr<const IndexView> slice_view(std::vector<int64_t> begin, std::vector<int64_t> size);

// STRIDED_SLICE, one value per input axis in begin, end and strides; bit i of a
// mask is axis i. Ellipsis and new axes are not taken (the front end declines them).
struct StridedSliceSpec {
  std::vector<int64_t> begin, end, strides;
  int begin_mask = 0, end_mask = 0, shrink_axis_mask = 0;
};
std::shared_ptr<const IndexView> strided_slice_view(StridedSliceSpec spec);

// GATHER along `axis` (negative: from the end) of constant indices of shape
// `indices_shape` (values row-major in `indices`), batch_dims 0.
std::shared_ptr<const IndexView> gather_view(int64_t axis, Shape indices_shape, std::vector<int64_t> indices);

// SPLIT (sizes empty: `parts` equal parts), SPLIT_V (the sizes, one -1 at
// most: what the others leave) and UNPACK (`parts` parts of one index, the
// axis dropped): output `part`'s view, along `axis` (negative: from the end).
std::shared_ptr<const IndexView> split_view(int64_t axis, std::vector<int64_t> sizes, int64_t parts, int64_t part,
                                            bool drop_axis);

// TILE: each axis repeated multiples[axis] times.
std::shared_ptr<const IndexView> tile_view(std::vector<int64_t> multiples);

// DEPTH_TO_SPACE and SPACE_TO_DEPTH of NHWC tensors, blocks of block x block pixels.
std::shared_ptr<const IndexView> depth_to_space_view(int64_t block);
std::shared_ptr<const IndexView> space_to_depth_view(int64_t block);

// For the ops' files: a row-major shape's strides, and the offsets
// (first + i * step) * stride of an axis for i in [0, count).
Shape row_major_strides(const Shape& s);
std::vector<int64_t> stepped_offsets(int64_t first, int64_t step, int64_t count, int64_t stride);
// "1,2,3", for describe().
std::string join(const std::vector<int64_t>& v);

}  // namespace fd
