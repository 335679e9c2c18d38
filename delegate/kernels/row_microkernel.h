// Softmax and reductions over rows (the last axis), written once over the
// vector API and instantiated per ISA. Include only from a gemm_<isa>.cc.
#pragma once

#include <algorithm>
#include <cmath>

#include "kernels/ew_math.h"
#include "kernels/gemm.h"

namespace fd::simd {

template <class V> inline float lanes_sum(V v) {
  float l[V::W];
  v.store(l);
  float s = 0.f;
  for (int i = 0; i < V::W; ++i) s += l[i];
  return s;
}

template <class V> inline float lanes_max(V v) {
  float l[V::W];
  v.store(l);
  float m = l[0];
  for (int i = 1; i < V::W; ++i) m = l[i] > m ? l[i] : m;
  return m;
}

// e^((x - max) beta): never positive for beta > 0, the usual case.
template <class V> inline V softmax_exp(V x, V vmax, V vbeta, bool nonpos) {
  const V z = (x - vmax) * vbeta;
  return nonpos ? exp_nonpos_(z) : exp_(z);
}

// The row's largest value: two vector chains (max waits on its latency), then lanes.
template <class V> inline float row_max(const float* in, int n) {
  V m0 = V::splat(-INFINITY), m1 = m0;
  int i = 0;
  for (; i + 2 * V::W <= n; i += 2 * V::W) {
    m0 = max(V::load(in + i), m0);
    m1 = max(V::load(in + i + V::W), m1);
  }
  for (; i + V::W <= n; i += V::W) m0 = max(V::load(in + i), m0);
  float m = lanes_max(max(m1, m0));
  for (; i < n; ++i) m = in[i] > m ? in[i] : m;
  return m;
}

// out = e^((in - max) beta) over the row; returns their sum (two vector chains).
template <class V> inline float row_exp_sum(const float* in, float* out, int n, float m, float beta) {
  const V vm = V::splat(m), vb = V::splat(beta);
  const bool nonpos = beta > 0.f;
  V s0 = V::splat(0.f), s1 = s0;
  int i = 0;
  for (; i + 2 * V::W <= n; i += 2 * V::W) {
    const V e0 = softmax_exp(V::load(in + i), vm, vb, nonpos), e1 = softmax_exp(V::load(in + i + V::W), vm, vb, nonpos);
    e0.store(out + i);
    e1.store(out + i + V::W);
    s0 = s0 + e0;
    s1 = s1 + e1;
  }
  for (; i + V::W <= n; i += V::W) {
    const V e = softmax_exp(V::load(in + i), vm, vb, nonpos);
    e.store(out + i);
    s0 = s0 + e;
  }
  float sum = lanes_sum(s0 + s1);
  if (i < n) {
    softmax_exp(V::load_tail(in + i, n - i), vm, vb, nonpos).store_tail(out + i, n - i);
    for (int j = i; j < n; ++j) sum += out[j];
  }
  return sum;
}

// Three passes over a row that stays in L1: max, exp and sum, scale.
template <class V>
void softmax_rows(int rows, int n, const float* in, float* out, float beta) {
  for (int r = 0; r < rows; ++r, in += n, out += n) {
    const float sum = row_exp_sum<V>(in, out, n, row_max<V>(in, n), beta);
    const V scale = V::splat(1.f / sum);
    int i = 0;
    for (; i + V::W <= n; i += V::W) (V::load(out + i) * scale).store(out + i);
    if (i < n) (V::load_tail(out + i, n - i) * scale).store_tail(out + i, n - i);
  }
}

// A reduction's step, on vectors and on single floats.
inline float max(float a, float b) { return a > b ? a : b; }
inline float min(float a, float b) { return a < b ? a : b; }
template <RowReduction R, class T> inline T combine(T a, T b) {
  if constexpr (R == RowReduction::kMax) return max(a, b);
  else if constexpr (R == RowReduction::kMin) return min(a, b);
  else return a + b;
}

// Each row to one value: two accumulators (a sum's from 0), then their lanes
// pairwise, then the tail; a mean divides the sum by n (as TFLite's MEAN).
template <class V, RowReduction R>
void reduce_rows(int rows, int n, const float* in, float* out) {
  constexpr bool sums = R == RowReduction::kMean || R == RowReduction::kSum;
  for (int r = 0; r < rows; ++r, in += n) {
    V a0 = V::splat(sums ? 0.f : in[0]), a1 = a0;
    int i = 0;
    for (; i + 2 * V::W <= n; i += 2 * V::W) {
      a0 = combine<R>(a0, V::load(in + i));
      a1 = combine<R>(a1, V::load(in + i + V::W));
    }
    for (; i + V::W <= n; i += V::W) a0 = combine<R>(a0, V::load(in + i));
    float l[V::W];
    combine<R>(a0, a1).store(l);
    for (int half = V::W / 2; half > 0; half /= 2)  // the lanes pairwise: log2(W) steps deep
      for (int j = 0; j < half; ++j) l[j] = combine<R>(l[j], l[j + half]);
    float v = l[0];
    for (; i < n; ++i) v = combine<R>(v, in[i]);
    out[r] = R == RowReduction::kMean ? v / static_cast<float>(n) : v;
  }
}

// A row's sum as TFLite's builtin kernels reduce a row on x86 (Eigen over
// SSE packets of 4): from the row's first value on a 16-byte boundary of the
// tensor (`start`: the row's first value's index in the tensor), two 4-lane
// sums taking 8 values a step, added, one more packet where 4 are left, the
// lanes added as (0 + 2) + (1 + 3); then the values before that boundary and
// the last ones, in order. Too short for one packet: all in order. (V: one
// instance per ISA's file.)
template <class V> inline float sum_as_builtin(const float* x, int n, int64_t start) {
  const int lead = std::min<int>(n, static_cast<int>((4 - start % 4) % 4)), body = (n - lead) / 4 * 4;
  if (n <= 0) return 0.f;
  float s = x[0];
  if (body == 0) {
    for (int i = 1; i < n; ++i) s = s + x[i];
    return s;
  }
  const float* b = x + lead;
  const int b8 = body / 8 * 8;
  float p0[4], p1[4];
  for (int l = 0; l < 4; ++l) p0[l] = b[l], p1[l] = body > 4 ? b[4 + l] : 0.f;
  for (int i = 8; i < b8; i += 8)
    for (int l = 0; l < 4; ++l) p0[l] = p0[l] + b[i + l], p1[l] = p1[l] + b[i + 4 + l];
  for (int l = 0; l < 4 && body > 4; ++l) p0[l] = p0[l] + p1[l];
  for (int l = 0; l < 4 && body > b8 && body > 4; ++l) p0[l] = p0[l] + b[b8 + l];
  s = (p0[0] + p0[2]) + (p0[1] + p0[3]);
  for (int i = 0; i < lead; ++i) s = s + x[i];
  for (int i = lead + body; i < n; ++i) s = s + x[i];
  return s;
}

// SOFTMAX as TFLite's builtin kernel on x86 (Eigen): e = exp_as_builtin_((x -
// max) beta) (libm's exp on the tensor's last size % 4 values), times 1 / their
// sum_as_builtin.
template <class V>
void softmax_rows_at_as_builtin(int rows, int n, const float* in, float* out, float beta, int64_t first_row,
                                int64_t total_rows) {
  const V vb = V::splat(beta);
  const int64_t size = total_rows * n, scalar_from = size - size % 4;
  for (int r = 0; r < rows; ++r, in += n, out += n) {
    const float m = row_max<V>(in, n);
    const V vm = V::splat(m);
    int i = 0;
    for (; i + V::W <= n; i += V::W) exp_as_builtin_((V::load(in + i) - vm) * vb).store(out + i);
    if (i < n) exp_as_builtin_((V::load_tail(in + i, n - i) - vm) * vb).store_tail(out + i, n - i);
    const int64_t start = (first_row + r) * n;
    for (int64_t f = std::max(start, scalar_from); f < start + n; ++f)
      out[f - start] = std::exp((in[f - start] - m) * beta);
    const V scale = V::splat(1.f / sum_as_builtin<V>(out, n, start));
    for (i = 0; i + V::W <= n; i += V::W) (V::load(out + i) * scale).store(out + i);
    if (i < n) (V::load_tail(out + i, n - i) * scale).store_tail(out + i, n - i);
  }
}

// MEAN over rows as the builtin's: sum_as_builtin, divided by n.
template <class V>
void mean_rows_at_as_builtin(int rows, int n, const float* in, float* out, int64_t first_row) {
  for (int r = 0; r < rows; ++r, in += n) out[r] = sum_as_builtin<V>(in, n, (first_row + r) * n) / static_cast<float>(n);
}

// The same as the plain row kernels' signatures: rows taken as a whole tensor's.
template <class V> void softmax_rows_as_builtin(int rows, int n, const float* in, float* out, float beta) {
  softmax_rows_at_as_builtin<V>(rows, n, in, out, beta, 0, rows);
}
template <class V> void mean_rows_as_builtin(int rows, int n, const float* in, float* out) {
  mean_rows_at_as_builtin<V>(rows, n, in, out, 0);
}

// The row kernel table of one ISA.// The row kernel table of one ISA.
template <class V> RowKernel row_kernel(const char* name) {
  return {name, &softmax_rows<V>,
          {&reduce_rows<V, RowReduction::kMean>, &reduce_rows<V, RowReduction::kSum>,
           &reduce_rows<V, RowReduction::kMax>, &reduce_rows<V, RowReduction::kMin>}};
}

// The same rounding as TFLite's builtin kernels (Kernels::rounded): SOFTMAX
// and MEAN; the sum, max and min as row_kernel's.
template <class V> RowKernel row_kernel_as_builtin(const char* name) {
  return {name, &softmax_rows_as_builtin<V>,
          {&mean_rows_as_builtin<V>, &reduce_rows<V, RowReduction::kSum>, &reduce_rows<V, RowReduction::kMax>,
           &reduce_rows<V, RowReduction::kMin>},
          &softmax_rows_at_as_builtin<V>, &mean_rows_at_as_builtin<V>};
}

}  // namespace fd::simd
