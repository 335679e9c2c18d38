// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR (ops/resize.h).
#include "ops/resize.h"

#include "ops/op_registry.h"
#include "ops/rule_helpers.h"

namespace fd {

std::string ResizeParams::describe() const {
  return std::to_string(height) + "x" + std::to_string(width) + (align_corners ? ", align_corners" : "") +
         (half_pixel_centers ? ", half_pixel_centers" : "");
}

bool ResizeParams::write(WireWriter& w) const {
  w.i64(height);
  w.i64(width);
  w.flag(align_corners);
  w.flag(half_pixel_centers);
  return true;
}

std::shared_ptr<const ResizeParams> resize_params(int64_t height, int64_t width, bool align_corners,
                                                  bool half_pixel_centers) {
  auto p = std::make_shared<ResizeParams>();
  p->height = height;
  p->width = width;
  p->align_corners = align_corners;
  p->half_pixel_centers = half_pixel_centers;
  return p;
}

std::optional<Shape> resize_shape(const Shape& input, const ResizeParams& p) {
  if (input.size() != 4 || p.height <= 0 || p.width <= 0) return std::nullopt;
  return Shape{input[0], p.height, p.width, input[3]};
}

namespace {

std::string rule(const Graph& g, const Node& node) {
  const auto& p = params_as<ResizeParams>(node.params);
  const Shape& in = g.tensors[node.inputs[0]].shape;
  const auto expect = resize_shape(in, p);
  if (!expect) return "input " + to_string(in) + " is not 4-D NHWC, or the size is not two positive values";
  if (p.align_corners && p.half_pixel_centers) return "align_corners with half_pixel_centers";
  return output_legality(g, node, expect);
}

std::shared_ptr<const OpParams> read(WireReader& r) {
  const int64_t h = r.i64(), w = r.i64();
  const bool align_corners = r.flag();
  return resize_params(h, w, align_corners, r.flag());
}

}  // namespace

extern const AnchorInfo kResizeBilinearInfo = {
    "RESIZE_BILINEAR", Pattern::kView, kFamilyConv, 1, 1, 0, rule, nullptr, read,
};

extern const AnchorInfo kResizeNearestInfo = {
    "RESIZE_NEAREST_NEIGHBOR", Pattern::kView, kFamilyConv, 1, 1, 0, rule, nullptr, read,
};

}  // namespace fd
