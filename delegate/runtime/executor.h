// The executor: runs one partition of a fused graph, i.e. the plan's groups
// that a front end hands it, as fused programs in dependency order. It owns
// the partition's intermediate buffers (reused once dead), falls back to
// node-by-node programs where a group's values stop sharing one shape after a
// resize, runs chains of programs depth-first, and makes a lone RESHAPE an
// alias. A front end only binds tensors, through TensorHost.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/fusion_plan.h"
#include "ir/graph.h"
#include "kernels/cpu.h"
#include "runtime/depth_first.h"
#include "runtime/memory.h"
#include "runtime/program.h"

namespace fd {

class ThreadPool;

// The front end's tensors, as the executor sees them.
class TensorHost {
 public:
  virtual ~TensorHost() = default;
  virtual Shape shape(int tensor) const = 0;
  virtual float* data(int tensor) const = 0;
  // Gives an exported tensor a new shape; false if the front end cannot.
  virtual bool resize(int tensor, const Shape& shape) = 0;
  // The values of an int32 tensor (a shape computed at run time); nothing if
  // the front end has no such tensors.
  virtual std::optional<std::vector<int64_t>> ints(int) const { return std::nullopt; }
  virtual void error(const std::string& message) = 0;
};

class Executor {
 public:
  // `groups`: node positions per plan group; `folds`, `slice_writes`,
  // `rounds_as_builtin`: the plan's; `exported`: the tensors read outside the
  // partition.
  Executor(std::shared_ptr<const Graph> graph, const std::vector<std::vector<int>>& groups,
           const std::vector<Fold>& folds, std::set<int> exported, const Kernels& kernels,
           const std::vector<SliceWrite>& slice_writes = {}, std::vector<bool> rounds_as_builtin = {});

  // The groups in run order and their programs as planned.
  const std::vector<std::vector<int>>& groups() const { return groups_; }
  const std::vector<Program>& planned() const { return planned_; }

  // Binds the programs to the host's current shapes, for `threads` threads.
  // False (with host.error called) if the partition cannot run.
  bool prepare(TensorHost& host, int threads);
  // Runs the partition; seconds (optional, one per bound program) gathers the
  // time of each. False (with host.error called) where a shape computed at
  // run time is not the one bound (the model was resized past its signature).
  bool invoke(TensorHost& host, ThreadPool* pool, double* seconds);

  // Per bound program: its ops joined by '+', and the strip height it runs
  // in depth-first (0: whole).
  const std::vector<std::string>& labels() const { return labels_; }
  std::vector<int64_t> strip_rows() const;
  // Floats held for the partition's own tensors (tests: bounded over resizes).
  size_t owned_floats() const;
  const std::vector<DepthFirstChain>& chains() const { return chains_; }
  int threads() const { return threads_; }

 private:
  bool bind(TensorHost& host, const Program& p, const std::vector<int>& nodes, bool* mixed);
  bool bind_group(TensorHost& host, size_t k);
  void find_in_place(const std::vector<SliceWrite>& slice_writes);
  std::set<int> in_place_tensors() const;
  void bind_slices(const TensorHost& host);
  Shape shape_of(const TensorHost& host, int t) const;
  void find_aliases();
  void assign_buffers();
  void release_unowned_buffers();
  int take_buffer(std::vector<int>& free, size_t need);
  float* data(const TensorHost& host, int t);
  bool shapes_computed_as_bound(TensorHost& host) const;

  std::shared_ptr<const Graph> graph_;
  const Kernels& kernels_;
  std::vector<std::vector<int>> groups_;  // node positions per group, in dependency order
  std::vector<Program> planned_;          // one per group
  std::vector<bool> written_;             // tensors a group must store
  std::set<int> exported_;
  std::vector<bool> rounded_;  // per node: rounds as the builtin kernels (FusionPlan::rounds_as_builtin)
  std::vector<Fold> node_folds_;  // folds of no other node (a POW run as SQUARE): one node's program takes them
  // Bound at prepare: the planned programs, or node by node where a group's
  // values no longer share one shape.
  std::vector<Program> programs_;
  std::vector<std::unique_ptr<BoundProgram>> bound_;
  std::vector<std::string> labels_;
  // Tensors that live only inside the partition, in buffers reused once dead.
  std::map<int, Shape> owned_shape_;
  std::map<int, int> owned_;  // tensor -> index into buffers_
  std::vector<std::vector<float, HugePageAllocator<float>>> buffers_;
  std::map<int, int> alias_of_;  // a skipped RESHAPE's output -> its input
  // A part of a CONCATENATION its producer writes in place -> the
  // CONCATENATION's position; bound: the part's offset in its output.
  std::map<int, int> in_place_;
  struct Slice {
    int whole = -1;  // the CONCATENATION's output
    int64_t offset = 0;
  };
  std::map<int, Slice> slice_of_;
  // A RESHAPE to a shape computed at run time (Node::shape_input), bound to
  // its signature: the node and, bound, its input's shape.
  struct ShapeCheck {
    int node;
    Shape input;
  };
  std::vector<ShapeCheck> shape_checks_;
  std::vector<int> constant_exports_;  // outputs of constant nodes read outside: copied out every invoke
  std::vector<bool> skipped_;    // per bound program
  std::vector<DepthFirstChain> chains_;
  std::vector<const float*> in_;  // one program's pointers, reused every invoke
  std::vector<float*> out_;
  int threads_ = 1;
};

}  // namespace fd
