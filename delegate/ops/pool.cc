// MAX_POOL_2D, AVERAGE_POOL_2D and MEAN over H and W: windows of an NHWC
// input reduced per channel (the pools' window in their WindowParams; MEAN's the whole image).
#include "ops/pool.h"

#include "ops/conv_geometry.h"
#include "ops/op_registry.h"
#include "ops/rule_helpers.h"
#include "ops/window.h"

namespace fd {

bool MeanParams::write(WireWriter& w) const {
  w.flag(keep_dims);
  return true;
}

std::shared_ptr<const MeanParams> mean_params(bool keep_dims) {
  auto p = std::make_shared<MeanParams>();
  p->keep_dims = keep_dims;
  return p;
}

namespace {

template <bool kMean>
std::string rule(const Graph& g, const Node& node) {
  const Shape& in = g.tensors[node.inputs[0]].shape;
  if (in.size() != 4) return "input is not 4-D NHWC";
  std::string error;
  const ConvParams window = kMean ? ConvParams{} : window_of(node);
  const auto geo = conv_geometry(in, kMean ? static_cast<int>(in[1]) : window.window_h,
                                 kMean ? static_cast<int>(in[2]) : window.window_w, window,
                                 FoldedPad{}, &error);
  if (!geo) return error;
  const Shape expect = kMean && !params_as<MeanParams>(node.params).keep_dims ? Shape{geo->batch, geo->channels}
                                                    : Shape{geo->batch, geo->out_h, geo->out_w, geo->channels};
  return output_legality(g, node, expect);
}

std::shared_ptr<const OpParams> read_mean(WireReader& r) { return mean_params(r.flag()); }

}  // namespace

extern const AnchorInfo kMaxPool2DInfo = {
    "MAX_POOL_2D", Pattern::kWindowed, kFamilyConv, 1, 1, 0, rule<false>, nullptr, read_window_params,
};

extern const AnchorInfo kAveragePool2DInfo = {
    "AVERAGE_POOL_2D", Pattern::kWindowed, kFamilyConv, 1, 1, 0, rule<false>, nullptr, read_window_params,
};

extern const AnchorInfo kMeanInfo = {
    "MEAN", Pattern::kReduction, kFamilyConv, 1, 1, 0, rule<true>, nullptr, read_mean,
};

}  // namespace fd
