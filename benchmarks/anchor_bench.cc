// Heavy-op throughput against this core's FMA peak (issue 4 target: >= 80% of
// peak on large layers), measured through the same fused programs the delegate
// runs: indirection, packing, micro-kernels. Then elementwise chains against
// this core's memcpy bandwidth for the same bytes in and out (target >= 80%),
// and the sparse GEMM's time over the dense one's ("sparse").
// A benchmark, not a test:
//   cmake -B build-bench -DFD_BUILD_BENCHMARKS=ON && cmake --build build-bench &&
//   build-bench/benchmarks/anchor_bench [isa [layer name substring]]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/cpu.h"
#include "ops/fully_connected.h"
#include "ops/window.h"
#include "runtime/memory.h"
#include "runtime/program.h"

double fma_peak_gflops(const std::string& isa);  // fma_peak.cc

namespace {

struct Layer {
  const char* name;
  fd::AnchorOp op;
  int64_t h, w, ic, oc;
  int k, stride;
};

double flops_of(const Layer& l, int64_t oh, int64_t ow) {
  const double per_out = l.op == fd::AnchorOp::kDepthwiseConv2D ? l.k * l.k
                         : l.op == fd::AnchorOp::kConv2D         ? l.k * l.k * l.ic
                                                                 : l.ic;
  return 2.0 * oh * ow * l.oc * per_out;
}

// One-node graph: input -> anchor -> output.
fd::Graph graph_of(const Layer& l, const std::vector<float>& w, const std::vector<float>& bias) {
  fd::Graph g;
  auto tensor = [&](fd::Shape s, const float* data) {
    fd::Tensor t;
    t.dtype = fd::DType::kF32;
    t.is_constant = data != nullptr;
    if (data) t.data = fd::ConstantData::borrow(data, fd::num_elements(s) * sizeof(float));
    t.shape = std::move(s);
    g.tensors.push_back(t);
    return static_cast<int>(g.tensors.size()) - 1;
  };
  fd::Node n;
  n.name = "anchor";
  n.kind = fd::OpKind::kAnchor;
  n.anchor = l.op;
  fd::ConvParams conv;
  conv.stride_h = conv.stride_w = l.stride;
  conv.same_padding = true;
  if (l.op == fd::AnchorOp::kFullyConnected) n.params = fd::fully_connected_params(false, false);
  else n.params = fd::window_op_params(conv);
  const fd::Shape filter = l.op == fd::AnchorOp::kFullyConnected   ? fd::Shape{l.oc, l.ic}
                           : l.op == fd::AnchorOp::kDepthwiseConv2D ? fd::Shape{1, l.k, l.k, l.oc}
                                                                    : fd::Shape{l.oc, l.k, l.k, l.ic};
  const fd::Shape in = l.op == fd::AnchorOp::kFullyConnected ? fd::Shape{l.h * l.w, l.ic}
                                                             : fd::Shape{1, l.h, l.w, l.ic};
  n.inputs = {tensor(in, nullptr), tensor(filter, w.data()), tensor({l.oc}, bias.data())};
  n.outputs = {tensor({}, nullptr)};
  g.nodes.push_back(n);
  return g;
}

// FD_BENCH_EVICT_L2=1: before each run, 8 MiB of other data pass through the
// caches, so weights and inputs come from L3, as inside a model.
const bool evict_l2 = std::getenv("FD_BENCH_EVICT_L2") != nullptr;
// FD_BENCH_REPS=n: runs per layer (for profiling; default about 1 GFLOP's worth).
const int reps_asked = std::getenv("FD_BENCH_REPS") ? std::atoi(std::getenv("FD_BENCH_REPS")) : 0;

void touch_other_memory() {
  static std::vector<float> other(size_t{2} << 20, 1.f);
  for (size_t i = 0; i < other.size(); i += 16) other[i] += 1.f;  // one write per cache line
}

// Activations 64-byte aligned, as TFLite's arena and the delegate's own buffers
// are (a std::vector's are not: every 512-bit store would split a cache line,
// which cost an output-bound chain a fifth of its speed).
using Activation = std::vector<float, fd::HugePageAllocator<float>>;

double median_seconds(int reps, const std::function<void()>& run) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    if (evict_l2) touch_other_memory();
    const auto start = std::chrono::steady_clock::now();
    run();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// An elementwise chain on [1, 112, 112, 64] (3.2 MB, past L2): x times a
// per-channel scale plus a shift, then `ops` unary ops, then plus y if
// `residual`. Returns its bandwidth (bytes in and out per second) over
// memcpy's for the same activation size.
void bench_chain(const char* name, const std::vector<fd::EwOp>& ops, bool residual, const fd::Kernels& kernels) {
  const fd::Shape act = {1, 112, 112, 64};
  const size_t n = fd::num_elements(act);
  Activation x(n, 0.5f), y(n, 0.25f), z(n);
  std::vector<float> scale(64, 1.5f), shift(64, -0.25f);
  fd::Graph g;
  std::vector<const float*> data;  // per tensor: where its floats are (null: computed)
  auto tensor = [&](fd::Shape shape, const float* d, bool constant) {
    fd::Tensor t;
    t.dtype = fd::DType::kF32;
    t.is_constant = constant;
    if (constant) t.data = fd::ConstantData::borrow(d, fd::num_elements(shape) * sizeof(float));
    t.shape = std::move(shape);
    g.tensors.push_back(t);
    data.push_back(d);
    return static_cast<int>(g.tensors.size()) - 1;
  };
  auto node = [&](fd::EwOp op, std::vector<int> inputs) {
    fd::Node nd;
    nd.name = fd::ew_name(op);
    nd.kind = fd::OpKind::kElementwise;
    nd.ew = op;
    nd.inputs = std::move(inputs);
    nd.outputs = {tensor(act, nullptr, false)};
    g.nodes.push_back(nd);
    return nd.outputs[0];
  };
  int v = node(fd::EwOp::Mul, {tensor(act, x.data(), false), tensor({64}, scale.data(), true)});
  v = node(fd::EwOp::Add, {v, tensor({64}, shift.data(), true)});
  for (fd::EwOp op : ops)  // a LOGISTIC becomes x * LOGISTIC(x): one swish pass
    v = op == fd::EwOp::Logistic ? node(fd::EwOp::Mul, {v, node(op, {v})}) : node(op, {v});
  if (residual) v = node(fd::EwOp::Add, {v, tensor(act, y.data(), false)});
  std::vector<bool> written(g.tensors.size(), false);
  written[v] = true;
  std::vector<int> group(g.nodes.size());
  for (size_t i = 0; i < group.size(); ++i) group[i] = static_cast<int>(i);
  const fd::Program p = fd::build_program(g, group, {}, written, kernels);
  std::vector<fd::Shape> shapes;
  std::vector<const float*> in;
  for (int t : p.inputs) {
    shapes.push_back(g.tensors[t].shape);
    in.push_back(data[t]);
  }
  std::string error;
  auto bound = fd::BoundProgram::bind(p, shapes, *kernels.ew, &error);
  if (!bound) {
    std::printf("  %s: %s\n", name, error.c_str());
    return;
  }
  float* out[] = {z.data()};
  const double chain = median_seconds(reps_asked > 0 ? reps_asked : 100, [&] { bound->run(in.data(), out, nullptr); });
  const double copy = median_seconds(100, [&] { std::memcpy(z.data(), x.data(), n * sizeof(float)); });
  const double bytes = (residual ? 3.0 : 2.0) * n * sizeof(float);
  const double copy_bw = 2.0 * n * sizeof(float) / copy;
  std::printf("  %-28s %8.3f ms %6.1f GB/s  %5.1f%% of memcpy's %.1f GB/s\n", name, chain * 1e3, bytes / chain * 1e-9,
              100 * bytes / chain / copy_bw, copy_bw * 1e-9);
}

// Median seconds of the one-layer program on `kernels` (w: its weights), and
// its flops; -1 where it does not bind.
double layer_seconds(const Layer& l, const std::vector<float>& w, const fd::Kernels& kernels, double* flops) {
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> bias(l.oc);
  Activation x(l.h * l.w * l.ic);
  for (float& v : x) v = u(rng);
  const fd::Graph g = graph_of(l, w, bias);
  const std::vector<bool> written = {false, false, false, true};
  const fd::Program p = fd::build_program(g, {0}, {}, written, kernels);
  std::string error;
  auto bound = fd::BoundProgram::bind(p, {g.tensors[0].shape}, *kernels.ew, &error);
  if (!bound) {
    std::printf("  %s: %s\n", l.name, error.c_str());
    return -1;
  }
  const fd::Shape& out_shape = bound->output_shapes()[0];
  Activation y(fd::num_elements(out_shape));
  const float* in[] = {x.data()};
  float* out[] = {y.data()};
  *flops = flops_of(l, l.op == fd::AnchorOp::kFullyConnected ? 1 : out_shape[1],
                    l.op == fd::AnchorOp::kFullyConnected ? l.h * l.w : out_shape[2]);
  const int reps = reps_asked > 0 ? reps_asked : std::clamp(static_cast<int>(1e9 / *flops), 5, 300);
  return median_seconds(reps, [&] { bound->run(in, out, nullptr); });
}

// Weights of `share` nonzero groups of 4 depths (the converter's sparsity in
// 1x4 blocks): the sparse GEMM's time over the dense GEMM's, per share.
void bench_sparse(const fd::Kernels& kernels) {
  const Layer layers[] = {
      {"sparse 28x28 3x3 s2 64->128", fd::AnchorOp::kConv2D, 56, 56, 64, 128, 3, 2},
      {"sparse 7x7 3x3 s2 256->512", fd::AnchorOp::kConv2D, 14, 14, 256, 512, 3, 2},
      {"sparse 28x28 1x1 128->128", fd::AnchorOp::kConv2D, 28, 28, 128, 128, 1, 1},
  };
  fd::Kernels dense = kernels;
  dense.spmm = nullptr;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (const auto& l : layers) {
    std::printf("  %-28s sparse / dense time at nonzero group shares", l.name);
    for (const double share : {0.1, 0.15, 0.2, 0.25, 0.3, 0.4}) {
      std::vector<float> w(l.k * l.k * l.ic * l.oc, 0.f);
      std::bernoulli_distribution nonzero(share);
      for (size_t d = 0; d < w.size(); d += 4)
        if (nonzero(rng)) std::generate(w.begin() + d, w.begin() + std::min(w.size(), d + 4), [&] { return u(rng); });
      double flops = 0;
      const double sparse = layer_seconds(l, w, kernels, &flops), dense_s = layer_seconds(l, w, dense, &flops);
      std::printf("  %.2f: %.2f", share, sparse / dense_s);
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Layer layers[] = {
      {"mnv2 56x56 1x1 144->24", fd::AnchorOp::kConv2D, 56, 56, 144, 24, 1, 1},
      {"mnv2 56x56 1x1 24->144", fd::AnchorOp::kConv2D, 56, 56, 24, 144, 1, 1},
      {"mnv2 14x14 1x1 64->384", fd::AnchorOp::kConv2D, 14, 14, 64, 384, 1, 1},
      {"mnv2 112x112 dw3x3 96 s2", fd::AnchorOp::kDepthwiseConv2D, 112, 112, 96, 96, 3, 2},
      {"mnv2 56x56 dw3x3 144", fd::AnchorOp::kDepthwiseConv2D, 56, 56, 144, 144, 3, 1},
      {"mnv2 28x28 dw3x3 144 (in L2)", fd::AnchorOp::kDepthwiseConv2D, 28, 28, 144, 144, 3, 1},
      {"effb0 14x14 dw5x5 480 (in L2)", fd::AnchorOp::kDepthwiseConv2D, 14, 14, 480, 480, 5, 1},
      {"mnv2 224x224 3x3 3->32 s2", fd::AnchorOp::kConv2D, 224, 224, 3, 32, 3, 2},
      {"56x56 3x3 32->32", fd::AnchorOp::kConv2D, 56, 56, 32, 32, 3, 1},
      {"56x56 3x3 64->64", fd::AnchorOp::kConv2D, 56, 56, 64, 64, 3, 1},
      {"r50 56x56 1x1 64->256", fd::AnchorOp::kConv2D, 56, 56, 64, 256, 1, 1},
      {"r50 28x28 3x3 128->128", fd::AnchorOp::kConv2D, 28, 28, 128, 128, 3, 1},
      {"r50 14x14 3x3 256->256", fd::AnchorOp::kConv2D, 14, 14, 256, 256, 3, 1},
      {"r50 7x7 1x1 512->2048", fd::AnchorOp::kConv2D, 7, 7, 512, 2048, 1, 1},
      {"FC 2048->1000 batch 1", fd::AnchorOp::kFullyConnected, 1, 1, 2048, 1000, 1, 1},
      {"bert FC 128 rows 256->256", fd::AnchorOp::kFullyConnected, 1, 128, 256, 256, 1, 1},
      {"bert FC 128 rows 256->1024", fd::AnchorOp::kFullyConnected, 1, 128, 256, 1024, 1, 1},
      {"bert FC 128 rows 1024->256", fd::AnchorOp::kFullyConnected, 1, 128, 1024, 256, 1, 1},
  };
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (const auto& isa : fd::available_isas()) {
    if (isa == "scalar" || (argc > 1 && isa != argv[1])) continue;
    const fd::Kernels& kernels = *fd::kernels_for(isa);
    const double peak = fma_peak_gflops(isa);
    std::printf("%s: FMA peak %.1f GFLOP/s (one core)\n", isa.c_str(), peak);
    for (const auto& l : layers) {
      if (argc > 2 && !std::strstr(l.name, argv[2])) continue;
      const int64_t wsize = l.op == fd::AnchorOp::kDepthwiseConv2D ? l.k * l.k * l.oc : l.k * l.k * l.ic * l.oc;
      std::vector<float> w(wsize);
      for (float& v : w) v = u(rng);
      double flops = 0;
      const double s = layer_seconds(l, w, kernels, &flops);
      if (s > 0)
        std::printf("  %-28s %8.3f ms %7.1f GFLOP/s  %5.1f%% of peak\n", l.name, s * 1e3, flops / s * 1e-9,
                    100 * flops / s * 1e-9 / peak);
    }
    if (argc <= 2 || std::strstr("sparse", argv[2])) bench_sparse(kernels);
    using fd::EwOp;
    const std::tuple<const char*, std::vector<EwOp>, bool> chains[] = {
        {"chain affine relu6", {EwOp::Relu6}, false},
        {"chain affine relu6 + y", {EwOp::Relu6}, true},
        {"chain affine swish + y", {EwOp::Logistic}, true},
        {"chain affine 6 ops + y", {EwOp::Abs, EwOp::Square, EwOp::Relu6, EwOp::Neg, EwOp::Abs, EwOp::Relu}, true},
    };
    for (const auto& [name, ops, residual] : chains)
      if (argc <= 2 || std::strstr(name, argv[2])) bench_chain(name, ops, residual, kernels);
  }
}
