// The typed IR: dtypes, quantization, borrowed and owned constants, and the
// planner declining what is not float32.
#include "ir/graph.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "graph_builder.h"
#include "ir/shape.h"
#include "ops/concatenation.h"
#include "ops/shape_rules.h"
#include "plan/planner.h"

namespace fd {
namespace {

using test::GraphBuilder;

TEST(DType, NamesAndSizes) {
  const std::pair<DType, const char*> names[] = {
      {DType::kF32, "float32"}, {DType::kF16, "float16"}, {DType::kI8, "int8"},   {DType::kU8, "uint8"},
      {DType::kI32, "int32"},   {DType::kI64, "int64"},   {DType::kBool, "bool"}, {DType::kOther, "other"},
  };
  for (const auto& [t, name] : names) EXPECT_STREQ(dtype_name(t), name);
  EXPECT_EQ(dtype_size(DType::kF32), 4u);
  EXPECT_EQ(dtype_size(DType::kF16), 2u);
  EXPECT_EQ(dtype_size(DType::kI64), 8u);
  EXPECT_EQ(dtype_size(DType::kBool), 1u);
  EXPECT_EQ(dtype_size(DType::kOther), 0u);
}

TEST(DType, DefaultTensorIsNotFloat32AndNotQuantized) {
  const Tensor t;
  EXPECT_EQ(t.dtype, DType::kOther);
  EXPECT_FALSE(t.is_f32());
  EXPECT_TRUE(t.quantization.empty());
  EXPECT_TRUE(t.data.empty());
  EXPECT_EQ(t.f32_data(), nullptr);
}

TEST(Quantization, PerTensorAndPerAxis) {
  Quantization q;
  q.scales = {0.5f};
  q.zero_points = {3};
  EXPECT_FALSE(q.empty());
  EXPECT_FALSE(q.per_axis());
  Quantization c = q;
  c.scales = {0.5f, 0.25f};
  c.zero_points = {0, 0};
  c.axis = 3;
  EXPECT_TRUE(c.per_axis());
  EXPECT_FALSE(c == q);
}

TEST(ConstantData, BorrowedPointsIntoTheCallersMemory) {
  const float values[3] = {1.f, 2.f, 3.f};
  Tensor t;
  t.dtype = DType::kF32;
  t.is_constant = true;
  t.data = ConstantData::borrow(values, sizeof(values));
  EXPECT_FALSE(t.data.is_owned());
  EXPECT_EQ(t.data.size(), sizeof(values));
  EXPECT_EQ(t.f32_data(), values);
}

TEST(ConstantData, OwnedOutlivesItsSourceAndIsSharedByCopies) {
  Tensor copy;
  {
    std::vector<float> values = {1.5f, -2.f};
    Tensor t;
    t.dtype = DType::kF32;
    t.is_constant = true;
    t.data = ConstantData::own(std::move(values));
    EXPECT_TRUE(t.data.is_owned());
    copy = t;
    EXPECT_EQ(copy.f32_data(), t.f32_data());  // shared, not copied
  }
  ASSERT_NE(copy.f32_data(), nullptr);
  EXPECT_EQ(copy.data.size(), 2 * sizeof(float));
  EXPECT_EQ(copy.f32_data()[0], 1.5f);
  EXPECT_EQ(copy.f32_data()[1], -2.f);
}

TEST(ConstantData, TypedAccessorIsFloat32Only) {
  Tensor t;
  t.dtype = DType::kF16;
  t.is_constant = true;
  t.data = ConstantData::own(std::vector<uint16_t>{0x3c00, 0x4000});  // 1.0, 2.0 in half
  EXPECT_FALSE(t.data.empty());
  EXPECT_EQ(t.data.size(), 4u);
  EXPECT_EQ(t.f32_data(), nullptr);
  uint16_t first = 0;
  std::memcpy(&first, t.data.bytes(), sizeof(first));
  EXPECT_EQ(first, 0x3c00);
}

TEST(PlannerDtype, DeclinesAnInt8InputAndOutput) {
  GraphBuilder b;
  const Shape s = {1, 4, 4, 8};
  b.ew(EwOp::Abs, {b.tensor(s, DType::kI8)}, s);
  const int f = b.ew(EwOp::Tanh, {b.tensor(s)}, s);
  b.g.tensors[f].dtype = DType::kI8;
  PlannerOptions one;
  one.min_nodes_per_group = 1;
  const FusionPlan p = plan_fusion(b.g, one);
  EXPECT_TRUE(p.groups.empty());
  EXPECT_EQ(p.reason[0], "dtype: input is not float32");
  EXPECT_EQ(p.reason[1], "int8: output quantization is not one scale and zero point");  // float in, int8 out
}

TEST(PlannerDtype, DeclinesFloat16WeightsButTakesOwnedFloat32Ones) {
  GraphBuilder b;
  const int x = b.tensor({2, 3});
  std::vector<float> w(4 * 3, 0.25f);
  b.fc(x, w.data(), nullptr, 4, 3, {2, 4});
  PlannerOptions one;
  one.families = kFamilyAll;
  one.min_nodes_per_group = 1;
  Tensor& weights = b.g.tensors[b.g.nodes[0].inputs[1]];
  weights.data = ConstantData::own(std::move(w));  // the tensor owns its values now
  EXPECT_EQ(plan_fusion(b.g, one).groups.size(), 1u);
  weights.dtype = DType::kF16;
  weights.data = ConstantData::own(std::vector<uint16_t>(12, 0x3400));
  const FusionPlan p = plan_fusion(b.g, one);
  EXPECT_TRUE(p.groups.empty());
  EXPECT_EQ(p.reason[0], "weights are not a constant float32 tensor of rank 2");
}

}  // namespace
}  // namespace fd

namespace fd {
namespace {

// Every half-precision value converts exactly: sign * 2^(e-15) * (1 + m/1024),
// subnormals sign * 2^-14 * m/1024, infinities and NaN kept.
// int8 weights: (q - zero point) * scale, per tensor or per index of the
// quantized axis (a convolution's output channels: axis 0; a depthwise
// filter's: axis 3); arrays that do not fit the shape give nothing.
TEST(Ir, Int8DequantizesPerTensorAndPerAxis) {
  const int8_t q[] = {-128, -1, 0, 1, 127, 5};
  Quantization per_tensor{{0.5f}, {1}, -1};
  EXPECT_EQ(dequantize_i8(q, {2, 3}, per_tensor), (std::vector<float>{-64.5f, -1.f, -0.5f, 0.f, 63.f, 2.f}));
  Quantization rows{{0.25f, 2.f}, {0, -1}, 0};  // axis 0: one scale per row of 3
  EXPECT_EQ(dequantize_i8(q, {2, 3}, rows), (std::vector<float>{-32.f, -0.25f, 0.f, 4.f, 256.f, 12.f}));
  Quantization last{{1.f, 0.5f, 0.125f}, {0, 0, 0}, 1};  // axis 1 of [2, 3]: per column
  EXPECT_EQ(dequantize_i8(q, {2, 3}, last), (std::vector<float>{-128.f, -0.5f, 0.f, 1.f, 63.5f, 0.625f}));
  EXPECT_TRUE(dequantize_i8(q, {2, 3}, Quantization{}).empty());
  EXPECT_TRUE(dequantize_i8(q, {3, 2}, rows).empty());  // 2 scales, 3 rows
  EXPECT_TRUE(dequantize_i8(q, {2, 3}, Quantization{{1.f, 2.f}, {0}, 0}).empty());
}

TEST(Ir, Float16ConvertsExactlyForEveryValue) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    const double sign = (h & 0x8000) ? -1.0 : 1.0;
    const float got = f16_to_f32(static_cast<uint16_t>(h));
    if (e == 0x1f) {
      ASSERT_TRUE(m ? std::isnan(got) : std::isinf(got) && std::signbit(got) == (sign < 0)) << h;
      continue;
    }
    const double want = e ? sign * std::ldexp(1.0 + m / 1024.0, e - 15) : sign * std::ldexp(m / 1024.0, -14);
    ASSERT_EQ(got, static_cast<float>(want)) << h;
    ASSERT_EQ(std::signbit(got), sign < 0) << h;  // -0 stays -0
  }
}

// The bulk conversion (four or, with AVX2, eight at a time, then one by one)
// gives the same bits.
TEST(Ir, Float16BulkConversionMatchesOneByOne) {
  std::vector<uint16_t> all(0x10000 + 3);  // a tail of three
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i * 40503u);
  std::vector<float> got(all.size());
  f16_to_f32(all.data(), static_cast<int64_t>(all.size()), got.data());
  for (size_t i = 0; i < all.size(); ++i) {
    const float want = f16_to_f32(all[i]);
    ASSERT_EQ(std::memcmp(&got[i], &want, sizeof want), 0) << all[i];
  }
}

// A DEQUANTIZE of weights folds into the layers packing them (the first one's group);
// read by an elementwise op too, into the first reader's group all the same (the
// op reads the graph's values).
TEST(Ir, AConstantNodeFoldsIntoTheLayerWhoseWeightsItMakes) {
  test::GraphBuilder b;
  const int x = b.tensor({1, 5, 5, 4});
  const int w = b.dequantize({4, 1, 1, 4}, 0.25f);
  const int y = b.conv(AnchorOp::kConv2D, x, nullptr, {4, 1, 1, 4}, nullptr, {}, {1, 5, 5, 4});
  b.g.nodes[1].inputs[1] = w;  // the conv reads the DEQUANTIZE's output as its weights
  const int shared = b.dequantize({4, 1, 1, 4}, 0.25f);
  b.conv(AnchorOp::kConv2D, y, nullptr, {4, 1, 1, 4}, nullptr, {}, {1, 5, 5, 4});
  b.g.nodes[3].inputs[1] = shared;
  b.ew(EwOp::Abs, {shared}, {4, 1, 1, 4});
  PlannerOptions o;
  o.families = kFamilyAll;
  const FusionPlan plan = plan_fusion(b.g, o);
  ASSERT_GE(plan.group_of[0], 0) << plan.reason[0];
  EXPECT_EQ(plan.group_of[0], plan.group_of[1]);
  ASSERT_EQ(plan.folds.size(), 2u);
  EXPECT_EQ(plan.folds[0].kind, FoldKind::kConstant);
  EXPECT_EQ(plan.folds[0].anchor, 1);
  EXPECT_EQ(plan.folds[1].anchor, 3);  // the first of its readers
  EXPECT_EQ(plan.group_of[2], plan.group_of[3]) << plan.reason[2];
  EXPECT_GE(plan.group_of[4], 0) << plan.reason[4];  // the ABS beside an anchored group
}

// A DEQUANTIZE of a float16 scalar that elementwise ops alone read (MobileNetV3's
// hard-swish constants) joins the first one's group; with a reader the delegate
// cannot claim it is left to the runtime.
TEST(Ir, AConstantNodeElementwiseOpsReadIsClaimedWithThem) {
  for (bool opaque_reader : {false, true}) {
    test::GraphBuilder b;
    const Shape s = {1, 4, 4, 8};
    const int half = b.dequantize({}, 0.5f);
    const int x = b.tensor(s);
    const int y = b.ew(EwOp::Mul, {x, half}, s);
    b.ew(EwOp::Tanh, {b.ew(EwOp::Add, {y, half}, s)}, s);
    if (opaque_reader) b.opaque("SIN", {half}, {});
    PlannerOptions o;
    o.families = kFamilyAll;
    const FusionPlan plan = plan_fusion(b.g, o);
    ASSERT_GE(plan.group_of[1], 0) << plan.reason[1];
    if (opaque_reader) {
      EXPECT_EQ(plan.group_of[0], -1);
      EXPECT_EQ(plan.reason[0], "DEQUANTIZE is fused only where claimed nodes alone read it");
      continue;
    }
    EXPECT_EQ(plan.group_of[0], plan.group_of[1]) << plan.reason[0];
    ASSERT_FALSE(plan.folds.empty());
    EXPECT_EQ(plan.folds[0].kind, FoldKind::kConstant);
    EXPECT_EQ(plan.folds[0].anchor, 1);
    for (size_t f = 1; f < plan.folds.size(); ++f) EXPECT_EQ(plan.folds[f].kind, FoldKind::kMultiplyAdd);
  }
}

TEST(Ir, AConstantNodeTwoLayersReadJoinsTheFirstOnesGroup) {
  test::GraphBuilder b;
  const Shape s = {1, 5, 5, 4};
  const int w = b.dequantize({4, 1, 1, 4}, 0.5f);
  const int y = b.conv(AnchorOp::kConv2D, b.tensor(s), nullptr, {4, 1, 1, 4}, nullptr, {}, s);
  b.conv(AnchorOp::kConv2D, y, nullptr, {4, 1, 1, 4}, nullptr, {}, s);
  b.g.nodes[1].inputs[1] = b.g.nodes[2].inputs[1] = w;  // one set of weights, two layers
  PlannerOptions o;
  o.families = kFamilyAll;
  const FusionPlan plan = plan_fusion(b.g, o);
  ASSERT_GE(plan.group_of[0], 0) << plan.reason[0];
  EXPECT_EQ(plan.group_of[0], plan.group_of[1]);
  EXPECT_NE(plan.group_of[1], plan.group_of[2]);
}

// A DENSIFY of sparse float16 weights, then their DEQUANTIZE: both fold into
// the layer, whose epilogue joins its group all the same; with a reader the
// delegate cannot claim after the DEQUANTIZE, both are left.
TEST(Ir, AChainOfConstantNodesFoldsIntoItsLayer) {
  for (bool other_reader : {false, true}) {
    test::GraphBuilder b;
    const Shape w = {4, 1, 1, 4};
    const int half = b.opaque("DENSIFY", {b.tensor(w, DType::kF16)}, w);
    b.g.nodes.back().kind = OpKind::kConstant;
    b.g.tensors[half].dtype = DType::kF16;
    b.g.tensors[half].is_constant = true;
    b.g.tensors[half].data = ConstantData::own(std::vector<uint16_t>(16, 0x3c00));
    const int full = b.opaque("DEQUANTIZE", {half}, w);
    b.g.nodes.back().kind = OpKind::kConstant;
    b.g.tensors[full].is_constant = true;
    b.g.tensors[full].data = ConstantData::own(std::vector<float>(16, 1.f));
    const int y = b.conv(AnchorOp::kConv2D, b.tensor({1, 5, 5, 4}), nullptr, w, nullptr, {}, {1, 5, 5, 4});
    b.g.nodes[2].inputs[1] = full;
    b.ew(EwOp::Tanh, {y}, {1, 5, 5, 4});
    if (other_reader) b.opaque("SIN", {full}, w);
    PlannerOptions o;
    o.families = kFamilyAll;
    const FusionPlan plan = plan_fusion(b.g, o);
    ASSERT_GE(plan.group_of[2], 0) << plan.reason[2];
    if (other_reader) {
      EXPECT_EQ(plan.group_of[0], -1);
      EXPECT_EQ(plan.group_of[1], -1);
      EXPECT_EQ(plan.reason[0], "DENSIFY is fused only where claimed nodes alone read it");
      continue;
    }
    EXPECT_EQ(plan.group_of[0], plan.group_of[2]) << plan.reason[0];
    EXPECT_EQ(plan.group_of[1], plan.group_of[2]) << plan.reason[1];
    EXPECT_EQ(plan.group_of[3], plan.group_of[2]) << plan.reason[3];
    ASSERT_EQ(plan.folds.size(), 2u);
    for (const Fold& f : plan.folds) {
      EXPECT_EQ(f.kind, FoldKind::kConstant);
      EXPECT_EQ(f.anchor, 2);
    }
  }
}

}  // namespace
}  // namespace fd

TEST(ShapeRules, FullyConnectedKeepsTheDimsBeforeThoseThatMakeUpK) {
  using fd::Shape;
  const Shape w = {8, 24};  // n = 8, k = 24
  EXPECT_EQ(fd::fully_connected_shape({3, 6, 24}, w, true), Shape({3, 6, 8}));
  EXPECT_EQ(fd::fully_connected_shape({3, 6, 2, 12}, w, true), Shape({3, 6, 8}));  // heads
  EXPECT_EQ(fd::fully_connected_shape({3, 6, 24, 1}, w, true), Shape({3, 6, 8}));
  EXPECT_EQ(fd::fully_connected_shape({24}, w, true), Shape({8}));
  EXPECT_EQ(fd::fully_connected_shape({3, 6, 2, 12}, w, false), Shape({18, 8}));
  EXPECT_FALSE(fd::fully_connected_shape({3, 5, 12}, w, true));  // 12, then 60: no run of dims makes 24
  EXPECT_FALSE(fd::fully_connected_shape({0, 24}, {8, 0}, true));
  EXPECT_FALSE(fd::fully_connected_shape({2, 0, 12}, w, true));
}

// The views as TFLite's kernels derive their shapes: EXPAND_DIMS inserts a 1
// (a negative axis counts from the end, -1 appends); SQUEEZE drops the axes
// named (each must be 1) or, named none, every 1 of the shape it is given;
// RESHAPE infers its one -1 (0 elements infer 0 where the rest is above 0).
TEST(ShapeRules, ViewsDeriveTheirShapeFromTheInputOfTheRun) {
  using fd::Shape;
  EXPECT_EQ(fd::expand_dims_shape({1, 5}, 1), Shape({1, 1, 5}));
  EXPECT_EQ(fd::expand_dims_shape({7}, 1), Shape({7, 1}));
  EXPECT_EQ(fd::expand_dims_shape({7}, -1), Shape({7, 1}));
  EXPECT_EQ(fd::expand_dims_shape({2, 3}, -3), Shape({1, 2, 3}));
  EXPECT_EQ(fd::expand_dims_shape({0, 3}, 0), Shape({1, 0, 3}));
  EXPECT_FALSE(fd::expand_dims_shape({2, 3}, 3));
  EXPECT_FALSE(fd::expand_dims_shape({2, 3}, -4));
  EXPECT_EQ(fd::squeeze_shape({1, 1, 5}, {}), Shape({5}));
  EXPECT_EQ(fd::squeeze_shape({3, 1, 5}, {}), Shape({3, 5}));  // the batch is 3 now: it stays
  EXPECT_EQ(fd::squeeze_shape({3, 1, 5}, {1}), Shape({3, 5}));
  EXPECT_EQ(fd::squeeze_shape({3, 1, 1}, {-1, 1}), Shape({3}));
  EXPECT_EQ(fd::squeeze_shape({0, 1, 4}, {1}), Shape({0, 4}));
  EXPECT_FALSE(fd::squeeze_shape({3, 2, 5}, {1}));  // not 1
  EXPECT_FALSE(fd::squeeze_shape({3, 1}, {2}));
  EXPECT_EQ(fd::reshape_shape({2, 6}, {-1, 3}), Shape({4, 3}));
  EXPECT_EQ(fd::reshape_shape({1, 16000}, {1, -1, 1}), Shape({1, 16000, 1}));
  EXPECT_EQ(fd::reshape_shape({0, 6}, {-1, 3}), Shape({0, 3}));
  EXPECT_EQ(fd::reshape_shape({4}, {}), std::nullopt);  // a scalar holds one value
  EXPECT_EQ(fd::reshape_shape({1}, {}), Shape({}));
  EXPECT_FALSE(fd::reshape_shape({2, 5}, {-1, 3}));
  EXPECT_FALSE(fd::reshape_shape({2, 6}, {-1, -1}));
}

TEST(ShapeRules, ConcatenationTakesItsAxisFromTheEnd) {
  using fd::Shape;
  auto output = [](std::vector<Shape> parts, int axis, bool pack = false) -> std::optional<Shape> {
    const auto layout = fd::concatenation_layout(std::move(parts), *fd::concatenation_params(axis, pack));
    return layout ? std::optional<Shape>(layout->output) : std::nullopt;
  };
  EXPECT_EQ(output({{2, 3}, {2, 4}}, -1), Shape({2, 7}));
  EXPECT_EQ(output({{2, 3, 1}, {2, 3, 1}}, -3), Shape({4, 3, 1}));
  EXPECT_FALSE(output({{2, 3}, {2, 4}}, -3));
  EXPECT_EQ(output({{2, 3}, {2, 3}, {2, 3}}, -2, /*pack=*/true), Shape({2, 3, 3}));  // PACK: a new axis each
  EXPECT_EQ(output({{2, 0}, {2, 4}}, 1), Shape({2, 4}));
  const fd::ConcatSlice s = fd::concatenation_layout({{2, 3}, {2, 4}}, *fd::concatenation_params(-1, false))->slices[1];
  EXPECT_EQ(s.rows, 2);
  EXPECT_EQ(s.len, 4);
  EXPECT_EQ(s.stride, 7);
  EXPECT_EQ(s.offset, 3);
  EXPECT_EQ(fd::resolve_axis(-1, 3), 2);
  EXPECT_EQ(fd::resolve_axis(3, 3), -1);
  EXPECT_EQ(fd::resolve_axis(-4, 3), -1);
}

// BATCH_MATMUL's right-hand side may have fewer axes (TFLite broadcasts it): a
// matrix for every batch, or batches aligned at the end where a's extra ones are 1.
TEST(ShapeRules, BatchMatMulBroadcastsALowerRankRightHandSide) {
  using fd::Shape;
  EXPECT_EQ(fd::batch_matmul_shape({1, 1, 97, 257}, {257, 32}, false, false), Shape({1, 1, 97, 32}));
  EXPECT_EQ(fd::batch_matmul_shape({2, 3, 5, 4}, {1, 4, 6}, false, false), Shape({2, 3, 5, 6}));
  EXPECT_EQ(fd::batch_matmul_shape({1, 3, 5, 4}, {3, 6, 4}, false, true), Shape({1, 3, 5, 6}));
  EXPECT_EQ(fd::batch_matmul_shape({2, 3, 0}, {0, 6}, false, false), Shape({2, 3, 6}));  // k = 0: zeros
  EXPECT_FALSE(fd::batch_matmul_shape({2, 3, 5, 4}, {3, 4, 6}, false, false));  // b per batch of a's 2nd axis only
  EXPECT_FALSE(fd::batch_matmul_shape({5, 4}, {2, 4, 6}, false, false));        // b of a higher rank
}
