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

float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  uint32_t bits;
  if (exponent == 0x1f) {  // inf, NaN (payload kept)
    bits = sign | 0x7f800000u | mantissa << 13;
  } else if (exponent != 0) {
    bits = sign | (exponent - 15 + 127) << 23 | mantissa << 13;
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal: shift the leading 1 into the implicit bit
    int shift = 0;
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      ++shift;
    }
    bits = sign | static_cast<uint32_t>(127 - 15 + 1 - shift) << 23 | (mantissa & 0x3ffu) << 13;
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

std::vector<float> dequantize_i8(const int8_t* values, const std::vector<int64_t>& shape, const Quantization& q) {
  const size_t groups = q.scales.size();
  const bool per_axis = q.per_axis() && static_cast<size_t>(q.axis) < shape.size();
  if (groups == 0 || q.zero_points.size() != groups || (per_axis ? shape[q.axis] : 1) != static_cast<int64_t>(groups))
    return {};
  // Blocks of `inner` elements (those after the quantized axis) take scale and
  // zero point c in turn.
  int64_t count = 1, inner = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    count *= shape[d];
    if (per_axis && d > static_cast<size_t>(q.axis)) inner *= shape[d];
  }
  if (!per_axis) inner = count;
  std::vector<float> out(count);
  for (int64_t i = 0, c = 0; i < count; i += inner, c = (c + 1) % static_cast<int64_t>(groups)) {
    const float scale = q.scales[c], zero = static_cast<float>(q.zero_points[c]);
    for (int64_t j = i; j < i + inner; ++j) out[j] = (static_cast<float>(values[j]) - zero) * scale;
  }
  return out;
}

}  // namespace fd
