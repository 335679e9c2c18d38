#include "runtime/q8_layer.h"

#include "ir/shape.h"
#include "runtime/q8_quant.h"

namespace fd {
std::vector<Q8Multiplier> q8_layer_multipliers(const Graph& g, const Node& node, int n, bool float_product) {
  const float in_scale = q8_quant_of(g.tensors[node.inputs[0]]).scale;
  const float out_scale = q8_quant_of(g.tensors[node.outputs[0]]).scale;
  const std::vector<float>& w_scales = g.tensors[node.inputs[1]].quantization.scales;
  std::vector<Q8Multiplier> m(n);
  for (int c = 0; c < n; ++c) {
    const float w_scale = w_scales[w_scales.size() == 1 ? 0 : c];
    const double real = float_product && w_scales.size() == 1
                            ? static_cast<double>(in_scale * w_scale) / static_cast<double>(out_scale)
                            : static_cast<double>(in_scale) * static_cast<double>(w_scale) /
                                  static_cast<double>(out_scale);
    m[c] = q8_multiplier(real);
  }
  return m;
}

Q8GemmOutput q8_layer_output(const Graph& g, const Node& node) {
  const Q8Quant out = q8_quant_of(g.tensors[node.outputs[0]]);
  Q8GemmOutput o;
  o.zero_point = out.zero_point;
  q8_activation_range(q8_activation_of(node.act), out, &o.lo, &o.hi);
  return o;
}

const int32_t* q8_layer_bias(const Graph& g, const Node& node) {
  const bool has_bias = node.inputs.size() > 2 && node.inputs[2] >= 0;
  return has_bias ? static_cast<const int32_t*>(g.tensors[node.inputs[2]].data.bytes()) : nullptr;
}

std::optional<Shape> q8_prepared_shape(const char* what, const Shape& prepared, const Shape& in, const Shape& out,
                                       std::string* error) {
  if (in == prepared) return out;
  *error = std::string("int8 ") + what + " prepared for " + to_string(prepared) + " given " + to_string(in);
  return std::nullopt;
}

Q8PackedLayer q8_pack_layer(const Graph& g, const Node& node, int n, int k, bool float_product,
                            const Q8GemmKernel& kernel, const int8_t* weights) {
  const Q8Quant in = q8_quant_of(g.tensors[node.inputs[0]]);
  Q8PackedLayer l;
  l.output = q8_layer_output(g, node);
  const std::vector<Q8Multiplier> m = q8_layer_multipliers(g, node, n, float_product);
  l.packed.resize(q8_packed_bytes(kernel, n, k) / sizeof(int32_t) + 1);
  if (!weights) weights = static_cast<const int8_t*>(g.tensors[node.inputs[1]].data.bytes());
  q8_pack_weights(kernel, n, k, weights,
                  q8_layer_bias(g, node), m.data(), in.zero_point, l.packed.data());
  return l;
}

}  // namespace fd
