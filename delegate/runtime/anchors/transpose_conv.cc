// TRANSPOSE_CONV: NHWC input, filter [n, kh, kw, c], output of TFLite's
// constant output_shape (ops/transpose_conv.h). Each output phase pair is a stride-1 convolution
// with its own subset of the taps (ops/transpose_conv_geometry.h), so no
// multiply-add is wasted and nothing is scattered: its weights are packed for
// the GEMM like a convolution's, and its pixels along one output row (stride_w
// apart) are the rows of one GEMM call, reading the input in place through
// indirection rows. Bias and activation come with the GEMM, after the whole
// sum; an epilogue then runs on the tile.
#include <algorithm>

#include "ir/shape.h"
#include "ops/transpose_conv.h"
#include "ops/transpose_conv_geometry.h"
#include "runtime/anchors/anchor_op.h"

namespace fd {
namespace {

// Made: the weights of each output phase pair, ry * stride_w + rx, each packed
// for the GEMM like a convolution's; the phases no filter tap reaches share one
// of zeros (their bias alone).
struct Phases : StepState {
  std::vector<std::shared_ptr<const PackedWeights>> weights;
};

// Bound: where the input's pixels spread (BoundAnchor::offsets: transpose_conv_offsets).
struct Spread : BoundState {
  TransposeConvGeometry geo;
  std::vector<int64_t> row_phase_starts;  // per output row and W phase, its first row
};

const Phases& phases(const AnchorStep& s) { return static_cast<const Phases&>(*s.state); }
const Spread& spread(const BoundAnchor& a) { return static_cast<const Spread&>(*a.state); }

// Weights [n, taps, c] of phase pair (ry, rx), tap jy * tx + jx being filter tap
// (ry + jy * stride_h, rx + jx * stride_w), packed with the bias; a phase no tap
// reaches gets one tap of zeros.
PackedWeights pack_phase(const float* w, const float* bias, const AnchorStep& a, int c, int ry, int rx) {
  const int ty = phase_taps(a.kh, a.conv.stride_h, ry), tx = phase_taps(a.kw, a.conv.stride_w, rx);
  const int taps = phase_pair_taps(a.kh, a.kw, a.conv.stride_h, a.conv.stride_w, ry, rx);
  std::vector<float> phase(static_cast<size_t>(a.n) * taps * c, 0.f);
  for (int o = 0; o < a.n; ++o)
    for (int jy = 0; jy < ty; ++jy)
      for (int jx = 0; jx < tx; ++jx) {
        const int ky = ry + jy * a.conv.stride_h, kx = rx + jx * a.conv.stride_w;
        const float* tap = w + ((static_cast<size_t>(o) * a.kh + ky) * a.kw + kx) * c;
        std::copy(tap, tap + c, phase.data() + (static_cast<size_t>(o) * taps + jy * tx + jx) * c);
      }
  return pack_weights(phase.data(), bias, a.n, taps * c, a.gemm->nr, true);
}

void make(const Graph& g, const Node& node, const Kernels& kernels, const AnchorFolds& folds, AnchorStep& a) {
  const Tensor& w = g.tensors[node.inputs[1]];  // [n, kh, kw, c]
  const AnchorWeights weights(g, node, folds, false, a);
  const float* bias = weights.bias();
  a.n = static_cast<int>(w.shape[0]);
  a.kh = static_cast<int>(w.shape[1]);
  a.kw = static_cast<int>(w.shape[2]);
  a.gemm = &gemm_for(kernels, a.n);
  const int c = static_cast<int>(w.shape[3]);
  auto pack = [&](int ry, int rx) {
    return std::make_shared<const PackedWeights>(pack_phase(weights.floats(), bias, a, c, ry, rx));
  };
  std::shared_ptr<const PackedWeights> bias_only;  // shared by the phases no tap reaches
  auto made = std::make_shared<Phases>();
  for (int ry = 0; ry < a.conv.stride_h; ++ry)
    for (int rx = 0; rx < a.conv.stride_w; ++rx) {
      const bool reached = phase_taps(a.kh, a.conv.stride_h, ry) * phase_taps(a.kw, a.conv.stride_w, rx) > 0;
      if (!reached && !bias_only) bias_only = pack(ry, rx);
      made->weights.push_back(reached ? pack(ry, rx) : bias_only);
    }
  a.state = std::move(made);
}

bool bind(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  const AnchorStep& s = b.step;
  const Shape& out = params_as<TransposeConvParams>(s.params).output_shape;
  const auto geo = transpose_conv_geometry(inputs[0], s.kh, s.kw, s.conv, out, error);
  if (!geo) return false;
  if (geo->taps(0, 0) * geo->channels != phases(s).weights.front()->k || out[3] != s.n) {
    *error = "input " + fd::to_string(inputs[0]) + " and output " + fd::to_string(out) +
             " do not fit the transposed convolution's filter";
    return false;
  }
  auto bound = std::make_shared<Spread>();
  bound->geo = *geo;
  b.output = out;
  b.offsets = transpose_conv_offsets(bound->geo, &bound->row_phase_starts);
  b.zero_row.assign(geo->channels, 0.f);
  b.state = std::move(bound);
  return true;
}

void point_rows(const BoundAnchor& a, const float* const* inputs) {
  if (a.rows_for == inputs[0] && !a.rows.empty()) return;
  a.rows_for = inputs[0];
  a.rows.resize(a.offsets.size());
  for (size_t i = 0; i < a.offsets.size(); ++i)
    a.rows[i] = a.offsets[i] >= 0 ? inputs[0] + a.offsets[i] : a.zero_row.data();
}

// Pixels [x0, x1) of output row `row` (image * out_h + oy) into out: per phase
// along W, its pixels there (stride_w apart) are the rows of one GEMM.
void run_row(const BoundAnchor& a, int64_t row, int64_t x0, int64_t x1, float* out) {
  const TransposeConvGeometry& g = spread(a).geo;
  const int sw = g.stride_w, ry = g.row_phase(row % g.out_h);
  for (int rx = 0; rx < sw; ++rx) {
    const int64_t first = first_column(g, rx);
    const int64_t skipped = x0 > first ? (x0 - first + sw - 1) / sw : 0;  // the phase's pixels before x0
    const int64_t ox = first + skipped * sw;
    if (ox >= x1) continue;
    const int taps = g.taps(ry, rx);
    const float* const* rows = a.rows.data() + spread(a).row_phase_starts[row * sw + rx] + skipped * taps;
    gemm(*a.step.gemm, *phases(a.step).weights[ry * sw + rx], static_cast<int>((x1 - 1 - ox) / sw + 1), taps, rows,
         out + (ox - x0) * a.n, static_cast<size_t>(sw) * a.n, a.step.lo, a.step.hi);
  }
}

void run(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  const int64_t width = spread(a).geo.out_w;
  for (int64_t p = first, end = first + count; p < end;) {
    const int64_t x0 = p % width, x1 = std::min(width, x0 + end - p);
    run_row(a, p / width, x0, x1, out + (p - first) * a.n);
    p += x1 - x0;
  }
}

int64_t depth(const BoundAnchor& a) {
  const TransposeConvGeometry& g = spread(a).geo;
  return std::max<int64_t>(1, g.kh * g.kw * g.channels / g.phases());
}

std::string describe(const AnchorStep& s) { return describe_window(s) + std::to_string(s.n) + " ch, " + s.gemm->name; }

}  // namespace

extern const AnchorOpDef kTransposeConvAnchor = {
    "TransposeConv", /*clamps=*/true, make, bind, point_rows, run, /*run_tile=*/nullptr,
    depth, describe, /*run_panels=*/nullptr, /*panels=*/nullptr,
};

}  // namespace fd
