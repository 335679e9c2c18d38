// The per-channel constants of the x86 q8 depthwise kernels: the
// requantization as one 64-bit product (below) on L int32 lanes, whose even
// and odd lanes vpmuldq multiplies apart. Plain C++; each file keeps its own
// copy (unnamed namespace: built with its own ISA's flags).
#pragma once

#include <cstdint>

#include "kernels/q8_depthwise.h"

namespace fd {
namespace {

// The requantization as one 64-bit product: with
// p = (acc << l) * M, t = (p + nudge - (p < -2^30 ? away_fix : 0)) >> (31 + r)
// (arithmetic), where nudge = 2^30 + 2^(30+r) (2^30 where r = 0) gives ruy's
// floor((floor((p + 2^30) / 2^31) + 2^(r-1)) / 2^r), and away_fix = 2^31 (for
// a channel that rounds ties away, r > 0; else 0) TFLite's tie away from zero
// where h = floor((p + 2^30) / 2^31) < 0.
inline int64_t q8_depthwise_nudge(Q8Multiplier m) {
  const int r = m.shift > 0 ? 0 : -m.shift;
  return (int64_t{1} << 30) + (r > 0 ? int64_t{1} << (30 + r) : 0);
}
inline int64_t q8_depthwise_away_fix(const Q8DepthwiseChannel& c) {
  return c.away && c.multiplier.shift < 0 ? int64_t{1} << 31 : 0;
}

// The constants of L slots (half a block).
template <int L>
struct Q8DepthwiseHalf {
  int32_t bias[L], left[L], multiplier[L];
  int32_t multiplier_odd[L];  // [2i]: slot 2i + 1's multiplier
  int32_t offset[L];          // with logical shifts (AVX2): what the 2^63 in nudge adds to t, 2^(32 - r)
  int64_t nudge[2][L / 2], shift[2][L / 2], away_fix[2][L / 2];  // [0]: slots 0, 2, ..; [1]: 1, 3, ..
};

// Slot i of a half; `logical`: nudge carries 2^63 (wrapping) so that a
// logical shift of the sum gives t + offset in the low 32 bits.
template <int L>
void q8_depthwise_pack_slot(const Q8DepthwiseChannel& slot, bool logical, int i, Q8DepthwiseHalf<L>& h) {
  const Q8Multiplier m = slot.multiplier;
  const int right = m.shift > 0 ? 0 : -m.shift;
  h.bias[i] = slot.bias;
  h.left[i] = m.shift > 0 ? m.shift : 0;
  h.multiplier[i] = m.multiplier;
  if (i % 2) h.multiplier_odd[i - 1] = m.multiplier;
  h.offset[i] = logical && right > 0 ? static_cast<int32_t>(uint32_t{1} << (32 - right)) : 0;
  const uint64_t top = logical ? uint64_t{1} << 63 : 0;
  h.nudge[i % 2][i / 2] = static_cast<int64_t>(static_cast<uint64_t>(q8_depthwise_nudge(m)) + top);
  h.shift[i % 2][i / 2] = 31 + right;
  h.away_fix[i % 2][i / 2] = q8_depthwise_away_fix(slot);
}

// A block's constants: its two halves (the lo sums' slots, the hi sums').
template <int L>
struct Q8DepthwiseX86Constants {
  Q8DepthwiseHalf<L> half[2];
};

template <int L, bool kLogical>
void q8_depthwise_pack_x86(const Q8DepthwiseChannel* slots, void* constants) {
  auto& c = *static_cast<Q8DepthwiseX86Constants<L>*>(constants);
  for (int s = 0; s < 2 * L; ++s) q8_depthwise_pack_slot(slots[s], kLogical, s % L, c.half[s / L]);
}

// The layout of an x86 kernel's blocks of 2 L channels: int16 weights of tap
// pairs in vpunpck{l,h}wd's order, then these constants.
template <int L, bool kLogical>
constexpr Q8DepthwiseLayout q8_depthwise_x86_layout{2 * L, 2, true, true, sizeof(Q8DepthwiseX86Constants<L>),
                                                    &q8_depthwise_pack_x86<L, kLogical>};

}  // namespace
}  // namespace fd
