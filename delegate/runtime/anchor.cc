#include "runtime/anchor.h"

#include <algorithm>
#include <cfloat>
#include <cstring>

#include "ops/op_classes.h"
#include "ops/shape_rules.h"
#include "ir/shape.h"

namespace fd {
namespace {

const char* anchor_name(AnchorOp op) {
  switch (op) {
    case AnchorOp::kFullyConnected: return "FullyConnected";
    case AnchorOp::kConv2D: return "Conv2D";
    case AnchorOp::kDepthwiseConv2D: return "DepthwiseConv2D";
    case AnchorOp::kMaxPool2D: return "MaxPool2D";
    case AnchorOp::kAveragePool2D: return "AveragePool2D";
    case AnchorOp::kMean: return "Mean";
    case AnchorOp::kPad: return "Pad";
    case AnchorOp::kBatchMatMul: return "BatchMatMul";
    case AnchorOp::kSoftmax: return "Softmax";
    case AnchorOp::kRowMean: return "RowMean";
    case AnchorOp::kReshape: return "Reshape";
    case AnchorOp::kTranspose: return "Transpose";
    case AnchorOp::kConcatenation: return "Concatenation";
  }
  return "?";
}

// Below this many input channels a convolution reads whole filter rows, not taps.
constexpr int64_t kMinChannelsInPlace = 16;

}  // namespace

std::string AnchorStep::to_string() const {
  std::string s = anchor_name(op);
  s += "[";
  if (op == AnchorOp::kMaxPool2D || op == AnchorOp::kAveragePool2D) {
    s += std::to_string(kh) + "x" + std::to_string(kw) + "/" + std::to_string(conv.stride_h) + ", ";
  } else if (op == AnchorOp::kConv2D || op == AnchorOp::kDepthwiseConv2D) {
    s += std::to_string(kh) + "x" + std::to_string(kw) + "/" + std::to_string(conv.stride_h) + ", " +
         std::to_string(n) + " ch, ";
  } else if (op == AnchorOp::kFullyConnected) {
    s += std::to_string(weights->n) + "x" + std::to_string(weights->k) + ", ";
  }
  if (pad.any())
    s += "pad " + std::to_string(pad.top) + "," + std::to_string(pad.bottom) + "," + std::to_string(pad.left) +
         "," + std::to_string(pad.right) + (op == AnchorOp::kPad ? "" : " folded") + ", ";
  if (scale_input) s += "input scaled per channel, ";
  if (!outside.empty()) s += "input map folded, ";
  if (op == AnchorOp::kBatchMatMul) s += std::string(adj_x ? "adj_x, " : "") + (adj_y ? "adj_y, " : "");
  for (int i = 0; i < 2; ++i)
    if (!operand_perm[i].empty()) s += std::string(i ? "b" : "a") + " transposed in place, ";
  if (op == AnchorOp::kSoftmax && beta != 1.f) s += "beta " + std::to_string(beta) + ", ";
  s += gemm ? gemm->name : is_pool(op) ? "pool" : dw ? dw->name : rows ? rows->name : "copy";
  return s + "]";
}

namespace {

// Weights [n, taps, c] and bias of a convolution reading source * scale + shift
// (per channel c) rewritten to read source: w * scale, and bias plus w * shift
// summed (in double).
void fold_affine(const Fold& f, const float* w, const float* bias, int n, int k, std::vector<float>* w_out,
                 std::vector<float>* bias_out) {
  const size_t c = f.scale.size();
  w_out->resize(static_cast<size_t>(n) * k);
  bias_out->resize(n);
  for (int o = 0; o < n; ++o) {
    double sum = bias ? bias[o] : 0.0;
    for (int i = 0; i < k; ++i) {
      const float v = w[static_cast<size_t>(o) * k + i];
      (*w_out)[static_cast<size_t>(o) * k + i] = v * f.scale[i % c];
      sum += static_cast<double>(v) * f.shift[i % c];
    }
    (*bias_out)[o] = static_cast<float>(sum);
  }
}

}  // namespace

AnchorStep make_anchor(const Graph& g, const Node& node, const FoldedPad& pad, const Kernels& kernels,
                       const Fold* affine) {
  AnchorStep a;
  a.op = node.kind == OpKind::kPad ? AnchorOp::kPad : node.anchor;
  a.pad = pad;
  a.conv = node.conv;
  a.keep_num_dims = node.keep_num_dims;
  // As TFLite's kernels: without activation (or at RELU's top) convolutions, FULLY_CONNECTED
  // and pools clamp to the float range, an overflow gives FLT_MAX, not inf; MEAN and
  // BATCH_MATMUL do not clamp. The kernels clamp anyway: no extra cost.
  const bool clamps = a.op == AnchorOp::kFullyConnected || a.op == AnchorOp::kConv2D ||
                      a.op == AnchorOp::kDepthwiseConv2D || a.op == AnchorOp::kMaxPool2D ||
                      a.op == AnchorOp::kAveragePool2D;
  const float range = clamps ? FLT_MAX : INFINITY;
  a.lo = node.act == Activation::kRelu || node.act == Activation::kRelu6 ? 0.f
         : node.act == Activation::kReluN1To1                             ? -1.f
                                                                           : -range;
  a.hi = node.act == Activation::kRelu6 ? 6.f : node.act == Activation::kReluN1To1 ? 1.f : range;
  a.beta = node.param;
  a.adj_x = node.adj_x;
  a.adj_y = node.adj_y;
  a.dims = node.dims;
  if (a.op == AnchorOp::kBatchMatMul) {  // packs its second operand on every run
    const Shape& out = g.tensors[node.outputs[0]].shape;
    a.gemm = out.empty() ? kernels.gemm : &gemm_for(kernels, static_cast<int>(std::max<int64_t>(1, out.back())));
  }
  a.axis = node.axis;
  if (a.op == AnchorOp::kSoftmax || a.op == AnchorOp::kRowMean) a.rows = kernels.rows;
  if (a.op == AnchorOp::kPad || a.op == AnchorOp::kConcatenation || is_row_op(a.op)) return a;
  if (a.op == AnchorOp::kMaxPool2D || a.op == AnchorOp::kAveragePool2D || a.op == AnchorOp::kMean) {
    a.kh = node.conv.window_h;  // MEAN: 0, the input's size, known when bound
    a.kw = node.conv.window_w;
    a.dw = kernels.dw;
    return a;
  }
  const Tensor& w = g.tensors[node.inputs[1]];
  const float* bias = node.inputs.size() > 2 ? g.tensors[node.inputs[2]].f32_data() : nullptr;
  const int n = static_cast<int>(a.op == AnchorOp::kDepthwiseConv2D ? w.shape.back() : w.shape[0]);
  const int k = static_cast<int>(num_elements(w.shape) / n);
  a.n = n;
  if (a.op != AnchorOp::kFullyConnected) {
    a.kh = static_cast<int>(w.shape[1]);
    a.kw = static_cast<int>(w.shape[2]);
  }
  if (a.op == AnchorOp::kDepthwiseConv2D) {  // [1, kh, kw, n]: channel c's tap t at t * n + c
    a.dw = kernels.dw;
    auto packed = std::make_shared<PackedWeights>();
    pack_weights_into(w.f32_data(), 1, n, bias, n, k, a.dw->cb, false, packed.get());
    a.weights = std::move(packed);
  } else {
    a.gemm = &gemm_for(kernels, n);
    const float* wd = w.f32_data();
    std::vector<float> folded_w, folded_bias;
    if (affine && a.op == AnchorOp::kConv2D) {
      fold_affine(*affine, w.f32_data(), bias, n, k, &folded_w, &folded_bias);
      wd = folded_w.data();
      bias = folded_bias.data();
      for (size_t c = 0; c < affine->scale.size(); ++c) a.outside.push_back(-affine->shift[c] / affine->scale[c]);
    }
    a.weights = std::make_shared<const PackedWeights>(pack_weights(wd, bias, n, k, a.gemm->nr, true));
  }
  return a;
}

namespace {

// The row ops: BATCH_MATMUL, SOFTMAX, last-axis MEAN, RESHAPE, TRANSPOSE.
bool bind_row_op(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  const AnchorStep& step = b.step;
  const Shape& in = inputs[0];
  std::optional<Shape> out;
  switch (step.op) {
    case AnchorOp::kBatchMatMul:
      for (int i = 0; i < 2; ++i) {  // each operand through its folded TRANSPOSE, if any
        const Shape dense = broadcast_strides(inputs[i], inputs[i]);
        const std::vector<int64_t>& perm = step.operand_perm[i];
        if (perm.empty()) {
          b.view[i] = inputs[i];
          b.view_strides[i] = dense;
          continue;
        }
        if (perm.size() != inputs[i].size()) break;
        b.view[i].clear();
        b.view_strides[i].clear();
        for (int64_t p : perm) {
          b.view[i].push_back(inputs[i][p]);
          b.view_strides[i].push_back(dense[p]);
        }
      }
      if (b.view[0].size() == in.size() && b.view[1].size() == inputs[1].size())
        out = batch_matmul_shape(b.view[0], b.view[1], step.adj_x, step.adj_y);
      if (out && !step.operand_perm[0].empty() && (step.adj_x || b.view_strides[0].back() != 1)) out.reset();
      if (out) {
        const size_t r = in.size();
        b.m = (*out)[r - 2];
        b.n = (*out)[r - 1];
        b.k = b.view[0][r - (step.adj_x ? 2 : 1)];
        b.batches = num_elements(*out) / std::max<int64_t>(1, b.m * b.n);
        b.b_shared = num_elements(inputs[1]) == b.k * b.n;
        b.packed.resize(b.b_shared ? 1 : b.batches);
        if (step.adj_x) b.a_transposed.resize(num_elements(in));
      }
      break;
    case AnchorOp::kSoftmax:
      if (!in.empty()) out = in;
      break;
    case AnchorOp::kRowMean:
      out = row_mean_shape(in, step.keep_num_dims);
      if (out) b.k = in.back();
      break;
    case AnchorOp::kReshape: out = reshape_shape(in, step.dims); break;
    case AnchorOp::kTranspose:
      out = transpose_shape(in, step.dims);
      if (out) {
        const Shape strides = broadcast_strides(in, in);
        for (int64_t p : step.dims) b.out_strides.push_back(strides[p]);
      }
      break;
    default: break;
  }
  if (!out) {
    *error = std::string(anchor_name(step.op)) + " does not fit its input " + fd::to_string(in) +
             (inputs.size() > 1 ? " and " + fd::to_string(inputs[1]) : "");
    return false;
  }
  b.output = *out;
  if (step.op == AnchorOp::kRowMean) b.n = 1;  // one value per input row
  else if (step.op != AnchorOp::kBatchMatMul) b.n = out->empty() ? 1 : out->back();
  return true;
}

}  // namespace

std::optional<BoundAnchor> bind_anchor(const AnchorStep& step, const std::vector<Shape>& inputs, std::string* error,
                                       bool* fold_broken) {
  BoundAnchor b;
  b.step = step;
  b.n = step.n;
  if (step.op == AnchorOp::kConcatenation) {
    if (!bind_concatenation(b, inputs, error)) return std::nullopt;
    return b;
  }
  if (is_row_op(step.op)) {
    if (!bind_row_op(b, inputs, error)) return std::nullopt;
    return b;
  }
  const Shape& input = inputs[0];
  if (step.scale_input) {  // one scale per input channel, the same for every row
    const Shape* s = inputs.size() == 2 ? &inputs[1] : nullptr;
    const bool fc_rows = step.op != AnchorOp::kFullyConnected || input.back() == step.weights->k;
    if (!s || input.empty() || s->empty() || s->back() != input.back() || num_elements(*s) != input.back() ||
        !fc_rows) {
      *error = "the input's scale must hold one value per channel of " + fd::to_string(input);
      if (fold_broken) *fold_broken = true;
      return std::nullopt;
    }
    b.scaled = *step.weights;  // sized once; refilled on every run
  }
  if (step.op == AnchorOp::kFullyConnected) {
    const auto out = fully_connected_shape(input, {step.weights->n, step.weights->k}, step.keep_num_dims);
    if (!out) {
      *error = "input " + fd::to_string(input) + " does not fit the fully connected weights";
      return std::nullopt;
    }
    b.output = *out;
    b.k = step.weights->k;
    return b;
  }
  const bool pad_only = step.op == AnchorOp::kPad, mean = step.op == AnchorOp::kMean;
  const bool pool = mean || step.op == AnchorOp::kMaxPool2D || step.op == AnchorOp::kAveragePool2D;
  if (mean && input.size() != 4) {
    *error = "MEAN input must be 4-D NHWC";
    return std::nullopt;
  }
  // MEAN is one VALID window over the whole image.
  const int kh = mean ? static_cast<int>(input[1]) : step.kh, kw = mean ? static_cast<int>(input[2]) : step.kw;
  const auto geo = conv_geometry(input, kh, kw, pad_only ? ConvParams{} : mean ? ConvParams{} : step.conv,
                                 step.pad, error);
  if (!geo) return std::nullopt;
  b.geo = *geo;
  const int64_t c = geo->channels;
  if (pad_only || pool) b.n = c;
  const bool fits = step.op == AnchorOp::kConv2D          ? c * geo->taps() == step.weights->k
                    : step.op == AnchorOp::kDepthwiseConv2D ? step.n % c == 0
                                                            : true;
  if (!fits) {
    *error = "input " + fd::to_string(input) + " does not fit the convolution filter";
    return std::nullopt;
  }
  b.output = {geo->batch, geo->out_h, geo->out_w, b.n};
  if (mean && !step.keep_num_dims) b.output = {geo->batch, b.n};
  b.offsets = conv_offsets(b.geo);
  b.filter_rows = step.op == AnchorOp::kConv2D && geo->taps() > 1 && c < kMinChannelsInPlace;
  // A max pool never takes a padding tap; an average counts only real pixels.
  b.zero_row.assign(c, step.op == AnchorOp::kMaxPool2D ? -INFINITY : 0.f);
  if (!step.outside.empty()) {
    if (static_cast<int64_t>(step.outside.size()) != c) {
      *error = "the folded input map has " + std::to_string(step.outside.size()) + " channels, the input " +
               std::to_string(c);
      return std::nullopt;
    }
    b.zero_row = step.outside;
  }
  if (step.op == AnchorOp::kAveragePool2D || mean) {
    const int taps = geo->taps();
    b.count.assign(geo->pixels(), static_cast<float>(taps));
    for (size_t i = 0; i < b.offsets.size(); ++i) b.count[i / taps] -= b.offsets[i] == kZeroRow;
  }
  b.pad_row.assign(c, step.pad.value);
  return b;
}

void BoundAnchor::before_run(const float* const* inputs) const {
  const float* input = inputs[0];
  if (step.scale_input) {
    const int64_t kc = step.op == AnchorOp::kFullyConnected ? k : geo.channels;
    scale_weights_into(*step.weights, inputs[1], static_cast<int>(kc), &scaled);
  }
  switch (step.op) {
    case AnchorOp::kBatchMatMul: {
      // a's rows, contiguous (adj_x: transposed here), then b packed per batch.
      const int64_t rows_total = batches * m;
      rows.resize(rows_total);
      if (step.adj_x) {
        for (int64_t q = 0; q < batches; ++q)
          for (int64_t i = 0; i < k; ++i)
            for (int64_t j = 0; j < m; ++j) a_transposed[(q * m + j) * k + i] = input[(q * k + i) * m + j];
        input = a_transposed.data();
      }
      // Batch q's offset in an operand, from its batch axes' strides.
      auto offset = [](const Shape& view, const Shape& strides, int64_t q) {
        int64_t off = 0;
        for (int d = static_cast<int>(view.size()) - 3; d >= 0; --d) {
          off += q % view[d] * strides[d];
          q /= view[d];
        }
        return off;
      };
      const Shape &va = view[0], &sa = view_strides[0], &vb = view[1], &sb = view_strides[1];
      const size_t ra = va.size(), rb = vb.size();
      for (int64_t q = 0; q < batches; ++q) {  // a's rows: k contiguous (the fold keeps a's last axis)
        const float* base = step.adj_x ? input + q * m * k : input + offset(va, sa, q);
        const int64_t row_stride = step.adj_x ? k : sa[ra - 2];
        for (int64_t i = 0; i < m; ++i) rows[q * m + i] = base + i * row_stride;
      }
      for (size_t q = 0; q < packed.size(); ++q)  // b [k, n] or (adj_y) [n, k], through its strides
        pack_weights_into(inputs[1] + offset(vb, sb, static_cast<int64_t>(q)), step.adj_y ? sb[rb - 2] : sb[rb - 1],
                          step.adj_y ? sb[rb - 1] : sb[rb - 2], nullptr, static_cast<int>(n), static_cast<int>(k),
                          step.gemm->nr, true, &packed[q]);
      return;
    }
    case AnchorOp::kSoftmax:
    case AnchorOp::kRowMean:
    case AnchorOp::kReshape:
    case AnchorOp::kTranspose: src = input; return;
    case AnchorOp::kConcatenation: parts.assign(inputs, inputs + slices.size()); return;
    default: break;
  }
  if (rows_for != input || rows.empty()) {
    rows_for = input;
    point_rows(input);
  }
  for (size_t r = 0; r < patch_taps.size(); ++r)  // filter rows cut by padding, copied afresh
    std::memcpy(patches.data() + r * geo.channels, patch_taps[r], geo.channels * sizeof(float));
}

void BoundAnchor::read_ring(int64_t ring) {
  geo.ring_rows = ring;
  offsets = conv_offsets(geo);
  rows.clear();
  rows_for = nullptr;
}

void BoundAnchor::point_rows(const float* input) const {
  const int64_t pixels = step.op == AnchorOp::kFullyConnected ? num_elements(output) / n : geo.pixels();
  rows.resize(static_cast<size_t>(pixels) * geo.taps());
  if (step.op == AnchorOp::kFullyConnected) {
    for (int64_t i = 0; i < pixels; ++i) rows[i] = input + i * k;
  } else {
    conv_indirection(geo, offsets, 0, pixels, input, zero_row.data(), pad_row.data(), rows.data());
  }
  if (filter_rows) to_filter_rows(pixels);
}

// A filter row (kw taps of kc floats) lying inside the input is one run of kw *
// kc floats: point at it in place. One cut by padding (or dilated) points at a
// patch that before_run refills on every run.
void BoundAnchor::to_filter_rows(int64_t pixels) const {
  const int kw = geo.kw;
  const int64_t kc = geo.channels, n_rows = pixels * geo.kh;
  patch_taps.clear();
  std::vector<int64_t> patched;  // filter rows pointing at a patch
  for (int64_t i = 0; i < n_rows; ++i) {
    const float* const* tap = rows.data() + i * kw;
    bool in_place = true;
    for (int j = 1; j < kw && in_place; ++j) in_place = tap[j] == tap[0] + j * kc;
    if (in_place) {
      rows[i] = tap[0];  // i <= i * kw: never overwrites a tap still to be read
      continue;
    }
    patched.push_back(i);
    patch_taps.insert(patch_taps.end(), tap, tap + kw);
    rows[i] = nullptr;
  }
  patches.resize(patch_taps.size() * kc);
  for (size_t r = 0; r < patched.size(); ++r) rows[patched[r]] = patches.data() + r * kw * kc;
  rows.resize(n_rows);
}

namespace {

// Output rows [first, first + count) of a TRANSPOSE: each row gathers n floats
// at its input stride.
void transpose_rows(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  const int r = static_cast<int>(a.output.size());
  const int64_t inner_stride = a.out_strides[r - 1];
  int64_t idx[kMaxRank] = {};
  for (int d = r - 2; d >= 0; --d) {  // the first row's output coordinates
    idx[d] = first % a.output[d];
    first /= a.output[d];
  }
  for (int64_t i = 0; i < count; ++i, out += a.n) {
    int64_t off = 0;
    for (int d = 0; d + 1 < r; ++d) off += idx[d] * a.out_strides[d];
    const float* in = a.src + off;
    if (inner_stride == 1) std::memcpy(out, in, a.n * sizeof(float));
    else
      for (int64_t j = 0; j < a.n; ++j) out[j] = in[j * inner_stride];
    for (int d = r - 2; d >= 0 && ++idx[d] == a.output[d]; --d) idx[d] = 0;
  }
}

}  // namespace

int64_t BoundAnchor::depth() const {
  switch (step.op) {
    case AnchorOp::kFullyConnected:
    case AnchorOp::kConv2D: return step.weights->k;
    case AnchorOp::kBatchMatMul:
    case AnchorOp::kRowMean: return k;
    case AnchorOp::kDepthwiseConv2D:
    case AnchorOp::kMaxPool2D:
    case AnchorOp::kAveragePool2D:
    case AnchorOp::kMean: return geo.taps();
    default: return 1;
  }
}

void run_row_op(const BoundAnchor& a, const float* in, int64_t rows, float* out) {
  const AnchorStep& s = a.step;
  if (s.op == AnchorOp::kSoftmax) s.rows->softmax(static_cast<int>(rows), static_cast<int>(a.n), in, out, s.beta);
  else s.rows->mean(static_cast<int>(rows), static_cast<int>(a.k), in, out);
}

int anchor_panels(const BoundAnchor& a) {
  const bool gemm = a.step.op == AnchorOp::kFullyConnected || a.step.op == AnchorOp::kConv2D;
  return gemm ? a.weights().panels() : 0;
}

void run_anchor_panels(const BoundAnchor& a, int64_t first, int64_t count, int first_panel, int last_panel,
                       float* out) {
  const int taps = a.row_taps();
  gemm(*a.step.gemm, a.weights(), static_cast<int>(count), taps, a.rows.data() + first * taps, out, a.n, a.step.lo,
       a.step.hi, first_panel, last_panel);
}

void run_anchor(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  const AnchorStep& s = a.step;
  const int taps = a.row_taps();
  const float* const* rows = a.rows.data() + first * taps;
  switch (s.op) {
    case AnchorOp::kFullyConnected:
    case AnchorOp::kConv2D: run_anchor_panels(a, first, count, 0, -1, out); break;
    case AnchorOp::kDepthwiseConv2D: {
      const int64_t c = a.geo.channels, m = a.n / c;
      thread_local std::vector<float> expanded_buffer;
      thread_local std::vector<const float*> expanded_row_buffer;
      std::vector<float>& expanded = expanded_buffer;
      std::vector<const float*>& expanded_rows = expanded_row_buffer;
      if (m > 1) {  // depth multiplier: output channel j reads input channel j / m
        const size_t n_rows = static_cast<size_t>(count) * taps;
        expanded.resize(n_rows * a.n);
        expanded_rows.resize(n_rows);
        for (size_t r = 0; r < n_rows; ++r) {
          float* e = expanded.data() + r * a.n;
          for (int64_t j = 0; j < a.n; ++j) e[j] = rows[r][j / m];
          expanded_rows[r] = e;
        }
        rows = expanded_rows.data();
      }
      const DwRowKernel by_row = a.geo.kh == a.geo.kw && a.geo.p.stride_w == 1 && a.geo.p.dilation_w == 1 && m == 1
                                     ? s.dw->row_for_taps(taps)
                                     : nullptr;
      if (by_row) {  // pieces of output rows; two whole rows of one image at once where the kernel can
        // Two rows share input rows only at vertical stride and dilation 1.
        const bool vertical_1 = a.geo.p.stride_h == 1 && a.geo.p.dilation_h == 1;
        const DwRow2Kernel by_two_rows = taps == 9 && vertical_1 ? s.dw->row2_3x3 : nullptr;
        const int64_t w = a.geo.out_w;
        for (int64_t p = first, end = first + count; p < end;) {
          if (by_two_rows && p % w == 0 && end - p >= 2 * w && (p / w) % a.geo.out_h + 1 < a.geo.out_h) {
            const int64_t i = p - first;
            by_two_rows(static_cast<int>(w), static_cast<int>(a.n), rows + i * taps, rows + (i + w) * taps,
                        s.weights->data.data(), out + i * a.n, out + (i + w) * a.n, s.lo, s.hi);
            p += 2 * w;
            continue;
          }
          const int64_t width = std::min(end - p, a.geo.out_w - p % a.geo.out_w);
          by_row(static_cast<int>(width), static_cast<int>(a.n), rows + (p - first) * taps, s.weights->data.data(),
                 out + (p - first) * a.n, s.lo, s.hi);
          p += width;
        }
        break;
      }
      s.dw->for_taps(taps)(static_cast<int>(count), static_cast<int>(a.n), taps, rows, s.weights->data.data(), out,
                           s.lo, s.hi);
      break;
    }
    case AnchorOp::kMaxPool2D:
    case AnchorOp::kAveragePool2D:
    case AnchorOp::kMean:
      s.dw->pool(static_cast<int>(count), static_cast<int>(a.n), taps, rows,
                 a.count.empty() ? nullptr : a.count.data() + first, out, s.lo, s.hi);
      break;
    case AnchorOp::kPad:
      for (int64_t i = 0; i < count; ++i) std::memcpy(out + i * a.n, rows[i], a.n * sizeof(float));
      break;
    case AnchorOp::kBatchMatMul:
      for (int64_t r = first; r < first + count;) {  // a batch at a time: each has its own b
        const int64_t q = r / a.m, end = std::min(first + count, (q + 1) * a.m);
        gemm(*s.gemm, a.packed[a.b_shared ? 0 : q], static_cast<int>(end - r), 1, a.rows.data() + r,
             out + (r - first) * a.n, a.n, s.lo, s.hi);
        r = end;
      }
      break;
    case AnchorOp::kSoftmax:
      s.rows->softmax(static_cast<int>(count), static_cast<int>(a.n), a.src + first * a.n, out, s.beta);
      break;
    case AnchorOp::kRowMean:
      s.rows->mean(static_cast<int>(count), static_cast<int>(a.k), a.src + first * a.k, out);
      break;
    case AnchorOp::kReshape: std::memcpy(out, a.src + first * a.n, count * a.n * sizeof(float)); break;
    case AnchorOp::kTranspose: transpose_rows(a, first, count, out); break;
    case AnchorOp::kConcatenation: run_concatenation(a, first, count, out); break;
  }
}

}  // namespace fd
