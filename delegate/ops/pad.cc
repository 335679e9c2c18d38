// PAD and MIRROR_PAD (node kind kPad; pads and pad_mode in Node): of H and W,
// claimed only folded into the convolution that is its one reader; of
// channels (constant), run on its own (plan/folds.cc).
#include "ops/op_registry.h"

namespace fd {
namespace {

std::string rule(const Graph& g, const Node& node) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1) return "PAD without constant paddings";
  const Tensor& in = g.tensors[node.inputs[0]];
  if (!in.is_f32() || in.has_dynamic_shape || in.shape.size() != 4 || node.pads.size() != 8)
    return "PAD of a tensor that is not a static 4-D float32 one";
  for (int64_t p : node.pads)
    if (p < 0) return "negative padding";
  if (node.pads[0] || node.pads[1]) return "PAD of the batch";
  if ((node.pads[6] || node.pads[7]) && node.pad_mode != PadMode::kConstant) return "mirrored PAD of channels";
  return "";
}

}  // namespace

extern const AnchorInfo kPadInfo = {
    "PAD", Pattern::kView, kFamilyConv, 1, 1, false, false, false, false, rule, nullptr, nullptr,
};

}  // namespace fd
