// Builds an EwTable for one vector type from the ops in ew_math.h.
// Include only from an ew_<isa>.cc compiled for that ISA.
#pragma once

#include <array>
#include <utility>

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

// Operand x of row r: the row's value splatted once (Row), or its own lanes at j.
template <class V, bool Row>
inline V operand(const float* x, V row_value, size_t j) {
  return Row ? row_value : V::load(x + j);
}

template <class V, bool Row>
inline V operand_tail(const float* x, V row_value, size_t j, int n) {
  return Row ? row_value : V::load_tail(x + j, n);
}

template <class V, class Op, int Arity, int Rows>
void ew_rows_loop(const float* a, const float* b, const float* c, float* dst, size_t rows, size_t len, float p) {
  constexpr bool ra = (Rows & 1) != 0, rb = (Rows & 2) != 0, rc = (Rows & 4) != 0;
  for (size_t r = 0, row = 0; r < rows; ++r, row += len) {
    const V va = V::splat(ra ? a[r] : 0.f), vb = V::splat(rb ? b[r] : 0.f);
    const V vc = V::splat(Arity > 2 && rc ? c[r] : 0.f);
    size_t j = row;
    const size_t end = row + len;
    for (; j + V::W <= end; j += V::W) {
      const V x = operand<V, ra>(a, va, j);
      Op::template f<V>(x, operand<V, rb>(b, vb, j), Arity > 2 ? operand<V, rc>(c, vc, j) : x, p).store(dst + j);
    }
    if (j < end) {
      const int n = static_cast<int>(end - j);
      const V x = operand_tail<V, ra>(a, va, j, n);
      Op::template f<V>(x, operand_tail<V, rb>(b, vb, j, n), Arity > 2 ? operand_tail<V, rc>(c, vc, j, n) : x, p)
          .store_tail(dst + j, n);
    }
  }
}

// The row kernel of one op for one mask: null for no row operand, for all of
// them (the step is then over rows) and for operands it does not have.
template <class V, class Op, int Arity, int Mask>
constexpr EwRowsKernel rows_kernel() {
  if constexpr (Arity > 1 && Mask > 0 && Mask < (1 << Arity) - 1) return &ew_rows_loop<V, Op, Arity, Mask>;
  return nullptr;
}

template <class V, class Op, int Arity, int... Masks>
constexpr std::array<EwRowsKernel, kRowMasks> rows_entry(std::integer_sequence<int, Masks...>) {
  return {rows_kernel<V, Op, Arity, Masks>()...};
}

template <class V> EwTable make_ew_table(const char* isa) {
  EwTable t{isa, {
#define FD_ENTRY(name, arity) &ew_loop<V, name##Op, arity>,
      FD_EW_KERNEL_OPS(FD_ENTRY)
#undef FD_ENTRY
  }, {}};
  const std::array<EwRowsKernel, kRowMasks> rows[] = {
#define FD_ROWS(name, arity) rows_entry<V, name##Op, arity>(std::make_integer_sequence<int, kRowMasks>{}),
      FD_EW_KERNEL_OPS(FD_ROWS)
#undef FD_ROWS
  };
  for (int o = 0; o < kEwKernelOpCount; ++o)
    for (int m = 0; m < kRowMasks; ++m) t.rows_fn[o][m] = rows[o][m];
  return t;
}

}  // namespace fd::simd
