// A tensor's value type: element type, quantization, and constant storage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace fd {

// Element types the IR tells apart; kOther is every type a front end has that
// is not listed (string, complex, int16, ...).
enum class DType : uint8_t { kF32, kF16, kI8, kU8, kI32, kI64, kBool, kOther };

// "float32", "float16", "int8", "uint8", "int32", "int64", "bool", "other".
const char* dtype_name(DType t);
// Bytes per element; 0 for kOther.
size_t dtype_size(DType t);

// An IEEE half-precision value (its bits) as the float it stands for, exactly.
float f16_to_f32(uint16_t bits);
// The same for n values.
void f16_to_f32(const uint16_t* bits, int64_t n, float* out);
// Whether the bulk conversions (float16, int8) run 8 lanes wide (x86 with AVX2;
// the same bits either way).
bool converts_with_avx2();

// Affine quantization: real = scale * (q - zero_point). One scale and zero
// point per tensor (axis -1), or one per index of `axis`. Empty: none.
struct Quantization {
  std::vector<float> scales;
  std::vector<int64_t> zero_points;
  int axis = -1;
  bool empty() const { return scales.empty(); }
  bool per_axis() const { return axis >= 0; }
  bool operator==(const Quantization& o) const {
    return scales == o.scales && zero_points == o.zero_points && axis == o.axis;
  }
};

// One int8 value as float32: (value - zero point) * scale.
inline float dequantize_i8(int8_t value, float zero_point, float scale) {
  return (static_cast<float>(value) - zero_point) * scale;
}
// The float32 values of an int8 tensor of `shape` quantized by `q`: the above,
// per tensor or per index of q.axis. Empty if q does not fit the shape (no
// scales, or not one per index of its axis).
std::vector<float> dequantize_i8(const int8_t* values, const std::vector<int64_t>& shape, const Quantization& q);
// Whether q fits `shape` as above; then *inner: the values after the quantized
// axis (all values for one scale), and *count: all values.
bool i8_blocks(const std::vector<int64_t>& shape, const Quantization& q, int64_t* inner, int64_t* count);

class Float32Source;

// A constant's bytes: borrowed (memory someone else keeps alive as long as the
// graph is used, e.g. the model), owned (a buffer every copy of the tensor
// shares, freed with the last one), or converted (float32 values computed from
// a float16 or int8 source when first asked for). Empty for a run-time tensor.
class ConstantData {
 public:
  ConstantData() = default;
  static ConstantData borrow(const void* bytes, size_t size) { return ConstantData(bytes, size, nullptr); }
  // Takes `values` over; the pointer stays valid as long as a copy lives.
  template <class T>
  static ConstantData own(std::vector<T> values) {
    auto keep = std::make_shared<const std::vector<T>>(std::move(values));
    return ConstantData(keep->data(), keep->size() * sizeof(T), keep);
  }

  // Owns a copy of `size` bytes, aligned for any element type.
  static ConstantData copy_of(const void* bytes, size_t size) {
    std::vector<uint64_t> words(size / sizeof(uint64_t) + 1);
    if (size) std::memcpy(words.data(), bytes, size);
    auto keep = std::make_shared<const std::vector<uint64_t>>(std::move(words));
    return ConstantData(keep->data(), size, keep);
  }

  // Float32 values that `source` gives; bytes() computes them once (for every copy).
  static ConstantData converted(Float32Source source);

  const void* bytes() const { return converted_ ? converted_values() : bytes_; }
  size_t size() const { return size_; }  // in bytes
  bool empty() const { return bytes_ == nullptr && !converted_; }
  bool is_owned() const { return keep_ != nullptr || converted_ != nullptr; }
  // A converted constant's source (packing reads it, not bytes()); null for others.
  const Float32Source* float32_source() const;

 private:
  ConstantData(const void* bytes, size_t size, std::shared_ptr<const void> keep)
      : bytes_(bytes), size_(size), keep_(std::move(keep)) {}
  struct Converted;
  const void* converted_values() const;
  const void* bytes_ = nullptr;
  size_t size_ = 0;
  std::shared_ptr<const void> keep_;  // set when owned
  std::shared_ptr<Converted> converted_;  // set when converted
};

}  // namespace fd
