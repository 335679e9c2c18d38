// Depth-first execution of a chain of programs (an inverted-residual block:
// 1x1 expand -> depthwise -> 1x1 project): each program reads the one before
// it through its convolution or pool window only, so the chain can run in
// strips of output rows, each program producing just the rows the next one
// needs. The tensors between links live in ring buffers of a few rows that stay
// in cache instead of travelling through memory whole.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <vector>

#include "runtime/program.h"

namespace fd {

class ThreadPool;

class DepthFirstChain {
 public:
  // Chains among `programs` (bound as `bound`, in run order): runs of programs
  // each of which reads the one before it through its convolution or pool
  // anchor alone, batch 1, the tensor between them read by nothing else and not
  // in `exported`, and at least min_bytes (a smaller one stays in cache
  // anyway). Strips are as tall as keeps each part's rings within budget_bytes.
  // Points the chained anchors at their rings.
  //
  // parts > 1: the last program's rows are cut into that many parts, each run
  // by one thread with its own rings and its own copies of the chained programs
  // (their indirection points into its rings), recomputing the few rows where
  // parts meet.
  static std::vector<DepthFirstChain> find(const std::vector<Program>& programs,
                                           const std::vector<std::unique_ptr<BoundProgram>>& bound,
                                           const std::set<int>& exported, size_t min_bytes, size_t budget_bytes,
                                           int parts = 1);

  int first() const { return first_; }  // the chain is programs first() .. first() + size() - 1
  int size() const { return static_cast<int>(row_size_.size()); }
  int64_t strip_rows() const { return strip_; }

  // Runs the chain, its parts over `pool` (null: one after another); data(t) is
  // tensor t's memory (not asked for the tensors that live in rings). seconds
  // (optional, one per program) accumulates the time the first part spends in
  // each.
  void run(const std::vector<Program>& programs, const std::vector<std::unique_ptr<BoundProgram>>& bound,
           const std::function<float*(int)>& data, double* seconds, ThreadPool* pool = nullptr) const;

 private:
  struct Piece {
    int link;        // program first_ + link
    int64_t y0, y1;  // its output rows
  };
  // One thread's share: the last program's rows from some row on.
  struct Part {
    std::vector<Piece> schedule;
    std::vector<std::vector<float, HugePageAllocator<float>>> rings;
    std::vector<std::unique_ptr<BoundProgram>> copies;  // per program; empty for part 0, which runs `bound`
    std::vector<std::vector<const float*>> in;
    std::vector<std::vector<float*>> out;
  };
  // Used by find. simulate: the pieces (optional) each program runs for
  // strips of `strip` rows of the last program's rows [y0, y1), and the rows
  // each ring must hold (*ring grows to them).
  static void simulate(const std::vector<const BoundAnchor*>& anchors, int64_t strip, int64_t y0, int64_t y1,
                       std::vector<int64_t>* ring, std::vector<Piece>* pieces);
  // The rings every part needs for strips of `strip` rows, the largest per link.
  static std::vector<int64_t> largest_rings(const std::vector<const BoundAnchor*>& anchors, int64_t strip,
                                            int count);
  size_t ring_bytes(const std::vector<int64_t>& ring) const;  // all rings of one part
  // The tallest strip whose rings fit in budget_bytes: sets strip_ and
  // ring_rows_; false if not even one row fits.
  bool choose_strip(const std::vector<const BoundAnchor*>& anchors, int count, size_t budget_bytes);
  // Part p of `count`: its schedule, its rings and, past part 0, its copies of
  // the chained programs.
  void build_part(const std::vector<const BoundAnchor*>& anchors,
                  const std::vector<std::unique_ptr<BoundProgram>>& bound, int p, int count);
  // Appends `piece` to a schedule, cut where its ring wraps (a ring's rows are
  // contiguous up to there).
  void schedule_piece(const Piece& piece, std::vector<Piece>* schedule) const;

  void run_part(Part& part, const std::vector<Program>& programs,
                const std::vector<std::unique_ptr<BoundProgram>>& bound, const std::function<float*(int)>& data,
                double* seconds) const;

  int first_ = 0;
  int64_t strip_ = 0;
  std::vector<int64_t> row_size_;   // per program: floats per output row
  std::vector<int64_t> ring_rows_;  // per program but the last: rows its ring holds
  std::vector<int> ring_input_;     // per program but the first: the input that is a ring
  mutable std::vector<Part> parts_;
};

}  // namespace fd
