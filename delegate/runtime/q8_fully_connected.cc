#include "runtime/q8_fully_connected.h"

#include "ops/fully_connected.h"
#include "runtime/q8_quant.h"

namespace fd {
namespace {

// TFLite's multipliers (fully_connected.cc Prepare): per channel in double;
// of one weight scale, the product in float, then divided in double.
std::vector<Q8Multiplier> multipliers(float in_scale, const std::vector<float>& w_scales, float out_scale, int n) {
  std::vector<Q8Multiplier> m(n);
  for (int c = 0; c < n; ++c) {
    const double real = w_scales.size() == 1
                            ? static_cast<double>(in_scale * w_scales[0]) / static_cast<double>(out_scale)
                            : static_cast<double>(in_scale) * static_cast<double>(w_scales[c]) /
                                  static_cast<double>(out_scale);
    m[c] = q8_multiplier(real);
  }
  return m;
}

}  // namespace

std::shared_ptr<const Q8FullyConnected> make_q8_fully_connected(const Graph& g, const Node& node, int input,
                                                                const Q8GemmKernel& kernel) {
  const Tensor& in = g.tensors[node.inputs[0]];
  const Tensor& w = g.tensors[node.inputs[1]];
  const Tensor& out = g.tensors[node.outputs[0]];
  auto fc = std::make_shared<Q8FullyConnected>();
  fc->kernel = &kernel;
  fc->input = input;
  fc->n = static_cast<int>(w.shape[0]);
  fc->k = static_cast<int>(w.shape[1]);
  fc->keep_num_dims = params_as<FullyConnectedParams>(node.params).keep_num_dims;
  const Q8Quant out_quant = q8_quant_of(out);
  fc->output.zero_point = out_quant.zero_point;
  q8_activation_range(q8_activation_of(node.act), out_quant, &fc->output.lo, &fc->output.hi);
  const bool has_bias = node.inputs.size() > 2 && node.inputs[2] >= 0;
  const int32_t* bias = has_bias ? static_cast<const int32_t*>(g.tensors[node.inputs[2]].data.bytes()) : nullptr;
  const std::vector<Q8Multiplier> m = multipliers(q8_quant_of(in).scale, w.quantization.scales, out_quant.scale, fc->n);
  fc->packed.resize(q8_packed_bytes(kernel, fc->n, fc->k) / sizeof(int32_t) + 1);
  q8_pack_weights(kernel, fc->n, fc->k, static_cast<const int8_t*>(w.data.bytes()), bias, m.data(),
                  q8_quant_of(in).zero_point, fc->packed.data());
  return fc;
}

void run_q8_fully_connected(const Q8FullyConnected& fc, const int8_t* input, int64_t first_row, int64_t rows,
                            int8_t* out) {
  q8_gemm(*fc.kernel, fc.rounding, static_cast<int>(rows), fc.n, fc.k, input + first_row * fc.k, fc.k,
          fc.packed.data(), out, fc.n, fc.output);
}

}  // namespace fd
