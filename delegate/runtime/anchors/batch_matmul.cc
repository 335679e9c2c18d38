// BATCH_MATMUL: [..., m, k] x [..., k, n] (adj_x / adj_y: transposed), both
// run-time values (row_ops.cc). b is packed for the GEMM kernel on every run,
// per batch (or once, shared by every batch); a's rows are read in place. A
// TRANSPOSE folded into an operand (AnchorFolds::transposed) is read through its strides.
#include <algorithm>

#include "ir/shape.h"
#include "ops/batch_matmul.h"
#include "ops/shape_rules.h"
#include "ops/transpose.h"
#include "runtime/anchors/anchor_op.h"

namespace fd {
namespace {

// Per operand, the permutation of a TRANSPOSE folded into it (empty: none).
struct OperandPerms : StepState {
  std::vector<int64_t> perm[2];
};

// Bound: a's rows in BoundAnchor::rows, b packed on every run.
struct MatMul : BoundState {
  int64_t m = 0, batches = 1;                 // rows per batch, batches
  bool b_shared = false;                      // one b for every batch
  Shape view[2], view_strides[2];             // each operand as read, and its strides
  mutable std::vector<PackedWeights> packed;  // b of each batch, packed this run
  mutable std::vector<float> a_transposed;    // with adj_x: a, rows made contiguous
  std::shared_ptr<const BoundState> clone() const override { return std::make_shared<MatMul>(*this); }
};

const BatchMatMulParams& params(const AnchorStep& s) { return params_as<BatchMatMulParams>(s.params); }
const std::vector<int64_t>& perm(const AnchorStep& s, int i) { return static_cast<const OperandPerms&>(*s.state).perm[i]; }
const MatMul& mat_mul(const BoundAnchor& a) { return static_cast<const MatMul&>(*a.state); }

// Where an int8-weight layer quantizes the output: sums as TFLite's builtin
// kernel (in k order from zero, each product rounded, at every shape measured).
void make(const Graph& g, const Node& node, const Kernels& kernels, const AnchorFolds& folds, AnchorStep& a) {
  const Shape& out = g.tensors[node.outputs[0]].shape;
  const Kernels& picked = anchor_kernels(kernels, folds);
  a.gemm = out.empty() ? picked.gemm : &gemm_for(picked, static_cast<int>(std::max<int64_t>(1, out.back())));
  auto perms = std::make_shared<OperandPerms>();
  for (int i = 0; i < 2; ++i)
    if (folds.transposed[i]) perms->perm[i] = params_as<TransposeParams>(folds.transposed[i]->params).perm;
  a.state = std::move(perms);
}

// Each operand as read: through its folded TRANSPOSE, if any (left empty if the
// permutation does not fit the operand).
void view_operands(const AnchorStep& s, const std::vector<Shape>& inputs, MatMul& mm) {
  for (int i = 0; i < 2; ++i) {
    const Shape dense = broadcast_strides(inputs[i], inputs[i]);
    const std::vector<int64_t>& p = perm(s, i);
    if (p.empty()) {
      mm.view[i] = inputs[i];
      mm.view_strides[i] = dense;
      continue;
    }
    if (p.size() != inputs[i].size()) break;
    for (int64_t d : p) {
      mm.view[i].push_back(inputs[i][d]);
      mm.view_strides[i].push_back(dense[d]);
    }
  }
}

bool bind(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  const bool adj_x = params(b.step).adj_x;
  auto mm = std::make_shared<MatMul>();
  const Shape& in = inputs[0];
  view_operands(b.step, inputs, *mm);
  std::optional<Shape> out;
  if (mm->view[0].size() == in.size() && mm->view[1].size() == inputs[1].size())
    out = batch_matmul_shape(mm->view[0], mm->view[1], adj_x, params(b.step).adj_y);
  // a's rows are read in place: a folded TRANSPOSE must keep them contiguous.
  if (out && !perm(b.step, 0).empty() && (adj_x || mm->view_strides[0].back() != 1)) out.reset();
  if (!bind_row_output(b, out, inputs, error)) return false;
  const size_t r = in.size();
  mm->m = (*out)[r - 2];
  b.k = mm->view[0][r - (adj_x ? 2 : 1)];
  mm->batches = num_elements(*out) / std::max<int64_t>(1, mm->m * b.n);
  mm->b_shared = num_elements(inputs[1]) == b.k * b.n;
  mm->packed.resize(mm->b_shared ? 1 : mm->batches);
  if (adj_x) mm->a_transposed.resize(num_elements(in));
  b.state = std::move(mm);
  return true;
}

// Batch q's offset in an operand, from its batch axes' strides.
int64_t batch_offset(const Shape& view, const Shape& strides, int64_t q) {
  int64_t off = 0;
  for (int d = static_cast<int>(view.size()) - 3; d >= 0; --d) {
    off += q % view[d] * strides[d];
    q /= view[d];
  }
  return off;
}

// a's rows, contiguous (adj_x: transposed here), then b packed per batch.
void before_run(const BoundAnchor& a, const float* const* inputs) {
  const AnchorStep& s = a.step;
  const MatMul& mm = mat_mul(a);
  const bool adj_x = params(s).adj_x, adj_y = params(s).adj_y;
  const int64_t m = mm.m, k = a.k;
  const float* input = inputs[0];
  a.rows.resize(mm.batches * m);
  if (adj_x) {
    for (int64_t q = 0; q < mm.batches; ++q)
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j < m; ++j) mm.a_transposed[(q * m + j) * k + i] = input[(q * k + i) * m + j];
    input = mm.a_transposed.data();
  }
  const Shape &va = mm.view[0], &sa = mm.view_strides[0], &vb = mm.view[1], &sb = mm.view_strides[1];
  const size_t ra = va.size(), rb = vb.size();
  for (int64_t q = 0; q < mm.batches; ++q) {  // a's rows: k contiguous (the fold keeps a's last axis)
    const float* base = adj_x ? input + q * m * k : input + batch_offset(va, sa, q);
    const int64_t row_stride = adj_x ? k : sa[ra - 2];
    for (int64_t i = 0; i < m; ++i) a.rows[q * m + i] = base + i * row_stride;
  }
  for (size_t q = 0; q < mm.packed.size(); ++q)  // b [k, n] or (adj_y) [n, k], through its strides
    pack_weights_into(inputs[1] + batch_offset(vb, sb, static_cast<int64_t>(q)), adj_y ? sb[rb - 2] : sb[rb - 1],
                      adj_y ? sb[rb - 1] : sb[rb - 2], nullptr, static_cast<int>(a.n), static_cast<int>(k),
                      s.gemm->nr, true, &mm.packed[q]);
}

void run(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  const AnchorStep& s = a.step;
  const MatMul& mm = mat_mul(a);
  for (int64_t r = first; r < first + count;) {  // a batch at a time: each has its own b
    const int64_t q = r / mm.m, end = std::min(first + count, (q + 1) * mm.m);
    gemm(*s.gemm, mm.packed[mm.b_shared ? 0 : q], static_cast<int>(end - r), 1, a.rows.data() + r,
         out + (r - first) * a.n, a.n, s.lo, s.hi);
    r = end;
  }
}

int64_t depth(const BoundAnchor& a) { return a.k; }

std::string describe(const AnchorStep& s) {
  const std::string adj = s.params->describe();  // "adj_x, adj_y", each where set
  std::string t = describe_folds(s) + (adj.empty() ? "" : adj + ", ");
  for (int i = 0; i < 2; ++i)
    if (!perm(s, i).empty()) t += std::string(i ? "b" : "a") + " transposed in place, ";
  return t + s.gemm->name;
}

}  // namespace

extern const AnchorOpDef kBatchMatMulAnchor = {
    "BatchMatMul", /*clamps=*/false, make, bind, before_run, run, /*run_tile=*/nullptr,
    depth, describe, /*run_panels=*/nullptr, /*panels=*/nullptr,
};

}  // namespace fd
