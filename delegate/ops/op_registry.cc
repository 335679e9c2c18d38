#include "ops/op_registry.h"

#include <cstddef>

namespace fd {
namespace {

constexpr uint32_t kConv = kFamilyConv, kRows = kFamilyTransformer;

// In AnchorOp's order: name, pattern, families, inputs, weights, row op, tile rows, alone.
constexpr AnchorInfo kAnchors[] = {
    {"FULLY_CONNECTED", Pattern::kMatmul, kFamilyFullyConnected, 2, 3, true, false, false, false},
    {"CONV_2D", Pattern::kWindowed, kConv, 2, 3, true, false, false, false},
    {"DEPTHWISE_CONV_2D", Pattern::kWindowed, kConv, 2, 3, true, false, false, false},
    {"MAX_POOL_2D", Pattern::kWindowed, kConv, 1, 1, false, false, false, false},
    {"AVERAGE_POOL_2D", Pattern::kWindowed, kConv, 1, 1, false, false, false, false},
    {"MEAN", Pattern::kReduction, kConv, 1, 1, false, false, false, false},
    {"PAD", Pattern::kView, kConv, 1, 1, false, false, false, false},
    {"BATCH_MATMUL", Pattern::kMatmul, kRows, 2, 2, false, true, false, false},
    {"SOFTMAX", Pattern::kRowWise, kRows, 1, 1, false, true, true, false},
    {"MEAN", Pattern::kReduction, kRows, 1, 1, false, true, true, false},
    {"RESHAPE", Pattern::kRelabel, kRows, 1, 1, false, true, false, false},
    {"TRANSPOSE", Pattern::kView, kRows, 1, 1, false, true, false, false},
    {"CONCATENATION", Pattern::kView, kConv | kRows, 1, -1, false, false, false, true},
    {"RESIZE_BILINEAR", Pattern::kView, kConv, 1, 1, false, false, false, false},
    {"RESIZE_NEAREST_NEIGHBOR", Pattern::kView, kConv, 1, 1, false, false, false, false},
    {"TRANSPOSE_CONV", Pattern::kSpread, kConv, 2, 3, true, false, false, false},
    {"EXPAND_DIMS", Pattern::kRelabel, kRows, 1, 1, false, true, false, false},
    {"SQUEEZE", Pattern::kRelabel, kRows, 1, 1, false, true, false, false},
    {"INDEX_VIEW", Pattern::kView, kConv | kRows, 1, 1, false, true, false, false},
};
static_assert(sizeof(kAnchors) / sizeof(kAnchors[0]) == static_cast<size_t>(AnchorOp::kIndexView) + 1,
              "one row per AnchorOp, in its order");

}  // namespace

const AnchorInfo& anchor_info(AnchorOp op) { return kAnchors[static_cast<int>(op)]; }

}  // namespace fd
