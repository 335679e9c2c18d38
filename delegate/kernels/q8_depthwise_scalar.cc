// q8 depthwise, scalar reference: one channel at a time (blocks of 1, int8
// weights), any multiplier, each output requantized by q8_requantize in the
// rounding its channel packs.
#include "kernels/q8_depthwise.h"

namespace fd {
namespace {

struct Constants {
  int32_t bias, multiplier, left, right, away, unused;
};

void pack_constants(const Q8DepthwiseChannel* slot, void* constants) {
  const Q8Multiplier m = slot->multiplier;
  *static_cast<Constants*>(constants) = {slot->bias, m.multiplier, m.shift > 0 ? m.shift : 0,
                                         m.shift > 0 ? 0 : -m.shift, slot->away, 0};
}

constexpr Q8DepthwiseLayout kLayout{1, 1, false, false, sizeof(Constants), &pack_constants};

void q8_depthwise_scalar(int depth, int multiplier, int taps, const int8_t* const* rows, const void* packed,
                         int8_t* out, const Q8DepthwiseOutput& p) {
  const size_t bytes = q8_depthwise_block_bytes(kLayout, taps);
  const char* block = static_cast<const char*>(packed);
  for (int c = 0; c < depth; ++c, block += bytes) {
    const int8_t* w = reinterpret_cast<const int8_t*>(block);
    const Constants& k = q8_depthwise_constants<Constants>(kLayout, taps, block);
    uint32_t acc = static_cast<uint32_t>(k.bias);
    for (int t = 0; t < taps; ++t) acc += static_cast<uint32_t>(rows[t][c / multiplier] * w[t]);
    const Q8Rounding rounding = k.away ? Q8Rounding::kReference : Q8Rounding::kRuyX86;
    const int32_t r = q8_requantize(static_cast<int32_t>(acc), k.multiplier, k.left, k.right, rounding);
    const int32_t y = static_cast<int32_t>(static_cast<uint32_t>(r) + static_cast<uint32_t>(p.zero_point));
    out[c] = static_cast<int8_t>(q8_clamp(y, p.lo, p.hi));
  }
}

}  // namespace

const Q8DepthwiseKernel& q8_depthwise_kernel_scalar() {
  static const Q8DepthwiseKernel kernel{"q8_depthwise_1c_scalar", kLayout, &q8_depthwise_scalar,
                                        &q8_depthwise_each_pixel<&q8_depthwise_scalar>};
  return kernel;
}

}  // namespace fd
