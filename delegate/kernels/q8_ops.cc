// Each int8 op's Prepare and Eval, following TFLite's int8 kernels
// (tensorflow/lite/kernels: add.cc, sub.cc, mul.cc, activations.cc,
// quantize.cc, maximum_minimum.cc and internal/reference/*).
#include "kernels/q8_ops.h"

#include <algorithm>
#include <cmath>

#include "kernels/q8_binary.h"

namespace fd {

void q8_activation_range(Q8Activation act, Q8Quant out, int32_t* lo, int32_t* hi) {
  auto quantize = [&](float f) { return out.zero_point + static_cast<int32_t>(q8_round(f / out.scale)); };
  *lo = -128;
  *hi = 127;
  if (act == Q8Activation::kRelu) *lo = std::max(*lo, quantize(0.f));
  if (act == Q8Activation::kRelu6) {
    *lo = std::max(*lo, quantize(0.f));
    *hi = std::min(*hi, quantize(6.f));
  }
  if (act == Q8Activation::kReluN1To1) {
    *lo = std::max(*lo, quantize(-1.f));
    *hi = std::min(*hi, quantize(1.f));
  }
}

namespace {

// ADD and SUB: both inputs rescaled to twice the larger input scale over 2^20.
void prepare_add(const Q8Quant* in, Q8Quant out, Q8Prepared* p) {
  p->left_shift = 20;
  const double twice_max = 2.0 * std::max(static_cast<double>(in[0].scale), static_cast<double>(in[1].scale));
  p->m[0] = q8_multiplier(in[0].scale / twice_max);
  p->m[1] = q8_multiplier(in[1].scale / twice_max);
  p->m[2] = q8_multiplier(twice_max / ((1 << p->left_shift) * static_cast<double>(out.scale)));
}

// SQUARED_DIFFERENCE: both inputs rescaled to twice the larger input scale
// over 2^7, the square by its square over 2^14 (squared_difference.cc).
void prepare_squared_difference(const Q8Quant* in, Q8Quant out, Q8Prepared* p) {
  p->left_shift = 7;
  const double twice_max = 2 * std::max(in[0].scale, in[1].scale);
  p->m[0] = q8_multiplier(in[0].scale / twice_max);
  p->m[1] = q8_multiplier(in[1].scale / twice_max);
  p->m[2] = q8_multiplier(twice_max * twice_max / ((1 << 14) * static_cast<double>(out.scale)));
}

// QUANTIZE (int8 to int8) in TFLite's NEON loop: the last shift rounds ties up.
int32_t eval_requantize_blocked(const Q8Prepared& p, int32_t a) {
  const Q8Multiplier m = p.m[0];
  const int left = m.shift > 0 ? m.shift : 0, right = m.shift > 0 ? 0 : -m.shift;
  const int32_t high = q8_rounding_doubling_high_mul(static_cast<int32_t>(static_cast<uint32_t>(a - p.in_zp[0]) << left),
                                                     m.multiplier);
  const int32_t rounded = right > 0 ? static_cast<int32_t>((static_cast<int64_t>(high) + (int64_t{1} << (right - 1))) >> right) : high;
  return rounded + p.out_zp;
}

// ReluX: requantized to the output, then clamped to the activation's range.
void prepare_relu(Q8Quant in, Q8Quant out, float act_min, float act_max, Q8Prepared* p) {
  p->m[0] = q8_multiplier(in.scale / out.scale);  // the ratio in float, as TFLite
  p->lo = std::max(-128, out.zero_point + static_cast<int32_t>(std::round(act_min / out.scale)));
  p->hi = std::isinf(act_max) ? 127 : std::min(127, out.zero_point + static_cast<int32_t>(std::round(act_max / out.scale)));
}

// The float function TFLite tabulates for op (its LUTPopulate transforms),
// each a float libm call as there; LOG's floor: the output's lowest value.
float tabulated(Q8Op op, float v, float log_floor) {
  constexpr float kSqrt2dPi = static_cast<float>(M_2_SQRTPI * M_SQRT1_2);
  switch (op) {
    case Q8Op::Logistic: return 1.f / (1.f + std::exp(-v));
    case Q8Op::Tanh: return std::tanh(v);
    case Q8Op::Elu: return v < 0.f ? std::expm1(v) : v;
    case Q8Op::Exp: return std::exp(v);
    case Q8Op::Log: return v <= 0.f ? log_floor : std::log(v);
    case Q8Op::Gelu: return (0.5f * v) * std::erfc(v * static_cast<float>(-M_SQRT1_2));
    case Q8Op::GeluTanh: return (0.5f * v) * (1.f + std::tanh(kSqrt2dPi * (v + ((0.044715f * v) * v) * v)));
    default: return v;
  }
}

// TFLite's table of a tabulated op, from the float function of each input.
void prepare_table(Q8Op op, Q8Quant in, Q8Quant out, Q8Prepared* p) {
  const float inverse_scale = 1.f / out.scale;
  const float log_floor = static_cast<float>(-128 - out.zero_point) * out.scale;
  for (int32_t v = -128; v <= 127; ++v) {
    const float dequantized = in.scale * static_cast<float>(v - in.zero_point);
    const float rescaled = q8_round(tabulated(op, dequantized, log_floor) * inverse_scale);
    const int32_t q = static_cast<int32_t>(rescaled + static_cast<float>(out.zero_point));
    p->table[v + 128] = static_cast<int8_t>(q8_clamp(q, -128, 127));
  }
}

// HARD_SWISH in 16-bit fixed point (TFLite's reference_ops::HardSwish).
int16_t rounding_doubling_high_mul_16(int16_t a, int16_t b) {
  if (a == b && a == INT16_MIN) return INT16_MAX;
  const int32_t ab = static_cast<int32_t>(a) * b;
  return static_cast<int16_t>((ab + (ab >= 0 ? (1 << 14) : (1 - (1 << 14)))) / (1 << 15));
}
int16_t doubling_high_mul_16(int16_t a, int16_t b) {  // truncating (SQDMULH)
  if (a == b && a == INT16_MIN) return INT16_MAX;
  return static_cast<int16_t>(static_cast<int32_t>(a) * b / (1 << 15));
}
int16_t saturating_left_shift_16(int16_t x, int amount) {
  const int64_t r = static_cast<int64_t>(x) * (int64_t{1} << amount);
  return static_cast<int16_t>(std::min<int64_t>(INT16_MAX, std::max<int64_t>(INT16_MIN, r)));
}
// gemmlowp's RoundingDivideByPOT on int16: its mask is (1 << e) - 1 cut to 16
// bits, so past e = 15 it is -1 and the result is not x / 2^e (TFLite gets it so).
int16_t rounding_divide_by_pot_16(int16_t x, int e) {
  const int16_t mask = static_cast<int16_t>((int64_t{1} << e) - 1);
  const int16_t remainder = static_cast<int16_t>(x & mask);
  const int16_t threshold = static_cast<int16_t>((mask >> 1) + (x < 0 ? 1 : 0));
  return static_cast<int16_t>((x >> e) + (remainder > threshold ? 1 : 0));
}
// A Q31 multiplier rounded to Q15 (TFLite's DownScaleInt32ToInt16Multiplier).
int16_t to_q15(int32_t m) {
  if (m >= INT32_MAX - (1 << 15)) return INT16_MAX;
  return static_cast<int16_t>((m + (1 << 15)) >> 16);
}

void prepare_hard_swish(Q8Quant in, Q8Quant out, Q8Prepared* p) {
  const float hires_input_scale = (1.0f / 128.0f) * in.scale;  // float throughout, as TFLite
  const Q8Multiplier output = q8_multiplier(hires_input_scale / out.scale);
  const Q8Multiplier reluish = q8_multiplier(hires_input_scale / (3.0f / 32768.0f));
  p->m16[0] = to_q15(output.multiplier);
  p->exponent[0] = output.shift;
  p->m16[1] = to_q15(reluish.multiplier);
  p->exponent[1] = reluish.shift;
}

int32_t eval_hard_swish(const Q8Prepared& p, int32_t a) {
  const int16_t hires = static_cast<int16_t>((a - p.in_zp[0]) * (1 << 7));
  const int16_t preshift_output = rounding_doubling_high_mul_16(hires, p.m16[0]);
  const int e = p.exponent[1];
  int16_t reluish = hires;
  if (e > 0) reluish = saturating_left_shift_16(reluish, e - 1);
  reluish = rounding_doubling_high_mul_16(reluish, p.m16[1]);
  if (e > 0) reluish = saturating_left_shift_16(reluish, 1);
  if (e < 0) reluish = rounding_divide_by_pot_16(reluish, -e);
  reluish = static_cast<int16_t>((reluish + (1 << 15)) >> 1);
  const int16_t output = doubling_high_mul_16(reluish, preshift_output);
  return static_cast<int16_t>(rounding_divide_by_pot_16(output, -p.exponent[0]) + p.out_zp);  // in int16
}

// The ops of one input that requantize: TFLite's Prepare of each.
void prepare_unary(Q8Op op, Q8Quant in, Q8Quant out, float param, Q8Prepared* p) {
  switch (op) {
    case Q8Op::Relu: return prepare_relu(in, out, 0.f, INFINITY, p);
    case Q8Op::Relu6: return prepare_relu(in, out, 0.f, 6.f, p);
    case Q8Op::ReluN1To1: return prepare_relu(in, out, -1.f, 1.f, p);
    case Q8Op::Relu0To1: return prepare_relu(in, out, 0.f, 1.f, p);
    case Q8Op::LeakyRelu:
      p->m[0] = q8_multiplier(in.scale * param / out.scale);  // in float, as TFLite
      p->m[1] = q8_multiplier(in.scale / out.scale);
      return;
    case Q8Op::Abs:  // rescaled only where the scales differ
      if (in.scale != out.scale) p->m[0] = q8_multiplier(in.scale / out.scale);
      return;
    case Q8Op::Quantize: p->m[0] = q8_multiplier(static_cast<double>(in.scale) / static_cast<double>(out.scale)); return;
    case Q8Op::HardSwish: return prepare_hard_swish(in, out, p);
    default: return prepare_table(op, in, out, p);
  }
}

}  // namespace

const char* q8_op_name(Q8Op op) {
  static const char* const names[] = {
#define FD_NAME(name, a) #name,
      FD_Q8_OPS(FD_NAME)
#undef FD_NAME
  };
  return op < Q8Op::kCount ? names[static_cast<int>(op)] : "?";
}

Q8Prepared q8_prepare(Q8Op op, const Q8Quant* in, Q8Quant out, Q8Activation act, float param) {
  Q8Prepared p;
  p.op = op;
  p.in_zp[0] = in[0].zero_point;
  p.out_zp = out.zero_point;
  switch (op) {
    case Q8Op::Add: case Q8Op::Sub:
      p.in_zp[1] = in[1].zero_point;
      prepare_add(in, out, &p);
      p.linear = q8_linear_form(op == Q8Op::Sub, p.in_zp, p.out_zp, p.m, p.left_shift);
      q8_activation_range(act, out, &p.lo, &p.hi);
      break;
    case Q8Op::SquaredDifference:  // no activation: the int8 range
      p.in_zp[1] = in[1].zero_point;
      prepare_squared_difference(in, out, &p);
      break;
    case Q8Op::Mul:
      p.in_zp[1] = in[1].zero_point;
      p.m[0] = q8_multiplier(in[0].scale * in[1].scale / out.scale);  // in float, as TFLite
      q8_activation_range(act, out, &p.lo, &p.hi);
      break;
    case Q8Op::Prelu:  // alpha: the second input
      p.in_zp[1] = in[1].zero_point;
      p.m[0] = q8_multiplier(in[0].scale / out.scale);  // in float, as TFLite
      p.m[1] = q8_multiplier(in[0].scale * in[1].scale / out.scale);
      break;
    default: prepare_unary(op, in[0], out, param, &p);
  }
  return p;
}

namespace {

// Op OP's output for inputs a (and b), clamped: its Eval, one value (the
// two-input ops' arithmetic: kernels/q8_binary.h).
template <Q8Op OP>
inline int8_t eval(const Q8Prepared& p, int32_t a, int32_t b, bool blocked) {
  if constexpr (q8_lane_op(OP)) return static_cast<int8_t>(q8_binary_lanes<OP>(p, I32x1{a}, I32x1{b}, blocked).v);
  int32_t y = 0;
  const int32_t x = a - p.in_zp[0];
  if constexpr (OP == Q8Op::Relu || OP == Q8Op::Relu6 || OP == Q8Op::ReluN1To1 || OP == Q8Op::Relu0To1)
    y = q8_multiply(x, p.m[0]) + p.out_zp;
  if constexpr (OP == Q8Op::Prelu) y = (x >= 0 ? q8_multiply(x, p.m[0]) : q8_multiply(x * (b - p.in_zp[1]), p.m[1])) + p.out_zp;
  if constexpr (OP == Q8Op::Abs) y = (p.m[0].multiplier ? q8_multiply(x < 0 ? -x : x, p.m[0]) : (x < 0 ? -x : x)) + p.out_zp;
  if constexpr (OP == Q8Op::Quantize)
    y = blocked ? eval_requantize_blocked(p, a) : q8_multiply(a - p.in_zp[0], p.m[0]) + p.out_zp;
  if constexpr (OP == Q8Op::LeakyRelu) y = q8_multiply(x, x >= 0 ? p.m[1] : p.m[0]) + p.out_zp;
  if constexpr (OP == Q8Op::Logistic || OP == Q8Op::Tanh || OP == Q8Op::Elu || OP == Q8Op::Gelu ||
                OP == Q8Op::GeluTanh || OP == Q8Op::Exp || OP == Q8Op::Log)
    y = p.table[a + 128];
  if constexpr (OP == Q8Op::HardSwish) y = eval_hard_swish(p, a);
  return static_cast<int8_t>(q8_clamp(y, p.lo, p.hi));
}

template <Q8Op OP>
void eval_n(const Q8Prepared& p, const int8_t* a, const int8_t* b, int8_t* y, int64_t n, int64_t blocked) {
  for (int64_t i = 0; i < n; ++i) y[i] = eval<OP>(p, a[i], b ? b[i] : 0, i < blocked);
}

}  // namespace

int8_t q8_eval(const Q8Prepared& p, int8_t a, int8_t b, bool blocked) {
  switch (p.op) {
#define FD_EVAL(name, arity) \
  case Q8Op::name: return eval<Q8Op::name>(p, a, b, blocked);
    FD_Q8_OPS(FD_EVAL)
#undef FD_EVAL
    default: return 0;
  }
}

void q8_eval_n(const Q8Prepared& p, const int8_t* a, const int8_t* b, int8_t* y, int64_t n, int64_t blocked) {
  switch (p.op) {
#define FD_EVAL_N(name, arity) \
  case Q8Op::name: return eval_n<Q8Op::name>(p, a, b, y, n, blocked);
    FD_Q8_OPS(FD_EVAL_N)
#undef FD_EVAL_N
    default: return;
  }
}

}  // namespace fd
