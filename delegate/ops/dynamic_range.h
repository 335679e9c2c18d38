// FULLY_CONNECTED, CONV_2D and DEPTHWISE_CONV_2D of a float input and int8
// constant weights with float scales (a model converted with Optimize.DEFAULT
// and no representative dataset). TFLite's hybrid kernels quantize the input
// to int8 (FULLY_CONNECTED: each row; the convolutions: each image), multiply
// in int32 and scale back; the runtime does the same (kernels/qd8_gemm.h,
// runtime/qd8_conv.h), not a float product with the dequantized weights, so
// that the results agree.
#pragma once

#include <string>

#include "ir/graph.h"

namespace fd {

// The deepest rows the int32 accumulation holds exactly (kernels/qd8_gemm.h: kQd8MaxDepth).
constexpr int kDynamicRangeMaxDepth = 1 << 16;
// The most depthwise taps whose float sums stay exact (|q - zp| * |w| <= 255 * 128
// each, the sum below 2^24: runtime/qd8_conv.h).
constexpr int kDynamicRangeMaxDepthwiseTaps = 512;

// Whether `node` is such a FULLY_CONNECTED (the front end converted its weights
// from int8: Tensor::stored_as).
bool is_dynamic_range_fc(const Graph& g, const Node& node);

// For such a node: "" if the runtime computes it as TFLite does, else why not.
std::string dynamic_range_fc_legality(const Graph& g, const Node& node);

// Whether `node` is such a CONV_2D or DEPTHWISE_CONV_2D.
bool is_dynamic_range_conv(const Graph& g, const Node& node);

// For such a node: "" if the runtime computes it as TFLite does, else why not.
std::string dynamic_range_conv_legality(const Graph& g, const Node& node);

}  // namespace fd
