// The elementwise instruction set of the kernels: each entry names an op and
// its arity; its math lives in ew_math.h (struct <Name>Op), and each ISA
// instantiates every entry from that single definition. The graph's own
// elementwise ops (ir/op_types.h) lower onto the entries of the same name;
// Fma, Fms, Fnma, Swish and SqrtAsPow have no graph op: the program builder
// makes them from MUL+ADD/SUB, x * LOGISTIC(x) and POW(x, 0.5).
#pragma once

#include <cstdint>

namespace fd {

#define FD_EW_KERNEL_OPS(X)                                                       \
  X(Add, 2) X(Sub, 2) X(Mul, 2) X(Div, 2) X(Maximum, 2) X(Minimum, 2)             \
  X(SquaredDifference, 2) X(Pow, 2) X(Prelu, 2)                                   \
  X(Fma, 3) X(Fms, 3) X(Fnma, 3)                                                  \
  X(Relu, 1) X(Relu6, 1) X(ReluN1To1, 1) X(Relu0To1, 1) X(LeakyRelu, 1)           \
  X(Elu, 1) X(Logistic, 1) X(Tanh, 1) X(HardSwish, 1) X(Gelu, 1) X(GeluTanh, 1)   \
  X(Exp, 1) X(Log, 1) X(Sqrt, 1) X(Rsqrt, 1) X(Square, 1) X(Neg, 1) X(Abs, 1)     \
  X(Swish, 1) X(Softplus, 1) X(LogisticAsBuiltin, 1) X(GeluAsBuiltin, 1) X(SwishAsBuiltin, 1) \
  X(SqrtAsPow, 1) X(Quantize, 1)

enum class EwKernelOp : uint8_t {
#define FD_ENUM(name, arity) name,
  FD_EW_KERNEL_OPS(FD_ENUM)
#undef FD_ENUM
  kCount
};
constexpr int kEwKernelOpCount = static_cast<int>(EwKernelOp::kCount);

inline int kernel_arity(EwKernelOp op) {
  static const uint8_t arity[] = {
#define FD_ARITY(name, a) a,
      FD_EW_KERNEL_OPS(FD_ARITY)
#undef FD_ARITY
  };
  return arity[static_cast<int>(op)];
}

inline const char* kernel_op_name(EwKernelOp op) {
  static const char* const names[] = {
#define FD_NAME(name, a) #name,
      FD_EW_KERNEL_OPS(FD_NAME)
#undef FD_NAME
  };
  return names[static_cast<int>(op)];
}

}  // namespace fd
