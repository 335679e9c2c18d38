// An int8 elementwise group as tables. Every value of the group that depends
// on one source (a program input, or a two-input op of two sources) is a
// 256-entry table of that source, one per channel where a constant operand
// differs by channel: a chain of any length, and any op of such values, costs
// one lookup per element. An op of two sources runs its integer arithmetic on
// looked-up operands and starts a new source. Each op's arithmetic is
// kernels/q8_ops.h's, so the tables hold what TFLite's int8 kernels compute.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "kernels/q8_ops.h"
#include "kernels/q8_depthwise.h"
#include "kernels/q8_gemm.h"
#include "kernels/q8_kernel.h"
#include "runtime/q8_layer.h"

namespace fd {

class ThreadPool;

// channels x 256 entries (entry v + 128 of channel c: the value for v), or
// none: the identity.
struct Q8Table {
  int channels = 1;
  std::vector<int8_t> entries;
  bool identity() const { return entries.empty(); }
};

// A source made by an op of two sources, op(table[0](src[0]), table[1](src[1])),
// or by one whose rounding depends on the value's place (q8_has_blocked_form:
// blocked, src[1] -1 for a one-input op), or by a layer reading program input
// src[0] (then the group's first step: its output is the domain).
struct Q8Step {
  Q8Prepared op;
  int src[2] = {-1, -1};  // sources: program inputs first, then one per step
  Q8Table table[2];
  bool blocked = false;  // the values TFLite computes in blocks of 16 take its blocked form
  bool row = false;      // src[1] is a program input of one value per row (q8_has_row_operand)
  std::shared_ptr<const Q8Layer> layer;
};

// A program output: table(source).
struct Q8Output {
  int src = -1;
  Q8Table table;
};

struct Q8Program {
  const Q8Kernel* kernel = nullptr;  // picked for the CPU when built
  std::vector<Q8Step> steps;
  std::vector<Q8Output> outputs;  // per Program output
  int channels() const;           // the tables' channel count (1: none per channel)
  std::string to_string(int inputs) const;
};

// Compiles an int8 group (node positions in execution order: a layer
// (FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D, BATCH_MATMUL) first or none,
// then elementwise nodes; ops/quantized.h's rules hold) reading
// the tensors `inputs` and writing `outputs`.
struct Q8LayerKernels {
  const Q8GemmKernel* gemm = nullptr;  // FULLY_CONNECTED, CONV_2D
  const Q8DepthwiseKernel* depthwise = nullptr;
  const Q8Kernel* matmul = nullptr;  // BATCH_MATMUL (its rows: Q8Kernel::matmul)
};
Q8Program build_q8_program(const Graph& g, const std::vector<int>& group, const std::vector<int>& inputs,
                           const std::vector<int>& outputs, const Q8Kernel& kernel, const Q8LayerKernels& layers);

// A Q8Program bound to its inputs' shape (they all have it), ready to run.
class BoundQ8Program {
 public:
  // Null (and *error) if the inputs differ in shape (a layer's: its output has
  // the others' shape), or per-channel tables do not match the last axis.
  static std::unique_ptr<BoundQ8Program> bind(std::shared_ptr<const Q8Program> p, const std::vector<Shape>& inputs,
                                              std::string* error);
  const Shape& shape() const { return shape_; }
  void run(const int8_t* const* inputs, int8_t* const* outputs, ThreadPool* pool) const;

 private:
  bool bind_domain(const std::vector<Shape>& inputs, std::string* error);
  void run_range(int64_t first, int64_t last, const int8_t* const* inputs, int8_t* const* outputs) const;
  void lookup(const Q8Table& t, const int8_t* x, int8_t* y, int64_t first, int64_t n) const;
  bool is_row_input(int i) const;
  bool read_as_values(int i) const;
  const int8_t* spread_rows(const int8_t* rows, int64_t first, int64_t n, int8_t* out) const;

  std::shared_ptr<const Q8Program> p_;
  std::shared_ptr<const Q8Layer> layer_;  // the first step's layer for these shapes
  Shape shape_;
  int64_t total_ = 0, tile_ = 0, channels_ = 1;
  int inputs_ = 0;
};

}  // namespace fd
