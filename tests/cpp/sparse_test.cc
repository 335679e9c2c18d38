// Sparse constants: densify against dense arrays written out by hand (CSR,
// blocks, dense levels, traversal orders), what it declines, and the TFLite
// front end reading a runtime's sparsity structs and DENSIFY nodes.
#include "ir/sparse.h"

#include <gtest/gtest.h>

#include <cstring>

#include "frontends/tflite/tflite_ops.h"
#include "frontends/tflite/tflite_weights.h"

namespace fd {
namespace {

SparseLevel dense(int size) {
  SparseLevel l;
  l.dense_size = size;
  return l;
}

SparseLevel csr(std::vector<int> segments, std::vector<int> indices) {
  SparseLevel l;
  l.compressed = true;
  l.segments = std::move(segments);
  l.indices = std::move(indices);
  return l;
}

// The float32 dense values, or empty and *error.
std::vector<float> densify_f32(const SparseFormat& f, const Shape& shape, std::vector<float> values,
                               std::string* error) {
  const ConstantData d = densify(f, shape, DType::kF32, ConstantData::own(std::move(values)), error);
  const auto* p = static_cast<const float*>(d.bytes());
  return d.empty() ? std::vector<float>{} : std::vector<float>(p, p + d.size() / sizeof(float));
}

std::vector<float> densify_ok(const SparseFormat& f, const Shape& shape, std::vector<float> values) {
  std::string error;
  std::vector<float> out = densify_f32(f, shape, std::move(values), &error);
  EXPECT_EQ(error, "");
  return out;
}

// Rows of 4: row 0 holds columns 1 and 3, row 1 nothing, row 2 column 0.
SparseFormat rows_of_four() { return {{0, 1}, {}, {dense(3), csr({0, 2, 2, 3}, {1, 3, 0})}}; }

TEST(Sparse, CompressedRows) {
  EXPECT_EQ(densify_ok(rows_of_four(), {3, 4}, {1, 2, 3}),
            (std::vector<float>{0, 1, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0}));
}

// The converter's FULLY_CONNECTED format: blocks of 4 along the input dim.
TEST(Sparse, BlocksOfFourAlongTheLastDim) {
  const SparseFormat f{{0, 1, 2}, {1}, {dense(2), csr({0, 1, 3}, {1, 0, 1}), dense(4)}};
  std::vector<float> values(12);
  for (int i = 0; i < 12; ++i) values[i] = i + 1.f;
  EXPECT_EQ(densify_ok(f, {2, 8}, values),
            (std::vector<float>{0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
}

// The converter's CONV_2D filter format: [oc, kh, kw, ic], input channels compressed.
TEST(Sparse, FilterWithCompressedChannels) {
  const SparseFormat f{{0, 1, 2, 3}, {}, {dense(2), dense(1), dense(1), csr({0, 2, 3}, {0, 2, 1})}};
  EXPECT_EQ(densify_ok(f, {2, 1, 1, 3}, {1, 2, 3}), (std::vector<float>{1, 0, 2, 0, 3, 0}));
}

TEST(Sparse, DenseLevelsStoredColumnByColumn) {
  const SparseFormat f{{1, 0}, {}, {dense(3), dense(2)}};
  EXPECT_EQ(densify_ok(f, {2, 3}, {1, 2, 3, 4, 5, 6}), (std::vector<float>{1, 3, 5, 2, 4, 6}));
}

TEST(Sparse, CompressedOuterDim) {
  const SparseFormat f{{0, 1}, {}, {csr({0, 2}, {0, 2}), dense(2)}};
  EXPECT_EQ(densify_ok(f, {3, 2}, {1, 2, 3, 4}), (std::vector<float>{1, 2, 0, 0, 3, 4}));
}

// 2x2 blocks of both dims, each block stored column by column (its two block
// dims swapped in the traversal order).
TEST(Sparse, TwoByTwoBlocksStoredColumnByColumn) {
  const SparseFormat f{{0, 1, 3, 2}, {0, 1}, {dense(2), csr({0, 1, 2}, {1, 0}), dense(2), dense(2)}};
  EXPECT_EQ(densify_ok(f, {4, 4}, {1, 2, 3, 4, 5, 6, 7, 8}),
            (std::vector<float>{0, 0, 1, 3,  //
                                0, 0, 2, 4,  //
                                5, 7, 0, 0,  //
                                6, 8, 0, 0}));
}

TEST(Sparse, Float16ValuesKeepTheirBits) {
  const std::vector<uint16_t> bits = {0x3c00, 0x8000, 0x7e01};  // 1, -0, a NaN
  std::string error;
  const ConstantData d = densify(rows_of_four(), {3, 4}, DType::kF16, ConstantData::own(bits), &error);
  ASSERT_EQ(error, "");
  ASSERT_EQ(d.size(), 24u);
  std::vector<uint16_t> got(12);
  std::memcpy(got.data(), d.bytes(), d.size());
  EXPECT_EQ(got, (std::vector<uint16_t>{0, 0x3c00, 0, 0x8000, 0, 0, 0, 0, 0x7e01, 0, 0, 0}));
}

// Each malformed variant is declined with what is wrong.
TEST(Sparse, MalformedFormatsAreDeclined) {
  struct Case {
    const char* why;
    SparseFormat f;
    Shape shape;
    size_t values;
  };
  const SparseLevel rows = dense(3);
  const std::vector<Case> cases = {
      {"level 1: 3 segments for 3 positions above", {{0, 1}, {}, {rows, csr({0, 2, 3}, {1, 3, 0})}}, {3, 4}, 3},
      {"index 4 outside a dim of 4", {{0, 1}, {}, {rows, csr({0, 2, 2, 3}, {1, 4, 0})}}, {3, 4}, 3},
      {"segments decrease", {{0, 1}, {}, {rows, csr({0, 2, 1, 3}, {1, 3, 0})}}, {3, 4}, 3},
      {"segments do not span the 3 indices", {{0, 1}, {}, {rows, csr({0, 2, 2, 2}, {1, 3, 0})}}, {3, 4}, 3},
      {"indices not increasing within a segment", {{0, 1}, {}, {rows, csr({0, 2, 2, 3}, {3, 1, 0})}}, {3, 4}, 3},
      {"the format stores 3 values, the tensor holds 4", rows_of_four(), {3, 4}, 4},
      {"level 0 is dense of 4, its dim has 3", {{0, 1}, {}, {dense(4), csr({0, 2, 2, 3}, {1, 3, 0})}}, {3, 4}, 3},
      {"the traversal order is not the dims", {{0, 0}, {}, rows_of_four().levels}, {3, 4}, 3},
      {"3 levels and a traversal order of 2", {{0, 1}, {}, {rows, rows, rows}}, {3, 4}, 3},
      {"block of 4 does not divide dim 1 of 6", {{0, 1, 2}, {1}, {dense(2), dense(1), dense(4)}}, {2, 6}, 8},
      {"block dim 0 is not dense", {{0, 1, 2}, {1}, {dense(2), dense(2), csr({0, 1}, {0})}}, {2, 8}, 1},
      {"the block map does not name increasing dims",
       {{0, 1, 2, 3}, {1, 0}, {dense(1), dense(1), dense(2), dense(2)}}, {2, 2}, 4},
      {"block dims stored in an order TFLite's DENSIFY reads differently",
       {{0, 1, 2, 4, 5, 3}, {0, 1, 2}, {dense(1), dense(1), dense(1), dense(4), dense(6), dense(2)}}, {2, 4, 6},
       48},
      {"an empty dim, or more elements than an int counts", rows_of_four(), {0, 4}, 3},
      {"more elements than an int counts", rows_of_four(), {1 << 16, 1 << 16}, 3},
      {"a sparse scalar", {{}, {}, {}}, {}, 1},
  };
  for (const Case& c : cases) {
    std::string error;
    EXPECT_TRUE(densify_f32(c.f, c.shape, std::vector<float>(c.values, 1.f), &error).empty()) << c.why;
    EXPECT_NE(error.find(c.why), std::string::npos) << c.why << " / " << error;
  }
  std::string error;
  const ConstantData odd = densify(rows_of_four(), {3, 4}, DType::kF32, ConstantData::copy_of("abcdefghij", 10),
                                   &error);
  EXPECT_TRUE(odd.empty());
  EXPECT_EQ(error, "sparse values of type float32 in 10 bytes");
}

// ---- The TFLite front end: a runtime's structs, and DENSIFY nodes.

// A TfLiteIntArray over `v`, whose first element is its size.
TfLiteIntArray* int_array(std::vector<int>& v) { return reinterpret_cast<TfLiteIntArray*>(v.data()); }

// rows_of_four() as the runtime holds it, with one float32 constant of its values.
struct RuntimeRows {
  std::vector<int> dims{2, 3, 4}, order{2, 0, 1}, segments{4, 0, 2, 2, 3}, indices{3, 1, 3, 0};
  std::vector<float> values{1, 2, 3};
  TfLiteDimensionMetadata levels[2] = {{kTfLiteDimDense, 3, nullptr, nullptr},
                                       {kTfLiteDimSparseCSR, 0, int_array(segments), int_array(indices)}};
  TfLiteSparsity sparsity{int_array(order), nullptr, levels, 2};
  TfLiteTensor tensors[2] = {};  // the sparse constant, the DENSIFY's output

  RuntimeRows() {
    for (TfLiteTensor& t : tensors) {
      t.type = kTfLiteFloat32;
      t.dims = int_array(dims);
    }
    tensors[0].allocation_type = kTfLiteMmapRo;
    tensors[0].data = values.data();
    tensors[0].bytes = values.size() * sizeof(float);
    tensors[0].sparsity = &sparsity;
    tensors[1].allocation_type = kTfLiteArenaRw;
  }
  Graph graph() const {
    Graph g;
    g.tensors.resize(2);
    for (Tensor& t : g.tensors) t.dtype = DType::kF32, t.shape = {3, 4};
    g.tensors[0].is_constant = true;
    return g;
  }
};

TEST(TfliteSparse, ReadsTheRuntimesFormat) {
  RuntimeRows r;
  SparseFormat f;
  ASSERT_EQ(sparse_format_of(r.tensors[0], &f), "");
  const SparseFormat want = rows_of_four();
  EXPECT_EQ(f.traversal_order, want.traversal_order);
  EXPECT_TRUE(f.block_map.empty());
  ASSERT_EQ(f.levels.size(), 2u);
  EXPECT_FALSE(f.levels[0].compressed);
  EXPECT_EQ(f.levels[0].dense_size, 3);
  EXPECT_TRUE(f.levels[1].compressed);
  EXPECT_EQ(f.levels[1].segments, want.levels[1].segments);
  EXPECT_EQ(f.levels[1].indices, want.levels[1].indices);
  r.levels[1].array_indices = nullptr;
  EXPECT_EQ(sparse_format_of(r.tensors[0], &f), "level 1 is compressed without segments and indices");
  r.levels[0].format = static_cast<TfLiteDimensionType>(7);
  EXPECT_EQ(sparse_format_of(r.tensors[0], &f), "level 0 has an unknown format");
  r.sparsity.traversal_order = nullptr;
  EXPECT_EQ(sparse_format_of(r.tensors[0], &f), "no traversal order");
  EXPECT_EQ(sparse_format_of(r.tensors[1], &f), "not a sparse tensor");
}

TEST(TfliteSparse, DensifyMakesItsOutputAConstant) {
  RuntimeRows r;
  Graph g = r.graph();
  Node n;
  n.inputs = {0};
  n.outputs = {1};
  translate_tflite_op(TfLiteOp{nullptr, kTfLiteBuiltinDensify}, &n);
  EXPECT_EQ(n.kind, OpKind::kConstant);
  ASSERT_EQ(constant_node_values(r.tensors, kTfLiteBuiltinDensify, n, &g), "");
  ASSERT_TRUE(g.tensors[1].is_constant);
  const float* d = g.tensors[1].f32_data();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(std::vector<float>(d, d + 12), (std::vector<float>{0, 1, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0}));
  // A DEQUANTIZE cannot read the stored values as dense ones.
  EXPECT_EQ(constant_node_values(r.tensors, kTfLiteBuiltinDequantize, n, &g),
            "DEQUANTIZE of a sparse constant not read through a DENSIFY");
}

TEST(TfliteSparse, AMalformedDensifyIsDeclinedWithItsReason) {
  RuntimeRows r;
  r.indices[2] = 9;  // a column outside the 4
  Graph g = r.graph();
  Node n;
  n.inputs = {0};
  n.outputs = {1};
  EXPECT_EQ(constant_node_values(r.tensors, kTfLiteBuiltinDensify, n, &g),
            "DENSIFY of a malformed sparse constant: level 1: index 9 outside a dim of 4");
  EXPECT_TRUE(g.tensors[1].data.empty());
  r.tensors[0].bytes = 2 * sizeof(float);
  r.indices[2] = 3;
  EXPECT_EQ(constant_node_values(r.tensors, kTfLiteBuiltinDensify, n, &g),
            "DENSIFY of a malformed sparse constant: the format stores 3 values, the tensor holds 2");
  r.tensors[0].allocation_type = kTfLiteArenaRw;
  EXPECT_EQ(constant_node_values(r.tensors, kTfLiteBuiltinDensify, n, &g),
            "DENSIFY of something that is not a sparse constant");
}

// TFLite's FULLY_CONNECTED reads sparse weights itself: the front end densifies them.
TEST(TfliteSparse, FullyConnectedReadingSparseWeights) {
  RuntimeRows r;
  Graph g = r.graph();
  g.tensors[1].is_constant = false;
  Node fc;
  fc.kind = OpKind::kAnchor;
  fc.anchor = AnchorOp::kFullyConnected;
  fc.inputs = {1, 0};  // input, weights
  ASSERT_EQ(densify_fully_connected_weights(r.tensors, fc, &g), "");
  ASSERT_NE(g.tensors[0].f32_data(), nullptr);
  EXPECT_EQ(g.tensors[0].f32_data()[3], 2.f);
  EXPECT_EQ(g.tensors[0].f32_data()[8], 3.f);
  fc.inputs = {0, 1};  // dense weights: nothing to do
  EXPECT_EQ(densify_fully_connected_weights(r.tensors, fc, &g), "");
  EXPECT_TRUE(g.tensors[1].data.empty());
}

}  // namespace
}  // namespace fd
