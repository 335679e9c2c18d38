// A windowed int8 layer (CONV_2D, DEPTHWISE_CONV_2D) as the first step of an
// int8 group (runtime/q8_layer.h): its window's geometry on the input shape it
// was prepared for, and a copy of itself for another shape (a resize).
#pragma once

#include <memory>
#include <vector>

#include "ops/conv_geometry.h"
#include "runtime/q8_layer.h"

namespace fd {

class Q8WindowLayer : public Q8Layer {
 public:
  std::optional<Shape> output_shape(const std::vector<Shape>& in, std::string* error) const override;
  // A copy with the geometry of `in` (weights shared), or null if `in` is the
  // prepared shape or no window of this layer fits it (output_shape says why).
  std::shared_ptr<const Q8Layer> for_input(const std::vector<Shape>& in) const override;
  void run(const int8_t* const* inputs, int64_t first, int64_t rows, int8_t* out) const override {
    run_from(inputs[input_], first, rows, out);
  }

 protected:
  // `node`'s window ([_, kh, kw, _] filter) over its input, `channels` outputs
  // per pixel; `pad`: a PAD folded into it (the layer reads the PAD's input).
  Q8WindowLayer(const Graph& g, const Node& node, const Node* pad, int input, int channels, const char* op);
  virtual std::shared_ptr<Q8WindowLayer> copy() const = 0;
  virtual void run_from(const int8_t* input, int64_t first, int64_t rows, int8_t* out) const = 0;
  virtual void geometry_changed() {}  // after for_input set a copy's geometry
  // The input pixel of each tap of output pixels [first, first + rows), a
  // padding tap's the zero row: rows * taps pointers (thread-local storage).
  const int8_t** tap_pointers(const int8_t* input, int64_t first, int64_t rows) const;

  const char* op_;  // "CONV_2D"
  Shape input_shape_;
  ConvGeometry geo_;
  std::vector<int32_t> offsets_;  // conv_offsets(geo_): empty when dense
  std::vector<int8_t> zero_row_;  // the input's zero point, one pixel of it (or more bytes)
};

}  // namespace fd
