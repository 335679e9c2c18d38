// q8 depthwise: the packing every ISA's kernel reads (q8_depthwise.h's
// layout), multiplier > 1 by widened rows, and the choice of kernel.
#include "kernels/q8_depthwise.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/cpu.h"

namespace fd {
namespace {

// The channel (from the block's first) that slot s of a block holds.
int slot_channel(const Q8DepthwiseLayout& l, int s) {
  if (!l.unpack_order) return s;
  const int half = l.block / 2, i = s % half;
  return i / 4 * 8 + s / half * 4 + i % 4;
}

// Where the weight of tap t, slot s sits among a block's weights.
size_t weight_index(const Q8DepthwiseLayout& l, int t, int s) {
  if (!l.tap_pairs) return static_cast<size_t>(t) * l.block + s;
  return (static_cast<size_t>(t / 2) * l.block + s) * 2 + t % 2;
}

template <class T>
void pack_block_weights(const Q8DepthwiseLayout& l, int depth, int taps, const int8_t* w, int c0, T* out) {
  for (int s = 0; s < l.block; ++s) {
    const int c = c0 + slot_channel(l, s);
    if (c >= depth) continue;
    for (int t = 0; t < taps; ++t) out[weight_index(l, t, s)] = static_cast<T>(w[static_cast<size_t>(t) * depth + c]);
  }
}

// Channel c's constants: bias' (the zero point folded in, wrapping), its
// multiplier, and whether it rounds ties away.
Q8DepthwiseChannel channel_constants(int depth, int taps, const int8_t* w, const int32_t* bias,
                                     const Q8Multiplier* multipliers, int32_t in_zp, int c) {
  uint32_t sum = 0;
  for (int t = 0; t < taps; ++t) sum += static_cast<uint32_t>(w[static_cast<size_t>(t) * depth + c]);
  const uint32_t b = static_cast<uint32_t>(bias ? bias[c] : 0);
  return {static_cast<int32_t>(b - static_cast<uint32_t>(in_zp) * sum), multipliers[c],
          c >= depth / 8 * 8};  // Quantize's scalar tail
}

}  // namespace

void q8_pack_depthwise(const Q8DepthwiseKernel& kernel, int depth, int taps, const int8_t* w, const int32_t* bias,
                       const Q8Multiplier* multipliers, int32_t in_zp, void* packed) {
  const Q8DepthwiseLayout& l = kernel.layout;
  const size_t bytes = q8_depthwise_block_bytes(l, taps);
  std::vector<Q8DepthwiseChannel> slots(l.block);
  char* block = static_cast<char*>(packed);
  for (int c0 = 0; c0 < depth; c0 += l.block, block += bytes) {
    std::memset(block, 0, bytes);
    if (l.weight_bytes == 2)
      pack_block_weights(l, depth, taps, w, c0, reinterpret_cast<int16_t*>(block));
    else
      pack_block_weights(l, depth, taps, w, c0, reinterpret_cast<int8_t*>(block));
    for (int s = 0; s < l.block; ++s) {
      const int c = c0 + slot_channel(l, s);
      slots[s] = c < depth ? channel_constants(depth, taps, w, bias, multipliers, in_zp, c) : Q8DepthwiseChannel{};
    }
    l.pack_constants(slots.data(), block + q8_depthwise_weight_bytes(l, taps));
  }
}

void q8_depthwise_widened(Q8DepthwiseFn pixel, int depth, int multiplier, int taps, const int8_t* const* rows,
                          const void* packed, int8_t* out, const Q8DepthwiseOutput& params) {
  thread_local std::vector<int8_t> wide;
  thread_local std::vector<const int8_t*> wide_rows;
  wide.resize(static_cast<size_t>(taps) * depth);
  wide_rows.resize(taps);
  for (int t = 0; t < taps; ++t) {
    int8_t* row = wide.data() + static_cast<size_t>(t) * depth;
    for (int c = 0; c < depth; ++c) row[c] = rows[t][c / multiplier];
    wide_rows[t] = row;
  }
  pixel(depth, 1, taps, wide_rows.data(), packed, out, params);
}

namespace {

bool cpu_has(const std::string& isa) {
  const std::vector<std::string> isas = available_isas();
  return std::find(isas.begin(), isas.end(), isa) != isas.end();
}

#if defined(__x86_64__)
// The AVX-512 kernel's byte masks and 256-bit forms.
bool has_avx512bw_vl() { return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"); }
#endif

std::vector<const Q8DepthwiseKernel*> runnable_kernels() {
  std::vector<const Q8DepthwiseKernel*> kernels = {&q8_depthwise_kernel_scalar()};
#if defined(__x86_64__)
  if (cpu_has("avx2")) kernels.push_back(&q8_depthwise_kernel_avx2());
  if (cpu_has("avx512") && has_avx512bw_vl()) kernels.push_back(&q8_depthwise_kernel_avx512());
#elif defined(__aarch64__)
  kernels.push_back(&q8_depthwise_kernel_neon());
#endif
  return kernels;
}

}  // namespace

int q8_depthwise_kernels_runnable(const Q8DepthwiseKernel** out, int capacity) {
  static const std::vector<const Q8DepthwiseKernel*> kernels = runnable_kernels();
  const int n = std::min(capacity, static_cast<int>(kernels.size()));
  std::copy(kernels.begin(), kernels.begin() + n, out);
  return n;
}

// "auto": the best ISA's; avx512 without AVX512BW and VL: avx2's.
const Q8DepthwiseKernel* q8_depthwise_kernel_for(const std::string& isa) {
  if (isa == "auto") return q8_depthwise_kernel_for(available_isas().back());
  if (!cpu_has(isa)) return nullptr;
  if (isa == "scalar") return &q8_depthwise_kernel_scalar();
#if defined(__x86_64__)
  if (isa == "avx2") return &q8_depthwise_kernel_avx2();
  if (isa == "avx512") return has_avx512bw_vl() ? &q8_depthwise_kernel_avx512() : &q8_depthwise_kernel_avx2();
#elif defined(__aarch64__)
  if (isa == "neon") return &q8_depthwise_kernel_neon();
#endif
  return nullptr;
}

}  // namespace fd
