// An int8 layer (FULLY_CONNECTED, CONV_2D) as the first step of an int8 group
// (runtime/q8_program.h): it reads one program input and writes rows of
// channels() values (the output's last axis), which the group's tables read.
#pragma once

#include <cstdint>
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
  int channels() const { return channels_; }
  int block_rows() const { return block_rows_; }  // rows its kernel computes at once: tiles hold whole blocks
  // Its output's shape for an input of `in`, or nothing (and *error).
  virtual std::optional<Shape> output_shape(const Shape& in, std::string* error) const = 0;
  // Output rows [first, first + rows) into out (rows * channels() values).
  virtual void run(const int8_t* input, int64_t first, int64_t rows, int8_t* out) const = 0;

 protected:
  int input_ = -1, channels_ = 0, block_rows_ = 1;
};

// A layer node's weights [n, k] (filter rows), bias and per-channel multipliers
// packed for `kernel`, and its output step (zero point, activation clamp).
// TFLite's multipliers (kernel_util.cc, fully_connected.cc Prepare): per
// channel s_in * s_w[c] / s_out in double; FULLY_CONNECTED of one weight
// scale: the product in float (`float_product`), then divided in double.
struct Q8PackedLayer {
  std::vector<int32_t> packed;  // q8_pack_weights' bytes
  Q8GemmOutput output;
};
Q8PackedLayer q8_pack_layer(const Graph& g, const Node& node, int n, int k, bool float_product,
                            const Q8GemmKernel& kernel);

}  // namespace fd
