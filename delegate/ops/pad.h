// PAD, PADV2 and MIRROR_PAD (node kind kPad): their parameters (Node::params).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/op_params.h"
#include "ops/conv_geometry.h"

namespace fd {

struct PadParams : OpParams {
  std::vector<int64_t> pads;  // before and after per axis, from its constant paddings
  PadMode mode = PadMode::kConstant;
  float value = 0.f;  // kConstant: the value padded with
  std::string describe() const override;  // "pads 0,0,1,1,1,1,0,0, reflect"
  bool write(WireWriter& w) const override;
};

std::shared_ptr<const PadParams> pad_params(std::vector<int64_t> pads, PadMode mode, float value);

// An NHWC PAD as the window of the convolution it folds into reads it (H and W only).
FoldedPad folded_pad(const PadParams& p);

}  // namespace fd
