// Softmax and reductions over rows (the last axis), written once over the
// vector API and instantiated per ISA. Include only from a gemm_<isa>.cc.
#pragma once

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

// The row kernel table of one ISA.
template <class V> RowKernel row_kernel(const char* name) {
  return {name, &softmax_rows<V>,
          {&reduce_rows<V, RowReduction::kMean>, &reduce_rows<V, RowReduction::kSum>,
           &reduce_rows<V, RowReduction::kMax>, &reduce_rows<V, RowReduction::kMin>}};
}

}  // namespace fd::simd
