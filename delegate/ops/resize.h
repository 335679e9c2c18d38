// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR of an NHWC input: their
// parameters (Node::params), read by their rule (resize.cc) and their step
// (runtime/anchors/resize.cc).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "ir/graph.h"
#include "ir/op_params.h"

namespace fd {

struct ResizeParams : OpParams {
  int64_t height = 0, width = 0;                           // the output's H and W
  bool align_corners = false, half_pixel_centers = false;  // as TFLite's options
  std::string describe() const override;                   // "12x12, align_corners"
  bool write(WireWriter& w) const override;
};

std::shared_ptr<const ResizeParams> resize_params(int64_t height, int64_t width, bool align_corners,
                                                  bool half_pixel_centers);

// The output of an NHWC `input`: nothing if it is not 4-D or the size is not two positive values.
std::optional<Shape> resize_shape(const Shape& input, const ResizeParams& p);

}  // namespace fd
