// The int8 elementwise ops as TFLite's builtin int8 kernels compute them, one
// value at a time: each op's arithmetic is here and nowhere else. An op is
// prepared once for its tensors' quantization (q8_prepare: TFLite's Prepare),
// then maps int8 inputs to an int8 output (q8_eval: its Eval). Table building
// (the runtime composes chains into 256-entry tables) and the run-time loops
// of two-input ops both call these.
#pragma once

#include <cstdint>

#include "kernels/q8_fixed_point.h"
#include "kernels/q8_linear.h"

namespace fd {

#define FD_Q8_OPS(X)                                                             \
  X(Add, 2) X(Sub, 2) X(Mul, 2) X(Maximum, 2) X(Minimum, 2) X(Prelu, 2)          \
  X(SquaredDifference, 2)                                                        \
  X(Relu, 1) X(Relu6, 1) X(ReluN1To1, 1) X(Relu0To1, 1) X(LeakyRelu, 1)          \
  X(Logistic, 1) X(Tanh, 1) X(Elu, 1) X(Gelu, 1) X(GeluTanh, 1) X(Exp, 1)        \
  X(Log, 1) X(HardSwish, 1) X(Abs, 1) X(Quantize, 1)

enum class Q8Op : uint8_t {
#define FD_ENUM(name, arity) name,
  FD_Q8_OPS(FD_ENUM)
#undef FD_ENUM
  kCount
};

const char* q8_op_name(Q8Op op);

// The ops of two inputs written over lanes (kernels/q8_binary.h).
constexpr bool q8_lane_op(Q8Op op) {
  return op == Q8Op::Add || op == Q8Op::Sub || op == Q8Op::Mul || op == Q8Op::Maximum || op == Q8Op::Minimum ||
         op == Q8Op::SquaredDifference;
}

constexpr int q8_arity(Q8Op op) {
  constexpr int arity[] = {
#define FD_ARITY(name, a) a,
      FD_Q8_OPS(FD_ARITY)
#undef FD_ARITY
  };
  return arity[static_cast<int>(op)];
}

// A tensor's affine quantization: real = scale * (q - zero_point).
struct Q8Quant {
  float scale = 1.f;
  int32_t zero_point = 0;
};

// A fused activation of ADD, SUB and MUL, as TFLite's enum.
enum class Q8Activation : uint8_t { kNone, kRelu, kReluN1To1, kRelu6 };

// One op prepared for its tensors: the integers its Eval reads.
struct Q8Prepared {
  Q8Op op = Q8Op::kCount;
  int32_t in_zp[2] = {0, 0};
  int32_t out_zp = 0;
  int32_t lo = -128, hi = 127;  // the output clamp
  Q8Multiplier m[3];            // per op: see q8_prepare
  int left_shift = 0;           // ADD, SUB, SQUARED_DIFFERENCE
  Q8Linear linear;              // ADD, SUB: their linear form where it decides (kernels/q8_linear.h)
  int16_t m16[2] = {0, 0};      // HARD_SWISH: its int16 multipliers
  int exponent[2] = {0, 0};     // ... and their exponents
  int8_t table[256] = {};       // the ops TFLite tabulates (LOGISTIC, TANH, ...): its table, by value + 128
};

// TFLite's CalculateActivationRangeQuantized: the clamp of a fused activation on an int8 output.
void q8_activation_range(Q8Activation act, Q8Quant out, int32_t* lo, int32_t* hi);

// Prepares `op` for inputs `in` (arity of them), output `out`, fused
// activation `act` (ADD, SUB, MUL) and scalar `param` (LEAKY_RELU's alpha).
Q8Prepared q8_prepare(Q8Op op, const Q8Quant* in, Q8Quant out, Q8Activation act, float param);

// The op's output for inputs a (and b). TFLite's x86 and ARM builds run ADD
// and QUANTIZE (int8 to int8) in NEON loops over whole blocks of 16 values,
// which round differently from their scalar code (the block's last values):
// `blocked` gives the value such a loop computes (q8_has_blocked_form).
int8_t q8_eval(const Q8Prepared& p, int8_t a, int8_t b, bool blocked = false);
// The same for n values: y[i] = q8_eval(p, a[i], b[i], i < blocked) (b null: a one-input op).
void q8_eval_n(const Q8Prepared& p, const int8_t* a, const int8_t* b, int8_t* y, int64_t n, int64_t blocked);
// Whether the op rounds differently in those blocks (ADD, QUANTIZE).
inline bool q8_has_blocked_form(Q8Op op) { return op == Q8Op::Add || op == Q8Op::Quantize; }
// Values of a tensor of n values that TFLite computes in blocks of 16 (the
// rest by its scalar code).
inline int64_t q8_blocked_values(int64_t n) { return n - n % 16; }

}  // namespace fd
