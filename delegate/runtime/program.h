// A fused program: one group of elementwise nodes compiled into straight-line
// instructions over tiles. Built once when the delegate prepares; bound to
// shapes (domain, strides, tile size, buffers) whenever input shapes change.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ir/fusion_plan.h"
#include "runtime/anchor.h"
#include "ir/graph.h"
#include "kernels/ew_table.h"
#include "ir/shape.h"
#include "runtime/q8_program.h"

namespace fd {

class ThreadPool;

// Values are numbered: program inputs first, then one per instruction.
// An instruction is an elementwise op, or (anchor >= 0) a heavy anchor that
// reads program inputs whole (src: its inputs, as many as it takes).
struct Instr {
  EwKernelOp op;
  float param = 0.f;
  std::vector<int> src;  // the values it reads
  int anchor = -1;  // index into Program::anchors
  int arity() const { return static_cast<int>(src.size()); }
};

struct Program {
  std::vector<int> inputs;         // tensor of each input value
  std::vector<Instr> code;         // instruction k defines value inputs.size() + k
  std::vector<int> outputs;        // tensors written out
  std::vector<int> output_values;  // the value each output holds
  std::vector<AnchorStep> anchors;
  // An int8 group runs as tables instead (code and anchors empty): its inputs
  // and outputs are the tensors above.
  std::shared_ptr<const Q8Program> q8;
  int value_count() const { return static_cast<int>(inputs.size() + code.size()); }
  std::string to_string() const;
};

// The graph's elementwise op as the kernels' op of the same name.
EwKernelOp kernel_op(EwOp op);

// Compiles `group` (node positions in execution order). `written` tells which
// tensors must reach memory (consumed outside the group, or graph outputs).
// Anchors pack their weights for `kernels`; `folds` are the plan's folds (those
// lying within the group are taken in). A CONCATENATION copies only the parts
// not `in_place` (their producers write them into its output). Nodes marked in
// `rounded` (the plan's rounds_as_builtin, per node) round as TFLite's builtin
// kernels: their convolutions take kernels.rounded, their multiply-adds stay two ops.
Program build_program(const Graph& g, const std::vector<int>& group, const std::vector<Fold>& folds,
                      const std::vector<bool>& written, const Kernels& kernels, const std::set<int>& in_place = {},
                      const std::vector<bool>& rounded = {});

// A program bound to concrete shapes, ready to run.
class BoundProgram {
 public:
  // Binds `p` to the given input shapes; on failure returns null and sets
  // *error. Every value must have the same shape (the domain; inputs may
  // broadcast to it): if they do not, or a fold made for the planned shapes no
  // longer holds (bind_anchor's fold_broken), *mixed_shapes is set and the
  // caller can run the group node by node instead.
  static std::unique_ptr<BoundProgram> bind(const Program& p, const std::vector<Shape>& input_shapes,
                                            const EwTable& table, std::string* error,
                                            bool* mixed_shapes = nullptr);
  const std::vector<Shape>& output_shapes() const { return output_shapes_; }
  int tile() const { return tile_; }
  // inputs/outputs in Program order.
  void run(const float* const* inputs, float* const* outputs, ThreadPool* pool) const;

  // The same in pieces, on the calling thread: before_run once per run, then
  // ranges [first, last) of the domain's elements (whole rows of the anchor's
  // output), element e written to outputs[o] + (e - origin).
  void before_run(const float* const* inputs) const;
  // With column_pool, the anchor's GEMM is split by columns over that pool.
  void run_range(int64_t first, int64_t last, const float* const* inputs, float* const* outputs, int64_t origin,
                 ThreadPool* column_pool = nullptr) const;
  int64_t size() const { return total_; }
  // Output o is a part of a larger tensor (a CONCATENATION written in place):
  // its element e goes to outputs[o] + (e / len) * stride + e % len.
  void write_output_strided(int o, int64_t len, int64_t stride);
  // The program's one anchor (null if it has none or several); its input is
  // read only by the anchor when reads_whole(input).
  BoundAnchor* anchor() { return anchors_.size() == 1 ? &anchors_[0] : nullptr; }
  bool reads_whole(int input) const { return in_[input].mode == Mode::kWhole; }

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
    std::vector<int> src;  // slots
    int dst;
    int anchor;  // >= 0: dst = rows of anchors_[anchor] from inputs src[0..]; tiles are whole rows
    bool rows = false;        // dst holds one value per row of the tile (row_len_ elements)
    bool tile_input = false;  // a row op reading src[0]'s tile (else a program input, whole)
    EwRowsKernel rows_fn = nullptr;  // an elementwise step over the tile reading row values
    EwKernel tail_fn = nullptr;  // builtin_tail_kernel: run on values [tail_from, end) instead of fn
    int64_t tail_from = 0;
  };

  struct Values;
  static std::unique_ptr<BoundProgram> bind_q8(const Program& p, const std::vector<Shape>& input_shapes,
                                               std::string* error);
  bool bind_values(const Program& p, Values& v, std::string* error, bool* mixed_shapes);
  bool bind_domain(const Program& p, Values& v, std::string* error, bool* mixed_shapes);
  bool rows_read_right(const Program& p, const Values& v, std::string* error);
  int bind_inputs(const Program& p, const Values& v);
  void bind_steps(const Program& p, const Values& v, const EwTable& table, int buffers);
  void choose_tile();
  int64_t anchor_tile(int64_t tile);
  void run_tile(int64_t t0, int64_t n, float* const* slots, ThreadPool* column_pool) const;
  void run_elementwise(const Step& s, int64_t first, int64_t n, float* const* slots) const;
  void run_anchor_rows(const BoundAnchor& a, int64_t t0, int64_t n, float* out, ThreadPool* column_pool) const;
  // Element e of the domain in output o: e itself, or its row for one value per row.
  int64_t output_index(size_t o, int64_t e) const { return output_rows_[o] ? e / row_len_ : e; }

  Shape domain_;  // coalesced
  int64_t total_ = 0;
  int tile_ = 0;
  int64_t depth_ = 0;      // work per element: the anchors' depths plus one per elementwise step
  int64_t row_len_ = 0;    // with values of one per row: the domain's rows' length (tiles are whole rows)
  std::vector<bool> output_rows_;  // per output: one value per row
  struct Strided {
    int64_t len = 0, stride = 0;  // len 0: dense
  };
  std::vector<Strided> output_strided_;  // per output
  int strided_outputs_ = 0;  // they are computed in scratch buffers, then stored
  int64_t row_ = 0, mr_ = 1;  // with anchors: elements per output row, the GEMM's rows per block
  int buffers_ = 0;
  std::vector<Operand> in_;
  int outputs_ = 0;
  std::vector<Step> steps_;
  std::vector<BoundAnchor> anchors_;
  std::vector<Shape> output_shapes_;
  std::shared_ptr<const BoundQ8Program> q8_;  // an int8 group's (Program::q8)
};

}  // namespace fd
