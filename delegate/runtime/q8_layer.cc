#include "runtime/q8_layer.h"

#include "runtime/q8_quant.h"

namespace fd {
namespace {

std::vector<Q8Multiplier> multipliers(float in_scale, const std::vector<float>& w_scales, float out_scale, int n,
                                      bool float_product) {
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

}  // namespace

Q8PackedLayer q8_pack_layer(const Graph& g, const Node& node, int n, int k, bool float_product,
                            const Q8GemmKernel& kernel) {
  const Tensor& in = g.tensors[node.inputs[0]];
  const Tensor& w = g.tensors[node.inputs[1]];
  const Q8Quant out = q8_quant_of(g.tensors[node.outputs[0]]);
  Q8PackedLayer l;
  l.output.zero_point = out.zero_point;
  q8_activation_range(q8_activation_of(node.act), out, &l.output.lo, &l.output.hi);
  const bool has_bias = node.inputs.size() > 2 && node.inputs[2] >= 0;
  const int32_t* bias = has_bias ? static_cast<const int32_t*>(g.tensors[node.inputs[2]].data.bytes()) : nullptr;
  const std::vector<Q8Multiplier> m =
      multipliers(q8_quant_of(in).scale, w.quantization.scales, out.scale, n, float_product);
  l.packed.resize(q8_packed_bytes(kernel, n, k) / sizeof(int32_t) + 1);
  q8_pack_weights(kernel, n, k, static_cast<const int8_t*>(w.data.bytes()), bias, m.data(), q8_quant_of(in).zero_point,
                  l.packed.data());
  return l;
}

}  // namespace fd
