// The math of every elementwise op, written once over the vector API shared by
// vec_scalar.h / vec_avx2.h / vec_avx512.h / vec_neon.h. Each ISA's table
// instantiates these; the scalar instantiation is the reference.
//
// Approximated functions (measured bounds are pinned in tests/cpp):
//   exp      range reduction + degree-6 polynomial, about 1 ulp (degree 5 for
//            logistic and softmax, about 2 ulp)
//   log      mantissa/exponent split + atanh series, about 2 ulp
//   tanh     rational x P(x^2)/Q(x^2), about 3 ulp
//   logistic 1/(1+exp(-x))
//   expm1    series for |x| < 0.35, else exp(x)-1 (used by ELU)
//   erf      rational z P(z^2)/Q(z^2), about 4 ulp (used by GELU)
//   pow      exp(y*log|x|) with sign rules; relative ~(3 + |y ln x|) ulp
#pragma once

#include <cfloat>
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

// p * 2^n for integer-valued n in [-150, 128], rounded once: each factor is a
// normal power of two. One factor serves when every lane's n is in [-126, 127]
// (the same float: each product is exact or rounds once). AVX-512 overrides
// this with one vscalefps.
template <class V> inline V scale2(V p, V n) {
  if (all((V::splat(-126.f) <= n) & (n <= V::splat(127.f)))) return p * pow2i(n);
  const V n1 = floor(n * V::splat(0.5f));
  return p * pow2i(n1) * pow2i(n - n1);
}

// e^r on |r| <= ln2 / 2 as 1 + r q(r): our own fits of q, minimax in relative
// error. exp_ takes q of degree 5 (about 4e-9 before float rounding);
// logistic and softmax, on hot paths, degree 4 (1e-7): one fma less.
inline constexpr float kExpQ5[] = {1.f, 4.999999404e-01f, 1.666652113e-01f, 4.166838899e-02f,
                                   8.368710056e-03f, 1.381461276e-03f};
inline constexpr float kExpQ4[] = {9.999998808e-01f, 4.999915063e-01f, 1.666718125e-01f,
                                   4.189794511e-02f, 8.317875676e-03f};

template <class V> inline V reduce_ln2(V x, V n) {  // x - n ln2, ln2 split in two: the first part exact
  const V r = fma(-n, V::splat(0.693145752f), x);
  return fma(-n, V::splat(1.42860677e-6f), r);
}

template <class V> inline V exp_(V x) {
  x = clamp(x, -104.f, 88.8f);
  const V n = round(x * V::splat(1.44269504f));
  const V r = reduce_ln2(x, n);
  return scale2(fma(r, poly(r, kExpQ5, 6), V::splat(1.f)), n);
}

// 2^24 e^z for z <= 0, without a branch: n rounds inside one fma whose low
// bits then hold the exponent field of 2^(n + 24), normal for every z >= -104
// (below, e^z rounds to 0 as a float). NaN stays NaN.
template <class V> inline V exp_nonpos_2p24_(V z) {
  z = max(V::splat(-104.f), z);
  const V bias = V::splat(12583063.f);  // 1.5 * 2^23 + 127 + 24
  const V t = fma(z, V::splat(1.44269504f), bias);
  const V r = reduce_ln2(z, t - bias);
  const V s = pow2_biased(t);
  return fma(r * s, poly(r, kExpQ4, 5), s);
}

// e^z for z <= 0 (softmax): the product by 2^-24 is exact for normal results
// and rounds subnormal ones once.
template <class V> inline V exp_nonpos_(V z) { return exp_nonpos_2p24_(z) * V::splat(5.96046448e-8f); }

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

// x P(x^2) / Q(x^2) on |x| <= 9 (tanh(9) rounds to 1); our own fit, minimax in
// relative error (about 7e-8 before float rounding).
template <class V> inline V tanh_(V x) {
  static const float p[] = {9.999999338e-01f, 1.291346101e-01f, 2.914651517e-03f,
                            9.213982784e-06f, -1.263111765e-08f, 1.790580557e-11f};
  static const float q[] = {1.f, 4.624673849e-01f, 2.373789571e-02f, 2.272702527e-04f};
  const V xc = clamp(x, -9.f, 9.f);
  const V u = xc * xc;
  return clamp(xc * poly(u, p, 6) / poly(u, q, 4), -1.f, 1.f);  // the fit may round past 1
}

// 1/(1+e^-x) for x >= 0, e^x/(1+e^x) below, with every term scaled by 2^24
// (the same quotients, rounded alike): never overflows, and keeps subnormal
// results for x << 0.
template <class V> inline V logistic_(V x) {
  const V one = V::splat(16777216.f);
  const V e = exp_nonpos_2p24_(neg_abs(x));
  return select_negative(x, e, one) / (one + e);
}

// e^x as TFLite's builtin kernels round it on x86 (Eigen's float exp over SSE
// packets, no fma): m = floor(x log2 e + 1/2), r = x - m ln 2 in Cephes' two
// parts, a degree-6 polynomial in even and odd halves, times 2^m rounded once;
// every multiply and add rounded alone, as there. Bit for bit on every ISA.
template <class V> inline V exp_as_builtin_(V x0) {
  const V x = clamp(x0, -104.f, 88.723f);
  const V m = floor(x * V::splat(1.44269504f) + V::splat(0.5f));
  V r = m * V::splat(-0.693359375f) + x;
  r = m * V::splat(2.12194440e-4f) + r;
  const V r2 = r * r;
  V even = r2 * V::splat(1.37449637986719608306884765625e-3f) + V::splat(4.166965186595916748046875e-2f);
  const V odd = r2 * V::splat(8.36894474923610687255859375e-3f) + V::splat(0.16666518151760101318359375f);
  even = r2 * even + V::splat(0.49999988079071044921875f);
  const V p = r2 * (r * odd + even) + (r + V::splat(1.f));
  return select(x0 < V::splat(-104.f), V::splat(0.f), max(scale2(p, m), x0));
}

// erfc(x) as the builtin's GELU rounds it (Eigen's float erfc, no fma):
// 1 + x S(x^2) for |x| <= 1, else e^-x^2 (1 - lo) P(1/x^2) / (x Q(1/x^2)),
// plus 2 for x < 0, where lo is the rounding error of x^2 (exact: Dekker's
// product there, one fma here) and e^ is `exp` (the vector body's
// exp_as_builtin_, libm's on a tensor's last size % 4 values).
template <class V, class Exp> inline V erfc_as_builtin_(V x_in, Exp exp) {
  static const float s[] = {5.61802298761904239654541015625e-04f, -4.91381669417023658752441406250e-03f,
                            2.67075151205062866210937500000e-02f, -1.12800106406211853027343750000e-01f,
                            3.76122951507568359375000000000e-01f, -1.12837910652160644531250000000e+00f};
  static const float p[] = {1.0208116471767425537109375e-01f, 4.2920666933059692382812500e-01f,
                            3.2379078865051269531250000e-01f, 5.3971976041793823242187500e-02f};
  static const float q[] = {1.7251677811145782470703125e-02f, 3.9137163758277893066406250e-01f, 1.f,
                            6.2173241376876831054687500e-01f, 9.5662862062454223632812500e-02f};
  const auto horner = [](V u, const float* c, int n) {  // c[0] u^(n-1) + ... + c[n-1], no fma
    V y = V::splat(c[0]);
    for (int i = 1; i < n; ++i) y = y * u + V::splat(c[i]);
    return y;
  };
  const V x = clamp(x_in, -11.f, 11.f), one = V::splat(1.f);
  const V x2 = x * x;
  const V small = x * horner(x2, s, 6) + one;
  if (all(x2 <= one)) return small;
  const V e = exp(-x2);
  const V z = e - e * fma(x, x, -x2);
  const V q2 = one / x2;
  const V large = z * (horner(q2, p, 4) / (x * horner(q2, q, 5))) + select_negative(x, V::splat(2.f), V::splat(0.f));
  return select(one < x2, large, small);
}

// GELU (erf form) as TFLite's builtin kernel: (x / 2) erfc(-x / sqrt 2).
template <class V> inline V gelu_as_builtin_(V x) {
  return (V::splat(0.5f) * x) * erfc_as_builtin_(x * V::splat(-0.70710677f), [](V y) { return exp_as_builtin_(y); });
}

// LOGISTIC as TFLite's builtin kernel rounds it on x86 (Eigen's float
// logistic over SSE packets, no fma): e = e^(x/2) (Cephes' two-part ln 2
// reduction, degree-5 polynomial), squared, then e / (1 + e); every multiply
// and add rounded alone, as there. Bit for bit on every ISA.
template <class V> inline V logistic_as_builtin_(V x0) {
  const V half = V::splat(0.5f), one = V::splat(1.f);
  const V x = clamp(x0, -104.f, 16.6355324f) * half;
  const V m = floor(x * V::splat(1.44269504f) + half);
  V r = m * V::splat(-0.693359375f) + x;
  r = m * V::splat(2.12194440e-4f) + r;
  const V r2 = r * r;
  const V even = r2 * V::splat(4.18986678e-2f) + V::splat(0.499991417f);
  const V odd = r2 * V::splat(8.33471306e-3f) + V::splat(0.166668773f);
  const V p = r2 * (r * odd + even) + (r + one);
  V e = p * pow2i(m);
  e = e * e;
  return select(x0 < V::splat(-104.f), V::splat(0.f), e / (one + e));
}

// erf(x / sqrt 2) = x P(x^2) / Q(x^2) on |x| <= 4 sqrt 2 (erf(4) rounds to 1):
// our own fit of erf(z) = z p(z^2) / q(z^2), minimax in relative error (about
// 7e-8 before float rounding), with z = x / sqrt 2 folded into P and Q.
template <class V> inline V erf_x_over_sqrt2_(V x) {
  static const float p[] = {7.978845239e-01f, 7.384435833e-02f, 9.150292724e-03f, 3.591344866e-04f,
                            6.580026366e-06f, -4.298722089e-08f, 2.101675778e-10f};
  static const float q[] = {1.f, 2.592157423e-01f, 2.967371419e-02f, 1.888557686e-03f, 6.488592044e-05f};
  const V xc = clamp(x, -5.65685415f, 5.65685415f);
  const V u = xc * xc;
  return clamp(xc * poly(u, p, 7) / poly(u, q, 5), -1.f, 1.f);  // the fit may round past 1
}

// 0.5 x (1 + erf(x / sqrt 2)) as h + h erf, h = x / 2, in one fma (the sum
// rounded once; it cancels for x << 0 as the reference formula's does).
template <class V> inline V gelu_(V x) {
  const V h = V::splat(0.5f) * x;
  return fma(h, erf_x_over_sqrt2_(x), h);
}

// 0.5 x (1 + tanh(y)) = x logistic(2y), y = sqrt(2/pi) (x + 0.044715 x^3),
// 2y as x (c + c' x^2) (one rounding less): no cancellation for x << 0.
template <class V> inline V gelu_tanh_(V x) {
  const V two_y = x * fma(V::splat(0.0713548162f), x * x, V::splat(1.595769122f));
  return x * logistic_(two_y);
}

// x^y as std::pow: exp(y log|x|), then the sign and special cases.
template <class V> inline V pow_(V x, V y) {
  const V zero = V::splat(0.f), one = V::splat(1.f);
  const V r = exp_(y * log_(abs(x)));
  const auto y_int = floor(y) == y;
  const V half = y * V::splat(0.5f);
  const auto y_odd = y_int & (floor(half) < half);
  // A negative base takes integer exponents only; a zero base keeps its sign
  // (1/x tells -0 from +0) for odd exponents.
  const V negative_base = select(y_int, select(y_odd, -r, r), V::splat(NAN));
  const V zero_base = select(y < zero, V::splat(INFINITY), zero);
  const V signed_zero_base = select(y_odd & (one / x < zero), -zero_base, zero_base);
  V out = select(x < zero, negative_base, r);
  out = select(x == zero, signed_zero_base, out);
  return select((y == zero) | (x == one), one, out);
}

// log(1 + y) for y >= 0 without losing y where 1 + y rounds: log(u) * y / (u - 1),
// u = 1 + y, exact to a few ulp (y itself where u rounds to 1).
template <class V> inline V log1p_(V y) {
  const V u = y + V::splat(1.f);
  const V d = u - V::splat(1.f);
  return select(V::splat(0.f) < d, log_(u) * (y / d), y);
}

// softplus(x) = log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow, no cancellation.
template <class V> inline V softplus_(V x) { return max(x, V::splat(0.f)) + log1p_(exp_(-abs(x))); }

// ---- The ops. f(a, b, c, p): unused operands are ignored; p is the op's scalar parameter.
#define FD_OP(Name, expr) \
  struct Name##Op { template <class V> static V f(V a, V b, V c, float p) { (void)b; (void)c; (void)p; return expr; } };

// TFLite's ADD, SUB, MUL and DIV clamp to the range of "no activation", the
// float range: an overflow gives +-FLT_MAX, not inf (NaN stays). So do their
// fusions Fma, Fms, Fnma (TensorFlow's own kernels would give inf).
template <class V> inline V in_float_range(V x) { return clamp(x, -FLT_MAX, FLT_MAX); }
FD_OP(Add, in_float_range(a + b))
FD_OP(Sub, in_float_range(a - b))
FD_OP(Mul, in_float_range(a * b))
FD_OP(Div, in_float_range(a / b))
FD_OP(Maximum, max(a, b))
FD_OP(Minimum, min(a, b))
FD_OP(SquaredDifference, (a - b) * (a - b))
FD_OP(Pow, pow_(a, b))
// As TFLite: x >= 0 keeps x (-0 stays -0); else and for NaN, x * alpha.
FD_OP(Prelu, select(V::splat(0.f) <= a, a, a * b))
FD_OP(Fma, in_float_range(fma(a, b, c)))
FD_OP(Fms, in_float_range(fma(a, b, -c)))
FD_OP(Fnma, in_float_range(fma(-a, b, c)))
FD_OP(Relu, max(V::splat(0.f), a))
FD_OP(Relu6, clamp(a, 0.f, 6.f))
FD_OP(ReluN1To1, clamp(a, -1.f, 1.f))
FD_OP(Relu0To1, clamp(a, 0.f, 1.f))
FD_OP(LeakyRelu, select(a > V::splat(0.f), a, a * V::splat(p)))
FD_OP(Elu, select(a > V::splat(0.f), a, expm1_(a)))
FD_OP(Logistic, logistic_(a))
FD_OP(LogisticAsBuiltin, logistic_as_builtin_(a))
FD_OP(GeluAsBuiltin, gelu_as_builtin_(a))
FD_OP(SwishAsBuiltin, a * logistic_as_builtin_(a))
FD_OP(Tanh, tanh_(a))
// As TFLite's builtin kernel (and XNNPACK): x times 1/6, then times relu6(x + 3).
FD_OP(HardSwish, (a * V::splat(1.f / 6.f)) * clamp(a + V::splat(3.f), 0.f, 6.f))
FD_OP(Gelu, gelu_(a))
FD_OP(GeluTanh, gelu_tanh_(a))
FD_OP(Exp, exp_(a))
FD_OP(Log, log_(a))
FD_OP(Sqrt, sqrt(a))
// POW(x, 0.5) as std::pow gives it: sqrt, but +0 at -0 and +inf at -inf.
FD_OP(SqrtAsPow, select(V::splat(-FLT_MAX) > a, V::splat(INFINITY), sqrt(a) + V::splat(0.f)))
FD_OP(Rsqrt, V::splat(1.f) / sqrt(a))
FD_OP(Square, a * a)
FD_OP(Neg, -a)
FD_OP(Abs, abs(a))
FD_OP(Swish, a * logistic_(a))
FD_OP(Softplus, softplus_(a))
// QUANTIZE keeps the real value: between int8 tensors it requantizes (kernels/q8_ops.h).
FD_OP(Quantize, a)
#undef FD_OP

}  // namespace fd::simd
