#include "ops/op_registry.h"

#include <iterator>

namespace fd {

// Each row is defined in its op's file (the file named beside it).
extern const AnchorInfo kFullyConnectedInfo, kConv2DInfo, kDepthwiseConv2DInfo;  // fully_connected.cc, conv.cc
extern const AnchorInfo kMaxPool2DInfo, kAveragePool2DInfo, kMeanInfo;             // pool.cc
extern const AnchorInfo kPadInfo, kBatchMatMulInfo, kSoftmaxInfo, kRowReduceInfo;  // pad.cc, batch_matmul.cc, ...
extern const AnchorInfo kReshapeInfo, kExpandDimsInfo, kSqueezeInfo;               // reshape.cc
extern const AnchorInfo kTransposeInfo, kConcatenationInfo, kTransposeConvInfo;    // transpose.cc, ...
extern const AnchorInfo kResizeBilinearInfo, kResizeNearestInfo;                   // resize.cc
extern const AnchorInfo kIndexViewInfo;                                            // index_view.cc

namespace {

struct Row {
  AnchorOp op;
  const AnchorInfo* info;
};
constexpr Row kAnchors[] = {
    {AnchorOp::kFullyConnected, &kFullyConnectedInfo},
    {AnchorOp::kConv2D, &kConv2DInfo},
    {AnchorOp::kDepthwiseConv2D, &kDepthwiseConv2DInfo},
    {AnchorOp::kMaxPool2D, &kMaxPool2DInfo},
    {AnchorOp::kAveragePool2D, &kAveragePool2DInfo},
    {AnchorOp::kMean, &kMeanInfo},
    {AnchorOp::kPad, &kPadInfo},
    {AnchorOp::kBatchMatMul, &kBatchMatMulInfo},
    {AnchorOp::kSoftmax, &kSoftmaxInfo},
    {AnchorOp::kRowReduce, &kRowReduceInfo},
    {AnchorOp::kReshape, &kReshapeInfo},
    {AnchorOp::kTranspose, &kTransposeInfo},
    {AnchorOp::kConcatenation, &kConcatenationInfo},
    {AnchorOp::kResizeBilinear, &kResizeBilinearInfo},
    {AnchorOp::kResizeNearest, &kResizeNearestInfo},
    {AnchorOp::kTransposeConv, &kTransposeConvInfo},
    {AnchorOp::kExpandDims, &kExpandDimsInfo},
    {AnchorOp::kSqueeze, &kSqueezeInfo},
    {AnchorOp::kIndexView, &kIndexViewInfo},
};

constexpr bool rows_in_order() {
  for (size_t i = 0; i < std::size(kAnchors); ++i)
    if (static_cast<size_t>(kAnchors[i].op) != i) return false;
  return std::size(kAnchors) == static_cast<size_t>(AnchorOp::kIndexView) + 1;
}
static_assert(rows_in_order(), "kAnchors: one row per AnchorOp, in AnchorOp's order");

}  // namespace

const AnchorInfo& anchor_info(AnchorOp op) { return *kAnchors[static_cast<size_t>(op)].info; }

std::shared_ptr<const OpParams> read_anchor_params(AnchorOp op, WireReader& r) {
  const AnchorInfo& info = anchor_info(op);
  return info.read_params ? info.read_params(r) : nullptr;
}

}  // namespace fd
