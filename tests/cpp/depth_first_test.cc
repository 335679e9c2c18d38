// Depth-first chains against the same programs run whole, one after another:
// every output element takes the same operations in the same order, so the
// results must agree bit for bit.
#include "runtime/depth_first.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "kernels/cpu.h"
#include "runtime/thread_pool.h"
#include "graph_builder.h"

namespace fd {
namespace {

using test::GraphBuilder;
const auto weights = test::random_weights;

ConvParams params(int stride, bool same) {
  ConvParams p;
  p.stride_h = p.stride_w = stride;
  p.same_padding = same;
  return p;
}

int64_t out_size(int64_t in, int k, int stride, bool same) { return same ? (in + stride - 1) / stride : (in - k) / stride + 1; }

struct Block {
  int64_t h, w, cin, expand, cout;
  int k, stride;
  bool pad;  // a PAD (folded) before a VALID depthwise, else SAME
  bool pool; // a 2x2 max pool after the projection
};

// An inverted-residual block: 1x1 expand + ReLU6, depthwise + ReLU6, 1x1
// project (+ the input when the shapes allow), one group per anchor.
struct Chained {
  GraphBuilder b;
  std::vector<std::vector<int>> groups;
  int input = -1, output = -1;

  explicit Chained(const Block& t) {
    input = b.tensor({1, t.h, t.w, t.cin});
    const Shape wide = {1, t.h, t.w, t.expand};
    int x = b.conv(AnchorOp::kConv2D, input, weights(t.expand * t.cin, 1), {t.expand, 1, 1, t.cin},
                   weights(t.expand, 2), params(1, false), wide, Activation::kRelu6);
    groups.push_back({0});
    int64_t h = t.h, w = t.w;
    if (t.pad) {
      const int p = t.k / 2;
      h += 2 * p - 1;  // asymmetric: p rows before, p - 1 after
      w += 2 * p;
      x = b.pad(x, {0, 0, p, p - 1, p, p, 0, 0}, {1, h, w, t.expand});
    }
    const Shape dw = {1, out_size(h, t.k, t.stride, !t.pad), out_size(w, t.k, t.stride, !t.pad), t.expand};
    x = b.conv(AnchorOp::kDepthwiseConv2D, x, weights(t.k * t.k * t.expand, 3), {1, t.k, t.k, t.expand},
               weights(t.expand, 4), params(t.stride, !t.pad), dw, Activation::kRelu6);
    groups.push_back(t.pad ? std::vector<int>{1, 2} : std::vector<int>{1});
    const Shape out = {1, dw[1], dw[2], t.cout};
    x = b.conv(AnchorOp::kConv2D, x, weights(t.cout * t.expand, 5), {t.cout, 1, 1, t.expand}, weights(t.cout, 6),
               params(1, false), out);
    std::vector<int> project = {static_cast<int>(b.g.nodes.size()) - 1};
    if (out == Shape{1, t.h, t.w, t.cin}) {
      x = b.ew(EwOp::Add, {x, input}, out);
      project.push_back(static_cast<int>(b.g.nodes.size()) - 1);
    }
    groups.push_back(project);
    if (t.pool) {
      ConvParams window = params(2, true);
      window.window_h = window.window_w = 2;
      x = b.pool(AnchorOp::kMaxPool2D, x, window, {1, (out[1] + 1) / 2, (out[2] + 1) / 2, t.cout});
      groups.push_back({static_cast<int>(b.g.nodes.size()) - 1});
    }
    output = x;
  }
};

// One program per group, bound; shape_of gains every output's shape.
void build(const Chained& c, const Kernels& kernels, std::vector<Program>* programs,
           std::vector<std::unique_ptr<BoundProgram>>* bound, std::map<int, Shape>* shape_of) {
  const Graph& g = c.b.g;
  std::vector<bool> written(g.tensors.size(), false);
  for (const auto& group : c.groups) written[g.nodes[group.back()].outputs[0]] = true;
  (*shape_of)[c.input] = g.tensors[c.input].shape;
  for (const auto& group : c.groups) {
    programs->push_back(build_program(g, group, test::planned_folds(g), written, kernels));
    std::vector<Shape> shapes;
    for (int t : programs->back().inputs) shapes.push_back(shape_of->at(t));
    std::string error;
    bound->push_back(BoundProgram::bind(programs->back(), shapes, *kernels.ew, &error));
    ASSERT_TRUE(bound->back()) << error;
    for (size_t o = 0; o < programs->back().outputs.size(); ++o)
      (*shape_of)[programs->back().outputs[o]] = bound->back()->output_shapes()[o];
  }
}

// Runs the block's programs whole (chain_budget 0) or depth-first, the chains
// cut into `parts` run over `pool` (null: one after another); returns the output.
std::vector<float> run(const Chained& c, const Kernels& kernels, size_t chain_budget, int* chained_programs,
                       int parts = 1, ThreadPool* pool = nullptr) {
  const Graph& g = c.b.g;
  std::vector<Program> programs;
  std::vector<std::unique_ptr<BoundProgram>> bound;
  std::map<int, Shape> shape_of;
  build(c, kernels, &programs, &bound, &shape_of);
  std::map<int, std::vector<float>> memory;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-2.f, 2.f);
  memory[c.input].resize(num_elements(g.tensors[c.input].shape));
  for (float& v : memory[c.input]) v = u(rng);
  std::vector<DepthFirstChain> chains;
  if (chain_budget) chains = DepthFirstChain::find(programs, bound, {c.output}, 0, chain_budget, parts);
  *chained_programs = 0;
  for (const auto& ch : chains) *chained_programs += ch.size();
  std::set<int> in_rings;
  for (const auto& ch : chains)
    for (int k = ch.first(); k + 1 < ch.first() + ch.size(); ++k) in_rings.insert(programs[k].outputs[0]);
  for (const auto& [t, s] : shape_of)
    if (!memory.count(t) && !in_rings.count(t)) memory[t].assign(num_elements(s), NAN);
  std::function<float*(int)> data = [&](int t) {
    EXPECT_FALSE(in_rings.count(t)) << "asked for tensor " << t << ", which lives in a ring";
    return memory.at(t).data();
  };
  for (int pass = 0; pass < 2; ++pass) {  // the second run reuses what the first cached
    size_t next = 0;
    for (size_t k = 0; k < programs.size(); ++k) {
      if (next < chains.size() && chains[next].first() == static_cast<int>(k)) {
        std::vector<double> seconds(chains[next].size(), 0.0);
        chains[next].run(programs, bound, data, seconds.data(), pool);
        k += chains[next++].size() - 1;
        continue;
      }
      std::vector<const float*> in;
      std::vector<float*> out;
      for (int t : programs[k].inputs) in.push_back(data(t));
      for (int t : programs[k].outputs) out.push_back(data(t));
      bound[k]->run(in.data(), out.data(), nullptr);
    }
  }
  return memory.at(c.output);
}

TEST(DepthFirst, ChainsMatchProgramsRunWholeBitForBit) {
  // Strides 1 and 2, 3x3 and 5x5, SAME and a folded asymmetric PAD, a pool
  // after; channel counts that fill no block evenly.
  for (const Block& t : {Block{20, 17, 8, 40, 8, 3, 1, false, false}, Block{21, 18, 8, 36, 12, 3, 2, true, false},
                         Block{19, 16, 16, 24, 16, 5, 1, false, true}, Block{22, 15, 6, 30, 10, 5, 2, true, true}}) {
    const Chained c(t);
    for (const auto& isa : available_isas()) {
      const Kernels& kernels = *kernels_for(isa);
      int whole_programs = 0;
      const std::vector<float> want = run(c, kernels, 0, &whole_programs);
      // Budgets from too small for any strip, through rings of a few rows that
      // wrap many times, to whole tensors in one strip.
      for (size_t budget : {size_t{1}, size_t{16} << 10, size_t{32} << 10, size_t{64} << 20}) {
        int chained = 0;
        const std::vector<float> got = run(c, kernels, budget, &chained);
        if (budget == 1) {
          EXPECT_EQ(chained, 0) << isa;
        }
        if (budget >= (size_t{32} << 10)) {
          EXPECT_EQ(chained, static_cast<int>(c.groups.size())) << isa << " " << budget;
        }
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i)
          ASSERT_EQ(got[i], want[i]) << isa << " block " << t.h << "x" << t.w << " k" << t.k << " s" << t.stride
                                     << " budget " << budget << " element " << i;
      }
    }
  }
}

TEST(DepthFirst, ChainsCutIntoPartsMatchBitForBit) {
  // Each part recomputes the rows where it meets the one before: every cut,
  // stride and padding must still give the rows the whole run gives. Parts of
  // one row, and more parts than rows, too.
  ThreadPool pool(2);
  for (const Block& t : {Block{20, 17, 8, 40, 8, 3, 1, false, false}, Block{21, 18, 8, 36, 12, 3, 2, true, false},
                         Block{19, 16, 16, 24, 16, 5, 1, false, true}, Block{22, 15, 6, 30, 10, 5, 2, true, true}}) {
    const Chained c(t);
    const Kernels& kernels = *kernels_for("scalar");
    int whole_programs = 0;
    const std::vector<float> want = run(c, kernels, 0, &whole_programs);
    for (int parts : {2, 3, 7, 40}) {
      for (size_t budget : {size_t{16} << 10, size_t{64} << 20}) {
        int chained = 0;
        const std::vector<float> got = run(c, kernels, budget, &chained, parts, parts == 2 ? &pool : nullptr);
        if (budget > (size_t{16} << 10)) {
          EXPECT_EQ(chained, static_cast<int>(c.groups.size())) << parts;
        }
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i)
          ASSERT_EQ(got[i], want[i]) << "block " << t.h << "x" << t.w << " k" << t.k << " s" << t.stride << " parts "
                                     << parts << " budget " << budget << " element " << i;
      }
    }
  }
}

TEST(DepthFirst, TensorsReadElsewhereOrExportedAreNotChained) {
  const Chained c(Block{20, 17, 8, 40, 8, 3, 1, false, false});
  std::vector<Program> programs;
  std::vector<std::unique_ptr<BoundProgram>> bound;
  std::map<int, Shape> shape_of;
  build(c, *kernels_for("scalar"), &programs, &bound, &shape_of);
  // The expanded tensor exported: only depthwise -> project chain.
  auto chains = DepthFirstChain::find(programs, bound, {c.output, programs[0].outputs[0]}, 0, size_t{1} << 20);
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_EQ(chains[0].first(), 1);
  EXPECT_EQ(chains[0].size(), 2);
}

// A window whose output is empty (a VALID pool over one row, after a resize)
// computes nothing: no chain ends in it (it cut its rows into 0 / 0 parts).
TEST(DepthFirst, AnEmptyOutputEndsNoChain) {
  GraphBuilder b;
  const int input = b.tensor({1, 1, 64, 8});
  const int x = b.conv(AnchorOp::kConv2D, input, weights(16 * 8, 1), {16, 1, 1, 8}, weights(16, 2), params(1, false),
                       {1, 1, 64, 16});
  ConvParams window = params(2, false);
  window.window_h = window.window_w = 2;
  const int y = b.pool(AnchorOp::kMaxPool2D, x, window, {1, 0, 32, 16});
  const Kernels& kernels = *kernels_for("scalar");
  std::vector<bool> written(b.g.tensors.size(), true);
  std::vector<Program> programs;
  std::vector<std::unique_ptr<BoundProgram>> bound;
  std::vector<Shape> shapes = {{1, 1, 64, 8}};
  for (int node : {0, 1}) {
    programs.push_back(build_program(b.g, {node}, {}, written, kernels));
    std::string error;
    bound.push_back(BoundProgram::bind(programs.back(), shapes, *kernels.ew, &error));
    ASSERT_TRUE(bound.back()) << error;
    shapes = {bound.back()->output_shapes()[0]};
  }
  EXPECT_EQ(shapes[0], Shape({1, 0, 32, 16}));
  for (int parts : {1, 2})
    EXPECT_TRUE(DepthFirstChain::find(programs, bound, {y}, 0, size_t{64} << 20, parts).empty()) << parts;
}

}  // namespace
}  // namespace fd
