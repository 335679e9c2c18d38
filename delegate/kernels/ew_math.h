// The math of every elementwise op, written once over the vector API shared by
// vec_scalar.h / vec_avx2.h / vec_avx512.h / vec_neon.h. Each ISA's table
// instantiates these; the scalar instantiation is the reference.
//
// Approximated functions (measured bounds are pinned in tests/cpp):
//   exp      range reduction + degree-7 polynomial, about 2 ulp
//   log      mantissa/exponent split + atanh series, about 2 ulp
//   tanh     odd series for |x| <= 0.5, else 1 - 2/(exp(2|x|)+1)
//   logistic 1/(1+exp(-x))
//   expm1    series for |x| < 0.35, else exp(x)-1 (used by ELU)
//   gelu     0.5 x erfc(-x/sqrt2), erfc(z) = t exp(P(t) - z^2), t = 1/(1+z/2)
//   pow      exp(y*log|x|) with sign rules; relative ~(3 + |y ln x|) ulp
#pragma once

#include <cmath>

namespace fd::simd {

template <class V> inline V poly(V x, const float* c, int n) {  // c[0] + c[1] x + ...
  V p = V::splat(c[n - 1]);
  for (int i = n - 2; i >= 0; --i) p = fma(p, x, V::splat(c[i]));
  return p;
}

// Clamp that keeps NaN (max/min return their second operand on NaN).
template <class V> inline V clamp(V x, float lo, float hi) {
  return min(V::splat(hi), max(V::splat(lo), x));
}

template <class V> inline V exp_(V x) {
  static const float c[] = {1.f, 1.f, 1.f / 2, 1.f / 6, 1.f / 24, 1.f / 120, 1.f / 720, 1.f / 5040};
  x = clamp(x, -104.f, 88.8f);
  const V n = round(x * V::splat(1.44269504f));
  V r = fma(-n, V::splat(0.693145752f), x);  // ln2 split in two: the first part exact
  r = fma(-n, V::splat(1.42860677e-6f), r);
  const V p = poly(r, c, 8);
  const V n1 = floor(n * V::splat(0.5f));  // 2^n in two factors keeps each in range
  return p * pow2i(n1) * pow2i(n - n1);
}

template <class V> inline V log_(V x) {
  const V tiny = V::splat(1.17549435e-38f);
  const auto denormal = x < tiny;
  const V xs = select(denormal, x * V::splat(8388608.f), x);  // * 2^23
  V e = exponent(xs) - select(denormal, V::splat(23.f), V::splat(0.f));
  V m = mantissa(xs);
  const auto big = m > V::splat(1.41421356f);
  m = select(big, m * V::splat(0.5f), m);
  e = select(big, e + V::splat(1.f), e);
  const V f = m - V::splat(1.f);
  const V s = f / (f + V::splat(2.f));
  static const float c[] = {1.f, 1.f / 3, 1.f / 5, 1.f / 7, 1.f / 9};
  const V log_m = V::splat(2.f) * s * poly(s * s, c, 5);
  const V r = fma(e, V::splat(0.693145752f), fma(e, V::splat(1.42860677e-6f), log_m));
  const V inf = V::splat(INFINITY);
  const auto normal = (x > V::splat(0.f)) & (x < inf);
  const V special = select(x == V::splat(0.f), -inf, select(x < V::splat(0.f), V::splat(NAN), x));
  return select(normal, r, special);
}

template <class V> inline V expm1_(V x) {
  static const float c[] = {1.f, 1.f / 2, 1.f / 6, 1.f / 24, 1.f / 120, 1.f / 720, 1.f / 5040, 1.f / 40320};
  const V series = x * poly(x, c, 8);
  return select(abs(x) < V::splat(0.35f), series, exp_(x) - V::splat(1.f));
}

template <class V> inline V tanh_(V x) {
  static const float c[] = {1.f, -1.f / 3, 2.f / 15, -17.f / 315, 62.f / 2835, -1382.f / 155925,
                            21844.f / 6081075, -929569.f / 638512875};
  const V a = abs(x);
  const V series = x * poly(x * x, c, 8);
  const V t = V::splat(1.f) - V::splat(2.f) / (exp_(a + a) + V::splat(1.f));
  return select(a <= V::splat(0.5f), series, select(x < V::splat(0.f), -t, t));
}

template <class V> inline V logistic_(V x) { return V::splat(1.f) / (V::splat(1.f) + exp_(-x)); }

// 0.5 x erfc(-x / sqrt 2), with erfc(z) = t exp(P(t) - z^2), t = 1/(1 + |z|/2)
// for z >= 0 and erfc(-z) = 2 - erfc(z). z^2 = x^2/2 is taken exactly (x*x and
// its fma remainder) so the large exponent does not amplify rounding.
template <class V> inline V gelu_(V x) {
  static const float c[] = {-1.26551223f, 1.00002368f, 0.37409196f,  0.09678418f, -0.18628806f,
                            0.27886807f,  -1.13520398f, 1.48851587f, -0.82215223f, 0.17087277f};
  const V z = abs(x) * V::splat(0.70710678f);
  const V t = V::splat(1.f) / fma(z, V::splat(0.5f), V::splat(1.f));
  const V xx = x * x;
  const V xx_lo = fma(x, x, -xx);
  const V e = t * exp_(fma(xx_lo, V::splat(-0.5f), poly(t, c, 10)) - xx * V::splat(0.5f));
  const V erfc = select(x > V::splat(0.f), V::splat(2.f) - e, e);
  return V::splat(0.5f) * x * erfc;
}

template <class V> inline V gelu_tanh_(V x) {  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  const V inner = V::splat(0.797884561f) * (x + V::splat(0.044715f) * x * x * x);
  return V::splat(0.5f) * x * (V::splat(1.f) + tanh_(inner));
}

template <class V> inline V pow_(V x, V y) {
  const V zero = V::splat(0.f);
  const V r = exp_(y * log_(abs(x)));
  const auto y_int = floor(y) == y;
  const V half = y * V::splat(0.5f);
  const auto y_odd = y_int & (floor(half) < half);
  const V neg = select(y_int, select(y_odd, -r, r), V::splat(NAN));
  return select(y == zero, V::splat(1.f), select(x < zero, neg, r));
}

// ---- The ops. f(a, b, c, p): unused operands are ignored; p is the op's scalar parameter.
#define FD_OP(Name, expr) \
  struct Name##Op { template <class V> static V f(V a, V b, V c, float p) { (void)b; (void)c; (void)p; return expr; } };

FD_OP(Add, a + b)
FD_OP(Sub, a - b)
FD_OP(Mul, a * b)
FD_OP(Div, a / b)
FD_OP(Maximum, max(a, b))
FD_OP(Minimum, min(a, b))
FD_OP(SquaredDifference, (a - b) * (a - b))
FD_OP(Pow, pow_(a, b))
FD_OP(Fma, fma(a, b, c))
FD_OP(Fms, fma(a, b, -c))
FD_OP(Fnma, fma(-a, b, c))
FD_OP(Relu, max(V::splat(0.f), a))
FD_OP(Relu6, clamp(a, 0.f, 6.f))
FD_OP(ReluN1To1, clamp(a, -1.f, 1.f))
FD_OP(Relu0To1, clamp(a, 0.f, 1.f))
FD_OP(LeakyRelu, select(a > V::splat(0.f), a, a * V::splat(p)))
FD_OP(Elu, select(a > V::splat(0.f), a, expm1_(a)))
FD_OP(Logistic, logistic_(a))
FD_OP(Tanh, tanh_(a))
FD_OP(HardSwish, a * clamp(a + V::splat(3.f), 0.f, 6.f) / V::splat(6.f))
FD_OP(Gelu, gelu_(a))
FD_OP(GeluTanh, gelu_tanh_(a))
FD_OP(Exp, exp_(a))
FD_OP(Log, log_(a))
FD_OP(Sqrt, sqrt(a))
FD_OP(Rsqrt, V::splat(1.f) / sqrt(a))
FD_OP(Square, a * a)
FD_OP(Neg, -a)
FD_OP(Abs, abs(a))
#undef FD_OP

}  // namespace fd::simd
