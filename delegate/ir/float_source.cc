#include "ir/float_source.h"

#include <algorithm>
#include <mutex>

namespace fd {
namespace {

// n int8 values sharing one scale and zero point, as float32.
[[gnu::always_inline]] inline void dequantize_run(const int8_t* q, int64_t n, float zero, float scale, float* out) {
  for (int64_t j = 0; j < n; ++j) out[j] = dequantize_i8(q[j], zero, scale);
}

#if defined(__x86_64__) && defined(__GNUC__)
// The same loop vectorised 8 lanes wide where the CPU has AVX2.
__attribute__((target("avx2"))) void dequantize_run_avx2(const int8_t* q, int64_t n, float zero, float scale,
                                                         float* out) {
  dequantize_run(q, n, zero, scale, out);
}
#endif

void dequantize_run_best(const int8_t* q, int64_t n, float zero, float scale, float* out) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (converts_with_avx2()) return dequantize_run_avx2(q, n, zero, scale, out);
#endif
  dequantize_run(q, n, zero, scale, out);
}

}  // namespace

Float32Source Float32Source::from_f16(ConstantData bits, int64_t count) {
  Float32Source s;
  s.stored_ = std::move(bits);
  s.stored_as_ = DType::kF16;
  s.count_ = count;
  return s;
}

bool Float32Source::from_i8(ConstantData values, const std::vector<int64_t>& shape, const Quantization& q,
                            Float32Source* out) {
  int64_t inner = 1, count = 0;
  if (!i8_blocks(shape, q, &inner, &count)) return false;
  Float32Source& s = *out;
  s.stored_ = std::move(values);
  s.stored_as_ = DType::kI8;
  s.count_ = count;
  s.inner_ = std::max<int64_t>(inner, 1);
  s.scales_ = q.scales;
  s.zero_points_.assign(q.zero_points.begin(), q.zero_points.end());
  return true;
}

void Float32Source::convert(int64_t first, int64_t n, float* out) const {
  if (stored_as_ == DType::kF16) {
    f16_to_f32(static_cast<const uint16_t*>(stored_.bytes()) + first, n, out);
    return;
  }
  const auto* q = static_cast<const int8_t*>(stored_.bytes());
  const int64_t groups = static_cast<int64_t>(scales_.size());
  if (inner_ == 1) {  // the quantized axis is the last (a depthwise filter's): the scales cycle
    for (int64_t j = first, c = first % groups; j < first + n; ++j, c = c + 1 == groups ? 0 : c + 1)
      *out++ = dequantize_i8(q[j], zero_points_[c], scales_[c]);
    return;
  }
  for (int64_t j = first, end = first + n; j < end;) {  // a run of values sharing one scale at a time
    const int64_t block = j / inner_, block_end = std::min(end, (block + 1) * inner_);
    dequantize_run_best(q + j, block_end - j, zero_points_[block % groups], scales_[block % groups], out);
    out += block_end - j;
    j = block_end;
  }
}

const float* float32_span(const float* values, const Float32Source* source, int64_t first, int64_t n,
                          std::vector<float>* scratch) {
  if (!source) return values + first;
  scratch->resize(std::max<size_t>(scratch->size(), n));
  source->convert(first, n, scratch->data());
  return scratch->data();
}

std::vector<float> dequantize_i8(const int8_t* values, const std::vector<int64_t>& shape, const Quantization& q) {
  Float32Source s;
  if (!Float32Source::from_i8(ConstantData::borrow(values, 0), shape, q, &s)) return {};
  std::vector<float> out(s.count());
  s.convert(0, s.count(), out.data());
  return out;
}

// The shared state of a converted constant's copies: its source, and its
// float32 values once computed.
struct ConstantData::Converted {
  Float32Source source;
  std::once_flag once;
  std::vector<float> values;
};

ConstantData ConstantData::converted(Float32Source source) {
  ConstantData d;
  d.size_ = static_cast<size_t>(source.count()) * sizeof(float);
  d.converted_ = std::make_shared<Converted>();
  d.converted_->source = std::move(source);
  return d;
}

const void* ConstantData::converted_values() const {
  Converted& c = *converted_;
  std::call_once(c.once, [&c] {
    c.values.resize(c.source.count());
    c.source.convert(0, c.source.count(), c.values.data());
  });
  return c.values.data();
}

const Float32Source* ConstantData::float32_source() const { return converted_ ? &converted_->source : nullptr; }

}  // namespace fd
