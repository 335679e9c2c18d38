#include "runtime/q8_conv.h"

#include <cstring>

#include "ir/shape.h"
#include "ops/window.h"
#include "runtime/q8_quant.h"

namespace fd {

Q8Conv::Q8Conv(const Graph& g, const Node& node, int input, const Q8GemmKernel& kernel) : kernel_(&kernel) {
  const Tensor& in = g.tensors[node.inputs[0]];
  const Shape& w = g.tensors[node.inputs[1]].shape;
  std::string error;
  geo_ = *conv_geometry(in.shape, static_cast<int>(w[1]), static_cast<int>(w[2]), window_of(node), FoldedPad{},
                        &error);
  input_ = input;
  input_shape_ = in.shape;
  channels_ = static_cast<int>(w[0]);
  block_rows_ = kernel.mr;
  k_ = static_cast<int>(w[1] * w[2] * w[3]);
  input_zero_point_ = static_cast<int8_t>(q8_quant_of(in).zero_point);
  offsets_ = conv_offsets(geo_);
  Q8PackedLayer l = q8_pack_layer(g, node, channels_, k_, /*float_product=*/false, kernel);
  packed_ = std::move(l.packed);
  output_ = l.output;
}

std::shared_ptr<const Q8Layer> Q8Conv::for_input(const Shape& in) const {
  std::string error;
  const auto geo = conv_geometry(in, geo_.kh, geo_.kw, geo_.p, FoldedPad{}, &error);
  if (in == input_shape_ || !geo || geo->channels != geo_.channels) return nullptr;  // output_shape says why
  auto resized = std::make_shared<Q8Conv>(*this);
  resized->input_shape_ = in;
  resized->geo_ = *geo;
  resized->offsets_ = conv_offsets(*geo);
  return resized;
}

std::optional<Shape> Q8Conv::output_shape(const Shape& in, std::string* error) const {
  return q8_prepared_shape("CONV_2D", input_shape_, in, Shape{geo_.batch, geo_.out_h, geo_.out_w, channels_}, error);
}

// Each pixel's taps, runs of taps side by side in the input copied at once.
void Q8Conv::gather(const int8_t* input, int64_t first, int64_t rows, int8_t* a) const {
  const int taps = geo_.taps();
  const int32_t c = static_cast<int32_t>(geo_.channels);
  const int32_t* o = offsets_.data() + first * taps;
  for (int64_t p = 0; p < rows; ++p, o += taps)
    for (int t = 0; t < taps;) {
      if (o[t] < 0) {
        std::memset(a, input_zero_point_, c);
        a += c, ++t;
        continue;
      }
      int end = t + 1;
      while (end < taps && o[end] == o[end - 1] + c) ++end;
      std::memcpy(a, input + o[t], static_cast<size_t>(end - t) * c);
      a += static_cast<size_t>(end - t) * c, t = end;
    }
}

void Q8Conv::run(const int8_t* input, int64_t first, int64_t rows, int8_t* out) const {
  const int n = channels_, m = static_cast<int>(rows);
  if (offsets_.empty()) {  // dense 1x1: pixel p's row is input pixel p
    q8_gemm(*kernel_, rounding_, m, n, k_, input + first * k_, k_, packed_.data(), out, n, output_);
    return;
  }
  thread_local std::vector<int8_t> im2col;
  if (im2col.size() < static_cast<size_t>(rows) * k_) im2col.resize(static_cast<size_t>(rows) * k_);
  gather(input, first, rows, im2col.data());
  q8_gemm(*kernel_, rounding_, m, n, k_, im2col.data(), k_, packed_.data(), out, n, output_);
}

}  // namespace fd
