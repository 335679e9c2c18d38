// int8 kernels, NEON: table lookups with tbl/tbx over four 64-byte tables,
// and the two-input ops on 4 int32 lanes (sqrdmulh is gemmlowp's rounding
// doubling high multiply).
#include <arm_neon.h>

#include <cstring>

#include "kernels/q8_binary.h"
#include "kernels/q8_kernel.h"

namespace fd {
namespace {

// 16 values: tbl finds those under 64 in the first table; each tbx the next
// 64 (an index out of its table's range leaves the value as it is).
inline int8x16_t lookup_16(int8x16_t x, const uint8x16x4_t (&t)[4]) {
  const uint8x16_t index = veorq_u8(vreinterpretq_u8_s8(x), vdupq_n_u8(0x80));  // value + 128
  uint8x16_t r = vqtbl4q_u8(t[0], index);
  for (int k = 1; k < 4; ++k) r = vqtbx4q_u8(r, t[k], vsubq_u8(index, vdupq_n_u8(static_cast<uint8_t>(64 * k))));
  return vreinterpretq_s8_u8(r);
}

void q8_lut_neon(const int8_t* table, const int8_t* x, int8_t* y, int64_t n) {
  uint8x16x4_t t[4];
  for (int k = 0; k < 4; ++k) t[k] = vld1q_u8_x4(reinterpret_cast<const uint8_t*>(table) + 64 * k);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) vst1q_s8(y + i, lookup_16(vld1q_s8(x + i), t));
  for (; i < n; ++i) y[i] = table[x[i] + 128];
}

// 4 int32 lanes (q8_binary.h's lane API).
struct I32x4 {
  static constexpr int kLanes = 4;
  int32x4_t v;
  static I32x4 load8(const int8_t* p) {
    int32_t word;
    std::memcpy(&word, p, 4);
    return {vmovl_s16(vget_low_s16(vmovl_s8(vreinterpret_s8_s32(vdup_n_s32(word)))))};
  }
  static void store8(int8_t* p, I32x4 x) {  // values within int8
    const int16x4_t h = vmovn_s32(x.v);
    const int32_t word = vget_lane_s32(vreinterpret_s32_s8(vmovn_s16(vcombine_s16(h, h))), 0);
    std::memcpy(p, &word, 4);
  }
  static I32x4 splat(int32_t c) { return {vdupq_n_s32(c)}; }
  static I32x4 shl(I32x4 x, int s) { return {vshlq_s32(x.v, vdupq_n_s32(s))}; }
  static I32x4 sra(I32x4 x, int s) { return {vshlq_s32(x.v, vdupq_n_s32(-s))}; }
  static I32x4 min(I32x4 a, I32x4 b) { return {vminq_s32(a.v, b.v)}; }
  static I32x4 max(I32x4 a, I32x4 b) { return {vmaxq_s32(a.v, b.v)}; }
  static I32x4 srdhm(I32x4 x, int32_t m) { return {vqrdmulhq_s32(x.v, vdupq_n_s32(m))}; }
  static I32x4 rdbpot(I32x4 x, int e) {
    const int32x4_t mask = vdupq_n_s32(static_cast<int32_t>((int64_t{1} << e) - 1));
    const int32x4_t remainder = vandq_s32(x.v, mask);
    const int32x4_t negative = vreinterpretq_s32_u32(vshrq_n_u32(vreinterpretq_u32_s32(x.v), 31));
    const int32x4_t threshold = vaddq_s32(vshrq_n_s32(mask, 1), negative);
    const int32x4_t up = vreinterpretq_s32_u32(vcgtq_s32(remainder, threshold));  // -1 where it rounds up
    return {vsubq_s32(sra(x, e).v, up)};
  }
  static I32x4 narrow16(I32x4 x) { return {vmovl_s16(vmovn_s32(x.v))}; }
  static I32x4 band(I32x4 a, I32x4 b) { return {vandq_s32(a.v, b.v)}; }
  static bool any_at_most(I32x4 x, int32_t c) { return vmaxvq_u32(vcleq_s32(x.v, vdupq_n_s32(c))) != 0; }
};
inline I32x4 operator+(I32x4 a, I32x4 b) { return {vaddq_s32(a.v, b.v)}; }
inline I32x4 operator-(I32x4 a, I32x4 b) { return {vsubq_s32(a.v, b.v)}; }
inline I32x4 operator*(I32x4 a, I32x4 b) { return {vmulq_s32(a.v, b.v)}; }

}  // namespace

const Q8Kernel& q8_kernel_neon() {
  static const Q8Kernel kernel{"q8_neon", &q8_lut_neon, &q8_binary<I32x4>, q8_kernel_scalar().matmul};
  return kernel;
}

}  // namespace fd
