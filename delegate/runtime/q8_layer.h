// An int8 layer (FULLY_CONNECTED, CONV_2D) as the first step of an int8 group
// (runtime/q8_program.h): it reads one program input and writes rows of
// channels() values (the output's last axis), which the group's tables read.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <vector>

#include "ir/graph.h"
#include "kernels/q8_gemm.h"

namespace fd {

class Q8Layer {
 public:
  virtual ~Q8Layer() = default;
  virtual const char* name() const = 0;  // "FullyConnected"
  int input() const { return input_; }   // the program input it reads
  int second_input() const { return second_input_; }  // BATCH_MATMUL's right operand, else -1
  int channels() const { return channels_; }
  int block_rows() const { return block_rows_; }  // rows its kernel computes at once: tiles hold whole blocks
  // Its output's shape for program inputs of shapes `in` (it reads in[input()]
  // and in[second_input()]), or nothing (and *error).
  virtual std::optional<Shape> output_shape(const std::vector<Shape>& in, std::string* error) const = 0;
  // The same layer for inputs of shapes `in` where it is prepared for others
  // (a resize), else null: it takes `in` as they are.
  virtual std::shared_ptr<const Q8Layer> for_input(const std::vector<Shape>&) const { return nullptr; }
  // Output rows [first, first + rows) into out (rows * channels() values), from the program inputs.
  virtual void run(const int8_t* const* inputs, int64_t first, int64_t rows, int8_t* out) const = 0;

 protected:
  int input_ = -1, second_input_ = -1, channels_ = 0, block_rows_ = 1;
};

// A layer node's n per-channel multipliers as TFLite's Prepare computes them
// (kernel_util.cc, fully_connected.cc): s_in * s_w[c] / s_out in double;
// FULLY_CONNECTED of one weight scale: the product in float (`float_product`),
// then divided in double.
std::vector<Q8Multiplier> q8_layer_multipliers(const Graph& g, const Node& node, int n, bool float_product);
// Its output step (zero point, the fused activation's clamp) and its int32 bias (or null).
Q8GemmOutput q8_layer_output(const Graph& g, const Node& node);
const int32_t* q8_layer_bias(const Graph& g, const Node& node);
// For a layer prepared for one input shape: `out`, or nothing (and *error) if `in` is another.
std::optional<Shape> q8_prepared_shape(const char* what, const Shape& prepared, const Shape& in, const Shape& out,
                                       std::string* error);

// A layer node's weights [n, k] (filter rows; `weights` in their place where
// given), bias and multipliers packed for `kernel`, and its output step.
struct Q8PackedLayer {
  std::vector<int32_t> packed;  // q8_pack_weights' bytes
  Q8GemmOutput output;
};
Q8PackedLayer q8_pack_layer(const Graph& g, const Node& node, int n, int k, bool float_product,
                            const Q8GemmKernel& kernel, const int8_t* weights = nullptr);

}  // namespace fd
