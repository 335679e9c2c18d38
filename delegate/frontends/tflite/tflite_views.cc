// The index views' readers: each takes one TFLite op's parameters and constant
// inputs, checks them and makes its view (ops/index_view.h), or declines.
#include <algorithm>
#include <iterator>

#include "frontends/tflite/tflite_ops.h"
#include "frontends/tflite/tflite_tensors.h"
#include "ops/index_view.h"

namespace fd {
namespace {

struct Op {
  TfLiteContext* ctx;
  const void* params;
  int version;
  const Node& node;
  bool ints(size_t input, std::vector<int64_t>* v) const {
    return input < node.inputs.size() && constant_ints(ctx, node.inputs[input], v);
  }
};
using View = std::shared_ptr<const IndexView>;

View read_slice(const Op& op) {
  std::vector<int64_t> begin, size;
  if (op.node.inputs.size() != 3 || !op.ints(1, &begin) || !op.ints(2, &size) || begin.size() != size.size())
    return nullptr;
  return slice_view(std::move(begin), std::move(size));
}

View read_strided_slice(const Op& op) {
  const auto* p = static_cast<const TfLiteStridedSliceParams*>(op.params);
  StridedSliceSpec s;
  if (!p || p->ellipsis_mask || p->new_axis_mask || (op.version >= 8 && p->offset)) return nullptr;
  if (op.node.inputs.size() != 4 || !op.ints(1, &s.begin) || !op.ints(2, &s.end) || !op.ints(3, &s.strides))
    return nullptr;
  const size_t n = s.begin.size();
  if (s.end.size() != n || s.strides.size() != n || std::count(s.strides.begin(), s.strides.end(), 0)) return nullptr;
  s.begin_mask = p->begin_mask;
  s.end_mask = p->end_mask;
  s.shrink_axis_mask = p->shrink_axis_mask;
  return strided_slice_view(std::move(s));
}

View read_gather(const Op& op) {
  const auto* p = static_cast<const TfLiteGatherParams*>(op.params);
  std::vector<int64_t> indices;
  if (!p || p->batch_dims != 0 || op.node.inputs.size() != 2 || !op.ints(1, &indices)) return nullptr;
  return gather_view(p->axis, shape_of(op.ctx->tensors[op.node.inputs[1]]), std::move(indices));
}

View read_tile(const Op& op) {
  std::vector<int64_t> multiples;
  if (op.node.inputs.size() != 2 || !op.ints(1, &multiples)) return nullptr;
  if (std::any_of(multiples.begin(), multiples.end(), [](int64_t m) { return m < 0; })) return nullptr;
  return tile_view(std::move(multiples));
}

View read_depth_to_space(const Op& op) {
  const auto* p = static_cast<const TfLiteDepthSpaceParams*>(op.params);
  return p && p->block_size >= 1 && op.node.inputs.size() == 1 ? depth_to_space_view(p->block_size) : nullptr;
}

View read_space_to_depth(const Op& op) {
  const auto* p = static_cast<const TfLiteDepthSpaceParams*>(op.params);
  return p && p->block_size >= 1 && op.node.inputs.size() == 1 ? space_to_depth_view(p->block_size) : nullptr;
}

struct Reader {
  int code;
  View (*read)(const Op& op);
};
constexpr Reader kReaders[] = {
    {kTfLiteBuiltinSlice, read_slice},
    {kTfLiteBuiltinStridedSlice, read_strided_slice},
    {kTfLiteBuiltinGather, read_gather},
    {kTfLiteBuiltinTile, read_tile},
    {kTfLiteBuiltinDepthToSpace, read_depth_to_space},
    {kTfLiteBuiltinSpaceToDepth, read_space_to_depth},
};

// The multi-output views: per output, its part's view.
std::vector<View> read_split(const Op& op) {  // inputs: axis, data
  const auto* p = static_cast<const TfLiteSplitParams*>(op.params);
  std::vector<int64_t> axis;
  if (!p || op.node.inputs.size() != 2 || !op.ints(0, &axis) || axis.size() != 1) return {};
  std::vector<View> parts;
  for (int i = 0; i < p->num_splits; ++i) parts.push_back(split_view(axis[0], {}, p->num_splits, i, false));
  return parts;
}

std::vector<View> read_split_v(const Op& op) {  // inputs: data, sizes, axis
  std::vector<int64_t> sizes, axis;
  if (op.node.inputs.size() != 3 || !op.ints(1, &sizes) || !op.ints(2, &axis) || axis.size() != 1) return {};
  if (std::count(sizes.begin(), sizes.end(), -1) > 1) return {};
  std::vector<View> parts;
  for (size_t i = 0; i < sizes.size(); ++i)
    parts.push_back(split_view(axis[0], sizes, static_cast<int64_t>(sizes.size()), static_cast<int64_t>(i), false));
  return parts;
}

std::vector<View> read_unpack(const Op& op) {
  const auto* p = static_cast<const TfLiteUnpackParams*>(op.params);
  if (!p || op.node.inputs.size() != 1) return {};
  std::vector<View> parts;
  for (int i = 0; i < p->num; ++i) parts.push_back(split_view(p->axis, {}, p->num, i, true));
  return parts;
}

struct MultiReader {
  int code;
  std::vector<View> (*read)(const Op& op);
};
constexpr MultiReader kMultiReaders[] = {
    {kTfLiteBuiltinSplit, read_split},
    {kTfLiteBuiltinSplitV, read_split_v},
    {kTfLiteBuiltinUnpack, read_unpack},
};

// The data input of a multi-output view: SPLIT's second, the others' first.
int data_input(int code, const Node& n) { return code == kTfLiteBuiltinSplit ? n.inputs[1] : n.inputs[0]; }

}  // namespace

std::vector<Node> translate_tflite_outputs(TfLiteContext* ctx, int code, const void* params, Node node) {
  const auto* r = std::find_if(std::begin(kMultiReaders), std::end(kMultiReaders),
                               [&](const MultiReader& x) { return x.code == code; });
  if (r == std::end(kMultiReaders)) return {std::move(node)};
  const std::vector<View> views = node.inputs.empty() ? std::vector<View>{} : r->read(Op{ctx, params, 1, node});
  if (views.empty() || views.size() != node.outputs.size()) {
    node.kind = OpKind::kOpaque;
    return {std::move(node)};
  }
  std::vector<Node> parts;
  for (size_t i = 0; i < views.size(); ++i) {
    Node part = node;
    part.kind = OpKind::kAnchor;
    part.anchor = AnchorOp::kIndexView;
    part.params = views[i];
    part.inputs = {data_input(code, node)};
    part.outputs = {node.outputs[i]};
    parts.push_back(std::move(part));
  }
  return parts;
}

bool translate_tflite_view(TfLiteContext* ctx, int code, const void* params, int op_version, Node* node) {
  const auto* r = std::find_if(std::begin(kReaders), std::end(kReaders), [&](const Reader& x) { return x.code == code; });
  if (r == std::end(kReaders)) return false;
  View view = node->outputs.size() == 1 && !node->inputs.empty() ? r->read(Op{ctx, params, op_version, *node}) : nullptr;
  node->kind = view ? OpKind::kAnchor : OpKind::kOpaque;
  if (!view) return true;
  node->anchor = AnchorOp::kIndexView;
  node->params = std::move(view);
  node->inputs.resize(1);
  return true;
}

}  // namespace fd
