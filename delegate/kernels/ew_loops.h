// Builds an EwTable for one vector type from the ops in ew_math.h.
// Include only from an ew_<isa>.cc compiled for that ISA.
#pragma once

#include "ew_math.h"
#include "ew_table.h"

namespace fd::simd {

template <class V, class Op, int Arity>
void ew_loop(const float* a, const float* b, const float* c, float* dst, size_t n, float p) {
  size_t i = 0;
  for (; i + V::W <= n; i += V::W) {
    const V va = V::load(a + i);
    const V vb = Arity > 1 ? V::load(b + i) : va;
    const V vc = Arity > 2 ? V::load(c + i) : va;
    Op::template f<V>(va, vb, vc, p).store(dst + i);
  }
  if (i < n) {
    const int r = static_cast<int>(n - i);
    const V va = V::load_tail(a + i, r);
    const V vb = Arity > 1 ? V::load_tail(b + i, r) : va;
    const V vc = Arity > 2 ? V::load_tail(c + i, r) : va;
    Op::template f<V>(va, vb, vc, p).store_tail(dst + i, r);
  }
}

template <class V> EwTable make_ew_table(const char* isa) {
  return EwTable{isa, V::W, {
#define FD_ENTRY(name, arity) &ew_loop<V, name##Op, arity>,
      FD_EW_OPS(FD_ENTRY)
#undef FD_ENTRY
  }};
}

}  // namespace fd::simd
