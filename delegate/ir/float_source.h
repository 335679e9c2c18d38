// A constant stored as float16 or int8 whose float32 values are computed where
// they are read: packing converts it on the way into its panels (no float32 copy
// of the whole tensor), anything else asks ConstantData for the values once.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/dtype.h"

namespace fd {

class Float32Source {
 public:
  // A float16 tensor of `count` values (the bits in `bits`).
  static Float32Source from_f16(ConstantData bits, int64_t count);
  // An int8 tensor of `shape` quantized by q (dequantize_i8's values); false if q
  // does not fit the shape.
  static bool from_i8(ConstantData values, const std::vector<int64_t>& shape, const Quantization& q,
                      Float32Source* out);

  int64_t count() const { return count_; }
  DType stored_as() const { return stored_as_; }
  // kI8: the stored int8 values (else null).
  const int8_t* i8_values() const {
    return stored_as_ == DType::kI8 ? static_cast<const int8_t*>(stored_.bytes()) : nullptr;
  }
  // Values [first, first + n) as float32, the same floats the runtime's DEQUANTIZE writes.
  void convert(int64_t first, int64_t n, float* out) const;

 private:
  ConstantData stored_;
  DType stored_as_ = DType::kF16;
  int64_t count_ = 0;
  // kI8: value j takes scale and zero point (j / inner_) % scales_.size().
  std::vector<float> scales_;
  std::vector<float> zero_points_;
  int64_t inner_ = 1;
};

// The float32 values [first, first + n) of a tensor read as `values` (float32) or
// through `source`: a pointer into the floats, or into *scratch after converting.
const float* float32_span(const float* values, const Float32Source* source, int64_t first, int64_t n,
                          std::vector<float>* scratch);

}  // namespace fd
