// PAD and MIRROR_PAD (ops/pad.h): of H and W, claimed only folded into the
// convolution or pool that is its one reader; of channels (constant), run on
// its own (plan/folds.cc). int8: a PAD of H and W by the zero point, folded.
#include "ops/pad.h"

#include "ops/index_view.h"
#include "ops/op_registry.h"
#include "ops/quantized.h"

namespace fd {

std::string PadParams::describe() const {
  static const char* const kModes[] = {"constant", "reflect", "symmetric"};  // by PadMode
  return "pads " + join(pads) + ", " + kModes[static_cast<int>(mode)] +
         (mode == PadMode::kConstant && value != 0.f ? " " + std::to_string(value) : "");
}

bool PadParams::write(WireWriter& w) const {
  w.int64s(pads);
  w.enumeration(mode);
  w.f32(value);
  return true;
}

std::shared_ptr<const PadParams> pad_params(std::vector<int64_t> pads, PadMode mode, float value) {
  auto p = std::make_shared<PadParams>();
  p->pads = std::move(pads);
  p->mode = mode;
  p->value = value;
  return p;
}

FoldedPad folded_pad(const PadParams& p) {
  FoldedPad f;  // NHWC: pads[2..3] are H, pads[4..5] are W
  f.top = p.pads[2];
  f.bottom = p.pads[3];
  f.left = p.pads[4];
  f.right = p.pads[5];
  f.mode = p.mode;
  f.value = p.value;
  return f;
}

namespace {

// An int8 PAD folds into the int8 layer reading it (plan/folds.cc) as that
// layer's padding: its value must be the zero point, its scale the layer's.
std::string int8_rule(const Graph& g, const Node& node, const PadParams& p) {
  const Tensor &in = g.tensors[node.inputs[0]], &out = g.tensors[node.outputs[0]];
  if (!is_q8_tensor(in) || !is_q8_tensor(out) || in.quantization.scales != out.quantization.scales ||
      in.quantization.zero_points != out.quantization.zero_points)
    return "int8 PAD that requantizes";
  if (p.mode != PadMode::kConstant || p.value != 0.f) return "int8 PAD of a value other than the zero point";
  if (p.pads[6] || p.pads[7]) return "int8 PAD of channels";
  return "";
}

std::string rule(const Graph& g, const Node& node) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1 || !node.params) return "PAD without constant paddings";
  const auto& p = params_as<PadParams>(node.params);
  const Tensor& in = g.tensors[node.inputs[0]];
  const bool int8 = in.dtype == DType::kI8;
  if (!(in.is_f32() || int8) || in.has_dynamic_shape || in.shape.size() != 4 || p.pads.size() != 8)
    return "PAD of a tensor that is not a static 4-D float32 or int8 one";
  for (int64_t x : p.pads)
    if (x < 0) return "negative padding";
  if (p.pads[0] || p.pads[1]) return "PAD of the batch";
  if ((p.pads[6] || p.pads[7]) && p.mode != PadMode::kConstant) return "mirrored PAD of channels";
  return int8 ? int8_rule(g, node, p) : "";
}

std::shared_ptr<const OpParams> read(WireReader& r) {
  std::vector<int64_t> pads = r.int64s();
  const uint8_t mode = r.u8();
  if (mode > static_cast<uint8_t>(PadMode::kSymmetric)) r.fail("corrupt: pad mode " + std::to_string(mode) + " out of range");
  return pad_params(std::move(pads), static_cast<PadMode>(mode), r.f32());
}

}  // namespace

extern const AnchorInfo kPadInfo = {
    "PAD", Pattern::kView, kFamilyConv, 1, 1, 0, rule, nullptr, read,
};

}  // namespace fd
