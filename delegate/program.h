// A fused program: one group of elementwise nodes compiled into straight-line
// instructions over tiles. Built once when the delegate prepares; bound to
// shapes (domain, strides, tile size, buffers) whenever input shapes change.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gemm.h"
#include "ir.h"
#include "kernels/ew_table.h"
#include "shape.h"

namespace fd {

class ThreadPool;

// A FULLY_CONNECTED anchor: weights packed once, for one GEMM kernel.
struct GemmStep {
  const GemmKernel* kernel;
  std::shared_ptr<const PackedWeights> weights;
  bool keep_num_dims;
  float lo, hi;  // its fused activation, applied by the micro-kernel
};

// Values are numbered: program inputs first, then one per instruction.
// An instruction is an elementwise op, or (gemm >= 0) a GEMM of a program input.
struct Instr {
  EwOp op;
  float param = 0.f;
  int src[3] = {-1, -1, -1};
  int gemm = -1;  // index into Program::gemms
  int arity() const { return gemm >= 0 ? 1 : ew_arity(op); }
};

struct Program {
  std::vector<int> inputs;         // tensor of each input value
  std::vector<Instr> code;         // instruction k defines value inputs.size() + k
  std::vector<int> outputs;        // tensors written out
  std::vector<int> output_values;  // the value each output holds
  std::vector<GemmStep> gemms;
  int value_count() const { return static_cast<int>(inputs.size() + code.size()); }
  std::string to_string() const;
};

// Compiles `group` (node positions in execution order). `written` tells which
// tensors must reach memory (consumed outside the group, or graph outputs).
// GEMM anchors pack their weights for `gemm` (needed if the group has one).
Program build_program(const Graph& g, const std::vector<int>& group, const std::vector<bool>& written,
                      const GemmKernel* gemm = nullptr);

// A program bound to concrete shapes, ready to run.
class BoundProgram {
 public:
  // Binds `p` to the given input shapes; on failure returns null and sets
  // *error. Every value must have the same shape (the domain; inputs may
  // broadcast to it): if they do not, *mixed_shapes is set and the caller can
  // run the group node by node instead.
  static std::unique_ptr<BoundProgram> bind(const Program& p, const std::vector<Shape>& input_shapes,
                                            const EwTable& table, std::string* error,
                                            bool* mixed_shapes = nullptr);
  const std::vector<Shape>& output_shapes() const { return output_shapes_; }
  int tile() const { return tile_; }
  // inputs/outputs in Program order.
  void run(const float* const* inputs, float* const* outputs, ThreadPool* pool) const;

 private:
  // kWhole: read whole by GEMM steps only, never tiled.
  enum class Mode { kDense, kInvariant, kGathered, kWhole };
  struct Operand {
    Mode mode = Mode::kDense;
    Shape strides;  // over the coalesced domain
    int buffer = -1;
  };
  struct Step {
    EwKernel fn;
    float param;
    int src[3];  // slots
    int dst;
    const GemmStep* gemm;  // if set: dst = GEMM of input src[0], row-aligned tiles
    int64_t k, n;
  };
  void run_tiles(int64_t first, int64_t last, const float* const* in, float* const* out) const;

  Shape domain_;  // coalesced
  int64_t total_ = 0;
  int tile_ = 0;
  int buffers_ = 0;
  std::vector<Operand> in_;
  int outputs_ = 0;
  std::vector<Step> steps_;
  std::vector<Shape> output_shapes_;
};

}  // namespace fd
