#include "ir/dtype.h"

namespace fd {

const char* dtype_name(DType t) {
  switch (t) {
    case DType::kF32: return "float32";
    case DType::kF16: return "float16";
    case DType::kI8: return "int8";
    case DType::kU8: return "uint8";
    case DType::kI32: return "int32";
    case DType::kI64: return "int64";
    case DType::kBool: return "bool";
    case DType::kOther: break;
  }
  return "other";
}

size_t dtype_size(DType t) {
  switch (t) {
    case DType::kF32: return 4;
    case DType::kF16: return 2;
    case DType::kI8:
    case DType::kU8:
    case DType::kBool: return 1;
    case DType::kI32: return 4;
    case DType::kI64: return 8;
    case DType::kOther: break;
  }
  return 0;
}

// A normal half's exponent and mantissa move into a float's fields, the
// exponent rebiased by 127 - 15; a subnormal is its mantissa times 2^-24 (a
// normal float, so no denormal arithmetic); inf and NaN keep their payload.
float f16_to_f32(uint16_t h) {
  const uint32_t exponent = h & 0x7c00u, mantissa = h & 0x3ffu;
  uint32_t bits = exponent == 0x7c00u ? 0x7f800000u | mantissa << 13
                                      : (static_cast<uint32_t>(h & 0x7fffu) << 13) + ((127u - 15u) << 23);
  float f = static_cast<float>(mantissa) * 0x1p-24f;
  if (exponent == 0) std::memcpy(&bits, &f, sizeof f);
  bits |= static_cast<uint32_t>(h & 0x8000u) << 16;  // the sign, without a branch (weights' signs are random)
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

namespace {

// The compiler's portable vectors of 4 and 8 lanes (SSE2, NEON; AVX2).
struct Lanes4 {
  using U16 = uint16_t __attribute__((vector_size(8)));
  using U32 = uint32_t __attribute__((vector_size(16)));
  using F32 = float __attribute__((vector_size(16)));
};
struct Lanes8 {
  using U16 = uint16_t __attribute__((vector_size(16)));
  using U32 = uint32_t __attribute__((vector_size(32)));
  using F32 = float __attribute__((vector_size(32)));
};

// f16_to_f32 on a vector of values at a time (V: Lanes4 or Lanes8); returns
// how many of the n it converted (a multiple of the lanes).
template <class V>
[[gnu::always_inline]] inline int64_t f16_to_f32_lanes(const uint16_t* in, int64_t n, float* out) {
  constexpr int kLanes = sizeof(typename V::U16) / sizeof(uint16_t);
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    typename V::U16 half;
    std::memcpy(&half, in + i, sizeof half);
    const typename V::U32 h = __builtin_convertvector(half, typename V::U32);
    const typename V::U32 exponent = h & 0x7c00u, mantissa = h & 0x3ffu;
    const typename V::U32 normal = ((h & 0x7fffu) << 13) + ((127u - 15u) << 23);
    const typename V::U32 special = 0x7f800000u | mantissa << 13;
    const typename V::F32 tiny = __builtin_convertvector(mantissa, typename V::F32) * 0x1p-24f;
    typename V::U32 subnormal;
    std::memcpy(&subnormal, &tiny, sizeof tiny);
    const typename V::U32 bits =
        (exponent == 0x7c00u ? special : exponent == 0u ? subnormal : normal) | (h & 0x8000u) << 16;
    std::memcpy(out + i, &bits, sizeof bits);
  }
  return i;
}

#if defined(__x86_64__) && defined(__GNUC__)
// The same in 8 lanes where the CPU has AVX2 (3x the 4-lane speed on Zen 4:
// the conversion is what a float16 model's init spends most on).
__attribute__((target("avx2"))) int64_t f16_to_f32_avx2(const uint16_t* in, int64_t n, float* out) {
  return f16_to_f32_lanes<Lanes8>(in, n, out);
}
#endif

int64_t f16_to_f32_blocks(const uint16_t* in, int64_t n, float* out) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (converts_with_avx2()) return f16_to_f32_avx2(in, n, out);
#endif
  return f16_to_f32_lanes<Lanes4>(in, n, out);
}

}  // namespace

bool converts_with_avx2() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
#else
  return false;
#endif
}

void f16_to_f32(const uint16_t* h, int64_t n, float* out) {
  for (int64_t i = f16_to_f32_blocks(h, n, out); i < n; ++i) out[i] = f16_to_f32(h[i]);
}

bool i8_blocks(const std::vector<int64_t>& shape, const Quantization& q, int64_t* inner, int64_t* count) {
  const size_t groups = q.scales.size();
  const bool per_axis = q.per_axis() && static_cast<size_t>(q.axis) < shape.size();
  if (groups == 0 || q.zero_points.size() != groups || (per_axis ? shape[q.axis] : 1) != static_cast<int64_t>(groups))
    return false;
  *count = 1;
  *inner = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    *count *= shape[d];
    if (per_axis && d > static_cast<size_t>(q.axis)) *inner *= shape[d];
  }
  if (!per_axis) *inner = *count;
  return true;
}

}  // namespace fd
