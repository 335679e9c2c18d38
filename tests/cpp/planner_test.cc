#include "plan/planner.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "graph_builder.h"

namespace fd {
namespace {

using test::GraphBuilder;
const Shape kS = {1, 4, 4, 8};

TEST(Planner, ChainIsOneGroup) {
  GraphBuilder b;
  int t = b.tensor(kS);
  for (EwOp op : {EwOp::Tanh, EwOp::Abs, EwOp::Exp, EwOp::Neg, EwOp::Logistic}) t = b.ew(op, {t}, kS);
  const FusionPlan p = plan_fusion(b.g, {});
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0], (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(Planner, LoneOpIsLeftByPolicyUnlessAllowed) {
  GraphBuilder b;
  b.ew(EwOp::Tanh, {b.tensor(kS)}, kS);
  FusionPlan p = plan_fusion(b.g, {});
  EXPECT_TRUE(p.groups.empty());
  EXPECT_NE(p.reason[0].find("min_nodes_per_partition"), std::string::npos);
  PlannerOptions one;
  one.min_nodes_per_group = 1;
  EXPECT_EQ(plan_fusion(b.g, one).groups.size(), 1u);
}

// SPLIT's outputs are one IR node each, with the op's id: claimed together or not at all.
TEST(Planner, TheOutputsOfOneOpAreClaimedTogether) {
  auto split_graph = [](bool second_part_has_epilogue) {
    GraphBuilder b;
    const int x = b.tensor({2, 8});
    const int a = b.view("SPLIT", split_view(1, {}, 2, 0, false), x, {2, 4});
    int c = b.view("SPLIT", split_view(1, {}, 2, 1, false), x, {2, 4});
    b.g.nodes[1].id = 0;
    b.ew(EwOp::Mul, {b.ew(EwOp::Tanh, {a}, {2, 4}), a}, {2, 4});
    if (second_part_has_epilogue) c = b.ew(EwOp::Abs, {c}, {2, 4});
    b.opaque("CUMSUM", {c}, {2, 4});
    return b.g;
  };
  FusionPlan p = plan_fusion(split_graph(true), {});
  EXPECT_EQ(p.groups.size(), 2u);  // each part with its readers
  EXPECT_GE(p.group_of[0], 0);
  EXPECT_GE(p.group_of[1], 0);
  // The second part alone reads from and feeds no anchor: left, and the first with it.
  const Graph g = split_graph(false);
  p = plan_fusion(g, {});
  for (int m = 0; m < 4; ++m) EXPECT_LT(p.group_of[m], 0) << m;
  EXPECT_NE(p.reason[0].find("another output of SPLIT is left"), std::string::npos) << p.reason[0];
  EXPECT_TRUE(p.groups.empty());
  Graph two_ops = g;  // the same parts as two ops: the first is claimed
  two_ops.nodes[1].id = 1;
  p = plan_fusion(two_ops, {});
  EXPECT_GE(p.group_of[0], 0);
  EXPECT_LT(p.group_of[1], 0);
}

TEST(Planner, PairIsLeftByDefaultTripleIsClaimed) {
  GraphBuilder b;
  int t = b.ew(EwOp::Logistic, {b.tensor(kS)}, kS);
  t = b.ew(EwOp::Mul, {t, 0}, kS);  // swish: two nodes
  EXPECT_TRUE(plan_fusion(b.g, {}).groups.empty());
  b.ew(EwOp::Abs, {t}, kS);
  const FusionPlan p = plan_fusion(b.g, {});
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0], (std::vector<int>{0, 1, 2}));
}

TEST(Planner, BranchAndJoinStayTogether) {
  GraphBuilder b;
  const int x = b.ew(EwOp::Abs, {b.tensor(kS)}, kS);
  const int l = b.ew(EwOp::Exp, {x}, kS);
  const int r = b.ew(EwOp::Tanh, {x}, kS);
  b.ew(EwOp::Add, {l, r}, kS);
  const FusionPlan p = plan_fusion(b.g, {});
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0].size(), 4u);
}

TEST(Planner, BroadcastInputsJoinButShapeChangesSplit) {
  GraphBuilder b;
  const int scale = b.tensor({1, 1, 1, 8});
  const int small = b.ew(EwOp::Exp, {scale}, {1, 1, 1, 8});
  const int small2 = b.ew(EwOp::Neg, {small}, {1, 1, 1, 8});
  const int x = b.ew(EwOp::Mul, {b.tensor(kS), small2}, kS);  // shape grows: new group
  b.ew(EwOp::Tanh, {x}, kS);
  PlannerOptions pairs;  // groups of two count here
  pairs.min_nodes_per_group = 2;
  const FusionPlan p = plan_fusion(b.g, pairs);
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_EQ(p.groups[0], (std::vector<int>{0, 1}));
  EXPECT_EQ(p.groups[1], (std::vector<int>{2, 3}));
}

TEST(Planner, PreluWithPerChannelAlphaJoinsTheChain) {
  GraphBuilder b;
  static const float alpha[8] = {0.1f, 0.2f, 0.3f, -0.1f, 0.f, 0.5f, 1.f, 2.f};
  const int x = b.tensor(kS);
  int t = b.ew(EwOp::Mul, {x, b.tensor({8})}, kS);
  t = b.ew(EwOp::Prelu, {t, b.tensor({1, 1, 8}, true, alpha)}, kS);
  b.ew(EwOp::Tanh, {b.ew(EwOp::Add, {t, x}, kS)}, kS);
  const FusionPlan p = plan_fusion(b.g, {});
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0], (std::vector<int>{0, 1, 2, 3}));
}

TEST(Planner, GroupsStayConvex) {
  // a -> opaque -> c, and a -> c directly: a and c may not share a group.
  GraphBuilder b;
  const int a = b.ew(EwOp::Abs, {b.tensor(kS)}, kS);
  const int o = b.opaque("CONV_2D", {a}, kS);
  b.ew(EwOp::Add, {a, o}, kS);
  PlannerOptions one;
  one.min_nodes_per_group = 1;
  const FusionPlan p = plan_fusion(b.g, one);
  EXPECT_EQ(p.groups.size(), 2u);
  EXPECT_NE(p.group_of[0], p.group_of[2]);
  EXPECT_EQ(p.reason[1], "unsupported op CONV_2D");
}

// Each group convex is not enough: two groups may still read each other's values
// (a = x+y; e = exp(x); s = sin(e); b = a*s; c = e*a; d = a-e), which no order of
// the two can run. The planner keeps the groups a DAG.
TEST(Planner, GroupsNeverDependOnEachOther) {
  GraphBuilder b;
  const int x = b.tensor(kS), y = b.tensor(kS);
  const int a = b.ew(EwOp::Add, {x, y}, kS);
  const int e = b.ew(EwOp::Exp, {x}, kS);
  const int s = b.opaque("SIN", {e}, kS);
  b.ew(EwOp::Mul, {a, s}, kS);
  b.ew(EwOp::Mul, {e, a}, kS);
  b.ew(EwOp::Sub, {a, e}, kS);
  PlannerOptions one;
  one.min_nodes_per_group = 1;
  const FusionPlan p = plan_fusion(b.g, one);
  // depends[i][j]: node i reads (transitively) the output of node j.
  const int n = static_cast<int>(b.g.nodes.size());
  std::vector<std::vector<bool>> depends(n, std::vector<bool>(n, false));
  for (int i = 0; i < n; ++i)
    for (int t : b.g.nodes[i].inputs)
      for (int j = 0; j < i; ++j)
        if (b.g.nodes[j].outputs[0] == t) {
          depends[i][j] = true;
          for (int k = 0; k < n; ++k) depends[i][k] = depends[i][k] || depends[j][k];
        }
  auto group_depends = [&](int g1, int g2) {
    for (int i : p.groups[g1])
      for (int j : p.groups[g2])
        if (depends[i][j]) return true;
    return false;
  };
  ASSERT_GE(p.groups.size(), 2u);
  for (size_t g1 = 0; g1 < p.groups.size(); ++g1)
    for (size_t g2 = g1 + 1; g2 < p.groups.size(); ++g2)
      EXPECT_FALSE(group_depends(g1, g2) && group_depends(g2, g1)) << "groups " << g1 << " and " << g2;
}

TEST(Planner, NonFloatAndUnsupportedActivationsAreDeclined) {
  GraphBuilder b;
  const int q = b.tensor(kS, /*float32=*/false);
  const int x = b.ew(EwOp::Abs, {q}, kS);
  b.ew(EwOp::Add, {x, b.tensor(kS)}, kS, Activation::kUnsupported);
  const FusionPlan p = plan_fusion(b.g, {});
  EXPECT_TRUE(p.groups.empty());
  EXPECT_NE(p.reason[0].find("dtype"), std::string::npos);
  EXPECT_NE(p.reason[1].find("activation"), std::string::npos);
}

TEST(Planner, DynamicShapesAndIncompatibleBroadcastsAreDeclined) {
  GraphBuilder b;
  const int d = b.tensor(kS);
  b.g.tensors[d].has_dynamic_shape = true;
  b.ew(EwOp::Exp, {d}, kS);
  b.ew(EwOp::Add, {b.tensor({3}), b.tensor({4})}, {4});
  const FusionPlan p = plan_fusion(b.g, {});
  EXPECT_NE(p.reason[0].find("dynamic shape"), std::string::npos);
  EXPECT_NE(p.reason[1].find("do not broadcast"), std::string::npos);
}

TEST(Planner, DisabledFamilyClaimsNothing) {
  GraphBuilder b;
  const int x = b.ew(EwOp::Abs, {b.tensor(kS)}, kS);
  b.ew(EwOp::Exp, {x}, kS);
  PlannerOptions none;
  none.families = 0;
  const FusionPlan p = plan_fusion(b.g, none);
  EXPECT_TRUE(p.groups.empty());
  EXPECT_NE(p.reason[0].find("disabled"), std::string::npos);
}

// The options with one family on (the default is every family).
PlannerOptions only(uint32_t families) {
  PlannerOptions o;
  o.families = families;
  return o;
}

TEST(Planner, FullyConnectedAnchorsItsEpilogueWhenEnabled) {
  GraphBuilder b;
  static const float w[8 * 8] = {}, bias[8] = {};
  const int x = b.ew(EwOp::Tanh, {b.tensor({4, 8})}, {4, 8});
  const int y = b.fc(x, w, bias, 8, 8, {4, 8});
  b.ew(EwOp::Add, {b.ew(EwOp::Exp, {y}, {4, 8}), x}, {4, 8});  // x comes from TANH, outside the FC's group
  FusionPlan p = plan_fusion(b.g, only(kFamilyElementwise));
  EXPECT_NE(p.reason[1].find("'fully_connected' is disabled"), std::string::npos);
  PlannerOptions all;
  all.families = kFamilyAll;
  all.min_nodes_per_group = 1;
  p = plan_fusion(b.g, all);
  // TANH feeds the FC: it may not share the FC's group even though ADD reads both.
  EXPECT_NE(p.group_of[0], p.group_of[1]);
  EXPECT_EQ(p.group_of[1], p.group_of[2]);
  EXPECT_EQ(p.group_of[2], p.group_of[3]);
}

// A Keras Dense on [1, 128, 256] becomes a 2-D FULLY_CONNECTED [128, 256]
// whose residual ADD is [1, 128, 256] again: the same layout, one group.
TEST(Planner, AResidualAddOfAnotherRankJoinsTheFullyConnected) {
  GraphBuilder b;
  static const float w[8 * 8] = {}, bias[8] = {};
  const int x = b.tensor({1, 4, 8});
  const int y = b.fc(x, w, bias, 8, 8, {4, 8});
  b.ew(EwOp::Add, {x, y}, {1, 4, 8});
  PlannerOptions all;
  all.families = kFamilyAll;
  const FusionPlan p = plan_fusion(b.g, all);
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0], (std::vector<int>{0, 1}));
}

TEST(Planner, FullyConnectedNeedsConstantFittingWeights) {
  GraphBuilder b;
  static const float w[6 * 5] = {};
  b.fc(b.tensor({2, 4}), w, nullptr, 6, 5, {2, 6});  // k = 5 does not divide 8 elements into rows
  PlannerOptions all;
  all.families = kFamilyAll;
  EXPECT_NE(plan_fusion(b.g, all).reason[0].find("does not fit"), std::string::npos);
}

TEST(Planner, TwoIndependentChainsAreTwoGroups) {
  GraphBuilder b;
  b.ew(EwOp::Exp, {b.ew(EwOp::Abs, {b.tensor(kS)}, kS)}, kS);
  b.ew(EwOp::Exp, {b.ew(EwOp::Abs, {b.tensor(kS)}, kS)}, kS);
  PlannerOptions pairs;
  pairs.min_nodes_per_group = 2;
  EXPECT_EQ(plan_fusion(b.g, pairs).groups.size(), 2u);
}

// POW by a constant scalar 2 or 0.5 runs as SQUARE or SQRT: a fold of no node
// into the POW. Other exponents, a vector of them, or one known only at run time stay POW.
TEST(Planner, PowersByTwoAndAHalfAreFoldsOfThePlan) {
  static const float two[1] = {2.f}, half[1] = {0.5f}, three[1] = {3.f}, twos[2] = {2.f, 2.f};
  GraphBuilder b;
  const Shape s = {4, 2};
  int t = b.ew(EwOp::Pow, {b.tensor(s), b.tensor({}, true, two)}, s);  // node 0
  t = b.ew(EwOp::Pow, {t, b.tensor({1}, true, half)}, s);                // 1
  t = b.ew(EwOp::Pow, {t, b.tensor({}, true, three)}, s);                // 2
  t = b.ew(EwOp::Pow, {t, b.tensor({2}, true, twos)}, s);                // 3
  t = b.ew(EwOp::Pow, {t, b.tensor({})}, s);                             // 4
  const int refilled = b.tensor({}, true, two);  // weight math on a TF variable: refilled at run time
  b.g.tensors[refilled].values_at_run_time = true;
  b.ew(EwOp::Pow, {t, refilled}, s);  // 5
  PlannerOptions all;
  all.families = kFamilyAll;
  const FusionPlan plan = plan_fusion(b.g, all);
  ASSERT_EQ(plan.groups.size(), 1u);
  std::vector<std::tuple<FoldKind, int, std::vector<int>>> folds;
  for (const Fold& f : plan.folds) folds.emplace_back(f.kind, f.anchor, f.nodes);
  EXPECT_EQ(folds, (std::vector<std::tuple<FoldKind, int, std::vector<int>>>{{FoldKind::kSquare, 0, {}},
                                                                             {FoldKind::kSqrt, 1, {}}}));
}

}  // namespace
}  // namespace fd

namespace fd {
namespace {

ConvParams valid_stride(int s) {
  ConvParams p;
  p.stride_h = p.stride_w = s;
  return p;
}

TEST(Planner, PadFoldsIntoTheConvolutionThatIsItsOnlyReader) {
  GraphBuilder b;
  static const float w[8 * 3 * 3 * 8] = {};
  const int x = b.tensor({1, 8, 8, 8});
  const int padded = b.pad(x, {0, 0, 0, 1, 0, 1, 0, 0}, {1, 9, 9, 8});
  const int y = b.conv(AnchorOp::kConv2D, padded, w, {8, 3, 3, 8}, nullptr, valid_stride(2), {1, 4, 4, 8});
  b.ew(EwOp::Abs, {y}, {1, 4, 4, 8});  // no clamp: it runs as an epilogue, not folded
  PlannerOptions all;
  all.families = kFamilyAll;
  FusionPlan p = plan_fusion(b.g, all);
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0], (std::vector<int>{0, 1, 2}));
  ASSERT_EQ(p.folds.size(), 1u);  // the plan records the fold for the runtime
  EXPECT_EQ(p.folds[0].kind, FoldKind::kPad);
  EXPECT_EQ(p.folds[0].anchor, 1);
  EXPECT_EQ(p.folds[0].nodes, std::vector<int>{0});
  EXPECT_NE(plan_fusion(b.g, only(kFamilyElementwise)).reason[1].find("'conv' is disabled"), std::string::npos);
  // A second reader of the padded tensor: the PAD is not folded.
  b.ew(EwOp::Abs, {padded}, {1, 9, 9, 8});
  p = plan_fusion(b.g, all);
  EXPECT_TRUE(p.folds.empty());
  EXPECT_EQ(p.group_of[0], -1);
  EXPECT_NE(p.reason[0].find("one reader"), std::string::npos);
  EXPECT_GE(p.group_of[1], 0);
}

// A filter that does not fit its input is left; a VALID window larger than its
// input gives an empty output, which TFLite gives too: claimed (it binds to the
// sizes of each run). An output stored with a placeholder on an axis its
// signature leaves open (the converter stores 1 there) is as the op gives it;
// on a fixed axis it is not.
TEST(Planner, ConvolutionShapesMustFit) {
  GraphBuilder b;
  static const float w[4 * 3 * 3 * 5] = {};
  b.conv(AnchorOp::kConv2D, b.tensor({1, 8, 8, 8}), w, {4, 3, 3, 5}, nullptr, valid_stride(1), {1, 6, 6, 4});
  b.conv(AnchorOp::kConv2D, b.tensor({1, 2, 2, 5}), w, {4, 3, 3, 5}, nullptr, valid_stride(1), {1, 0, 0, 4});
  const int open = b.conv(AnchorOp::kConv2D, b.tensor({1, 1, 1, 5}), w, {4, 3, 3, 5}, nullptr, valid_stride(1),
                          {1, 1, 1, 4});
  b.g.tensors[open].signature = {1, -1, -1, 4};
  const int fixed = b.conv(AnchorOp::kConv2D, b.tensor({1, 1, 1, 5}), w, {4, 3, 3, 5}, nullptr, valid_stride(1),
                           {1, 1, 1, 4});
  b.g.tensors[fixed].signature = {1, 1, -1, 4};
  PlannerOptions all;
  all.families = kFamilyAll;
  const FusionPlan p = plan_fusion(b.g, all);
  EXPECT_NE(p.reason[0].find("does not fit"), std::string::npos) << p.reason[0];
  EXPECT_GE(p.group_of[1], 0) << p.reason[1];
  EXPECT_GE(p.group_of[2], 0) << p.reason[2];
  EXPECT_NE(p.reason[3].find("is not the expected [1,0,0,4]"), std::string::npos) << p.reason[3];
}

// A resize reads no window a PAD could fold into: the PAD before it is left.
TEST(Planner, APadBeforeAResizeDoesNotFold) {
  GraphBuilder b;
  const int padded = b.pad(b.tensor({1, 4, 4, 8}), {0, 0, 1, 1, 1, 1, 0, 0}, {1, 6, 6, 8});
  b.ew(EwOp::Tanh, {b.resize(AnchorOp::kResizeBilinear, padded, 12, 12, false, true, {1, 12, 12, 8})},
       {1, 12, 12, 8});
  const FusionPlan p = plan_fusion(b.g, {});
  EXPECT_TRUE(p.folds.empty());
  EXPECT_EQ(p.group_of[0], -1);
  EXPECT_NE(p.reason[0].find("PAD is fused only into a convolution or pool"), std::string::npos) << p.reason[0];
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0], (std::vector<int>{1, 2}));
}

// TRANSPOSE_CONV anchors its epilogue where its output_shape is a constant that
// its input, stride and padding give (TFLite's padding rule read backwards);
// else it is left, with the reason. A PAD before it does not fold.
TEST(Planner, TransposeConvNeedsAConstantOutputShapeThatItsInputGives) {
  static const float w[6 * 3 * 3 * 8] = {};
  ConvParams s2;
  s2.stride_h = s2.stride_w = 2;
  s2.same_padding = true;
  auto plan = [&](Shape dims, Shape out, Shape signature = {}) {
    GraphBuilder b;
    const int padded = b.pad(b.tensor({1, 4, 5, 8}), {0, 0, 1, 0, 0, 1, 0, 0}, {1, 5, 6, 8});
    b.g.tensors[padded].signature = std::move(signature);
    const int y = b.transpose_conv(padded, w, {6, 3, 3, 8}, nullptr, s2, out, Activation::kRelu);
    b.g.nodes[1].params = transpose_conv_params(s2, std::move(dims));
    b.ew(EwOp::Tanh, {y}, out);
    return plan_fusion(b.g, {});
  };
  FusionPlan p = plan({1, 10, 12, 6}, {1, 10, 12, 6});
  EXPECT_TRUE(p.folds.empty());
  EXPECT_EQ(p.group_of[0], -1);
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0], (std::vector<int>{1, 2}));
  EXPECT_EQ(plan({1, 9, 11, 6}, {1, 9, 11, 6}).groups.size(), 1u);  // what 5x6 gives too
  p = plan({1, 12, 12, 6}, {1, 12, 12, 6});  // 12 rows read back as 6 input rows, not 5
  EXPECT_EQ(p.group_of[1], -1);
  EXPECT_NE(p.reason[1].find("is not what input [1,5,6,8] gives"), std::string::npos) << p.reason[1];
  p = plan({}, {1, 10, 12, 6});  // output_shape computed at run time
  EXPECT_NE(p.reason[1].find("output_shape is not a constant"), std::string::npos) << p.reason[1];
  p = plan({1, 10, 12, 7}, {1, 10, 12, 7});
  EXPECT_NE(p.reason[1].find("do not fit filter"), std::string::npos) << p.reason[1];
  p = plan({1, 10, 12, 6}, {1, 10, 12, 6}, {1, -1, 6, 8});  // a constant output_shape cannot follow a resize
  EXPECT_NE(p.reason[1].find("leaves axes to the run"), std::string::npos) << p.reason[1];
}

// A depthwise convolution anchors its epilogue whatever its depth multiplier
// (case_dw_mult2: its input widened once per run, 0.44x XNNPACK's time).
TEST(Planner, DepthwiseOfAnyDepthMultiplierAnchorsItsEpilogue) {
  static const float w[3 * 3 * 8] = {};
  for (int multiplier : {1, 2, 4}) {
    GraphBuilder b;
    const int c = 8 / multiplier;
    const int x = b.tensor({1, 6, 6, c});
    const int y = b.conv(AnchorOp::kDepthwiseConv2D, x, w, {1, 3, 3, 8}, nullptr, valid_stride(1), {1, 4, 4, 8});
    b.ew(EwOp::Tanh, {b.ew(EwOp::Abs, {b.ew(EwOp::Exp, {y}, {1, 4, 4, 8})}, {1, 4, 4, 8})}, {1, 4, 4, 8});
    const FusionPlan p = plan_fusion(b.g, {});
    ASSERT_EQ(p.groups.size(), 1u) << multiplier;
    EXPECT_EQ(p.groups[0], (std::vector<int>{0, 1, 2, 3})) << multiplier;
  }
}

// A FULLY_CONNECTED whose weights the model stores as int8 (dynamic-range
// quantization) runs as TFLite's hybrid kernel, its input rows quantized
// asymmetrically: claimed with its epilogue. Symmetric quantization, or
// weights of a nonzero zero point, the runtime does not do: the layer is left,
// with the reason, and its epilogue groups without it.
TEST(Planner, AFullyConnectedWithInt8WeightsIsClaimedWhereItRunsAsTheHybridKernel) {
  static const float w[8 * 8] = {};
  static const int8_t q[8 * 8] = {};
  const char* kReasons[] = {"", "FULLY_CONNECTED with int8 weights quantizes its input symmetrically",
                            "FULLY_CONNECTED with int8 weights of a nonzero zero point"};
  for (int variant : {0, 1, 2}) {
    GraphBuilder b;
    const int y = b.fc(b.tensor({4, 8}), w, nullptr, 8, 8, {4, 8});
    b.g.nodes[0].params = fully_connected_params(false, variant != 1);
    b.int8_weights(b.g.nodes[0].inputs[1], q, {std::vector<float>(8, 0.1f), std::vector<int64_t>(8, variant == 2), 0});
    b.ew(EwOp::Tanh, {b.ew(EwOp::Abs, {b.ew(EwOp::Exp, {y}, {4, 8})}, {4, 8})}, {4, 8});
    const FusionPlan p = plan_fusion(b.g, {});
    ASSERT_EQ(p.groups.size(), 1u);
    if (variant == 0) {
      EXPECT_EQ(p.groups[0], (std::vector<int>{0, 1, 2, 3}));
    } else {
      EXPECT_EQ(p.group_of[0], -1);
      EXPECT_EQ(p.reason[0].rfind(kReasons[variant], 0), 0u) << p.reason[0];
      EXPECT_EQ(p.groups[0], (std::vector<int>{1, 2, 3}));
    }
  }
}

// CONV_2D and DEPTHWISE_CONV_2D of int8 weights run as TFLite's hybrid
// kernels where the runtime does what those do: a scale per output channel.
// One scale for all (TFLite then quantizes symmetrically), a dilation (which
// TFLite's hybrid CONV_2D ignores) or a depth multiplier are left, with the
// reason. A PAD of zeros folds into them; of another constant it is left (it
// would widen the quantized range).
TEST(Planner, ConvolutionsWithInt8WeightsAreClaimedWhereTheyRunAsTheHybridKernels) {
  static const float w[8 * 9 * 8] = {};
  static const int8_t q[8 * 9 * 8] = {};
  struct V {
    AnchorOp op;
    bool per_channel;
    int dilation, multiplier;
    const char* reason;
  };
  const V variants[] = {{AnchorOp::kConv2D, true, 1, 1, ""},
                        {AnchorOp::kDepthwiseConv2D, true, 1, 1, ""},
                        {AnchorOp::kConv2D, false, 1, 1, "CONV_2D with int8 weights of one scale"},
                        {AnchorOp::kConv2D, true, 2, 1, "dilated CONV_2D with int8 weights"},
                        {AnchorOp::kDepthwiseConv2D, true, 1, 2, "DEPTHWISE_CONV_2D with int8 weights and a depth"}};
  for (const V& v : variants) {
    GraphBuilder b;
    const bool dw = v.op == AnchorOp::kDepthwiseConv2D;
    const int64_t c = 8 / v.multiplier;
    ConvParams p;
    p.same_padding = true;
    p.dilation_h = p.dilation_w = v.dilation;
    const Shape filter = dw ? Shape{1, 3, 3, 8} : Shape{8, 3, 3, 8};
    const int y = b.conv(v.op, b.tensor({1, 6, 6, c}), w, filter, nullptr, p, {1, 6, 6, 8});
    std::vector<float> scales(8, 0.1f);
    if (v.per_channel) scales[3] = 0.2f;
    b.int8_weights(b.g.nodes[0].inputs[1], q, {scales, std::vector<int64_t>(8, 0), dw ? 3 : 0});
    b.ew(EwOp::Tanh, {b.ew(EwOp::Abs, {b.ew(EwOp::Exp, {y}, {1, 6, 6, 8})}, {1, 6, 6, 8})}, {1, 6, 6, 8});
    const FusionPlan plan = plan_fusion(b.g, {});
    ASSERT_EQ(plan.groups.size(), 1u);
    if (*v.reason == 0) {
      EXPECT_EQ(plan.groups[0], (std::vector<int>{0, 1, 2, 3}));
    } else {
      EXPECT_EQ(plan.group_of[0], -1);
      EXPECT_EQ(plan.reason[0].rfind(v.reason, 0), 0u) << plan.reason[0];
    }
  }
  for (float value : {0.f, 1.f}) {
    GraphBuilder b;
    const int x = b.pad(b.tensor({1, 6, 6, 8}), {0, 0, 1, 1, 1, 1, 0, 0}, {1, 8, 8, 8}, PadMode::kConstant, value);
    b.conv(AnchorOp::kConv2D, x, w, {8, 3, 3, 8}, nullptr, ConvParams{}, {1, 6, 6, 8});
    std::vector<float> scales(8, 0.1f);
    scales[3] = 0.2f;
    b.int8_weights(b.g.nodes[1].inputs[1], q, {scales, std::vector<int64_t>(8, 0), 0});
    const FusionPlan plan = plan_fusion(b.g, {});
    if (value == 0.f) {
      EXPECT_EQ(plan.group_of[0], plan.group_of[1]);
      EXPECT_GE(plan.group_of[0], 0);
    } else {
      EXPECT_EQ(plan.group_of[0], -1);
      EXPECT_EQ(plan.reason[0].rfind("PAD of a nonzero constant", 0), 0u) << plan.reason[0];
    }
  }
}

// A tensor whose shape is known only at run time (a RESHAPE to a computed
// shape): a FULLY_CONNECTED reads any rows of k from it and binds then; an
// elementwise op reading it is left.
TEST(Planner, AFullyConnectedReadsAShapeKnownOnlyAtRunTime) {
  static const float w[8 * 8] = {};
  GraphBuilder b;
  const int x = b.tensor({1, 1});
  b.g.tensors[x].has_dynamic_shape = true;
  const int y = b.fc(x, w, nullptr, 8, 8, {1, 8});
  b.ew(EwOp::Tanh, {b.ew(EwOp::Abs, {y}, {1, 8})}, {1, 8});
  b.ew(EwOp::Exp, {x}, {1, 1});
  const FusionPlan p = plan_fusion(b.g, {});
  EXPECT_GE(p.group_of[0], 0) << p.reason[0];
  EXPECT_EQ(p.group_of[3], -1);
  EXPECT_EQ(p.reason[3].rfind("dynamic shape", 0), 0u) << p.reason[3];
}

// The FULLY_CONNECTED's rows are then known only at run time too: a RESHAPE
// of one inferred dimension reads them (the ops after it see a shape of that
// dimension open), a RESHAPE to a shape of two open ones or an ABS do not.
TEST(Planner, ARunTimeShapeReachesOnlyOpsThatBindToIt) {
  static const float w[8 * 8] = {};
  for (int reader = 0; reader < 3; ++reader) {
    GraphBuilder b;
    const int x = b.tensor({1, 8});
    b.g.tensors[x].has_dynamic_shape = true;
    const int y = b.fc(x, w, nullptr, 8, 8, {1, 8});
    b.g.tensors[y].has_dynamic_shape = true;
    const std::vector<int64_t> dims = reader == 0 ? std::vector<int64_t>{-1, 4, 8} : std::vector<int64_t>{-1, -1, 8};
    const int r = reader < 2 ? b.row_op(AnchorOp::kReshape, {y}, {1, 4, 8}, dims) : b.ew(EwOp::Abs, {y}, {1, 8});
    const Shape s = b.g.tensors[r].shape;
    b.ew(EwOp::Tanh, {b.ew(EwOp::Neg, {r}, s)}, s);
    const FusionPlan p = plan_fusion(b.g, {});
    EXPECT_GE(p.group_of[0], 0) << p.reason[0];
    if (reader == 0) {
      EXPECT_GE(p.group_of[1], 0) << p.reason[1];
    } else {
      EXPECT_EQ(p.group_of[1], -1) << reader;
    }
  }
}

TEST(Planner, ALoneOpNextToAnAnchorJoinsItsPartition) {
  GraphBuilder b;
  static const float w[8 * 8] = {};
  const Shape s = {1, 4, 4, 8};
  const int y = b.conv(AnchorOp::kConv2D, b.tensor(s), w, {8, 1, 1, 8}, nullptr, valid_stride(1), s);
  const int pooled = b.opaque("MEAN", {y}, {1, 1, 1, 8});
  b.ew(EwOp::Mul, {y, pooled}, s);  // reads the conv's output, but cannot join its group
  PlannerOptions all;
  all.families = kFamilyAll;
  const FusionPlan p = plan_fusion(b.g, all);
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_GE(p.group_of[2], 0);
  EXPECT_TRUE(plan_fusion(b.g, only(kFamilyElementwise)).groups.empty());
}

// Squeeze-excite: x * gate(mean(x)) feeding a 1x1 convolution.
TEST(Planner, AChannelScaleFoldsIntoTheConvolutionWhenItsWeightsAreSmaller) {
  for (int64_t oc : {16, 200}) {  // 16x32 weights < 8x8x32 input; 200x32 > it
    GraphBuilder b;
    static const float w[200 * 32] = {};
    const Shape s = {1, 8, 8, 32};
    const int x = b.tensor(s);
    const int gate = b.pool(AnchorOp::kMean, x, ConvParams{}, {1, 1, 1, 32});
    const int scaled = b.ew(EwOp::Mul, {gate, x}, s);  // the scale on either side
    b.conv(AnchorOp::kConv2D, scaled, w, {oc, 1, 1, 32}, nullptr, valid_stride(1), {1, 8, 8, oc});
    PlannerOptions all;
    all.families = kFamilyAll;
    const FusionPlan p = plan_fusion(b.g, all);
    if (oc == 16) {
      EXPECT_EQ(p.group_of[1], p.group_of[2]);
      EXPECT_NE(p.group_of[0], p.group_of[1]);
    } else {
      EXPECT_NE(p.group_of[1], p.group_of[2]);
    }
  }
}

// A TensorFlow graph's squeeze-excite: the scaled input feeds a convolution
// whose batch norm (an output map) folds into its weights too.
TEST(Planner, AChannelScaleAndAnOutputMapFoldIntoOneConvolution) {
  GraphBuilder b;
  static const float w[8 * 32] = {}, bn[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const Shape s = {1, 8, 8, 32}, out = {1, 8, 8, 8};
  const int x = b.tensor(s);
  const int gate = b.pool(AnchorOp::kMean, x, ConvParams{}, {1, 1, 1, 32});
  const int scaled = b.ew(EwOp::Mul, {x, gate}, s);
  const int c = b.conv(AnchorOp::kConv2D, scaled, w, {8, 1, 1, 32}, nullptr, valid_stride(1), out);
  b.ew(EwOp::Add, {b.ew(EwOp::Mul, {c, b.tensor({8}, true, bn)}, out), b.tensor({8}, true, bn)}, out);
  PlannerOptions all;
  all.families = kFamilyAll;
  const FusionPlan p = plan_fusion(b.g, all);
  std::vector<FoldKind> kinds;
  for (const Fold& f : p.folds) kinds.push_back(f.kind);
  // The map's MUL and ADD run as one FMA where the map is not taken in (its values stored).
  EXPECT_EQ(kinds, (std::vector<FoldKind>{FoldKind::kOutputAffine, FoldKind::kChannelScale, FoldKind::kMultiplyAdd}));
  EXPECT_EQ(p.group_of[1], p.group_of[2]);
  EXPECT_EQ(p.group_of[4], p.group_of[2]);
}

TEST(Planner, AChannelScaleWithAnotherReaderIsNotFolded) {
  GraphBuilder b;
  static const float w[8 * 8] = {};
  const Shape s = {1, 8, 8, 8};
  const int scaled = b.ew(EwOp::Mul, {b.tensor(s), b.tensor({8})}, s);
  b.conv(AnchorOp::kConv2D, scaled, w, {8, 1, 1, 8}, nullptr, valid_stride(1), s);
  b.ew(EwOp::Abs, {scaled}, s);
  PlannerOptions all;
  all.families = kFamilyAll;
  all.min_nodes_per_group = 1;
  const FusionPlan p = plan_fusion(b.g, all);
  EXPECT_EQ(p.group_of[0], p.group_of[2]);  // an elementwise group
  EXPECT_NE(p.group_of[0], p.group_of[1]);
  EXPECT_EQ(channel_scale_side(b.g, b.g.nodes[0]), 1);
  EXPECT_EQ(channel_scale_side(b.g, b.g.nodes[2]), -1);
}

}  // namespace
TEST(Planner, AttentionRunsAsRowOpsWithTheirEpilogues) {
  // q, k: [1, 2, 8, 4]; scores = softmax(q k^T * s); out = scores v, transposed back and reshaped.
  GraphBuilder b;
  const int q = b.tensor({1, 2, 8, 4}), k = b.tensor({1, 2, 8, 4}), v = b.tensor({1, 2, 8, 4});
  const int s = b.row_op(AnchorOp::kBatchMatMul, {q, k}, {1, 2, 8, 8}, {}, false, true);
  const int scaled = b.ew(EwOp::Mul, {s, b.tensor({})}, {1, 2, 8, 8});
  const int p = b.row_op(AnchorOp::kSoftmax, {scaled}, {1, 2, 8, 8});
  const int o = b.row_op(AnchorOp::kBatchMatMul, {p, v}, {1, 2, 8, 4});
  const int t = b.row_op(AnchorOp::kTranspose, {o}, {1, 8, 2, 4}, {0, 2, 1, 3});
  const int r = b.row_op(AnchorOp::kReshape, {t}, {8, 8}, {8, -1});
  b.row_op(AnchorOp::kRowReduce, {r}, {8, 1});
  FusionPlan plan = plan_fusion(b.g, only(kFamilyElementwise));
  EXPECT_TRUE(plan.groups.empty());
  EXPECT_NE(plan.reason[0].find("'transformer' is disabled"), std::string::npos) << plan.reason[0];
  PlannerOptions all;
  all.families = kFamilyAll;
  plan = plan_fusion(b.g, all);
  // BATCH_MATMUL, TRANSPOSE and RESHAPE start groups (they read their whole
  // input); MUL joins the first, and SOFTMAX and the row MEAN read the rows of
  // their group's tile.
  ASSERT_EQ(plan.groups.size(), 4u);
  EXPECT_EQ(plan.groups[0], (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(plan.groups[1], (std::vector<int>{3}));
  EXPECT_EQ(plan.groups[2], (std::vector<int>{4}));
  EXPECT_EQ(plan.groups[3], (std::vector<int>{5, 6}));
  for (int i = 2; i < 7; ++i) EXPECT_TRUE(plan.reason[i].empty()) << i << ": " << plan.reason[i];
}

// Keras' LayerNorm after a residual ADD: the row MEANs join the group that
// computes their input, and the statistics (one value per row) the rest.
TEST(Planner, LayerNormIsOneGroupWithItsPrologue) {
  GraphBuilder b;
  const Shape s = {1, 6, 8}, row = {1, 6, 1};
  const int x = b.ew(EwOp::Add, {b.tensor(s), b.tensor(s)}, s);
  const int mean = b.row_op(AnchorOp::kRowReduce, {x}, row);
  const int var = b.row_op(AnchorOp::kRowReduce, {b.ew(EwOp::SquaredDifference, {x, mean}, s)}, row);
  const int r = b.ew(EwOp::Rsqrt, {b.ew(EwOp::Add, {var, b.tensor({})}, row)}, row);
  const int scale = b.ew(EwOp::Mul, {r, b.tensor({8})}, s);
  const int shift = b.ew(EwOp::Mul, {b.ew(EwOp::Neg, {mean}, row), scale}, s);
  b.ew(EwOp::Add, {b.ew(EwOp::Mul, {x, scale}, s), shift}, s);
  PlannerOptions all;
  all.families = kFamilyAll;
  FusionPlan p = plan_fusion(b.g, all);
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0].size(), b.g.nodes.size());
  // A row value reading a per-row tensor from outside cannot run per row: it stays out.
  GraphBuilder c;
  const int y = c.ew(EwOp::Exp, {c.tensor(s)}, s);
  const int m = c.row_op(AnchorOp::kRowReduce, {y}, row);
  c.ew(EwOp::Add, {m, c.tensor(row)}, row);
  p = plan_fusion(c.g, all);
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_EQ(p.groups[0], (std::vector<int>{0, 1}));
}

// What an int8-weight layer reads (it quantizes that input), through any
// chain of float nodes, rounds as the builtin kernels: those nodes are marked,
// and no input map folds into their CONV_2D. The int8 layer itself and what
// comes after it are not marked; without int8 weights nothing is.
TEST(Planner, FloatNodesBeforeAnInt8LayerRoundAsTheBuiltinKernels) {
  static const float s[1] = {0.5f}, w[8 * 9 * 8] = {}, cb[8] = {};
  static const int8_t q[8 * 9 * 8] = {};
  for (bool int8 : {true, false}) {
    GraphBuilder b;
    const Shape in = {1, 6, 6, 8};
    const int x = b.ew(EwOp::Mul, {b.tensor(in), b.tensor({}, true, s)}, in);  // an input map: 0
    ConvParams p;
    p.same_padding = true;
    const int c = b.conv(AnchorOp::kConv2D, x, w, {8, 3, 3, 8}, cb, p, in);  // 1
    const int h = b.ew(EwOp::HardSwish, {c}, in);                            // 2
    const int q8 = b.conv(AnchorOp::kConv2D, h, w, {8, 3, 3, 8}, cb, p, in);  // 3: int8 weights
    b.conv(AnchorOp::kConv2D, b.ew(EwOp::Tanh, {q8}, in), w, {8, 3, 3, 8}, cb, p, in);  // 4, 5
    std::vector<float> scales(8, 0.1f);
    scales[3] = 0.2f;  // one scale per channel (of one for all, TFLite quantizes otherwise)
    if (int8) b.int8_weights(b.g.nodes[3].inputs[1], q, {scales, std::vector<int64_t>(8, 0), 0});
    PlannerOptions all;
    all.families = kFamilyAll;
    all.min_nodes_per_group = 1;
    const FusionPlan plan = plan_fusion(b.g, all);
    const std::vector<bool> rounded = {int8, int8, int8, false, false, false};
    EXPECT_EQ(plan.rounds_as_builtin, rounded) << "int8 " << int8;
    const bool input_map_folded = std::any_of(plan.folds.begin(), plan.folds.end(),
                                              [](const Fold& f) { return f.kind == FoldKind::kInputAffine; });
    EXPECT_EQ(input_map_folded, !int8);
    EXPECT_TRUE(plan.group_of[0] >= 0 && plan.group_of[1] >= 0 && plan.group_of[3] >= 0) << plan.reason[3];
  }
}

// x * s + b (constants, per channel or scalar) before a CONV_2D folds into it
// and joins its group; not when a value of the chain has another reader.
TEST(Planner, AConstantInputMapFoldsIntoTheConvolution) {
  static const float s[1] = {0.5f}, bias3[3] = {1.f, 2.f, 3.f}, w[8 * 9 * 3] = {}, cb[8] = {};
  for (bool shared : {false, true}) {
    GraphBuilder b;
    const Shape in = {1, 6, 6, 3}, out = {1, 6, 6, 8};
    const int x = b.tensor(in);
    const int y = b.ew(EwOp::Mul, {x, b.tensor({}, true, s)}, in);
    const int z = b.ew(EwOp::Add, {y, b.tensor({3}, true, bias3)}, in);
    ConvParams p;
    p.same_padding = true;
    const int c = b.conv(AnchorOp::kConv2D, z, w, {8, 3, 3, 3}, cb, p, out);
    b.ew(EwOp::Tanh, {c}, out);
    if (shared) b.ew(EwOp::Exp, {y}, in);
    PlannerOptions all;
    all.families = kFamilyAll;
    all.min_nodes_per_group = 1;
    const FusionPlan plan = plan_fusion(b.g, all);
    const auto f = input_affine(b.g, 2);
    if (!shared) {
      ASSERT_TRUE(f);
      EXPECT_EQ(f->nodes, (std::vector<int>{0, 1}));
      EXPECT_EQ(f->source, x);
      EXPECT_EQ(f->scale, (std::vector<float>{0.5f, 0.5f, 0.5f}));
      EXPECT_EQ(f->shift, (std::vector<float>{1.f, 2.f, 3.f}));
      ASSERT_EQ(plan.groups.size(), 1u);
      EXPECT_EQ(plan.groups[0], (std::vector<int>{0, 1, 2, 3}));
    } else {  // the MUL is read twice: only the ADD folds
      ASSERT_TRUE(f);
      EXPECT_EQ(f->nodes, (std::vector<int>{1}));
      EXPECT_EQ(f->source, y);
      EXPECT_NE(plan.group_of[0], plan.group_of[2]);
      EXPECT_EQ(plan.group_of[1], plan.group_of[2]);
    }
  }
}

// MUL/ADD by constants per output channel after a weighted anchor without
// activation, then a RELU6, fold into it (a TensorFlow batch norm); the chain
// ends at a value read twice, and an anchor with an activation takes none.
TEST(Planner, AConstantOutputMapFoldsIntoTheAnchorBeforeIt) {
  static const float s[8] = {1, 2, 3, 4, 5, 6, 7, 8}, w[8 * 9 * 3] = {};
  for (int variant = 0; variant < 3; ++variant) {
    GraphBuilder b;
    const Shape out = {1, 6, 6, 8};
    ConvParams p;
    p.same_padding = true;
    const Activation act = variant == 2 ? Activation::kRelu : Activation::kNone;
    const int c = b.conv(AnchorOp::kConv2D, b.tensor({1, 6, 6, 3}), w, {8, 3, 3, 3}, nullptr, p, out, act);
    const int m = b.ew(EwOp::Mul, {c, b.tensor({8}, true, s)}, out);
    const int a = b.ew(EwOp::Add, {b.tensor({8}, true, s), m}, out);
    b.ew(EwOp::Relu6, {a}, out);
    if (variant == 1) b.ew(EwOp::Exp, {a}, out);
    PlannerOptions all;
    all.families = kFamilyAll;
    const FusionPlan plan = plan_fusion(b.g, all);
    if (variant == 2) {  // no map after an activation: its MUL and ADD run as one FMA
      ASSERT_EQ(plan.folds.size(), 1u);
      EXPECT_EQ(plan.folds[0].kind, FoldKind::kMultiplyAdd);
      continue;
    }
    ASSERT_EQ(plan.folds.size(), 2u);  // and the map's MUL into its ADD (FMA) where the map is not taken in
    EXPECT_EQ(plan.folds[1].kind, FoldKind::kMultiplyAdd);
    EXPECT_EQ(plan.folds[0].kind, FoldKind::kOutputAffine);
    EXPECT_EQ(plan.folds[0].anchor, 0);
    EXPECT_EQ(plan.folds[0].nodes, variant == 0 ? (std::vector<int>{1, 2, 3}) : (std::vector<int>{1, 2}));
    EXPECT_EQ(plan.group_of[3], plan.group_of[0]);
  }
}

// Constants whose values come only at run time (TensorFlow variables) may
// fold where the runtime reads them when packing (after an anchor), not into
// an input map, whose values the plan holds.
TEST(Planner, ConstantsOfRunTimeValuesFoldOnlyWhereTheyArePacked) {
  static const float s[3] = {1, 2, 3}, w[8 * 9 * 3] = {}, cb[8] = {};
  GraphBuilder b;
  const Shape in = {1, 6, 6, 3}, out = {1, 6, 6, 8};
  const int k = b.tensor({3}, true, s);
  b.g.tensors[k].values_at_run_time = true;
  const int y = b.ew(EwOp::Mul, {b.tensor(in), k}, in);
  ConvParams p;
  p.same_padding = true;
  b.conv(AnchorOp::kConv2D, y, w, {8, 3, 3, 3}, cb, p, out, Activation::kRelu);
  EXPECT_FALSE(input_affine(b.g, 1));
  b.g.tensors[k].values_at_run_time = false;
  EXPECT_TRUE(input_affine(b.g, 1));
}

// A folded chain's source read again after the convolution (a skip
// connection): the conv reads the source whole, so the source's producer
// stays out of its group.
TEST(Planner, AFoldedInputMapReadsItsSourceFromOutsideTheGroup) {
  static const float half[1] = {0.5f}, shift[16] = {}, w[16 * 9 * 16] = {}, cb[16] = {};
  GraphBuilder b;
  const Shape s = {1, 6, 6, 16};
  const int x = b.ew(EwOp::Add, {b.tensor(s), b.tensor(s)}, s);
  const int y = b.ew(EwOp::Add, {b.ew(EwOp::Mul, {x, b.tensor({}, true, half)}, s), b.tensor({16}, true, shift)}, s);
  ConvParams p;
  p.same_padding = true;
  const int c = b.conv(AnchorOp::kConv2D, y, w, {16, 3, 3, 16}, cb, p, s);
  b.ew(EwOp::Add, {c, x}, s);
  PlannerOptions all;
  all.families = kFamilyAll;
  all.min_nodes_per_group = 1;
  const FusionPlan plan = plan_fusion(b.g, all);
  ASSERT_EQ(input_affine(b.g, 3)->source, x);
  EXPECT_EQ(plan.group_of[1], plan.group_of[3]);  // the chain folds into the conv
  EXPECT_NE(plan.group_of[0], plan.group_of[3]);  // x's producer does not join it
}

// A TRANSPOSE read only by a BATCH_MATMUL folds into it; not one that moves
// the first operand's last axis, nor one read twice.
TEST(Planner, ATransposeReadOnlyByABatchMatMulFoldsIntoIt) {
  GraphBuilder b;
  const int q = b.row_op(AnchorOp::kTranspose, {b.tensor({1, 8, 2, 4})}, {1, 2, 8, 4}, {0, 2, 1, 3});
  const int k = b.row_op(AnchorOp::kTranspose, {b.tensor({1, 8, 2, 4})}, {1, 2, 8, 4}, {0, 2, 1, 3});
  b.row_op(AnchorOp::kBatchMatMul, {q, k}, {1, 2, 8, 8}, {}, false, true);
  const int a_moved = b.row_op(AnchorOp::kTranspose, {b.tensor({1, 2, 4, 8})}, {1, 2, 8, 4}, {0, 1, 3, 2});
  b.row_op(AnchorOp::kBatchMatMul, {a_moved, b.tensor({1, 2, 8, 4})}, {1, 2, 8, 8}, {}, false, true);
  const int twice = b.row_op(AnchorOp::kTranspose, {b.tensor({1, 2, 4, 8})}, {1, 2, 8, 4}, {0, 1, 3, 2});
  b.row_op(AnchorOp::kBatchMatMul, {b.tensor({1, 2, 8, 4}), twice}, {1, 2, 8, 8}, {}, false, true);
  b.ew(EwOp::Exp, {twice}, {1, 2, 8, 4});
  EXPECT_EQ(folded_transpose(b.g, 2, 0), 0);
  EXPECT_EQ(folded_transpose(b.g, 2, 1), 1);
  EXPECT_EQ(folded_transpose(b.g, 4, 0), -1);  // moves a's last axis
  EXPECT_EQ(folded_transpose(b.g, 6, 1), -1);  // read twice
  PlannerOptions all;
  all.families = kFamilyAll;
  all.min_nodes_per_group = 1;
  const FusionPlan plan = plan_fusion(b.g, all);
  EXPECT_EQ(plan.groups[plan.group_of[2]], (std::vector<int>{0, 1, 2}));
  EXPECT_NE(plan.group_of[3], plan.group_of[4]);
  EXPECT_NE(plan.group_of[5], plan.group_of[6]);
}

TEST(Planner, RowOpsDeclineShapesTheyDoNotGive) {
  GraphBuilder b;
  b.row_op(AnchorOp::kBatchMatMul, {b.tensor({2, 4, 3}), b.tensor({2, 5, 6})}, {2, 4, 6});  // k 3 vs 5
  b.row_op(AnchorOp::kBatchMatMul, {b.tensor({2, 4, 5}), b.tensor({3, 5, 6})}, {2, 4, 6});  // batches 2 vs 3
  b.row_op(AnchorOp::kReshape, {b.tensor({2, 6})}, {5, 2}, {5, 2});                        // 12 vs 10 elements
  b.row_op(AnchorOp::kTranspose, {b.tensor({2, 6})}, {6, 2}, {1, 1});                      // not a permutation
  b.row_op(AnchorOp::kSoftmax, {b.tensor({2, 6}, false)}, {2, 6});                         // not float32
  PlannerOptions all;
  all.families = kFamilyAll;
  all.min_nodes_per_group = 1;
  const FusionPlan plan = plan_fusion(b.g, all);
  EXPECT_TRUE(plan.groups.empty());
  for (int i = 0; i < 4; ++i) EXPECT_NE(plan.reason[i].find("does not fit"), std::string::npos) << plan.reason[i];
  EXPECT_NE(plan.reason[4].find("dtype"), std::string::npos) << plan.reason[4];
}

}  // namespace fd

namespace fd {
namespace {

using test::GraphBuilder;
using test::random_weights;

ConvParams same_3x3() {
  ConvParams p;
  p.same_padding = true;
  return p;
}

// Producers claimed in other groups write their output straight into their
// slice of a CONCATENATION; a part read elsewhere too, a graph input or an
// unclaimed producer's output is copied. No epilogue joins the concatenation.
TEST(Planner, ClaimedProducersWriteTheirSlicesOfAConcatenation) {
  GraphBuilder b;
  const Shape s = {1, 6, 6, 4};
  const int x = b.tensor(s);
  const int a = b.conv(AnchorOp::kConv2D, x, random_weights(4 * 9 * 4, 3), {4, 3, 3, 4}, nullptr, same_3x3(), s);
  const int t = b.ew(EwOp::Tanh, {b.conv(AnchorOp::kConv2D, x, random_weights(16, 4), {4, 1, 1, 4}, nullptr, {}, s)},
                     s);
  const int shared = b.ew(EwOp::Relu, {x}, s);  // read by the concatenation and by the ADD below
  const int cat = b.concat({a, t, shared, x}, 3, {1, 6, 6, 16});
  b.ew(EwOp::Add, {b.ew(EwOp::Abs, {cat}, {1, 6, 6, 16}), b.tensor({16})}, {1, 6, 6, 16});
  b.ew(EwOp::Neg, {shared}, s);
  PlannerOptions o;
  o.families = kFamilyAll;
  const FusionPlan plan = plan_fusion(b.g, o);
  const int concat = 4;  // node positions: conv, conv, tanh, relu, concat, abs, add, neg
  ASSERT_EQ(b.g.nodes[concat].anchor, AnchorOp::kConcatenation);
  ASSERT_GE(plan.group_of[concat], 0) << plan.reason[concat];
  EXPECT_EQ(plan.groups[plan.group_of[concat]], std::vector<int>{concat});
  std::vector<std::vector<int>> writes;
  for (const SliceWrite& w : plan.slice_writes) writes.push_back({w.concat, w.operand, w.producer});
  EXPECT_EQ(writes, (std::vector<std::vector<int>>{{concat, 0, 0}, {concat, 1, 2}}));
}

TEST(Planner, AConcatenationOfPartsThatDoNotFitIsDeclined) {
  GraphBuilder b;
  const int x = b.tensor({1, 6, 6, 4}), y = b.tensor({1, 5, 6, 4});
  b.concat({x, y}, 3, {1, 6, 6, 8});
  PlannerOptions o;
  o.families = kFamilyAll;
  const FusionPlan plan = plan_fusion(b.g, o);
  EXPECT_EQ(plan.group_of[0], -1);
  EXPECT_EQ(plan.reason[0], "inputs do not fit along axis 3");
}


// x * LOGISTIC(x) runs as SWISH(x), and a MUL read only by an ADD or SUB runs
// inside it as one FMA: the plan records both as folds into their reader, so
// that the runtime only follows. A MUL read twice, or with an activation, stays.
TEST(Planner, SwishAndMultiplyAddAreFoldsOfThePlan) {
  GraphBuilder b;
  const Shape s = {2, 16};
  const int x = b.tensor(s), y = b.tensor(s), z = b.tensor(s);
  const int swish = b.ew(EwOp::Mul, {b.ew(EwOp::Logistic, {x}, s), x}, s);     // nodes 0, 1
  const int fms = b.ew(EwOp::Sub, {b.ew(EwOp::Mul, {swish, y}, s), z}, s);     // 2, 3: product - z
  const int fnma = b.ew(EwOp::Sub, {z, b.ew(EwOp::Mul, {fms, y}, s)}, s);      // 4, 5: z - product
  const int twice = b.ew(EwOp::Mul, {fnma, y}, s);                              // 6, read twice
  const int kept = b.ew(EwOp::Add, {twice, b.ew(EwOp::Exp, {twice}, s)}, s);   // 7, 8
  b.ew(EwOp::Add, {b.ew(EwOp::Mul, {kept, y}, s, Activation::kRelu), z}, s);  // 9, 10: its activation stays
  PlannerOptions all;
  all.families = kFamilyAll;
  const FusionPlan plan = plan_fusion(b.g, all);
  ASSERT_EQ(plan.groups.size(), 1u);
  std::vector<std::tuple<FoldKind, int, std::vector<int>, int>> folds;
  for (const Fold& f : plan.folds) folds.emplace_back(f.kind, f.anchor, f.nodes, f.operand);
  EXPECT_EQ(folds, (std::vector<std::tuple<FoldKind, int, std::vector<int>, int>>{
                       {FoldKind::kSwish, 1, {0}, 0},
                       {FoldKind::kMultiplyAdd, 3, {2}, 0},
                       {FoldKind::kMultiplyAdd, 5, {4}, 1}}));
}
}  // namespace
}  // namespace fd
