// Builds an EwTable for one vector type from the ops in ew_math.h.
// Include only from an ew_<isa>.cc compiled for that ISA.
#pragma once

#include "kernels/ew_math.h"
#include "kernels/ew_table.h"

namespace fd::simd {

template <class V, class Op, int Arity>
inline V ew_apply(const float* a, const float* b, const float* c, size_t i, float p) {
  const V va = V::load(a + i);
  return Op::template f<V>(va, Arity > 1 ? V::load(b + i) : va, Arity > 2 ? V::load(c + i) : va, p);
}

// Four independent vectors per step give the core room to overlap the long
// dependency chains of exp, tanh or gelu; then single vectors; then one
// masked tail.
template <class V, class Op, int Arity>
void ew_loop(const float* a, const float* b, const float* c, float* dst, size_t n, float p) {
  size_t i = 0;
  for (; i + 4 * V::W <= n; i += 4 * V::W) {
    const V r0 = ew_apply<V, Op, Arity>(a, b, c, i, p);
    const V r1 = ew_apply<V, Op, Arity>(a, b, c, i + V::W, p);
    const V r2 = ew_apply<V, Op, Arity>(a, b, c, i + 2 * V::W, p);
    const V r3 = ew_apply<V, Op, Arity>(a, b, c, i + 3 * V::W, p);
    r0.store(dst + i);
    r1.store(dst + i + V::W);
    r2.store(dst + i + 2 * V::W);
    r3.store(dst + i + 3 * V::W);
  }
  for (; i + V::W <= n; i += V::W) ew_apply<V, Op, Arity>(a, b, c, i, p).store(dst + i);
  if (i < n) {
    const int r = static_cast<int>(n - i);
    const V va = V::load_tail(a + i, r);
    const V vb = Arity > 1 ? V::load_tail(b + i, r) : va;
    const V vc = Arity > 2 ? V::load_tail(c + i, r) : va;
    Op::template f<V>(va, vb, vc, p).store_tail(dst + i, r);
  }
}

template <class V> EwTable make_ew_table(const char* isa) {
  return EwTable{isa, {
#define FD_ENTRY(name, arity) &ew_loop<V, name##Op, arity>,
      FD_EW_KERNEL_OPS(FD_ENTRY)
#undef FD_ENTRY
  }};
}

}  // namespace fd::simd
