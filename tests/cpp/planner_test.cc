#include "planner.h"

#include <gtest/gtest.h>

#include "graph_builder.h"

namespace fd {
namespace {

using test::GraphBuilder;
const Shape kS = {1, 4, 4, 8};

TEST(Planner, ChainIsOneGroup) {
  GraphBuilder b;
  int t = b.tensor(kS);
  for (EwOp op : {EwOp::Tanh, EwOp::Abs, EwOp::Exp, EwOp::Neg, EwOp::Logistic}) t = b.ew(op, {t}, kS);
  const Plan p = plan_fusion(b.g, {});
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0], (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(Planner, LoneOpIsLeftByPolicyUnlessAllowed) {
  GraphBuilder b;
  b.ew(EwOp::Tanh, {b.tensor(kS)}, kS);
  Plan p = plan_fusion(b.g, {});
  EXPECT_TRUE(p.groups.empty());
  EXPECT_NE(p.reason[0].find("min_nodes_per_partition"), std::string::npos);
  PlannerOptions one;
  one.min_nodes_per_group = 1;
  EXPECT_EQ(plan_fusion(b.g, one).groups.size(), 1u);
}

TEST(Planner, BranchAndJoinStayTogether) {
  GraphBuilder b;
  const int x = b.ew(EwOp::Abs, {b.tensor(kS)}, kS);
  const int l = b.ew(EwOp::Exp, {x}, kS);
  const int r = b.ew(EwOp::Tanh, {x}, kS);
  b.ew(EwOp::Add, {l, r}, kS);
  const Plan p = plan_fusion(b.g, {});
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
  const Plan p = plan_fusion(b.g, {});
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_EQ(p.groups[0], (std::vector<int>{0, 1}));
  EXPECT_EQ(p.groups[1], (std::vector<int>{2, 3}));
}

TEST(Planner, GroupsStayConvex) {
  // a -> opaque -> c, and a -> c directly: a and c may not share a group.
  GraphBuilder b;
  const int a = b.ew(EwOp::Abs, {b.tensor(kS)}, kS);
  const int o = b.opaque("CONV_2D", {a}, kS);
  b.ew(EwOp::Add, {a, o}, kS);
  PlannerOptions one;
  one.min_nodes_per_group = 1;
  const Plan p = plan_fusion(b.g, one);
  EXPECT_EQ(p.groups.size(), 2u);
  EXPECT_NE(p.group_of[0], p.group_of[2]);
  EXPECT_EQ(p.reason[1], "unsupported op CONV_2D");
}

TEST(Planner, NonFloatAndUnsupportedActivationsAreDeclined) {
  GraphBuilder b;
  const int q = b.tensor(kS, /*float32=*/false);
  const int x = b.ew(EwOp::Abs, {q}, kS);
  b.ew(EwOp::Add, {x, b.tensor(kS)}, kS, Activation::kUnsupported);
  const Plan p = plan_fusion(b.g, {});
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
  const Plan p = plan_fusion(b.g, {});
  EXPECT_NE(p.reason[0].find("dynamic shape"), std::string::npos);
  EXPECT_NE(p.reason[1].find("do not broadcast"), std::string::npos);
}

TEST(Planner, DisabledFamilyClaimsNothing) {
  GraphBuilder b;
  const int x = b.ew(EwOp::Abs, {b.tensor(kS)}, kS);
  b.ew(EwOp::Exp, {x}, kS);
  PlannerOptions none;
  none.families = 0;
  const Plan p = plan_fusion(b.g, none);
  EXPECT_TRUE(p.groups.empty());
  EXPECT_NE(p.reason[0].find("disabled"), std::string::npos);
}

TEST(Planner, TwoIndependentChainsAreTwoGroups) {
  GraphBuilder b;
  b.ew(EwOp::Exp, {b.ew(EwOp::Abs, {b.tensor(kS)}, kS)}, kS);
  b.ew(EwOp::Exp, {b.ew(EwOp::Abs, {b.tensor(kS)}, kS)}, kS);
  EXPECT_EQ(plan_fusion(b.g, {}).groups.size(), 2u);
}

}  // namespace
}  // namespace fd
