// The index views' readers: each takes one TFLite op's parameters and constant
// inputs, checks them and makes its view (ops/index_view.h), or declines.
#include <algorithm>

#include "frontends/tflite/tflite_tensors.h"
#include "frontends/tflite/tflite_translate.h"
#include "ops/index_view.h"

namespace fd {
namespace {

// Their builtin codes (BuiltinOperator in TFLite's schema).
constexpr int kTfLiteBuiltinSlice = 65;
constexpr int kTfLiteBuiltinStridedSlice = 45;
constexpr int kTfLiteBuiltinGather = 36;
constexpr int kTfLiteBuiltinTile = 69;
constexpr int kTfLiteBuiltinDepthToSpace = 5;
constexpr int kTfLiteBuiltinSpaceToDepth = 26;
constexpr int kTfLiteBuiltinSplit = 49;
constexpr int kTfLiteBuiltinSplitV = 102;
constexpr int kTfLiteBuiltinUnpack = 88;

using View = std::shared_ptr<const IndexView>;

View read_slice(const TfLiteOp& op, const Node& n) {
  std::vector<int64_t> begin, size;
  if (n.inputs.size() != 3 || !op.ints(n.inputs[1], &begin) || !op.ints(n.inputs[2], &size) ||
      begin.size() != size.size()) {
    op.leave("begin or size computed at run time");
    return nullptr;
  }
  return slice_view(std::move(begin), std::move(size));
}

View read_strided_slice(const TfLiteOp& op, const Node& n) {
  const auto* p = static_cast<const TfLiteStridedSliceParams*>(op.params);
  StridedSliceSpec s;
  if (!p) return nullptr;
  if (p->ellipsis_mask || p->new_axis_mask || (op.version >= 8 && p->offset)) {
    op.leave("an ellipsis, a new axis or an offset");
    return nullptr;
  }
  if (n.inputs.size() != 4 || !op.ints(n.inputs[1], &s.begin) || !op.ints(n.inputs[2], &s.end) ||
      !op.ints(n.inputs[3], &s.strides)) {
    op.leave("begin, end or strides computed at run time");
    return nullptr;
  }
  const size_t rank = s.begin.size();
  if (s.end.size() != rank || s.strides.size() != rank || std::count(s.strides.begin(), s.strides.end(), 0))
    return nullptr;
  s.begin_mask = p->begin_mask;
  s.end_mask = p->end_mask;
  s.shrink_axis_mask = p->shrink_axis_mask;
  return strided_slice_view(std::move(s));
}

View read_gather(const TfLiteOp& op, const Node& n) {
  const auto* p = static_cast<const TfLiteGatherParams*>(op.params);
  std::vector<int64_t> indices;
  if (!p || n.inputs.size() != 2) return nullptr;
  if (p->batch_dims != 0 || !op.ints(n.inputs[1], &indices)) {
    op.leave(p->batch_dims ? "batch_dims other than 0" : "indices computed at run time");
    return nullptr;
  }
  return gather_view(p->axis, shape_of(*op.tensor(n.inputs[1])), std::move(indices));
}

View read_tile(const TfLiteOp& op, const Node& n) {
  std::vector<int64_t> multiples;
  if (n.inputs.size() != 2 || !op.ints(n.inputs[1], &multiples)) {
    op.leave("multiples computed at run time");
    return nullptr;
  }
  if (std::any_of(multiples.begin(), multiples.end(), [](int64_t m) { return m < 0; })) return nullptr;
  return tile_view(std::move(multiples));
}

View read_depth_to_space(const TfLiteOp& op, const Node& n) {
  const auto* p = static_cast<const TfLiteDepthSpaceParams*>(op.params);
  return p && p->block_size >= 1 && n.inputs.size() == 1 ? depth_to_space_view(p->block_size) : nullptr;
}

View read_space_to_depth(const TfLiteOp& op, const Node& n) {
  const auto* p = static_cast<const TfLiteDepthSpaceParams*>(op.params);
  return p && p->block_size >= 1 && n.inputs.size() == 1 ? space_to_depth_view(p->block_size) : nullptr;
}

struct Reader {
  int code;
  View (*read)(const TfLiteOp& op, const Node& n);
};
constexpr Reader kReaders[] = {
    {kTfLiteBuiltinSlice, read_slice},
    {kTfLiteBuiltinStridedSlice, read_strided_slice},
    {kTfLiteBuiltinGather, read_gather},
    {kTfLiteBuiltinTile, read_tile},
    {kTfLiteBuiltinDepthToSpace, read_depth_to_space},
    {kTfLiteBuiltinSpaceToDepth, read_space_to_depth},
};

// Any single-output view: its reader's view of the data input alone.
bool read_view(const TfLiteOp& op, Node* n) {
  View view = n->outputs.size() == 1 && !n->inputs.empty() ? find_row(kReaders, op.code)->read(op, *n) : nullptr;
  if (!view) return false;
  set_anchor(n, AnchorOp::kIndexView);
  n->params = std::move(view);
  n->inputs.resize(1);
  return true;
}

// The multi-output views: per output, its part's view.
std::vector<View> read_split(const TfLiteOp& op, const Node& n) {  // inputs: axis, data
  const auto* p = static_cast<const TfLiteSplitParams*>(op.params);
  std::vector<int64_t> axis;
  if (!p || n.inputs.size() != 2 || !op.ints(n.inputs[0], &axis) || axis.size() != 1) return {};
  std::vector<View> parts;
  for (int i = 0; i < p->num_splits; ++i) parts.push_back(split_view(axis[0], {}, p->num_splits, i, false));
  return parts;
}

std::vector<View> read_split_v(const TfLiteOp& op, const Node& n) {  // inputs: data, sizes, axis
  std::vector<int64_t> sizes, axis;
  if (n.inputs.size() != 3 || !op.ints(n.inputs[1], &sizes) || !op.ints(n.inputs[2], &axis) || axis.size() != 1) return {};
  if (std::count(sizes.begin(), sizes.end(), -1) > 1) return {};
  std::vector<View> parts;
  for (size_t i = 0; i < sizes.size(); ++i)
    parts.push_back(split_view(axis[0], sizes, static_cast<int64_t>(sizes.size()), static_cast<int64_t>(i), false));
  return parts;
}

std::vector<View> read_unpack(const TfLiteOp& op, const Node& n) {
  const auto* p = static_cast<const TfLiteUnpackParams*>(op.params);
  if (!p || n.inputs.size() != 1) return {};
  std::vector<View> parts;
  for (int i = 0; i < p->num; ++i) parts.push_back(split_view(p->axis, {}, p->num, i, true));
  return parts;
}

struct MultiReader {
  int code;
  std::vector<View> (*read)(const TfLiteOp& op, const Node& n);
};
constexpr MultiReader kMultiReaders[] = {
    {kTfLiteBuiltinSplit, read_split},
    {kTfLiteBuiltinSplitV, read_split_v},
    {kTfLiteBuiltinUnpack, read_unpack},
};

// The data input of a multi-output view: SPLIT's second, the others' first.
int data_input(int code, const Node& n) { return code == kTfLiteBuiltinSplit ? n.inputs[1] : n.inputs[0]; }

}  // namespace

std::vector<Node> translate_tflite_outputs(const TfLiteOp& op, Node node) {
  const MultiReader* r = find_row(kMultiReaders, op.code);
  if (!r) return {std::move(node)};
  const std::vector<View> views = r->read(op, node);  // each checks its inputs' count
  if (views.empty() || views.size() != node.outputs.size()) {
    node.kind = OpKind::kOpaque;
    return {std::move(node)};
  }
  std::vector<Node> parts;
  for (size_t i = 0; i < views.size(); ++i) {
    Node part = node;
    set_anchor(&part, AnchorOp::kIndexView);
    part.params = views[i];
    part.inputs = {data_input(op.code, node)};
    part.outputs = {node.outputs[i]};
    parts.push_back(std::move(part));
  }
  return parts;
}

TfLiteReader view_reader(int code) {
  return find_row(kReaders, code) ? read_view : nullptr;
}

}  // namespace fd
