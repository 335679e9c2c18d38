#include "runtime/q8_depthwise.h"

#include "ops/window.h"
#include "runtime/q8_quant.h"

namespace fd {

Q8Depthwise::Q8Depthwise(const Graph& g, const Node& node, int input, const Q8DepthwiseKernel& kernel)
    : kernel_(&kernel) {
  const Tensor& in = g.tensors[node.inputs[0]];
  const Tensor& w = g.tensors[node.inputs[1]];
  const Q8Quant in_q = q8_quant_of(in);
  std::string error;
  geo_ = *conv_geometry(in.shape, static_cast<int>(w.shape[1]), static_cast<int>(w.shape[2]), window_of(node),
                        FoldedPad{}, &error);
  input_ = input;
  input_shape_ = in.shape;
  channels_ = static_cast<int>(w.shape[3]);
  multiplier_ = channels_ / static_cast<int>(geo_.channels);
  offsets_ = conv_offsets(geo_);
  zero_row_.assign(geo_.channels, static_cast<int8_t>(in_q.zero_point));
  output_ = q8_layer_output(g, node);
  const auto m = q8_layer_multipliers(g, node, channels_, /*float_product=*/false);
  packed_.resize(q8_depthwise_packed_bytes(kernel, channels_, geo_.taps()) / sizeof(int64_t) + 1);
  q8_pack_depthwise(kernel, channels_, geo_.taps(), static_cast<const int8_t*>(w.data.bytes()),
                    q8_layer_bias(g, node), m.data(), in_q.zero_point, packed_.data());
}

std::shared_ptr<const Q8Layer> Q8Depthwise::for_input(const Shape& in) const {
  std::string error;
  const auto geo = conv_geometry(in, geo_.kh, geo_.kw, geo_.p, FoldedPad{}, &error);
  if (in == input_shape_ || !geo || geo->channels != geo_.channels) return nullptr;  // output_shape says why
  auto resized = std::make_shared<Q8Depthwise>(*this);
  resized->input_shape_ = in;
  resized->geo_ = *geo;
  resized->offsets_ = conv_offsets(*geo);
  return resized;
}

std::optional<Shape> Q8Depthwise::output_shape(const Shape& in, std::string* error) const {
  return q8_prepared_shape("DEPTHWISE_CONV_2D", input_shape_, in, Shape{geo_.batch, geo_.out_h, geo_.out_w, channels_},
                           error);
}

void Q8Depthwise::run(const int8_t* input, int64_t first, int64_t rows, int8_t* out) const {
  const int taps = geo_.taps();
  thread_local std::vector<const int8_t*> pointers;
  pointers.resize(static_cast<size_t>(rows) * taps);
  for (int64_t i = 0; i < rows * taps; ++i) {
    const int64_t p = first * taps + i;
    const int32_t o = offsets_.empty() ? static_cast<int32_t>((first + i) * geo_.channels) : offsets_[p];
    pointers[i] = o >= 0 ? input + o : zero_row_.data();
  }
  kernel_->pixels(static_cast<int>(rows), channels_, multiplier_, taps, pointers.data(), packed_.data(), out,
                  channels_, output_);
}

}  // namespace fd
