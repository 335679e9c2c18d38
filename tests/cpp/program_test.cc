// Fused programs against a naive node-by-node evaluation with broadcasting.
#include "runtime/program.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <deque>
#include <map>
#include <numeric>
#include <optional>
#include <random>

#include "kernels/cpu.h"
#include "ops/op_classes.h"
#include "runtime/constant_nodes.h"
#include "graph_builder.h"
#include "runtime/thread_pool.h"
#include "runtime/tiling.h"

namespace fd {
namespace {

using test::GraphBuilder;

double ref_op(EwOp op, double a, double b) {
  switch (op) {
    case EwOp::Add: return a + b;
    case EwOp::Sub: return a - b;
    case EwOp::Mul: return a * b;
    case EwOp::Div: return a / b;
    case EwOp::Maximum: return std::max(a, b);
    case EwOp::Tanh: return std::tanh(a);
    case EwOp::Logistic: return 1 / (1 + std::exp(-a));
    case EwOp::Exp: return std::exp(a);
    case EwOp::Abs: return std::fabs(a);
    case EwOp::Relu: return std::max(0.0, a);
    case EwOp::Relu6: return std::min(6.0, std::max(0.0, a));
    case EwOp::Pow: return std::pow(a, b);
    case EwOp::Prelu: return a >= 0 ? a : a * b;
    case EwOp::SquaredDifference: return (a - b) * (a - b);
    case EwOp::Rsqrt: return 1 / std::sqrt(a);
    case EwOp::Neg: return -a;
    case EwOp::Softplus: return std::log1p(std::exp(a));
    default: ADD_FAILURE() << "no reference for " << ew_name(op); return 0;
  }
}

// As TFLite's convolutions, FULLY_CONNECTED and pools: the result clamped to the float range.
float to_float_range(double acc) { return static_cast<float>(std::clamp<double>(acc, -FLT_MAX, FLT_MAX)); }

// PAD of an NHWC tensor: index maps written out per mode.
std::vector<float> naive_pad(const Node& node, const Shape& s, const std::vector<float>& x, const Shape& out) {
  const auto& n = params_as<PadParams>(node.params);
  auto src = [&](int64_t v, int64_t before, int64_t size, bool* constant) {
    int64_t i = v - before;
    if (i >= 0 && i < size) return i;
    if (n.mode == PadMode::kConstant) *constant = true;
    if (n.mode == PadMode::kReflect) i = i < 0 ? -i : 2 * size - 2 - i;
    if (n.mode == PadMode::kSymmetric) i = i < 0 ? -1 - i : 2 * size - 1 - i;
    return i;
  };
  std::vector<float> y(num_elements(out));
  for (int64_t b = 0; b < out[0]; ++b)
    for (int64_t h = 0; h < out[1]; ++h)
      for (int64_t w = 0; w < out[2]; ++w)
        for (int64_t c = 0; c < out[3]; ++c) {
          bool constant = false;
          const int64_t sh = src(h, n.pads[2], s[1], &constant), sw = src(w, n.pads[4], s[2], &constant);
          const int64_t sc = src(c, n.pads[6], s[3], &constant);
          y[((b * out[1] + h) * out[2] + w) * out[3] + c] =
              constant ? n.value : x[((b * s[1] + sh) * s[2] + sw) * s[3] + sc];
        }
  return y;
}

std::vector<int> naive_quantize_row(const float* x, int64_t k, double* scale, int* zero_point);

// Int8 weights (stored_as kI8): as TFLite's hybrid kernels read the input,
// each image quantized (naive_quantize_row), values less the zero point; else
// the floats. Per image its scale (1 for floats).
std::vector<double> naive_hybrid_input(const Tensor& f, const Shape& s, const std::vector<float>& x,
                                       std::vector<double>* scales) {
  std::vector<double> v(x.begin(), x.end());
  scales->assign(s[0], 1.0);
  if (f.stored_as != DType::kI8) return v;
  const int64_t image = s[1] * s[2] * s[3];
  for (int64_t b = 0; b < s[0]; ++b) {
    int zp = 0;
    const std::vector<int> q = naive_quantize_row(&x[b * image], image, &(*scales)[b], &zp);
    for (int64_t i = 0; i < image; ++i) v[b * image + i] = q[i] - zp;
  }
  return v;
}

// CONV_2D / DEPTHWISE_CONV_2D in double, straight from the definition; int8
// weights as TFLite's hybrid kernels (naive_hybrid_input; taps in padding add
// nothing), the int sums times both scales.
std::vector<float> naive_conv(const Graph& g, const Node& n, const Shape& s, const std::vector<float>& xf,
                              const Shape& out) {
  const Tensor& f = g.tensors[n.inputs[1]];
  std::vector<double> x_scale;
  const std::vector<double> x = naive_hybrid_input(f, s, xf, &x_scale);
  const int8_t* wq = f.stored_as == DType::kI8 ? f.data.float32_source()->i8_values() : nullptr;
  auto weight = [&](int64_t i) { return wq ? static_cast<double>(wq[i]) : static_cast<double>(f.f32_data()[i]); };
  const bool dw = n.anchor == AnchorOp::kDepthwiseConv2D;
  const int64_t kh = f.shape[1], kw = f.shape[2], ic = s[3], oc = out[3], mult = dw ? oc / ic : 1;
  auto pad_before = [&](int64_t in, int64_t o, int64_t k, int stride, int dil) {
    return window_of(n).same_padding ? std::max<int64_t>(0, (o - 1) * stride + (k - 1) * dil + 1 - in) / 2 : 0;
  };
  const int64_t pt = pad_before(s[1], out[1], kh, window_of(n).stride_h, window_of(n).dilation_h);
  const int64_t pl = pad_before(s[2], out[2], kw, window_of(n).stride_w, window_of(n).dilation_w);
  std::vector<float> y(num_elements(out));
  for (int64_t b = 0; b < out[0]; ++b)
    for (int64_t oy = 0; oy < out[1]; ++oy)
      for (int64_t ox = 0; ox < out[2]; ++ox)
        for (int64_t o = 0; o < oc; ++o) {
          double acc = 0.0;
          for (int64_t ky = 0; ky < kh; ++ky)
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t iy = oy * window_of(n).stride_h + ky * window_of(n).dilation_h - pt;
              const int64_t ix = ox * window_of(n).stride_w + kx * window_of(n).dilation_w - pl;
              if (iy < 0 || iy >= s[1] || ix < 0 || ix >= s[2]) continue;
              const double* px = &x[((b * s[1] + iy) * s[2] + ix) * ic];
              if (dw) acc += px[o / mult] * weight((ky * kw + kx) * oc + o);
              else
                for (int64_t i = 0; i < ic; ++i) acc += px[i] * weight(((o * kh + ky) * kw + kx) * ic + i);
            }
          if (wq) acc *= x_scale[b] * f.quantization.scales[f.quantization.per_axis() ? o : 0];
          acc += n.inputs.size() > 2 ? g.tensors[n.inputs[2]].f32_data()[o] : 0.0;
          if (n.act == Activation::kRelu6) acc = std::min(6.0, std::max(0.0, acc));
          if (n.act == Activation::kRelu) acc = std::max(0.0, acc);
          y[((b * out[1] + oy) * out[2] + ox) * oc + o] = to_float_range(acc);
        }
  return y;
}

// TRANSPOSE_CONV in double, scattered as TFLite's reference kernel does: input
// pixel (iy, ix) times tap (ky, kx) adds to output (iy * s - pad + ky, ...)
// where that is inside; the padding from the output's size; then bias and RELU.
std::vector<float> naive_transpose_conv(const Graph& g, const Node& n, const Shape& s, const std::vector<float>& x,
                                        const Shape& out) {
  const Tensor& f = g.tensors[n.inputs[1]];
  const int64_t kh = f.shape[1], kw = f.shape[2], ic = s[3], oc = out[3];
  auto pad = [&](int64_t o, int64_t k, int stride) {
    const int64_t in = window_of(n).same_padding ? (o + stride - 1) / stride : (o + stride - k) / stride;
    return std::max<int64_t>(0, (in - 1) * stride + k - o) / 2;
  };
  const int64_t pt = pad(out[1], kh, window_of(n).stride_h), pl = pad(out[2], kw, window_of(n).stride_w);
  std::vector<double> acc(num_elements(out), 0.0);
  for (int64_t b = 0; b < s[0]; ++b)
    for (int64_t iy = 0; iy < s[1]; ++iy)
      for (int64_t ix = 0; ix < s[2]; ++ix)
        for (int64_t ky = 0; ky < kh; ++ky)
          for (int64_t kx = 0; kx < kw; ++kx) {
            const int64_t oy = iy * window_of(n).stride_h - pt + ky, ox = ix * window_of(n).stride_w - pl + kx;
            if (oy < 0 || oy >= out[1] || ox < 0 || ox >= out[2]) continue;
            for (int64_t o = 0; o < oc; ++o)
              for (int64_t c = 0; c < ic; ++c)
                acc[((b * out[1] + oy) * out[2] + ox) * oc + o] +=
                    static_cast<double>(x[((b * s[1] + iy) * s[2] + ix) * ic + c]) *
                    f.f32_data()[((o * kh + ky) * kw + kx) * ic + c];
          }
  std::vector<float> y(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) {
    double v = acc[i] + (n.inputs.size() > 2 ? g.tensors[n.inputs[2]].f32_data()[i % oc] : 0.0);
    if (n.act == Activation::kRelu) v = std::max(0.0, v);
    y[i] = to_float_range(v);
  }
  return y;
}

// Pools and MEAN: windows clipped to the input, as TFLite defines them.
std::vector<float> naive_pool(const Node& n, const Shape& s, const std::vector<float>& x, const Shape& out) {
  const bool mean = n.anchor == AnchorOp::kMean;
  const int64_t kh = mean ? s[1] : window_of(n).window_h, kw = mean ? s[2] : window_of(n).window_w;
  const int64_t oh = mean ? 1 : out[1], ow = mean ? 1 : out[2];
  const int sh = mean ? 1 : window_of(n).stride_h, sw = mean ? 1 : window_of(n).stride_w;
  const bool same = !mean && window_of(n).same_padding;
  const int64_t pt = same ? std::max<int64_t>(0, (oh - 1) * sh + kh - s[1]) / 2 : 0;
  const int64_t pl = same ? std::max<int64_t>(0, (ow - 1) * sw + kw - s[2]) / 2 : 0;
  std::vector<float> y;
  for (int64_t b = 0; b < s[0]; ++b)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox)
        for (int64_t c = 0; c < s[3]; ++c) {
          double acc = n.anchor == AnchorOp::kMaxPool2D ? -INFINITY : 0.0;
          int count = 0;
          for (int64_t ky = 0; ky < kh; ++ky)
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t iy = oy * sh + ky - pt, ix = ox * sw + kx - pl;
              if (iy < 0 || iy >= s[1] || ix < 0 || ix >= s[2]) continue;
              const double v = x[((b * s[1] + iy) * s[2] + ix) * s[3] + c];
              acc = n.anchor == AnchorOp::kMaxPool2D ? std::max(acc, v) : acc + v;
              ++count;
            }
          if (n.anchor != AnchorOp::kMaxPool2D) acc /= count;
          if (n.act == Activation::kRelu6) acc = std::min(6.0, std::max(0.0, acc));
          y.push_back(mean ? static_cast<float>(acc) : to_float_range(acc));
        }
  return y;
}

// The resizes as TFLite's reference kernels define them: sample positions in
// float (input = (v + 0.5) * scale - 0.5 with half pixel centers, else v * scale),
// the interpolation in double.
std::vector<float> naive_resize(const Node& n, const Shape& s, const std::vector<float>& x, const Shape& out) {
  const auto& p = params_as<ResizeParams>(n.params);
  auto scale = [&](int64_t in, int64_t o) {
    return p.align_corners && o > 1 ? static_cast<float>(in - 1) / static_cast<float>(o - 1)
                                    : static_cast<float>(in) / static_cast<float>(o);
  };
  const bool bilinear = n.anchor == AnchorOp::kResizeBilinear;
  auto position = [&](int64_t v, int64_t in, int64_t o) {  // {lo, hi, weight of hi}
    const float sc = scale(in, o), off = p.half_pixel_centers ? 0.5f : 0.f;
    if (!bilinear) {
      const float f = (static_cast<float>(v) + off) * sc;
      int64_t at = std::min<int64_t>(static_cast<int64_t>(p.align_corners ? std::round(f) : std::floor(f)), in - 1);
      if (p.half_pixel_centers) at = std::max<int64_t>(at, 0);
      return std::tuple<int64_t, int64_t, double>{at, at, 0.0};
    }
    const float f = (static_cast<float>(v) + off) * sc - off;
    const int64_t lo = std::max<int64_t>(static_cast<int64_t>(std::floor(f)), 0);
    return std::tuple<int64_t, int64_t, double>{lo, std::min<int64_t>(static_cast<int64_t>(std::ceil(f)), in - 1),
                                                f - static_cast<double>(lo)};
  };
  std::vector<float> y;
  for (int64_t b = 0; b < s[0]; ++b)
    for (int64_t oy = 0; oy < out[1]; ++oy)
      for (int64_t ox = 0; ox < out[2]; ++ox) {
        const auto [y0, y1, fy] = position(oy, s[1], out[1]);
        const auto [x0, x1, fx] = position(ox, s[2], out[2]);
        auto at = [&](int64_t iy, int64_t ix, int64_t c) { return static_cast<double>(x[((b * s[1] + iy) * s[2] + ix) * s[3] + c]); };
        for (int64_t c = 0; c < s[3]; ++c)
          y.push_back(static_cast<float>(at(y0, x0, c) * (1 - fy) * (1 - fx) + at(y1, x0, c) * fy * (1 - fx) +
                                         at(y0, x1, c) * (1 - fy) * fx + at(y1, x1, c) * fy * fx));
      }
  return y;
}

// BATCH_MATMUL, SOFTMAX, last-axis MEAN, RESHAPE, TRANSPOSE in double, from their definitions.
std::vector<float> naive_row_op(const Graph& g, const Node& n, const std::map<int, std::vector<float>>& values) {
  const Shape& s = g.tensors[n.inputs[0]].shape;
  const Shape& out = g.tensors[n.outputs[0]].shape;
  const auto& x = values.at(n.inputs[0]);
  std::vector<float> y(num_elements(out));
  const int64_t last = s.back(), rows = num_elements(s) / last;
  switch (n.anchor) {
    case AnchorOp::kBatchMatMul: {
      const Shape& bs = g.tensors[n.inputs[1]].shape;
      const auto& bv = values.at(n.inputs[1]);
      const size_t r = s.size();
      const auto& p = params_as<BatchMatMulParams>(n.params);
      const int64_t m = out[r - 2], nn = out[r - 1], k = p.adj_x ? s[r - 2] : s[r - 1];
      const int64_t batches = num_elements(out) / (m * nn), b_batches = num_elements(bs) / (k * nn);
      for (int64_t q = 0; q < batches; ++q)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < nn; ++j) {
            double acc = 0;
            const float* a = x.data() + q * m * k;
            const float* b = bv.data() + (b_batches == 1 ? 0 : q) * k * nn;
            for (int64_t l = 0; l < k; ++l)
              acc += static_cast<double>(p.adj_x ? a[l * m + i] : a[i * k + l]) * (p.adj_y ? b[j * k + l] : b[l * nn + j]);
            y[(q * m + i) * nn + j] = static_cast<float>(acc);
          }
      break;
    }
    case AnchorOp::kSoftmax: {
      const float beta = params_as<SoftmaxParams>(n.params).beta;
      for (int64_t i = 0; i < rows; ++i) {
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < last; ++j) mx = std::max<double>(mx, x[i * last + j]);
        for (int64_t j = 0; j < last; ++j) sum += std::exp(beta * (x[i * last + j] - mx));
        for (int64_t j = 0; j < last; ++j) y[i * last + j] = static_cast<float>(std::exp(beta * (x[i * last + j] - mx)) / sum);
      }
      break;
    }
    case AnchorOp::kRowReduce:
      for (int64_t i = 0; i < rows; ++i) {
        double sum = 0, mx = -INFINITY, mn = INFINITY;
        for (int64_t j = 0; j < last; ++j) {
          sum += x[i * last + j];
          mx = std::max<double>(mx, x[i * last + j]);
          mn = std::min<double>(mn, x[i * last + j]);
        }
        const double v[] = {sum / last, sum, mx, mn};  // by Reduce
        y[i] = static_cast<float>(v[static_cast<int>(params_as<RowReduceParams>(n.params).reduce)]);
      }
      break;
    case AnchorOp::kReshape:
    case AnchorOp::kExpandDims:
    case AnchorOp::kSqueeze: y = x; break;
    case AnchorOp::kTranspose: {
      const Shape in_strides = broadcast_strides(s, s);
      for (int64_t i = 0; i < num_elements(out); ++i) {
        int64_t rem = i, off = 0;
        for (int d = static_cast<int>(out.size()) - 1; d >= 0; --d) {
          off += rem % out[d] * in_strides[params_as<TransposeParams>(n.params).perm[d]];
          rem /= out[d];
        }
        y[i] = x[off];
      }
      break;
    }
    default: ADD_FAILURE() << "not a row op";
  }
  return y;
}

// Evaluates every node one by one, materialising each tensor.
// Row x of k values quantized as TFLite's AsymmetricQuantizeFloats does (its
// formula by hand, the range subtracted in float): q[i] = round(x[i] / scale) +
// zero_point, in [-128, 127].
std::vector<int> naive_quantize_row(const float* x, int64_t k, double* scale, int* zero_point) {
  float lo = 0.f, hi = 0.f;
  for (int64_t i = 0; i < k; ++i) lo = std::min(lo, x[i]), hi = std::max(hi, x[i]);
  std::vector<int> q(k, 0);
  *scale = 1.0;
  *zero_point = 0;
  if (lo == hi) return q;
  const double s = static_cast<double>(hi - lo) / 255.0;
  const double zp = 128.0 + std::fabs(lo / s) < 127.0 + std::fabs(hi / s) ? -128.0 - lo / s : 127.0 - hi / s;
  *zero_point = zp <= -128.0 ? -128 : zp >= 127.0 ? 127 : static_cast<int>(std::round(zp));
  const float scale_f = static_cast<float>(s), inv = static_cast<float>(1.0 / scale_f);
  for (int64_t i = 0; i < k; ++i) {
    q[i] = std::min(127, std::max(-128, static_cast<int>(std::round(x[i] * inv)) + *zero_point));
  }
  *scale = scale_f;
  return q;
}

// FULLY_CONNECTED in double; with int8 weights as TFLite's hybrid kernel: each
// input row quantized (above), the int8 product scaled by both scales.
std::vector<float> naive_fully_connected(const Graph& g, const Node& n, const std::vector<float>& x) {
  const Tensor& w = g.tensors[n.inputs[1]];
  const int64_t nn = w.shape[0], k = w.shape[1], m = static_cast<int64_t>(x.size()) / k;
  const int8_t* wq = w.stored_as == DType::kI8 ? w.data.float32_source()->i8_values() : nullptr;
  std::vector<float> out(m * nn);
  for (int64_t i = 0; i < m; ++i) {
    double x_scale = 1.0;
    int zp = 0;
    const std::vector<int> xq = wq ? naive_quantize_row(&x[i * k], k, &x_scale, &zp) : std::vector<int>();
    for (int64_t j = 0; j < nn; ++j) {
      double acc = 0.0;
      for (int64_t p = 0; p < k; ++p)
        acc += wq ? static_cast<double>(xq[p] - zp) * wq[j * k + p]
                  : static_cast<double>(x[i * k + p]) * w.f32_data()[j * k + p];
      if (wq) acc *= x_scale * w.quantization.scales[w.quantization.per_axis() ? j : 0];
      acc += n.inputs.size() > 2 ? g.tensors[n.inputs[2]].f32_data()[j] : 0.0;
      if (n.act == Activation::kRelu6) acc = std::min(6.0, std::max(0.0, acc));
      if (n.act == Activation::kRelu) acc = std::max(0.0, acc);
      out[i * nn + j] = to_float_range(acc);
    }
  }
  return out;
}

std::map<int, std::vector<float>> naive(const Graph& g, std::map<int, std::vector<float>> values) {
  for (const Node& n : g.nodes) {
    const Shape& in_shape = g.tensors[n.inputs[0]].shape;
    const Shape& out_shape = g.tensors[n.outputs[0]].shape;
    if (n.kind == OpKind::kPad) {
      values[n.outputs[0]] = naive_pad(n, in_shape, values.at(n.inputs[0]), out_shape);
      continue;
    }
    if (n.kind == OpKind::kAnchor && is_row_op(n.anchor)) {
      values[n.outputs[0]] = naive_row_op(g, n, values);
      continue;
    }
    if (n.kind == OpKind::kAnchor && (n.anchor == AnchorOp::kResizeBilinear || n.anchor == AnchorOp::kResizeNearest)) {
      values[n.outputs[0]] = naive_resize(n, in_shape, values.at(n.inputs[0]), out_shape);
      continue;
    }
    if (n.kind == OpKind::kAnchor && n.anchor == AnchorOp::kTransposeConv) {
      values[n.outputs[0]] = naive_transpose_conv(g, n, in_shape, values.at(n.inputs[0]), out_shape);
      continue;
    }
    if (n.kind == OpKind::kAnchor && is_pool(n.anchor)) {
      values[n.outputs[0]] = naive_pool(n, in_shape, values.at(n.inputs[0]), out_shape);
      continue;
    }
    if (n.kind == OpKind::kAnchor && n.anchor != AnchorOp::kFullyConnected) {
      values[n.outputs[0]] = naive_conv(g, n, in_shape, values.at(n.inputs[0]), out_shape);
      continue;
    }
    if (n.kind == OpKind::kAnchor) {
      values[n.outputs[0]] = naive_fully_connected(g, n, values.at(n.inputs[0]));
      continue;
    }
    const Shape& out = g.tensors[n.outputs[0]].shape;
    std::vector<Shape> strides;
    for (int t : n.inputs) strides.push_back(broadcast_strides(g.tensors[t].shape, out));
    std::vector<float> result(num_elements(out));
    for (int64_t i = 0; i < num_elements(out); ++i) {
      double arg[2] = {0, 0};
      int64_t rem = i;
      std::vector<int64_t> off(n.inputs.size(), 0);
      for (int d = static_cast<int>(out.size()) - 1; d >= 0; --d) {
        const int64_t idx = rem % out[d];
        rem /= out[d];
        for (size_t k = 0; k < off.size(); ++k) off[k] += idx * strides[k][d];
      }
      for (size_t k = 0; k < n.inputs.size(); ++k) arg[k] = values.at(n.inputs[k])[off[k]];
      result[i] = static_cast<float>(ref_op(n.ew, arg[0], arg[1]));
    }
    values[n.outputs[0]] = result;
  }
  return values;
}

struct Case {
  GraphBuilder b;
  std::map<int, std::vector<float>> inputs;
  std::deque<std::vector<float>> constants;
  std::optional<std::vector<Fold>> folds;  // set: these instead of the planner's
  std::vector<Fold> folds_to_use() const { return folds ? *folds : test::planned_folds(b.g); }
  // A constant tensor of values in [lo, hi] (also given to the naive run).
  int constant(Shape s, float lo, float hi) {
    std::mt19937 rng(static_cast<uint32_t>(constants.size() + 77));
    std::uniform_real_distribution<float> u(lo, hi);
    constants.emplace_back(num_elements(s));
    for (float& x : constants.back()) x = u(rng);
    const int t = b.tensor(s, true, constants.back().data());
    inputs[t] = constants.back();
    return t;
  }
  int input(Shape s, float lo = -2.f, float hi = 2.f) {
    const int t = b.tensor(s);
    std::mt19937 rng(t);
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> v(num_elements(s));
    for (float& x : v) x = u(rng);
    inputs[t] = v;
    return t;
  }
  // Fuses all nodes, writes `written` tensors, compares with the naive run.
  void check(const std::vector<int>& written_tensors, ThreadPool* pool = nullptr, double tol = 2e-6) {
    std::vector<int> group(b.g.nodes.size());
    for (size_t i = 0; i < group.size(); ++i) group[i] = static_cast<int>(i);
    std::vector<bool> written(b.g.tensors.size(), false);
    for (int t : written_tensors) written[t] = true;
    const Program p = build_program(b.g, group, folds_to_use(), written, *kernels_for("scalar"));
    std::vector<Shape> shapes;
    std::vector<const float*> in;
    for (int t : p.inputs) {
      shapes.push_back(b.g.tensors[t].shape);
      in.push_back(inputs.at(t).data());
    }
    const auto want = naive(b.g, inputs);
    for (const auto& isa : available_isas()) {
      // Weights are packed for one kernel: rebuild the program per ISA.
      const Program pi = build_program(b.g, group, folds_to_use(), written, *kernels_for(isa));
      std::string error;
      auto bound = BoundProgram::bind(pi, shapes, *kernels_for(isa)->ew, &error);
      ASSERT_TRUE(bound) << error;
      std::vector<std::vector<float>> outs;
      std::vector<float*> out;
      for (size_t o = 0; o < p.outputs.size(); ++o) {
        ASSERT_EQ(bound->output_shapes()[o], b.g.tensors[p.outputs[o]].shape);
        outs.emplace_back(num_elements(bound->output_shapes()[o]), NAN);
      }
      for (auto& o : outs) out.push_back(o.data());
      // First a run on other values in the same buffers: what a run caches
      // (indirection, copied patches, packed operands) must follow the data.
      const auto saved = inputs;
      for (int t : p.inputs)
        for (float& v : inputs.at(t)) v = 0.5f - v;
      bound->run(in.data(), out.data(), pool);
      for (int t : p.inputs) std::copy(saved.at(t).begin(), saved.at(t).end(), inputs.at(t).begin());
      bound->run(in.data(), out.data(), pool);
      for (size_t o = 0; o < pi.outputs.size(); ++o) {
        const auto& w = want.at(p.outputs[o]);
        for (size_t i = 0; i < w.size(); ++i)
          ASSERT_NEAR(outs[o][i], w[i], tol * std::max(1.f, std::fabs(w[i])))
              << isa << " output " << o << " element " << i << " tile " << bound->tile();
      }
    }
  }
};

TEST(Program, BroadcastingOfEveryKind) {
  Case c;
  const Shape d = {2, 3, 5, 7};
  const int x = c.input(d), a = c.input({1, 1, 1, 7}), b = c.input({2, 1, 5, 1}), s = c.input({}),
            v7 = c.input({7}), col = c.input({3, 1, 1});
  int t = c.b.ew(EwOp::Mul, {x, a}, d);
  t = c.b.ew(EwOp::Add, {t, b}, d);
  const int keep = c.b.ew(EwOp::Tanh, {t}, d);
  t = c.b.ew(EwOp::Sub, {s, keep}, d);
  t = c.b.ew(EwOp::Maximum, {v7, t}, d);
  t = c.b.ew(EwOp::Div, {t, c.input({2, 3, 5, 7}, 1.f, 2.f)}, d);
  t = c.b.ew(EwOp::Add, {t, col}, d);
  c.check({keep, t});
}

TEST(Program, RowBroadcastAcrossManyTilesAndThreads) {
  Case c;
  const Shape d = {1, 300, 96};
  const int t = c.b.ew(EwOp::Mul, {c.input(d), c.input({96})}, d);
  const int u = c.b.ew(EwOp::Relu6, {c.b.ew(EwOp::Add, {t, c.input({1, 300, 1})}, d)}, d);
  ThreadPool pool(2);
  c.check({u}, &pool);
}

// PRELU's alpha per channel ([1, 1, C], as Keras' shared_axes=[1, 2] gives it)
// and per element, in a chain with a residual, over tiles and threads.
TEST(Program, PreluWithPerChannelAndFullAlpha) {
  Case c;
  const Shape d = {2, 9, 11, 13};
  const int x = c.input(d);
  int t = c.b.ew(EwOp::Prelu, {c.b.ew(EwOp::Mul, {x, c.input({13})}, d), c.constant({1, 1, 13}, -0.5f, 0.5f)}, d);
  t = c.b.ew(EwOp::Add, {t, x}, d);
  t = c.b.ew(EwOp::Prelu, {t, c.input(d)}, d);
  ThreadPool pool(2);
  c.check({c.b.ew(EwOp::Tanh, {t}, d)}, &pool);
}

TEST(Program, LargePrimeSizeWithScalarAndThreads) {
  Case c;
  const Shape d = {100003};
  const int t = c.b.ew(EwOp::Exp, {c.b.ew(EwOp::Mul, {c.input(d), c.input({1})}, d)}, d);
  ThreadPool pool(2);
  c.check({c.b.ew(EwOp::Abs, {t}, d)}, &pool);
}

TEST(Program, ValuesOfDifferentShapesAskForNodeByNode) {
  GraphBuilder b;
  const int small = b.ew(EwOp::Exp, {b.tensor({1, 1, 1, 7})}, {1, 1, 1, 7});
  const int big = b.ew(EwOp::Mul, {small, b.tensor({2, 3, 5, 7})}, {2, 3, 5, 7});
  std::vector<bool> written(b.g.tensors.size(), false);
  written[small] = written[big] = true;
  const Program p = build_program(b.g, {0, 1}, test::planned_folds(b.g), written, *kernels_for("scalar"));
  std::string error;
  bool mixed = false;
  EXPECT_FALSE(BoundProgram::bind(p, {{1, 1, 1, 7}, {2, 3, 5, 7}}, ew_table_scalar(), &error, &mixed));
  EXPECT_TRUE(mixed) << error;
}

// A value read twice by the instruction where it dies must give its buffer back
// once: a shared buffer would let two live values overwrite each other.
TEST(Program, AValueReadTwiceWhereItDies) {
  Case c;
  const Shape d = {3000};
  const int a = c.b.ew(EwOp::Exp, {c.input(d)}, d);
  const int twice = c.b.ew(EwOp::Add, {a, a}, d);
  c.check({c.b.ew(EwOp::Mul, {twice, c.b.ew(EwOp::Tanh, {twice}, d)}, d)});
}

TEST(Program, AnFmaReadingOneValueTwice) {
  Case c;
  const Shape d = {3000};
  const int a = c.b.ew(EwOp::Tanh, {c.input(d)}, d);
  const int fma = c.b.ew(EwOp::Add, {c.b.ew(EwOp::Mul, {a, c.input(d)}, d), a}, d);  // a*y + a
  c.check({c.b.ew(EwOp::Mul, {fma, c.b.ew(EwOp::Exp, {fma}, d)}, d)});
}

TEST(Program, ZeroSizeRunsNothing) {
  Case c;
  const int t = c.b.ew(EwOp::Abs, {c.b.ew(EwOp::Exp, {c.input({0, 4})}, {0, 4})}, {0, 4});
  c.check({t});
}

TEST(Program, FullyConnectedWithAnEpilogueOnEveryIsa) {
  for (bool keep : {false, true}) {
    Case c;
    static std::vector<float> w, bias;
    w.resize(45 * 20);
    bias.resize(45);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-0.5f, 0.5f);
    for (float& v : w) v = u(rng);
    for (float& v : bias) v = u(rng);
    // 37 rows: not a multiple of any micro-kernel's rows; 45 columns: not of any panel.
    const Shape in_shape = keep ? Shape{1, 37, 20} : Shape{37, 20};
    const Shape out_shape = keep ? Shape{1, 37, 45} : Shape{37, 45};
    const int y = c.b.fc(c.input(in_shape), w.data(), bias.data(), 45, 20, out_shape, Activation::kRelu6, keep);
    const int z = c.b.ew(EwOp::Tanh, {c.b.ew(EwOp::Mul, {y, c.input({45})}, out_shape)}, out_shape);
    ThreadPool pool(2);
    c.check({z}, &pool, 1e-5);
  }
}

// Values of one layout but different ranks: each output keeps its own shape,
// whichever value comes last (the domain then takes the highest rank).
TEST(Program, AFullyConnectedOutputAndItsResidualOfAnotherRank) {
  for (bool low_rank_last : {false, true}) {
    Case c;
    const int x = c.input({1, 37, 20});
    const int y = c.b.fc(x, test::random_weights(45 * 20, 7), test::random_weights(45, 8), 45, 20, {37, 45});
    const int z = c.b.ew(EwOp::Add, {c.input({1, 37, 45}), y}, {1, 37, 45});
    if (low_rank_last) c.check({z, c.b.ew(EwOp::Tanh, {y}, {37, 45})}, nullptr, 1e-5);
    else c.check({y, z}, nullptr, 1e-5);
  }
}

// Enough work to share between two threads, too few rows to share: the
// GEMM's columns are shared instead. And 49 rows, fewer than a few blocks of
// any micro-kernel's rows per thread: cut between single rows.
TEST(Program, ShortGemmsShareTheirColumnsOrSingleRows) {
  for (const Shape& rows : {Shape{1, 1500}, Shape{3, 1500}, Shape{49, 1500}}) {
    Case c;
    const Shape out = {rows[0], 200};
    // Small inputs: the sums stay where tanh is not flat.
    const int y = c.b.fc(c.input(rows, -0.02f, 0.02f), test::random_weights(200 * 1500, 5),
                         test::random_weights(200, 6), 200, 1500, out, Activation::kNone, false);
    const int z = c.b.ew(EwOp::Tanh, {c.b.ew(EwOp::Mul, {y, c.input({200})}, out)}, out);
    ThreadPool pool(2);
    c.check({z}, &pool, 1e-5);
  }
}

// 1.2 MB of weights (beyond what stays in L2): 150 rows tile as two GEMM row
// blocks of 84 and 66 rows, the epilogue on each.
TEST(Program, WeightsBeyondL2TileByGemmRowBlocks) {
  Case c;
  const Shape out = {150, 500};
  const int y = c.b.fc(c.input({150, 600}, -0.05f, 0.05f), test::random_weights(500 * 600, 9),
                       test::random_weights(500, 10), 500, 600, out, Activation::kRelu6, false);
  ThreadPool pool(2);
  c.check({c.b.ew(EwOp::Tanh, {y}, out)}, &pool, 1e-5);
}

using test::random_weights;

// Int8 weights [n, k] in [-127, 127], kept alive for the whole test.
const int8_t* random_int8_weights(size_t n, uint32_t seed) {
  static std::deque<std::vector<int8_t>> keep;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> u(-127, 127);
  keep.emplace_back(n);
  for (int8_t& v : keep.back()) v = static_cast<int8_t>(u(rng));
  return keep.back().data();
}

// A FULLY_CONNECTED of int8 weights (per output channel or per tensor) runs as
// TFLite's hybrid kernel: rows quantized, an int8 GEMM, scaled back; with its
// bias, RELU or an output map folded into its scales, on every ISA; 37 rows
// shared between threads, or 2 rows whose columns are shared; 200 long rows
// quantized in blocks (at most 256 KiB of them at a time).
TEST(Program, AFullyConnectedOfInt8WeightsRunsAsTheHybridKernel) {
  for (bool per_channel : {true, false})
    for (bool map : {false, true})
      for (int64_t rows : {37, 2, 200}) {
        Case c;
        const int64_t n = 45, k = rows == 37 ? 37 : 1500;  // k = 37: not a multiple of 4
        const Shape out = {rows, n};
        const int y = c.b.fc(c.input({rows, k}), random_weights(n * k, 13), map ? nullptr : random_weights(n, 14), n,
                             k, out, map ? Activation::kNone : Activation::kRelu);
        c.b.g.nodes[0].params = fully_connected_params(false, true);
        Quantization q{per_channel ? std::vector<float>(n) : std::vector<float>{0.004f}, {}, per_channel ? 0 : -1};
        for (size_t j = 0; j < q.scales.size(); ++j) q.scales[j] = 0.001f * (j % 7 + 1);
        q.zero_points.assign(q.scales.size(), 0);
        c.b.int8_weights(c.b.g.nodes[0].inputs[1], random_int8_weights(n * k, 15), q);
        int z = y;
        if (map) z = c.b.ew(EwOp::Relu, {c.b.ew(EwOp::Add, {c.b.ew(EwOp::Mul, {y, c.constant({n}, -2.f, 2.f)}, out),
                                                            c.constant({n}, -1.f, 1.f)}, out)}, out);
        std::vector<int> group(c.b.g.nodes.size());
        std::iota(group.begin(), group.end(), 0);
        std::vector<bool> written(c.b.g.tensors.size(), false);
        written[z] = true;
        const Program p = build_program(c.b.g, group, test::planned_folds(c.b.g), written, *kernels_for("scalar"));
        EXPECT_NE(p.to_string().find("qd8_gemm"), std::string::npos) << p.to_string();
        ThreadPool pool(2);
        c.check({z}, &pool, 1e-5);
      }
}


ConvParams conv_params(int stride, int dilation, bool same) {
  ConvParams p;
  p.stride_h = p.stride_w = stride;
  p.dilation_h = p.dilation_w = dilation;
  p.same_padding = same;
  return p;
}

// Output size along one axis, as TFLite computes it.
int64_t out_size(int64_t in, int64_t k, int stride, int dilation, bool same) {
  const int64_t span = (k - 1) * dilation + 1;
  return same ? (in + stride - 1) / stride : (in - span) / stride + 1;
}

// CONV_2D and DEPTHWISE_CONV_2D of int8 weights (a scale per output channel)
// run as TFLite's hybrid kernels: each image quantized once, windows of its
// quantized values (padding adds nothing), the int sums scaled back, bias,
// RELU. 1x1 read in place (16 channels) or gathered (6), 3x3 and 5x5 at
// strides 1 and 2, SAME and VALID, two images (one input all positive: zero
// point -128); two threads share the pixels.
TEST(Program, ConvolutionsOfInt8WeightsRunAsTheHybridKernels) {
  struct T {
    AnchorOp op;
    int k, stride;
    bool same;
    int64_t ic, oc;
    float lo;
  };
  const AnchorOp conv = AnchorOp::kConv2D, dw = AnchorOp::kDepthwiseConv2D;
  const T tests[] = {{conv, 1, 1, false, 16, 24, -2.f}, {conv, 1, 1, false, 6, 10, 0.f},
                     {conv, 3, 1, true, 8, 20, -2.f},   {conv, 3, 2, true, 5, 12, -2.f},
                     {conv, 5, 2, false, 4, 9, 0.5f},   {dw, 3, 1, true, 20, 20, -2.f},
                     {dw, 3, 2, true, 12, 12, 0.f},     {dw, 5, 1, false, 8, 8, -2.f}};
  for (const T& t : tests) {
    Case c;
    const bool depthwise = t.op == dw;
    const ConvParams p = conv_params(t.stride, 1, t.same);
    const Shape out = {2, out_size(9, t.k, t.stride, 1, t.same), out_size(11, t.k, t.stride, 1, t.same), t.oc};
    const Shape filter = depthwise ? Shape{1, t.k, t.k, t.oc} : Shape{t.oc, t.k, t.k, t.ic};
    const int64_t size = num_elements(filter);
    const int y = c.b.conv(t.op, c.input({2, 9, 11, t.ic}, t.lo, 2.f), random_weights(size, 3), filter,
                           random_weights(t.oc, 4), p, out, Activation::kRelu);
    Quantization q{std::vector<float>(t.oc), std::vector<int64_t>(t.oc, 0), depthwise ? 3 : 0};
    for (int64_t j = 0; j < t.oc; ++j) q.scales[j] = 0.01f * (j % 5 + 1);
    c.b.int8_weights(c.b.g.nodes[0].inputs[1], random_int8_weights(size, 5), q);
    std::vector<bool> written(c.b.g.tensors.size(), false);
    written[y] = true;
    const Program prog = build_program(c.b.g, {0}, test::planned_folds(c.b.g), written, *kernels_for("scalar"));
    EXPECT_NE(prog.to_string().find("qd8_gemm"), std::string::npos) << prog.to_string();
    ThreadPool pool(2);
    c.check({y}, &pool, 1e-5);
  }
}

// Batch 0 (a resize to an empty batch): anchors with weights past
// tiling().streamed_weights_bytes (whose tile follows GEMM row blocks) and
// small ones bind, give empty outputs of the right shape, and run nothing.
TEST(Program, AnEmptyBatchBindsAndRunsNothing) {
  const int64_t streamed = static_cast<int64_t>(tiling().streamed_weights_bytes / (600 * sizeof(float))) + 16;
  for (int64_t n : {streamed, int64_t{8}}) {  // weights past L2, and 19 KB
    Case c;
    const int y = c.b.fc(c.input({0, 600}), test::random_weights(n * 600, 11), test::random_weights(n, 12), n, 600,
                         {0, n}, Activation::kNone, false);
    c.check({c.b.ew(EwOp::Tanh, {y}, {0, n})});
  }
  for (int64_t oc : {128, 8}) {  // 1.2 MB and 74 KB of weights
    Case c;
    const Shape out = {0, 7, 7, oc};
    const int y = c.b.conv(AnchorOp::kConv2D, c.input({0, 7, 7, 256}), test::random_weights(oc * 9 * 256, 13),
                           {oc, 3, 3, 256}, test::random_weights(oc, 14), conv_params(1, 1, true), out);
    ThreadPool pool(2);
    c.check({c.b.ew(EwOp::Add, {y, c.input({oc})}, out)}, &pool);
  }
}

TEST(Program, ConvolutionsWithEpiloguesOnEveryIsa) {
  struct C {
    int64_t h, w, ic, oc, k;
    int stride, dilation;
    bool same;
  };
  // Channel counts that fill no micro-kernel or block evenly, 1x1 and KxK,
  // strides, dilation, SAME and VALID.
  for (const C& t : {C{9, 11, 5, 37, 3, 1, 1, true}, C{10, 9, 16, 20, 3, 2, 1, true}, C{12, 12, 3, 8, 3, 2, 1, false},
                     C{8, 8, 7, 33, 1, 1, 1, false}, C{11, 10, 4, 6, 3, 1, 2, true}, C{7, 7, 2, 5, 5, 2, 1, true}}) {
    Case c;
    const Shape in_shape = {2, t.h, t.w, t.ic};
    const Shape out = {2, out_size(t.h, t.k, t.stride, t.dilation, t.same),
                       out_size(t.w, t.k, t.stride, t.dilation, t.same), t.oc};
    const int y = c.b.conv(AnchorOp::kConv2D, c.input(in_shape), random_weights(t.oc * t.k * t.k * t.ic, 1),
                           {t.oc, t.k, t.k, t.ic}, random_weights(t.oc, 2), conv_params(t.stride, t.dilation, t.same),
                           out, Activation::kRelu);
    const int z = c.b.ew(EwOp::Add, {c.b.ew(EwOp::Tanh, {y}, out), c.input(out)}, out);
    ThreadPool pool(2);
    c.check({z}, &pool, 1e-5);
  }
}

// 3x3 stride-1 convolutions of 16 channels or more run in Winograd form (2x2
// output tiles): odd sizes leave half tiles at the right and bottom, a single
// pixel is one tile, batch 2 puts tiles of two images in one run, 20 and 33
// channels leave partial vectors, 24 and 37 outputs a half panel. Dilated by
// d, a tile's pixels lie d apart: sizes not a multiple of 2 d leave tiles
// without their partner rows and columns.
TEST(Program, WinogradConvolutionsOnEveryIsa) {
  struct C {
    int64_t batch, h, w, ic, oc;
    bool same;
    int dilation;
  };
  for (const C& t : {C{1, 9, 11, 16, 37, true, 1}, C{2, 10, 7, 20, 24, false, 1}, C{1, 1, 1, 16, 16, true, 1},
                     C{2, 5, 6, 33, 16, true, 1}, C{1, 14, 14, 64, 64, true, 1},
                     C{1, 40, 40, 16, 16, true, 1},  // 400 tiles: passes of at most 128 (winograd_scratch_bytes)
                     C{1, 13, 11, 16, 24, true, 2}, C{2, 14, 17, 20, 16, false, 3}, C{1, 9, 9, 16, 16, true, 4}}) {
    Case c;
    const Shape out = {t.batch, out_size(t.h, 3, 1, t.dilation, t.same), out_size(t.w, 3, 1, t.dilation, t.same),
                       t.oc};
    const int y = c.b.conv(AnchorOp::kConv2D, c.input({t.batch, t.h, t.w, t.ic}),
                           random_weights(t.oc * 9 * t.ic, 7), {t.oc, 3, 3, t.ic}, random_weights(t.oc, 8),
                           conv_params(1, t.dilation, t.same), out, Activation::kRelu6);
    const int z = c.b.ew(EwOp::Add, {y, c.input(out)}, out);
    std::vector<bool> written(c.b.g.tensors.size(), false);
    written[z] = true;
    const Program p = build_program(c.b.g, {0, 1}, {}, written, *kernels_for("scalar"));
    EXPECT_NE(p.to_string().find("winograd"), std::string::npos) << p.to_string();
    ThreadPool pool(2);
    c.check({z}, &pool, 1e-5);
  }
}

// Weights of few nonzero groups (the converter's sparsity) run through the
// sparse GEMM with their epilogue: a strided 3x3 convolution (taps), a 3x3
// stride-1 one (sparse, not Winograd), a 1x1 one, a FULLY_CONNECTED; 2 threads.
TEST(Program, SparseWeightsRunThroughTheSparseGemm) {
  struct C {
    AnchorOp op;
    int k, stride, ic, oc;
  };
  for (const C& t : {C{AnchorOp::kConv2D, 3, 2, 64, 40}, C{AnchorOp::kConv2D, 3, 1, 32, 24},
                     C{AnchorOp::kConv2D, 1, 1, 40, 70}, C{AnchorOp::kFullyConnected, 1, 1, 100, 33}}) {
    Case c;
    const float* w = test::sparse_weights(t.oc, t.k * t.k * t.ic, 0.15, t.ic);
    int y;
    Shape out;
    if (t.op == AnchorOp::kFullyConnected) {
      out = {21, t.oc};
      y = c.b.fc(c.input({21, t.ic}), w, random_weights(t.oc, 1), t.oc, t.ic, out, Activation::kRelu);
    } else {
      out = {1, out_size(13, t.k, t.stride, 1, true), out_size(11, t.k, t.stride, 1, true), t.oc};
      y = c.b.conv(AnchorOp::kConv2D, c.input({1, 13, 11, t.ic}), w, {t.oc, t.k, t.k, t.ic}, random_weights(t.oc, 1),
                   conv_params(t.stride, 1, true), out, Activation::kRelu6);
    }
    const int z = c.b.ew(EwOp::Mul, {y, c.input({t.oc})}, out);
    std::vector<bool> written(c.b.g.tensors.size(), false);
    written[z] = true;
    const Program p = build_program(c.b.g, {0, 1}, {}, written, *kernels_for("scalar"));
    EXPECT_NE(p.to_string().find("spmm"), std::string::npos) << p.to_string();
    ThreadPool pool(2);
    c.check({z}, &pool, 1e-5);
  }
}

// Any range of output pixels, aligned to tiles or not, and any range of weight
// panels, gives the direct form's values, dilated or not.
TEST(Program, WinogradRowsAndPanelsOfAnyRange) {
  const Shape in = {2, 7, 9, 24}, out = {2, 7, 9, 40};
  std::vector<float> x(num_elements(in));
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (float& v : x) v = u(rng);
  const float* inputs[] = {x.data()};
  for (const int dilation : {1, 2}) {
    GraphBuilder b;
    const int y = b.conv(AnchorOp::kConv2D, b.tensor(in), random_weights(40 * 9 * 24, 9), {40, 3, 3, 24},
                         random_weights(40, 10), conv_params(1, dilation, true), out);
    const Node& node = b.g.nodes[0];
    ASSERT_EQ(node.outputs[0], y);
    for (const auto& isa : available_isas()) {
      Kernels direct_kernels = *kernels_for(isa);
      direct_kernels.winograd = nullptr;
      std::string error;
      auto wino = bind_anchor(make_anchor(b.g, node, {}, *kernels_for(isa)), {in}, &error);
      auto direct = bind_anchor(make_anchor(b.g, node, {}, direct_kernels), {in}, &error);
      ASSERT_TRUE(wino && direct) << error;
      const auto in_winograd_form = [](const BoundAnchor& a) {
        return a.step.to_string().find("winograd") != std::string::npos;
      };
      ASSERT_TRUE(in_winograd_form(*wino) && !in_winograd_form(*direct)) << wino->step.to_string();
      wino->before_run(inputs);
      direct->before_run(inputs);
      const int panels = anchor_panels(*wino);
      const std::vector<std::pair<int64_t, int64_t>> ranges = {{0, 126}, {5, 20}, {9, 1}, {62, 64}, {20, 31}};
      for (const auto& [first, count] : ranges) {
        for (const auto& [p0, p1] : std::vector<std::pair<int, int>>{{0, panels}, {1, panels}, {0, 1}}) {
          std::vector<float> want(count * 40, NAN), got(count * 40, NAN);
          run_anchor_panels(*direct, first, count, p0, p1, want.data());
          run_anchor_panels(*wino, first, count, p0, p1, got.data());
          const int nr = wino->step.gemm->nr;  // the Winograd form's panels are the GEMM's
          for (size_t i = 0; i < want.size(); ++i) {
            const int col = static_cast<int>(i % 40);
            if (col < p0 * nr || col >= p1 * nr) continue;  // not asked for
            ASSERT_NEAR(got[i], want[i], 1e-5 * std::max(1.f, std::fabs(want[i])))
                << isa << " dilation " << dilation << " pixels " << first << "+" << count << " panels " << p0
                << ".." << p1 << " at " << i;
          }
        }
      }
    }
  }
}

// A model's input normalisation, x * s + b per channel (MUL by a scalar, ADD
// and SUB of per-channel constants), folds into the CONV_2D after it: weights,
// bias, and the value its padding taps read. Few channels (rows of filter
// taps) and many, SAME and VALID, strides 1 and 2.
TEST(Program, AnInputNormalisationFoldsIntoTheConvolution) {
  struct C {
    int64_t ic, k;
    int stride;
    bool same;
  };
  for (const C& t : {C{3, 3, 2, true}, C{20, 3, 1, true}, C{5, 1, 1, false}, C{3, 5, 2, false}}) {
    Case c;
    const Shape in = {1, 11, 13, t.ic};
    const int x = c.input(in, 0.f, 255.f);
    int y = c.b.ew(EwOp::Mul, {x, c.constant({}, 0.004f, 0.008f)}, in);
    y = c.b.ew(EwOp::Add, {y, c.constant({t.ic}, -1.f, 1.f)}, in);
    y = c.b.ew(EwOp::Sub, {c.constant({1, 1, 1, t.ic}, 0.5f, 1.f), y}, in);
    const Shape out = {1, out_size(11, t.k, t.stride, 1, t.same), out_size(13, t.k, t.stride, 1, t.same), 16};
    const int z = c.b.conv(AnchorOp::kConv2D, y, random_weights(16 * t.k * t.k * t.ic, 3), {16, t.k, t.k, t.ic},
                           random_weights(16, 4), conv_params(t.stride, 1, t.same), out, Activation::kRelu6);
    std::vector<bool> written(c.b.g.tensors.size(), false);
    written[z] = true;
    const Program p = build_program(c.b.g, {0, 1, 2, 3}, test::planned_folds(c.b.g), written, *kernels_for("scalar"));
    ASSERT_EQ(p.inputs, std::vector<int>{x}) << p.to_string();  // the conv reads x: the chain folded
    ThreadPool pool(2);
    c.check({z}, &pool, 1e-5);
  }
}

// A batch norm's vector math on constants, as constant nodes: computed in
// order (each reads the one before), single values spread, leading ones
// ignored; values known at run time only make the results so too.
TEST(ConstantNodes, ElementwiseWeightMathIsComputedFromTheConstants) {
  static const float var[4] = {0.5f, 1.f, 2.f, 4.f}, eps[1] = {1e-3f}, gamma[4] = {1.f, -2.f, 3.f, 0.5f};
  GraphBuilder b;
  const int v = b.tensor({4}, true, var);
  b.g.tensors[v].values_at_run_time = true;
  const int plus = b.ew(EwOp::Add, {v, b.tensor({}, true, eps)}, {4});
  const int inv = b.ew(EwOp::Rsqrt, {plus}, {4});
  const int s = b.ew(EwOp::Mul, {inv, b.tensor({1, 4}, true, gamma)}, {4});
  for (Node& n : b.g.nodes) n.kind = OpKind::kConstant;
  EXPECT_TRUE(computes_constant(b.g, b.g.nodes[0]));
  EXPECT_FALSE(computes_constant(b.g, b.g.nodes[1]));  // its input has no values yet
  ASSERT_TRUE(compute_constant_nodes(&b.g));
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(b.g.tensors[s].f32_data()[i], gamma[i] / std::sqrt(var[i] + 1e-3), 1e-6);
  EXPECT_TRUE(b.g.tensors[s].is_constant && b.g.tensors[s].values_at_run_time);
  const int other = b.tensor({2, 2}, true, var);  // of another shape: not computable
  b.g.nodes[2].inputs[1] = other;
  EXPECT_FALSE(computes_constant(b.g, b.g.nodes[2]));
  b.g.tensors[inv].data = ConstantData();
  b.g.tensors[inv].is_constant = false;
  b.g.nodes[1].kind = OpKind::kElementwise;  // a producer that does not compute it
  EXPECT_FALSE(compute_constant_nodes(&b.g));
}

// A weighted anchor of output y, with act none, for the output-map tests.
int weighted_anchor(Case& c, AnchorOp op, bool bias, const Shape& out) {
  const int64_t oc = out.back();
  const float* b = bias ? random_weights(oc, 12) : nullptr;
  if (op == AnchorOp::kFullyConnected) return c.b.fc(c.input({out[0], 24}), random_weights(oc * 24, 11), b, oc, 24, out);
  const Shape in = {out[0], out[1], out[2], op == AnchorOp::kDepthwiseConv2D ? oc : 6};
  const Shape filter = op == AnchorOp::kDepthwiseConv2D ? Shape{1, 3, 3, oc} : Shape{oc, 3, 3, 6};
  if (op == AnchorOp::kTransposeConv)
    return c.b.transpose_conv(c.input(in), random_weights(oc * 54, 11), filter, b, conv_params(1, 1, true), out);
  return c.b.conv(op, c.input(in), random_weights(num_elements(filter), 11), filter, b, conv_params(1, 1, true), out);
}

// A batch norm after a weighted anchor (MUL, SUB, ADD by constants per output
// channel or scalar, then RELU6) folds into its weights, bias and clamp: the
// program is the anchor alone. Not when a value before the last is stored.
// A MUL that is a convolution's output map and is read by an ADD of a run-time
// value (a TF batch norm before a residual ADD): the map folds into the weights,
// so the ADD reads the anchor's value and is no FMA of the convolution's output.
TEST(Program, AMultiplyAddWhoseProductIsAnOutputMapReadsTheAnchor) {
  for (bool stored : {false, true}) {
    Case c;
    const Shape out = {1, 5, 6, 8};
    const int conv = c.b.conv(AnchorOp::kConv2D, c.input({1, 5, 6, 3}), random_weights(8 * 9 * 3, 5), {8, 3, 3, 3},
                              nullptr, conv_params(1, 1, true), out);
    const int scaled = c.b.ew(EwOp::Mul, {conv, c.constant({8}, 0.5f, 2.f)}, out);
    const int y = c.b.ew(EwOp::Add, {scaled, c.input(out)}, out);
    std::vector<FoldKind> kinds;
    for (const Fold& f : test::planned_folds(c.b.g)) kinds.push_back(f.kind);
    EXPECT_EQ(kinds, (std::vector<FoldKind>{FoldKind::kOutputAffine, FoldKind::kMultiplyAdd}));
    c.check(stored ? std::vector<int>{scaled, y} : std::vector<int>{y});
  }
}

TEST(Program, AnOutputMapFoldsIntoTheWeightedAnchor) {
  for (AnchorOp op : {AnchorOp::kConv2D, AnchorOp::kDepthwiseConv2D, AnchorOp::kFullyConnected,
                      AnchorOp::kTransposeConv})
    for (bool bias : {true, false})
      for (bool stored : {false, true}) {
        Case c;
        const Shape out = op == AnchorOp::kFullyConnected ? Shape{5, 37} : Shape{2, 7, 9, 37};
        const int a = weighted_anchor(c, op, bias, out);
        const int m = c.b.ew(EwOp::Mul, {a, c.constant({37}, 0.2f, 2.f)}, out);
        int y = c.b.ew(EwOp::Sub, {c.constant({1, 37}, -1.f, 1.f), m}, out);
        y = c.b.ew(EwOp::Add, {y, c.constant({}, -0.5f, 0.5f)}, out);
        y = c.b.ew(EwOp::Relu6, {y}, out);
        const std::vector<Fold> folds = test::planned_folds(c.b.g);
        ASSERT_EQ(folds.size(), 2u);  // the map, and its MUL into the SUB where the map is not taken in
        EXPECT_EQ(folds[0].kind, FoldKind::kOutputAffine);
        EXPECT_EQ(folds[1].kind, FoldKind::kMultiplyAdd);
        std::vector<bool> written(c.b.g.tensors.size(), false);
        written[y] = true;
        written[m] = stored;
        const Program p = build_program(c.b.g, {0, 1, 2, 3, 4}, folds, written, *kernels_for("scalar"));
        EXPECT_EQ(p.code.size() == 1, !stored) << p.to_string();
        ThreadPool pool(2);
        c.check(stored ? std::vector<int>{m, y} : std::vector<int>{y}, &pool, 1e-5);
      }
}

TEST(Program, DepthwiseWithEveryMultiplierOnEveryIsa) {
  // 3x3 and 5x5 run the kernels that keep the filter in registers, 4x4 the
  // general one; 13..39 channels leave partial blocks everywhere, 40..120 also
  // fill whole blocks and vector groups. Multiplier 3 over a batch of 2 (the
  // input widened image by image).
  for (int k : {3, 4, 5})
    for (int64_t ic : {13, 40})
      for (int mult : {1, 2, 3})
        for (int stride : {1, 2}) {
          Case c;
          const int64_t oc = ic * mult, batch = mult == 3 ? 2 : 1;
          const Shape in_shape = {batch, 11, 9, ic};
          const Shape out = {batch, out_size(11, k, stride, 1, true), out_size(9, k, stride, 1, true), oc};
          const int y = c.b.conv(AnchorOp::kDepthwiseConv2D, c.input(in_shape), random_weights(k * k * oc, 3),
                                 {1, k, k, oc}, random_weights(oc, 4), conv_params(stride, 1, true), out,
                                 Activation::kRelu6);
          c.check({c.b.ew(EwOp::Mul, {y, c.input({oc})}, out)}, nullptr, 1e-5);
        }
}

// Stride or dilation 1 along W but not along H (an OCR network's (2, 1)):
// the row kernels run, but output rows share no input rows.
TEST(Program, DepthwiseWithOnlyHorizontalStrideOne) {
  for (bool dilated : {false, true}) {
    Case c;
    ConvParams p = conv_params(1, 1, true);
    (dilated ? p.dilation_h : p.stride_h) = 2;
    const Shape in = {1, 12, 9, 16};
    const Shape out = {1, dilated ? 12 : 6, 9, 16};
    const int y = c.b.conv(AnchorOp::kDepthwiseConv2D, c.input(in), random_weights(9 * 16, 5), {1, 3, 3, 16},
                           random_weights(16, 6), p, out);
    c.check({y}, nullptr, 1e-5);
  }
}

// Up- and downsampling by whole and odd factors, every corner option, then an
// ADD of another input (a feature pyramid's upsample + add): one program.
TEST(Program, ResizesOfEveryKindOnEveryIsa) {
  struct Size { int64_t h, w, oh, ow; };
  for (AnchorOp op : {AnchorOp::kResizeBilinear, AnchorOp::kResizeNearest})
    for (Size sz : {Size{5, 4, 10, 8}, Size{7, 9, 3, 4}, Size{4, 6, 11, 13}, Size{1, 3, 2, 7}})
      for (auto [align, half] : {std::pair{false, false}, std::pair{true, false}, std::pair{false, true}}) {
        Case c;
        const Shape in = {2, sz.h, sz.w, 19}, out = {2, sz.oh, sz.ow, 19};
        const int y = c.b.resize(op, c.input(in), sz.oh, sz.ow, align, half, out);
        c.check({c.b.ew(EwOp::Add, {y, c.input(out)}, out)}, nullptr, 1e-5);
      }
}

// TRANSPOSE_CONV of every kind of stride against the scattered definition,
// with bias and RELU, then an ADD of another input: 2x2/2 (each input pixel
// its own 2x2 block), 3x3/2 SAME, stride 1, 4x4/2 VALID without bias, a stride
// above the filter (phases of the bias alone), strides (2, 1), outputs one
// below or above Keras' size, and an output wide enough that tiles and
// the threads' ranges end mid-row.
TEST(Program, TransposeConvolutionsOfEveryStrideOnEveryIsa) {
  struct C {
    int64_t h, w, ic, oc;
    int kh, kw, sh, sw;
    bool same, bias;
    int64_t trim_h = 0, trim_w = 0;  // the output this much below Keras' size (negative: above)
  };
  for (const C& t : {C{5, 7, 12, 16, 2, 2, 2, 2, true, true}, C{6, 5, 8, 16, 3, 3, 2, 2, true, true},
                     C{7, 9, 8, 6, 3, 3, 1, 1, true, true}, C{5, 6, 8, 10, 4, 4, 2, 2, false, false},
                     C{4, 5, 3, 5, 2, 2, 3, 3, true, true}, C{5, 7, 9, 37, 3, 3, 2, 1, true, true},
                     C{5, 5, 6, 7, 3, 3, 2, 2, true, true, 1, 1}, C{4, 6, 5, 9, 1, 1, 2, 2, false, true},
                     C{3, 4, 5, 7, 5, 3, 2, 2, false, true, -1, 0}, C{20, 23, 16, 40, 3, 3, 2, 2, true, true}}) {
    Case c;
    auto keras = [&](int64_t in, int k, int s) { return in * s + (t.same ? 0 : std::max(k - s, 0)); };
    const Shape in = {2, t.h, t.w, t.ic};
    const Shape out = {2, keras(t.h, t.kh, t.sh) - t.trim_h, keras(t.w, t.kw, t.sw) - t.trim_w, t.oc};
    ConvParams p;
    p.stride_h = t.sh;
    p.stride_w = t.sw;
    p.same_padding = t.same;
    const int y = c.b.transpose_conv(c.input(in), random_weights(t.oc * t.kh * t.kw * t.ic, 7),
                                     {t.oc, t.kh, t.kw, t.ic}, t.bias ? random_weights(t.oc, 8) : nullptr, p, out,
                                     Activation::kRelu);
    ThreadPool pool(2);
    c.check({c.b.ew(EwOp::Add, {y, c.input(out)}, out)}, &pool, 1e-5);
  }
}

// A squeeze-excite MUL folds into the weights of the convolution or fully
// connected layer it feeds; check() changes the scale between runs.
// MUL node `mul` (its input `side` the per-channel vector) folded into node `anchor`.
std::vector<Fold> channel_scale_fold(int mul, int anchor, int side) {
  Fold f;
  f.kind = FoldKind::kChannelScale;
  f.anchor = anchor;
  f.nodes = {mul};
  f.operand = side;
  return {f};
}

TEST(Program, AChannelScaleFoldsIntoTheWeightsOfItsReader) {
  struct C {
    int64_t ic, k;
  };
  for (const C& t : {C{24, 1}, C{5, 3}, C{40, 3}}) {  // 1x1, filter rows, taps
    Case c;
    const Shape in_shape = {1, 9, 8, t.ic}, out = {1, 9, 8, 19};
    const int x = c.input(in_shape), gate = c.input({1, 1, 1, t.ic}, 0.f, 1.f);
    const int scaled = c.b.ew(EwOp::Mul, t.k == 1 ? std::vector<int>{x, gate} : std::vector<int>{gate, x}, in_shape);
    const int y = c.b.conv(AnchorOp::kConv2D, scaled, random_weights(19 * t.k * t.k * t.ic, 6),
                           {19, t.k, t.k, t.ic}, random_weights(19, 7), conv_params(1, 1, true), out,
                           Activation::kRelu6);
    const int z = c.b.ew(EwOp::Add, {y, c.input(out)}, out);
    std::vector<bool> written(c.b.g.tensors.size(), false);
    written[z] = true;
    // The runtime folds what the plan says, also where the planner's policy
    // would not (weights larger than the input).
    c.folds = channel_scale_fold(0, 1, t.k == 1 ? 1 : 0);
    const Program p = build_program(c.b.g, {0, 1, 2}, *c.folds, written, *kernels_for("scalar"));
    ASSERT_EQ(p.anchors.size(), 1u);
    EXPECT_TRUE(p.anchors[0].scale_input);
    EXPECT_EQ(p.code.size(), 2u) << p.to_string();  // the anchor, the ADD: no MUL
    ThreadPool pool(2);
    c.check({z}, &pool, 1e-5);
  }
  Case c;
  const int scaled = c.b.ew(EwOp::Mul, {c.input({20}), c.input({7, 20})}, {7, 20});
  c.b.fc(scaled, random_weights(11 * 20, 8), nullptr, 11, 20, {7, 11}, Activation::kNone, false);
  c.folds = channel_scale_fold(0, 1, 0);
  c.check({c.b.g.nodes[1].outputs[0]}, nullptr, 1e-5);
}

// The channel-scale fold holds while the scale has one value per channel: at
// batch 1. Bound to a batch of several images (one scale each) it asks for the
// group node by node instead of failing; batch 1 still binds.
TEST(Program, AChannelScaleFoldPastBatchOneAsksForNodeByNode) {
  for (bool conv : {true, false}) {
    GraphBuilder b;
    const Shape x1 = conv ? Shape{1, 6, 6, 16} : Shape{1, 5, 16}, g1 = conv ? Shape{1, 1, 1, 16} : Shape{1, 1, 16};
    const int scaled = b.ew(EwOp::Mul, {b.tensor(x1), b.tensor(g1)}, x1);
    if (conv)
      b.conv(AnchorOp::kConv2D, scaled, random_weights(8 * 16, 21), {8, 1, 1, 16}, nullptr, conv_params(1, 1, false),
             {1, 6, 6, 8});
    else b.fc(scaled, random_weights(8 * 16, 21), nullptr, 8, 16, {1, 5, 8}, Activation::kNone, true);
    std::vector<bool> written(b.g.tensors.size(), false);
    written[b.g.nodes[1].outputs[0]] = true;
    // The gate (input 1 of the MUL) folded as the plan would say.
    const Program p = build_program(b.g, {0, 1}, channel_scale_fold(0, 1, 1), written, *kernels_for("scalar"));
    ASSERT_TRUE(p.anchors.size() == 1 && p.anchors[0].scale_input) << p.to_string();
    for (int64_t batch : {1, 2, 3, 0}) {
      Shape x = x1, g = g1;
      x[0] = g[0] = batch;
      std::string error;
      bool mixed = true;
      const bool bound = BoundProgram::bind(p, {x, g}, ew_table_scalar(), &error, &mixed) != nullptr;
      EXPECT_EQ(bound, batch == 1) << "batch " << batch << ": " << error;
      EXPECT_EQ(mixed, batch != 1) << "batch " << batch << ": " << error;
    }
  }
}

// Weights of magnitude 2e38-3e38, one sign per output (alternating), every
// third output small: inputs of one sign overflow every large sum, in any order.
const float* huge_weights(int64_t outputs, int64_t per_output, bool output_last) {
  static std::deque<std::vector<float>> keep;
  std::mt19937 rng(static_cast<uint32_t>(outputs * per_output));
  std::uniform_real_distribution<float> u(2e38f, 3e38f);
  keep.emplace_back(outputs * per_output);
  for (size_t i = 0; i < keep.back().size(); ++i) {
    const int64_t o = output_last ? i % outputs : i / per_output;
    keep.back()[i] = (o % 2 ? -1.f : 1.f) * (o % 3 == 2 ? 1e-38f : 1.f) * u(rng);
  }
  return keep.back().data();
}

// TFLite's CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and pools clamp to
// [-FLT_MAX, FLT_MAX] without activation and at RELU's top: an overflowing sum
// gives FLT_MAX, not inf, as the reference (in double, clamped) does.
TEST(Program, AnchorsClampOverflowToTheFloatRange) {
  for (Activation act : {Activation::kNone, Activation::kRelu}) {
    Case c;
    const Shape in = {1, 5, 6, 8}, out = {1, 5, 6, 12};
    c.check({c.b.conv(AnchorOp::kConv2D, c.input(in, 1.f, 2.f), huge_weights(12, 9 * 8, false), {12, 3, 3, 8},
                      random_weights(12, 31), conv_params(1, 1, true), out, act)});
  }
  Case dw;
  dw.check({dw.b.conv(AnchorOp::kDepthwiseConv2D, dw.input({1, 5, 6, 8}, 1.f, 2.f), huge_weights(8, 9, true),
                      {1, 3, 3, 8}, random_weights(8, 32), conv_params(1, 1, true), {1, 5, 6, 8})});
  for (Activation act : {Activation::kNone, Activation::kRelu}) {
    Case c;
    c.check({c.b.fc(c.input({7, 16}, 1.f, 2.f), huge_weights(20, 16, false), random_weights(20, 33), 20, 16, {7, 20},
                    act)});
  }
  Case pool;  // infinite inputs: the max is clamped too
  const int x = pool.input({1, 4, 4, 3});
  for (size_t i = 0; i < pool.inputs[x].size(); i += 5) pool.inputs[x][i] = i % 2 ? -INFINITY : INFINITY;
  ConvParams p = conv_params(2, 1, false);
  p.window_h = p.window_w = 2;
  pool.check({pool.b.pool(AnchorOp::kMaxPool2D, x, p, {1, 2, 2, 3})});
}

TEST(Program, PadOfEveryModeFoldsIntoTheConvolution) {
  for (PadMode mode : {PadMode::kConstant, PadMode::kReflect, PadMode::kSymmetric}) {
    for (AnchorOp op : {AnchorOp::kConv2D, AnchorOp::kDepthwiseConv2D}) {
      Case c;
      const int64_t ch = 6;
      const Shape in_shape = {1, 8, 7, ch}, padded = {1, 8 + 2 + 1, 7 + 0 + 2, ch};  // asymmetric
      const int p = c.b.pad(c.input(in_shape), {0, 0, 2, 1, 0, 2, 0, 0}, padded, mode, 0.75f);
      const Shape out = {1, out_size(11, 3, 2, 1, false), out_size(9, 3, 2, 1, false), ch};
      const Shape filter = op == AnchorOp::kConv2D ? Shape{ch, 3, 3, ch} : Shape{1, 3, 3, ch};
      const int y = c.b.conv(op, p, random_weights(num_elements(filter), 5), filter, nullptr,
                             conv_params(2, 1, false), out);
      c.check({y}, nullptr, 1e-5);
    }
  }
}

// 21 and 19 channels: partial vectors only; 75: blocks of four vectors too.
TEST(Program, PoolsAndSpatialMeanOnEveryIsa) {
  for (int64_t ch : {21, 75})
    for (bool same : {true, false})
      for (AnchorOp op : {AnchorOp::kMaxPool2D, AnchorOp::kAveragePool2D}) {
        Case c;
        ConvParams p = conv_params(2, 1, same);
        p.window_h = 3;
        p.window_w = 2;
        const Shape in_shape = {2, 9, 8, ch};
        const Shape out = {2, same ? 5 : 4, same ? 4 : 4, ch};
        const int y = c.b.pool(op, c.input(in_shape), p, out);
        c.check({c.b.ew(EwOp::Relu6, {y}, out)});
      }
  for (int64_t ch : {19, 75})
    for (bool keep : {true, false}) {
      Case c;
      const Shape out = keep ? Shape{2, 1, 1, ch} : Shape{2, ch};
      const int m = c.b.pool(AnchorOp::kMean, c.input({2, 7, 6, ch}), ConvParams{}, out, keep);
      c.check({c.b.ew(EwOp::Tanh, {m}, out)});
    }
}

TEST(Program, BatchMatMulOfEveryLayoutOnEveryIsa) {
  // 3 batches of 37 x 21 times 21 x 45: rows and columns fit no micro-kernel evenly.
  for (bool adj_x : {false, true})
    for (bool adj_y : {false, true})
      for (bool shared_b : {false, true}) {
        Case c;
        const int64_t q = 3, m = 37, k = 21, n = 45;
        const int a = c.input(adj_x ? Shape{q, k, m} : Shape{q, m, k});
        const int64_t qb = shared_b ? 1 : q;
        const int b = c.input(adj_y ? Shape{qb, n, k} : Shape{qb, k, n});
        const Shape out = {q, m, n};
        const int y = c.b.row_op(AnchorOp::kBatchMatMul, {a, b}, out, {}, adj_x, adj_y);
        ThreadPool pool(2);
        c.check({c.b.ew(EwOp::Mul, {y, c.input({})}, out)}, &pool, 1e-5);
      }
}

TEST(Program, SoftmaxAndRowReductionsOnEveryIsa) {
  for (int64_t n : {1, 7, 16, 45, 128}) {  // below, at and past every vector width
    for (float beta : {1.f, 0.125f}) {
      Case c;
      const Shape s = {3, 5, n};
      const int y = c.b.row_op(AnchorOp::kSoftmax, {c.input(s, -8.f, 8.f)}, s, {}, false, false, beta);
      ThreadPool pool(2);
      c.check({c.b.ew(EwOp::Mul, {y, c.input({n})}, s)}, &pool, 1e-5);
    }
    for (Reduce r : {Reduce::kMean, Reduce::kSum, Reduce::kMax, Reduce::kMin}) {
      for (bool keep : {true, false}) {
        Case c;
        const Shape out = keep ? Shape{3, 5, 1} : Shape{3, 5};
        const int m = c.b.row_op(AnchorOp::kRowReduce, {c.input({3, 5, n})}, out, {}, false, false, 1.f, keep, r);
        c.check({c.b.ew(EwOp::Add, {m, c.input({})}, out)}, nullptr, 1e-5);
      }
    }
  }
}

// Keras' LayerNorm of a computed x: mean, squared difference, mean, + eps,
// rsqrt, scale and shift, in one program over whole rows. The statistics are
// one value per row; the mean is also written out.
TEST(Program, LayerNormIsOnePassOverRows) {
  for (int64_t n : {7, 24, 300, 5000}) {  // rows shorter and longer than a tile's budget
    Case c;
    const Shape s = {3, 5, n}, row = {3, 5, 1};
    const int x = c.b.ew(EwOp::Add, {c.input(s), c.input({n})}, s);
    const int mean = c.b.row_op(AnchorOp::kRowReduce, {x}, row);
    const int var = c.b.row_op(AnchorOp::kRowReduce, {c.b.ew(EwOp::SquaredDifference, {x, mean}, s)}, row);
    const int r = c.b.ew(EwOp::Rsqrt, {c.b.ew(EwOp::Add, {var, c.input({}, 1e-3f, 2e-3f)}, row)}, row);
    const int scale = c.b.ew(EwOp::Mul, {r, c.input({n})}, s);
    const int shift = c.b.ew(EwOp::Mul, {c.b.ew(EwOp::Neg, {mean}, row), scale}, s);
    const int y = c.b.ew(EwOp::Add, {c.b.ew(EwOp::Mul, {x, scale}, s), shift}, s);
    ThreadPool pool(2);
    c.check({mean, y}, &pool, 1e-5);
  }
}

// A FULLY_CONNECTED of weights past tiling().streamed_weights_bytes, then a
// residual ADD and a LayerNorm (BERT's FFN output): the row statistics run on
// tiles of GEMM row blocks, 150 rows two of them.
TEST(Program, AStreamedFullyConnectedFeedsALayerNorm) {
  const int64_t n = 64, k = static_cast<int64_t>(tiling().streamed_weights_bytes / (n * sizeof(float))) + 16;
  Case c;
  const Shape s = {150, n}, row = {150, 1};
  const int fc = c.b.fc(c.input({150, k}), test::random_weights(n * k, 15), test::random_weights(n, 16), n, k, s,
                        Activation::kNone, false);
  const int x = c.b.ew(EwOp::Add, {fc, c.input(s)}, s);
  const int mean = c.b.row_op(AnchorOp::kRowReduce, {x}, row);
  const int var = c.b.row_op(AnchorOp::kRowReduce, {c.b.ew(EwOp::SquaredDifference, {x, mean}, s)}, row);
  const int r = c.b.ew(EwOp::Rsqrt, {c.b.ew(EwOp::Add, {var, c.input({}, 1e-3f, 2e-3f)}, row)}, row);
  const int y = c.b.ew(EwOp::Mul, {c.b.ew(EwOp::Sub, {x, mean}, s), r}, s);
  ThreadPool pool(2);
  c.check({y}, &pool, 1e-4);
}

// SOFTMAX reads the rows its group's tile computes (the scaled scores).
TEST(Program, SoftmaxReadsItsPrologueFromTheTile) {
  for (int64_t n : {5, 45, 128}) {
    Case c;
    const Shape s = {2, 3, 7, n};
    const int scores = c.b.row_op(AnchorOp::kBatchMatMul, {c.input({2, 3, 7, 9}), c.input({2, 3, 9, n})}, s);
    const int p = c.b.row_op(AnchorOp::kSoftmax, {c.b.ew(EwOp::Mul, {scores, c.input({})}, s)}, s);
    ThreadPool pool(2);
    c.check({c.b.ew(EwOp::Mul, {p, c.input({n})}, s)}, &pool, 1e-5);
  }
}

// Attention's head split: a TRANSPOSE read only by a BATCH_MATMUL folds into
// it, which reads the TRANSPOSE's input through permuted strides (a: its last
// axis kept; b: any permutation, with or without adj_y).
TEST(Program, TransposedOperandsFoldIntoTheBatchMatMul) {
  struct C {
    std::vector<int64_t> perm_a, perm_b;
    bool adj_y;
  };
  for (const C& t : {C{{0, 2, 1, 3}, {0, 2, 1, 3}, true}, C{{0, 2, 1, 3}, {0, 2, 3, 1}, false},
                     C{{}, {2, 0, 1, 3}, false}, C{{1, 0, 2, 3}, {}, true}}) {
    Case c;
    auto operand = [&](const Shape& view, const std::vector<int64_t>& perm) {
      if (perm.empty()) return c.input(view);
      Shape src(view.size());
      for (size_t d = 0; d < perm.size(); ++d) src[perm[d]] = view[d];
      return c.b.row_op(AnchorOp::kTranspose, {c.input(src)}, view, perm);
    };
    const Shape va = {2, 3, 7, 5}, vb = t.adj_y ? Shape{2, 3, 9, 5} : Shape{2, 3, 5, 9}, out = {2, 3, 7, 9};
    const int a = operand(va, t.perm_a), b = operand(vb, t.perm_b);
    const int y = c.b.row_op(AnchorOp::kBatchMatMul, {a, b}, out, {}, false, t.adj_y);
    const int z = c.b.ew(EwOp::Mul, {y, c.input({})}, out);
    std::vector<bool> written(c.b.g.tensors.size(), false);
    written[z] = true;
    std::vector<int> all(c.b.g.nodes.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
    const Program p = build_program(c.b.g, all, test::planned_folds(c.b.g), written, *kernels_for("scalar"));
    ASSERT_EQ(p.anchors.size(), 1u) << p.to_string();  // the TRANSPOSEs do not run
    ThreadPool pool(2);
    c.check({z}, &pool, 1e-5);
  }
}

TEST(Program, ReshapeAndTransposeMoveEveryElement) {
  {
    Case c;
    const int y = c.b.row_op(AnchorOp::kReshape, {c.input({2, 6, 10})}, {4, 3, 10}, {-1, 3, 10});
    c.check({c.b.ew(EwOp::Tanh, {y}, {4, 3, 10})});
  }
  const std::vector<std::vector<int64_t>> perms = {{0, 2, 1, 3}, {3, 1, 0, 2}, {0, 1, 2, 3}, {2, 3, 0, 1}};
  for (const auto& perm : perms) {
    Case c;
    const Shape in = {2, 3, 5, 7};
    Shape out;
    for (int64_t p : perm) out.push_back(in[p]);
    const int y = c.b.row_op(AnchorOp::kTranspose, {c.input(in)}, out, perm);
    ThreadPool pool(2);
    c.check({c.b.ew(EwOp::Abs, {y}, out)}, &pool);
  }
}

// The views derive their output from the shape they are bound to, not from the
// one planned: an EXPAND_DIMS planned at [1, 1] and bound at [1, 5] inserts its
// axis at 1 ([1, 1, 5], not [5, 1, 1]); a SQUEEZE of every 1 keeps a batch that
// is 3 now; a RESHAPE infers its -1 again. Each copies the values in order.
TEST(Program, ViewsBindToTheShapesOfTheRun) {
  struct View { AnchorOp op; std::vector<int64_t> dims; int axis; Shape planned_in, planned_out, in, out; };
  const View views[] = {
      {AnchorOp::kExpandDims, {}, 1, {1, 1}, {1, 1, 1}, {1, 5}, {1, 1, 5}},
      {AnchorOp::kExpandDims, {}, -1, {4}, {4, 1}, {0}, {0, 1}},
      {AnchorOp::kSqueeze, {}, 0, {1, 1, 5}, {5}, {3, 1, 5}, {3, 5}},
      {AnchorOp::kSqueeze, {-2}, 0, {1, 1, 5}, {1, 5}, {4, 1, 6}, {4, 6}},
      {AnchorOp::kReshape, {-1, 4}, 0, {1, 2, 4}, {2, 4}, {3, 5, 4}, {15, 4}},
  };
  for (const View& v : views) {
    GraphBuilder b;
    b.row_op(v.op, {b.tensor(v.planned_in)}, v.planned_out, v.dims);
    if (v.op == AnchorOp::kExpandDims) b.g.nodes.back().params = expand_dims_params(v.axis);
    std::vector<bool> written(b.g.tensors.size(), true);
    const Program p = build_program(b.g, {0}, {}, written, *kernels_for("scalar"));
    std::string error;
    auto bound = BoundProgram::bind(p, {v.in}, *kernels_for("scalar")->ew, &error);
    ASSERT_TRUE(bound) << error;
    EXPECT_EQ(bound->output_shapes()[0], v.out) << anchor_info(v.op).name;
    std::vector<float> x(num_elements(v.in)), out(num_elements(v.out), NAN);
    std::iota(x.begin(), x.end(), 1.f);
    const float* in[] = {x.data()};
    float* outs[] = {out.data()};
    bound->run(in, outs, nullptr);
    EXPECT_EQ(out, x) << anchor_info(v.op).name;
  }
}

// Sizes of 0 as TFLite's kernels take them: a reduction over rows of no values
// gives MEAN NaN, SUM 0, REDUCE_MAX -FLT_MAX, REDUCE_MIN FLT_MAX; a BATCH_MATMUL
// over an inner size of 0 gives zeros; MEAN over an image of no pixels NaN.
TEST(Program, EmptyReductionsGiveTflitesValues) {
  const std::pair<Reduce, float> reductions[] = {
      {Reduce::kMean, NAN}, {Reduce::kSum, 0.f}, {Reduce::kMax, -FLT_MAX}, {Reduce::kMin, FLT_MAX}};
  for (const auto& isa : available_isas()) {
    for (const auto& [reduce, want] : reductions) {
      GraphBuilder b;
      b.row_op(AnchorOp::kRowReduce, {b.tensor({2, 3, 4})}, {2, 3}, {}, false, false, 1.f, false, reduce);
      std::vector<bool> written(b.g.tensors.size(), true);
      const Program p = build_program(b.g, {0}, {}, written, *kernels_for(isa));
      std::string error;
      auto bound = BoundProgram::bind(p, {{2, 3, 0}}, *kernels_for(isa)->ew, &error);
      ASSERT_TRUE(bound) << error;
      ASSERT_EQ(bound->output_shapes()[0], Shape({2, 3}));
      std::vector<float> out(6, 1.f);
      const float* in[] = {nullptr};
      float* outs[] = {out.data()};
      bound->run(in, outs, nullptr);
      for (float v : out) EXPECT_TRUE(std::isnan(want) ? std::isnan(v) : v == want) << isa << " " << v;
    }
    GraphBuilder b;
    b.row_op(AnchorOp::kBatchMatMul, {b.tensor({2, 3, 4}), b.tensor({2, 3, 4})}, {2, 3, 3}, {}, false, true);
    b.pool(AnchorOp::kMean, b.tensor({1, 4, 4, 2}), ConvParams{}, {1, 1, 1, 2});
    std::vector<bool> written(b.g.tensors.size(), true);
    const std::pair<int, std::pair<std::vector<Shape>, Shape>> cases[] = {
        {0, {{{2, 3, 0}, {2, 3, 0}}, {2, 3, 3}}}, {1, {{{1, 0, 4, 2}}, {1, 1, 1, 2}}}};
    for (const auto& [node, shapes] : cases) {
      const Program p = build_program(b.g, {node}, {}, written, *kernels_for(isa));
      std::string error;
      auto bound = BoundProgram::bind(p, shapes.first, *kernels_for(isa)->ew, &error);
      ASSERT_TRUE(bound) << error;
      ASSERT_EQ(bound->output_shapes()[0], shapes.second);
      std::vector<float> out(num_elements(shapes.second), 1.f);
      const float* in[] = {nullptr, nullptr};
      float* outs[] = {out.data()};
      bound->run(in, outs, nullptr);
      for (float v : out) EXPECT_TRUE(node == 0 ? v == 0.f : std::isnan(v)) << isa << " node " << node << ": " << v;
    }
  }
}

// A view computed in its group feeds a SOFTMAX there (its prologue), whose
// output an elementwise op then reads beside the view's input: every op sees
// the rows of the one tile loop (fuzz graph s02219 of seed 1: EXPAND_DIMS).
TEST(Program, AViewFeedsASoftmaxInItsGroup) {
  for (AnchorOp view : {AnchorOp::kReshape, AnchorOp::kExpandDims}) {
    Case c;
    const int x = c.input({1, 3, 3});
    const int v = c.b.row_op(view, {x}, {1, 1, 3, 3}, view == AnchorOp::kReshape ? std::vector<int64_t>{1, 1, 3, 3}
                                                                                  : std::vector<int64_t>{});
    if (view == AnchorOp::kExpandDims) c.b.g.nodes.back().params = expand_dims_params(0);
    const int s = c.b.row_op(AnchorOp::kSoftmax, {v}, {1, 1, 3, 3});
    c.check({c.b.ew(EwOp::Mul, {s, x}, {1, 1, 3, 3})});
  }
}

TEST(Program, RowOpsReportInputsThatDoNotFit) {
  Case c;
  const int a = c.input({2, 4, 3}), b = c.input({2, 5, 6});
  c.b.row_op(AnchorOp::kBatchMatMul, {a, b}, {2, 4, 6});
  std::vector<bool> written(c.b.g.tensors.size(), true);
  const Program p = build_program(c.b.g, {0}, test::planned_folds(c.b.g), written, *kernels_for("scalar"));
  std::string error;
  EXPECT_FALSE(BoundProgram::bind(p, {{2, 4, 3}, {2, 5, 6}}, *kernels_for("scalar")->ew, &error));
  EXPECT_NE(error.find("BatchMatMul does not fit"), std::string::npos) << error;
  EXPECT_TRUE(BoundProgram::bind(p, {{2, 4, 5}, {2, 5, 6}}, *kernels_for("scalar")->ew, &error)) << error;
}

TEST(Program, APadFoldsIntoAMaxPool) {
  Case c;
  ConvParams p = conv_params(2, 1, false);
  p.window_h = p.window_w = 3;
  const int padded = c.b.pad(c.input({1, 8, 8, 5}, -2.f, -1.f), {0, 0, 1, 1, 1, 1, 0, 0}, {1, 10, 10, 5});
  c.check({c.b.pool(AnchorOp::kMaxPool2D, padded, p, {1, 4, 4, 5})});  // all inputs < 0: the zero pad wins at edges
}

TEST(Program, APadThatMustBeStoredIsCopied) {
  Case c;
  const Shape in_shape = {2, 4, 5, 3}, padded = {2, 7, 6, 3};
  const int p = c.b.pad(c.input(in_shape), {0, 0, 1, 2, 1, 0, 0, 0}, padded, PadMode::kSymmetric);
  c.check({p});
}

// A residual shortcut widened to the block's channels (BlazeFace): a PAD of
// channels (and of H, W) in the group of the convolution whose output it is
// added to; the PAD's constant fills the new channels.
TEST(Program, APadOfChannelsRunsOnItsOwnInAGroup) {
  const float* w = test::random_weights(16 * 8, 9);
  for (bool hw : {false, true}) {
    Case c;
    const Shape in = {2, 5, 6, 8}, out = {2, 5 + hw, 6 + 2 * hw, 16};
    const int x = c.input(in);
    const int p = c.b.pad(x, {0, 0, hw, 0, hw, hw, 3, 5}, out, PadMode::kConstant, 0.5f);
    const int y = c.b.conv(AnchorOp::kConv2D, c.input({2, 5 + hw, 6 + 2 * hw, 8}), w, {16, 1, 1, 8}, nullptr,
                           conv_params(1, 1, false), out);
    c.check({c.b.ew(EwOp::Relu6, {c.b.ew(EwOp::Add, {y, p}, out)}, out)});
  }
}

TEST(Program, IncompatibleShapesAreReported) {
  GraphBuilder b;
  const int x = b.tensor({4});
  b.ew(EwOp::Add, {x, b.tensor({4})}, {4});
  std::vector<bool> written(b.g.tensors.size(), true);
  const Program p = build_program(b.g, {0}, test::planned_folds(b.g), written, *kernels_for("scalar"));
  std::string error;
  EXPECT_FALSE(BoundProgram::bind(p, {{3}, {4}}, ew_table_scalar(), &error));
  EXPECT_NE(error.find("do not broadcast"), std::string::npos);
}

TEST(Program, MultiplyAddBecomesOneFmaUnlessTheProductIsShared) {
  GraphBuilder b;
  const Shape s = {16};
  const int x = b.tensor(s), y = b.tensor(s), z = b.tensor(s);
  const int m = b.ew(EwOp::Mul, {x, y}, s);
  const int out = b.ew(EwOp::Sub, {z, m}, s);
  std::vector<bool> written(b.g.tensors.size(), false);
  written[out] = true;
  Program p = build_program(b.g, {0, 1}, test::planned_folds(b.g), written, *kernels_for("scalar"));
  ASSERT_EQ(p.code.size(), 1u);
  EXPECT_EQ(p.code[0].op, EwKernelOp::Fnma);
  written[m] = true;  // the product is needed outside: keep it
  p = build_program(b.g, {0, 1}, test::planned_folds(b.g), written, *kernels_for("scalar"));
  ASSERT_EQ(p.code.size(), 2u);
  EXPECT_EQ(p.code[0].op, EwKernelOp::Mul);
}

TEST(Program, InputTimesItsLogisticBecomesOneSwishUnlessTheLogisticIsShared) {
  for (int side = 0; side < 2; ++side) {
    Case c;
    const Shape s = {1000};
    const int x = c.b.ew(EwOp::Tanh, {c.input(s, -12.f, 12.f)}, s);
    const int sig = c.b.ew(EwOp::Logistic, {x}, s);
    const int out = c.b.ew(EwOp::Mul, {side ? sig : x, side ? x : sig}, s);
    std::vector<bool> written(c.b.g.tensors.size(), false);
    written[out] = true;
    Program p = build_program(c.b.g, {0, 1, 2}, test::planned_folds(c.b.g), written, *kernels_for("scalar"));
    ASSERT_EQ(p.code.size(), 2u) << p.to_string();
    EXPECT_EQ(p.code[1].op, EwKernelOp::Swish);
    EXPECT_EQ(p.code[1].src[0], static_cast<int>(p.inputs.size()));  // reads x, the TANH
    c.check({out});
    written[sig] = true;  // the logistic is needed outside: keep it
    p = build_program(c.b.g, {0, 1, 2}, test::planned_folds(c.b.g), written, *kernels_for("scalar"));
    ASSERT_EQ(p.code.size(), 3u) << p.to_string();
    EXPECT_EQ(p.code[2].op, EwKernelOp::Mul);
    c.check({sig, out});
  }
  {  // both folds in one program: SWISH(x) + y * z is SWISH then one FMA
    Case c;
    const Shape s = {300};
    const int x = c.input(s), sig = c.b.ew(EwOp::Logistic, {x}, s);
    const int swish = c.b.ew(EwOp::Mul, {x, sig}, s);
    const int out = c.b.ew(EwOp::Add, {swish, c.b.ew(EwOp::Mul, {c.input(s), c.input(s)}, s)}, s);
    std::vector<bool> written(c.b.g.tensors.size(), false);
    written[out] = true;
    const Program p = build_program(c.b.g, {0, 1, 2, 3}, test::planned_folds(c.b.g), written, *kernels_for("scalar"));
    ASSERT_EQ(p.code.size(), 2u) << p.to_string();
    EXPECT_EQ(p.code[0].op, EwKernelOp::Swish);
    EXPECT_EQ(p.code[1].op, EwKernelOp::Fma);
    EXPECT_EQ(p.code[1].src[2], static_cast<int>(p.inputs.size()));  // adds the SWISH
    c.check({out});
  }
  Case c;  // the logistic of another value: a plain MUL
  const Shape s = {64};
  const int out = c.b.ew(EwOp::Mul, {c.input(s), c.b.ew(EwOp::Logistic, {c.input(s)}, s)}, s);
  std::vector<bool> written(c.b.g.tensors.size(), false);
  written[out] = true;
  const Program p = build_program(c.b.g, {0, 1}, test::planned_folds(c.b.g), written, *kernels_for("scalar"));
  ASSERT_EQ(p.code.size(), 2u);
  EXPECT_EQ(p.code[1].op, EwKernelOp::Mul);
}

// A LOGISTIC marked rounds_as_builtin is the builtin's (with the MUL of its
// input one SWISH of the same rounding, unless the logistic is read too): its
// packet formula on the first size - size % 4 values and the builtin's scalar
// code (libm's exp) on the rest, wherever the tiles fall.
TEST(Program, ALogisticRoundingAsTheBuiltinTakesItsTailOnTheLastValues) {
  for (int64_t size : {4099, 4096, 3, 20001}) {
    for (bool logistic_written : {false, true}) {
      GraphBuilder b;
      const Shape s = {size};
      const int x = b.tensor(s), sig = b.ew(EwOp::Logistic, {x}, s);
      const int out = b.ew(EwOp::Mul, {x, sig}, s);
      std::vector<bool> written(b.g.tensors.size(), false);
      written[out] = true;
      written[sig] = logistic_written;
      const Program p = build_program(b.g, {0, 1}, test::planned_folds(b.g), written, *kernels_for("scalar"), {},
                                      {true, true});
      ASSERT_EQ(p.code.size(), logistic_written ? 2u : 1u) << p.to_string();
      EXPECT_EQ(p.code[0].op, logistic_written ? EwKernelOp::LogisticAsBuiltin : EwKernelOp::SwishAsBuiltin);
      std::vector<float> in(size), want(size);
      std::mt19937 rng(size);
      std::uniform_real_distribution<float> u(-20.f, 20.f);
      for (float& v : in) v = u(rng);
      ew_table_scalar().fn[static_cast<int>(EwKernelOp::LogisticAsBuiltin)](in.data(), nullptr, nullptr, want.data(),
                                                                           size, 0.f);
      for (int64_t i = size - size % 4; i < size; ++i) {
        const float e = std::exp(std::min(in[i], 16.6355324f));
        want[i] = e / (1.f + e);
      }
      for (const auto& isa : available_isas()) {
        std::string error;
        auto bound = BoundProgram::bind(p, {s}, *kernels_for(isa)->ew, &error);
        ASSERT_TRUE(bound) << error;
        std::vector<float> got_sig(size), got(size);
        const float* inputs[] = {in.data()};
        float* outputs[] = {logistic_written ? got_sig.data() : got.data(), got.data()};
        bound->before_run(inputs);
        for (int64_t first = 0; first < size; first += 1000)  // in pieces, as depth-first strips run
          bound->run_range(first, std::min(size, first + 1000), inputs, outputs, 0);
        for (int64_t i = 0; i < size; ++i) {
          if (logistic_written) {
            ASSERT_EQ(got_sig[i], want[i]) << isa << " size " << size << " i " << i;
          }
          ASSERT_EQ(got[i], in[i] * want[i]) << isa << " size " << size << " i " << i;
        }
      }
    }
  }
}

// A copy of a bound anchor (a depth-first chain's part) fills its own run
// buffers: two copies of a FULLY_CONNECTED whose input is scaled per channel,
// each given its own scale before either runs, each compute with their own.
TEST(Anchor, CopiesScaleTheirOwnWeights) {
  GraphBuilder b;
  const int k = 16, n = 8;
  const float* w = random_weights(n * k, 3);
  b.fc(b.tensor({2, k}), w, nullptr, n, k, {2, n});
  AnchorFolds folds;
  folds.scale_input = true;
  std::string error;
  for (const auto& isa : available_isas()) {
    auto first = bind_anchor(make_anchor(b.g, b.g.nodes[0], folds, *kernels_for(isa)), {{2, k}, {k}}, &error);
    ASSERT_TRUE(first) << error;
    const BoundAnchor second = *first;
    std::vector<float> x(2 * k, 1.f), scale1(k, 1.f), scale2(k, 3.f), out1(2 * n), out2(2 * n);
    const float* in1[2] = {x.data(), scale1.data()};
    const float* in2[2] = {x.data(), scale2.data()};
    first->before_run(in1);
    second.before_run(in2);
    run_anchor(*first, 0, 2, out1.data());
    run_anchor(second, 0, 2, out2.data());
    for (int i = 0; i < 2 * n; ++i) {
      double sum = 0;
      for (int j = 0; j < k; ++j) sum += w[(i % n) * k + j];
      EXPECT_NEAR(out1[i], sum, 1e-4) << isa << " output " << i;
      EXPECT_NEAR(out2[i], 3 * sum, 3e-4) << isa << " output " << i;
    }
  }
}

TEST(Program, PowByConstantTwoOrHalfIsExact) {
  for (float e : {2.f, 0.5f}) {
    GraphBuilder b;
    const float k[1] = {e};
    const int out = b.ew(EwOp::Pow, {b.tensor({8}), b.tensor({}, true, k)}, {8});
    std::vector<bool> written(b.g.tensors.size(), false);
    written[out] = true;
    const Program p = build_program(b.g, {0}, test::planned_folds(b.g), written, *kernels_for("scalar"));
    ASSERT_EQ(p.code.size(), 1u);
    EXPECT_EQ(p.code[0].op, e == 2.f ? EwKernelOp::Square : EwKernelOp::SqrtAsPow);
    EXPECT_EQ(p.inputs.size(), 1u);
  }
}

}  // namespace
}  // namespace fd
