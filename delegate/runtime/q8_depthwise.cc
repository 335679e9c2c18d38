#include "runtime/q8_depthwise.h"

#include "runtime/q8_quant.h"

namespace fd {

Q8Depthwise::Q8Depthwise(const Graph& g, const Node& node, const Node* pad, int input, const Q8DepthwiseKernel& kernel)
    : Q8WindowLayer(g, node, pad, input, static_cast<int>(g.tensors[node.inputs[1]].shape[3]), "DEPTHWISE_CONV_2D"),
      kernel_(&kernel) {
  const Tensor& w = g.tensors[node.inputs[1]];
  const Q8Quant in_q = q8_quant_of(g.tensors[node.inputs[0]]);
  multiplier_ = channels_ / static_cast<int>(geo_.channels);
  output_ = q8_layer_output(g, node);
  const auto m = q8_layer_multipliers(g, node, channels_, /*float_product=*/false);
  std::vector<int64_t> packed(q8_depthwise_packed_bytes(kernel, channels_, geo_.taps()) / sizeof(int64_t) + 1);
  q8_pack_depthwise(kernel, channels_, geo_.taps(), static_cast<const int8_t*>(w.data.bytes()),
                    q8_layer_bias(g, node), m.data(), in_q.zero_point, packed.data());
  packed_ = std::make_shared<const std::vector<int64_t>>(std::move(packed));
}

void Q8Depthwise::run_from(const int8_t* input, int64_t first, int64_t rows, int8_t* out) const {
  kernel_->pixels(static_cast<int>(rows), channels_, multiplier_, geo_.taps(), tap_pointers(input, first, rows),
                  packed_->data(), out, channels_, output_);
}

}  // namespace fd
