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

using U32x4 = uint32_t __attribute__((vector_size(16)));
using F32x4 = float __attribute__((vector_size(16)));

// f16_to_f32 on four values in the compiler's portable vectors (SSE2, NEON).
U32x4 f16_to_f32_bits4(U32x4 h) {
  const U32x4 exponent = h & 0x7c00u, mantissa = h & 0x3ffu;
  const U32x4 normal = ((h & 0x7fffu) << 13) + ((127u - 15u) << 23);
  const U32x4 special = 0x7f800000u | mantissa << 13;
  const F32x4 tiny = __builtin_convertvector(mantissa, F32x4) * 0x1p-24f;
  U32x4 subnormal;
  std::memcpy(&subnormal, &tiny, sizeof tiny);
  const U32x4 bits = exponent == 0x7c00u ? special : exponent == 0u ? subnormal : normal;
  return bits | (h & 0x8000u) << 16;
}

}  // namespace

void f16_to_f32(const uint16_t* h, int64_t n, float* out) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const U32x4 bits = f16_to_f32_bits4(U32x4{h[i], h[i + 1], h[i + 2], h[i + 3]});
    std::memcpy(out + i, &bits, sizeof bits);
  }
  for (; i < n; ++i) out[i] = f16_to_f32(h[i]);
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
