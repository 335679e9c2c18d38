#include "runtime/q8_window_layer.h"

#include "ops/pad.h"
#include "ops/window.h"
#include "runtime/q8_quant.h"

namespace fd {

Q8WindowLayer::Q8WindowLayer(const Graph& g, const Node& node, const Node* pad, int input, int channels,
                             const char* op)
    : op_(op) {
  const Shape& in = g.tensors[pad ? pad->inputs[0] : node.inputs[0]].shape;
  const Shape& w = g.tensors[node.inputs[1]].shape;
  const FoldedPad fold = pad ? folded_pad(params_as<PadParams>(pad->params)) : FoldedPad{};
  std::string error;
  geo_ = *conv_geometry(in, static_cast<int>(w[1]), static_cast<int>(w[2]), window_of(node), fold, &error);
  input_ = input;
  input_shape_ = in;
  channels_ = channels;
  offsets_ = conv_offsets(geo_);
  zero_row_.assign(geo_.channels, static_cast<int8_t>(q8_quant_of(g.tensors[node.inputs[0]]).zero_point));
}

const int8_t** Q8WindowLayer::tap_pointers(const int8_t* input, int64_t first, int64_t rows) const {
  const int64_t n = rows * geo_.taps();
  thread_local std::vector<const int8_t*> pointers;
  if (pointers.size() < static_cast<size_t>(n)) pointers.resize(n);
  const int8_t** p = pointers.data();
  if (offsets_.empty()) {  // dense: one tap per pixel, in order
    for (int64_t i = 0; i < n; ++i) p[i] = input + (first + i) * geo_.channels;
    return p;
  }
  // input + o[i], or the zero row where o[i] < 0: masks, not a branch (padding taps mispredict)
  const int32_t* o = offsets_.data() + first * geo_.taps();
  const intptr_t base = reinterpret_cast<intptr_t>(input);
  const intptr_t to_zero = reinterpret_cast<intptr_t>(zero_row_.data()) - base;
  for (int64_t i = 0; i < n; ++i) {
    const intptr_t padding = o[i] >> 31;  // -1 or 0
    p[i] = reinterpret_cast<const int8_t*>(base + ((static_cast<intptr_t>(o[i]) & ~padding) | (to_zero & padding)));
  }
  return p;
}

std::shared_ptr<const Q8Layer> Q8WindowLayer::for_input(const std::vector<Shape>& inputs) const {
  const Shape& in = inputs[input_];
  if (in == input_shape_) return nullptr;
  std::string error;
  const auto geo = conv_geometry(in, geo_.kh, geo_.kw, geo_.p, geo_.fold, &error);
  if (!geo || geo->channels != geo_.channels) return nullptr;
  std::shared_ptr<Q8WindowLayer> resized = copy();
  resized->input_shape_ = in;
  resized->geo_ = *geo;
  resized->offsets_ = conv_offsets(*geo);
  resized->geometry_changed();
  return resized;
}

std::optional<Shape> Q8WindowLayer::output_shape(const std::vector<Shape>& in, std::string* error) const {
  return q8_prepared_shape(op_, input_shape_, in[input_], Shape{geo_.batch, geo_.out_h, geo_.out_w, channels_}, error);
}

}  // namespace fd
