// Readers of the row ops: BATCH_MATMUL, SOFTMAX, the views RESHAPE,
// EXPAND_DIMS, SQUEEZE and TRANSPOSE, and the reductions MEAN, SUM,
// REDUCE_MAX and REDUCE_MIN.
#include <algorithm>

#include "frontends/tflite/tflite_translate.h"
#include "ops/batch_matmul.h"
#include "ops/pool.h"
#include "ops/reshape.h"
#include "ops/row_reduce.h"
#include "ops/shape_rules.h"
#include "ops/softmax.h"
#include "ops/transpose.h"

namespace fd {
namespace {

// A tensor's signature (none: the shape it has).
const TfLiteIntArray* signature(const TfLiteOp& op, int t) {
  const TfLiteTensor* x = op.tensor(t);
  if (!x) return nullptr;
  return x->dims_signature && x->dims_signature->size > 0 ? x->dims_signature : x->dims;
}

// A BATCH_MATMUL whose batch axes line up only at the sizes they have now: the
// anchor takes batch axes that are equal, or a right-hand side that is one
// matrix for every batch; with an axis that may change (-1 in a signature),
// that must hold at every size (an open axis against a fixed 1, or a right-hand
// side of 1s beside an open axis, broadcasts after a resize). True if it may not.
bool batch_axes_broadcast_later(const TfLiteOp& op, const Node& n) {
  const TfLiteIntArray* a = signature(op, n.inputs[0]);
  const TfLiteIntArray* b = signature(op, n.inputs[1]);
  if (!a || !b || a->size < 2 || b->size < 2) return false;
  auto axis = [](const TfLiteIntArray* s, int i) { return i < s->size ? s->data[s->size - 1 - i] : 1; };
  bool same = true, b_shared = true, open = false;
  for (int i = 2; i < std::max(a->size, b->size); ++i) {
    const int da = axis(a, i), db = axis(b, i);
    same = same && da == db;
    b_shared = b_shared && db == 1;
    open = open || da == -1 || db == -1;
  }
  return open && !same && !b_shared;
}

bool read_batch_matmul(const TfLiteOp& op, Node* n) {
  const auto* p = static_cast<const TfLiteBatchMatMulParams*>(op.params);
  if (!p || n->inputs.size() != 2) return false;
  if (batch_axes_broadcast_later(op, *n)) return op.leave("batch axes that broadcast only at run time");
  set_anchor(n, AnchorOp::kBatchMatMul);
  n->params = batch_matmul_params(p->adj_x, p->adj_y);
  return true;
}

bool read_softmax(const TfLiteOp& op, Node* n) {
  if (!op.params) return false;
  set_anchor(n, AnchorOp::kSoftmax);
  n->params = softmax_params(static_cast<const TfLiteSoftmaxParams*>(op.params)->beta);
  return true;
}

// A RESHAPE to a shape computed at run time: its output's signature, if that
// leaves one axis open (inferred from the input's size) and fixes the others
// above 0. The runtime checks the computed shape against it at every run.
bool signature_dims(const TfLiteOp& op, Node* n) {
  const TfLiteTensor* out = n->outputs.size() == 1 ? op.tensor(n->outputs[0]) : nullptr;
  const TfLiteIntArray* sig = out ? out->dims_signature : nullptr;
  if (!sig || sig->size < 1 || std::count(sig->data, sig->data + sig->size, -1) != 1 ||
      std::count_if(sig->data, sig->data + sig->size, [](int d) { return d == 0 || d < -1; }) > 0)
    return false;
  n->params = reshape_params(std::vector<int64_t>(sig->data, sig->data + sig->size));
  n->shape_input = n->inputs[1];
  return true;
}

// RESHAPE's new shape as TFLite's kernel takes it: its second input where that
// is an int32 vector (constant, or computed: signature_dims), else the shape
// of its parameters ([0] in old models: a scalar).
bool read_reshape(const TfLiteOp& op, Node* n) {
  if (n->inputs.size() == 2 && n->inputs[1] < 0) return false;  // a shape input absent: as any absent input
  set_anchor(n, AnchorOp::kReshape);
  const TfLiteTensor* shape = n->inputs.size() == 2 ? op.tensor(n->inputs[1]) : nullptr;
  std::vector<int64_t> dims;
  if (shape && shape->type == kTfLiteInt32 && shape->dims && shape->dims->size == 1) {
    if (op.ints(n->inputs[1], &dims)) n->params = reshape_params(std::move(dims));
    else if (!signature_dims(op, n)) return op.leave("a shape computed at run time whose signature leaves not one axis open");
  } else if (const auto* p = static_cast<const TfLiteReshapeParams*>(op.params)) {
    if (p->num_dimensions < 0 || p->num_dimensions > 8) return false;
    const bool scalar = p->num_dimensions == 1 && p->shape[0] == 0;
    n->params = reshape_params(std::vector<int64_t>(p->shape, p->shape + (scalar ? 0 : p->num_dimensions)));
  } else {
    return false;
  }
  n->inputs.resize(1);
  return true;
}

// EXPAND_DIMS: its axis, a constant int32 or int64 tensor of one value.
bool read_expand_dims(const TfLiteOp& op, Node* n) {
  std::vector<int64_t> axis;
  if (n->inputs.size() != 2 || !take_ints(op, n, 1, &axis) || axis.size() != 1)
    return op.leave("an axis computed at run time");
  set_anchor(n, AnchorOp::kExpandDims);
  n->params = expand_dims_params(axis[0]);
  return true;
}

// SQUEEZE: the axes it drops (none: every axis of size 1, decided at each run).
bool read_squeeze(const TfLiteOp& op, Node* n) {
  const auto* p = static_cast<const TfLiteSqueezeParams*>(op.params);
  if (!p || p->num_squeeze_dims < 0 || p->num_squeeze_dims > 8 || n->inputs.size() != 1) return false;
  set_anchor(n, AnchorOp::kSqueeze);
  n->params = squeeze_params(std::vector<int64_t>(p->squeeze_dims, p->squeeze_dims + p->num_squeeze_dims));
  return true;
}

bool read_transpose(const TfLiteOp& op, Node* n) {
  std::vector<int64_t> perm;
  if (n->inputs.size() != 2 || !take_ints(op, n, 1, &perm)) return op.leave("a permutation computed at run time");
  set_anchor(n, AnchorOp::kTranspose);
  n->params = transpose_params(std::move(perm));
  return true;
}

// MEAN, SUM, REDUCE_MAX, REDUCE_MIN over the last axis only (a constant int32
// axis rank - 1, or -1): a row reduction; MEAN also over exactly H and W of a
// 4-D tensor (axes 1 and 2, in any order or negative). The node keeps its data input.
bool read_reduce(const TfLiteOp& op, Node* n) {
  std::vector<int64_t> axes;
  const TfLiteTensor* a = n->inputs.size() == 2 ? op.tensor(n->inputs[1]) : nullptr;
  if (!a || a->type != kTfLiteInt32 || !take_ints(op, n, 1, &axes)) return op.leave("axes computed at run time");
  const bool keep_dims = op.params && static_cast<const TfLiteReducerParams*>(op.params)->keep_dims;
  const Reduce reduce = op.code == kTfLiteBuiltinSum         ? Reduce::kSum
                        : op.code == kTfLiteBuiltinReduceMax ? Reduce::kMax
                        : op.code == kTfLiteBuiltinReduceMin ? Reduce::kMin
                                                             : Reduce::kMean;
  const int rank = op.rank(n->inputs[0]);
  if (axes.size() == 1 && rank >= 1 && (axes[0] == rank - 1 || axes[0] == -1)) {
    set_anchor(n, AnchorOp::kRowReduce);
    n->params = row_reduce_params(reduce, static_cast<int>(axes[0]), keep_dims);
    return true;
  }
  std::vector<int> spatial;
  for (int64_t x : axes) spatial.push_back(resolve_axis(x, 4));
  std::sort(spatial.begin(), spatial.end());
  spatial.erase(std::unique(spatial.begin(), spatial.end()), spatial.end());
  set_anchor(n, AnchorOp::kMean);
  n->params = mean_params(keep_dims);
  if (op.code == kTfLiteBuiltinMean && rank == 4 && spatial == std::vector<int>{1, 2}) return true;
  return op.leave("axes other than the last, or H and W of a MEAN");
}

constexpr TfLiteReaderRow kReaders[] = {
    {kTfLiteBuiltinBatchMatMul, read_batch_matmul},
    {kTfLiteBuiltinSoftmax, read_softmax},
    {kTfLiteBuiltinReshape, read_reshape},
    {kTfLiteBuiltinExpandDims, read_expand_dims},
    {kTfLiteBuiltinSqueeze, read_squeeze},
    {kTfLiteBuiltinTranspose, read_transpose},
    {kTfLiteBuiltinMean, read_reduce},
    {kTfLiteBuiltinSum, read_reduce},
    {kTfLiteBuiltinReduceMax, read_reduce},
    {kTfLiteBuiltinReduceMin, read_reduce},
};

}  // namespace

TfLiteReader row_op_reader(int code) { return find_reader(kReaders, code); }

}  // namespace fd
