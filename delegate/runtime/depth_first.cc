#include "runtime/depth_first.h"

#include <algorithm>
#include <chrono>

#include "ops/op_classes.h"
#include "runtime/thread_pool.h"

namespace fd {
namespace {

// The anchor a chained program reads its ring through, or null.
const BoundAnchor* window_anchor(BoundProgram& p) {
  const BoundAnchor* a = p.anchor();
  if (!a || !reads_windows(a->step.op)) return nullptr;  // convolutions, pools
  const bool rows_only = !a->step.pad.any() || a->step.pad.mode == PadMode::kConstant;  // no mirrored rows
  // A Winograd tile reads input rows past those its output rows need: not from a ring.
  return a->geo.batch == 1 && rows_only && a->geo.ring_rows == 0 && !a->reads_past_rows ? a : nullptr;
}

// A program whose domain is its anchor's NHWC output, computed row by row (an
// empty one computes nothing: no chain).
bool by_rows(BoundProgram& p) {
  const BoundAnchor* a = window_anchor(p);
  return a && a->output.size() == 4 && p.size() == num_elements(a->output) && p.size() > 0;
}

// Program b reads program a's one output through its anchor alone: the input
// index that does, or -1.
int link_input(const std::vector<Program>& programs, const std::vector<std::unique_ptr<BoundProgram>>& bound,
               const std::set<int>& exported, size_t min_bytes, size_t a, size_t b) {
  const Program& pa = programs[a];
  if (pa.outputs.size() != 1 || exported.count(pa.outputs[0]) || !by_rows(*bound[a]) || !by_rows(*bound[b]))
    return -1;
  const int t = pa.outputs[0];
  if (static_cast<size_t>(bound[a]->size()) * sizeof(float) < min_bytes) return -1;
  for (size_t k = 0; k < programs.size(); ++k)
    if (k != b && std::count(programs[k].inputs.begin(), programs[k].inputs.end(), t)) return -1;
  const auto& ins = programs[b].inputs;
  if (std::count(ins.begin(), ins.end(), t) != 1) return -1;
  const int i = static_cast<int>(std::find(ins.begin(), ins.end(), t) - ins.begin());
  // Int8 weights quantize, a depth multiplier widens, the whole input image
  // before the run: not a ring.
  if (bound[b]->anchor()->reads_whole_input) return -1;
  const ConvGeometry& g = bound[b]->anchor()->geo;
  const Shape& s = bound[a]->anchor()->output;
  // A filter row cut by padding is copied before the run, when a ring is not yet filled.
  const bool fits = g.in_h == s[1] && g.in_w == s[2] && g.channels == s[3] && !bound[b]->anchor()->filter_rows;
  return fits && bound[b]->reads_whole(i) ? i : -1;
}

// From program k on, the input through which each program reads the one
// before it (-1 for program k), for as long as each does.
std::vector<int> ring_inputs_from(const std::vector<Program>& programs,
                                  const std::vector<std::unique_ptr<BoundProgram>>& bound,
                                  const std::set<int>& exported, size_t min_bytes, size_t k) {
  std::vector<int> inputs = {-1};
  for (size_t j = k; j + 1 < programs.size(); ++j) {
    const int i = link_input(programs, bound, exported, min_bytes, j, j + 1);
    if (i < 0) break;
    inputs.push_back(i);
  }
  return inputs;
}

// The anchors of programs k .. k + n - 1.
std::vector<const BoundAnchor*> chain_anchors(const std::vector<std::unique_ptr<BoundProgram>>& bound, size_t k,
                                              int n) {
  std::vector<const BoundAnchor*> anchors(n);
  for (int j = 0; j < n; ++j) anchors[j] = bound[k + j]->anchor();
  return anchors;
}

// The last program's first row in part p of `count`.
int64_t part_start(const std::vector<const BoundAnchor*>& anchors, int count, int p) {
  const int64_t rows = anchors.back()->output[1];
  return rows * p / count;
}

// The row each program starts from in a part from the last program's row y0:
// the first row its reader reads.
std::vector<int64_t> start_rows(const std::vector<const BoundAnchor*>& anchors, int64_t y0) {
  const int n = static_cast<int>(anchors.size());
  std::vector<int64_t> done(n, y0);
  for (int j = n - 2; j >= 0 && y0 > 0; --j)
    done[j] = input_rows(anchors[j + 1]->geo, done[j + 1], done[j + 1] + 1).first;
  return done;
}

}  // namespace

std::vector<DepthFirstChain> DepthFirstChain::find(const std::vector<Program>& programs,
                                                   const std::vector<std::unique_ptr<BoundProgram>>& bound,
                                                   const std::set<int>& exported, size_t min_bytes,
                                                   size_t budget_bytes, int parts) {
  std::vector<DepthFirstChain> chains;
  for (size_t k = 0; k + 1 < programs.size();) {
    DepthFirstChain c;
    c.first_ = static_cast<int>(k);
    c.ring_input_ = ring_inputs_from(programs, bound, exported, min_bytes, k);
    const int n = static_cast<int>(c.ring_input_.size());
    if (n < 2) {
      ++k;
      continue;
    }
    const std::vector<const BoundAnchor*> anchors = chain_anchors(bound, k, n);
    for (const BoundAnchor* a : anchors) c.row_size_.push_back(a->output[2] * a->output[3]);
    const int64_t rows = anchors.back()->output[1];
    const int count = static_cast<int>(std::min<int64_t>(std::max(parts, 1), rows));
    if (!c.choose_strip(anchors, count, budget_bytes)) {
      k += n - 1;
      continue;
    }
    for (int j = 0; j + 1 < n; ++j) bound[k + j + 1]->anchor()->read_ring(c.ring_rows_[j]);
    c.parts_.resize(count);
    for (int p = 0; p < count; ++p) c.build_part(anchors, bound, p, count);
    chains.push_back(std::move(c));
    k += n;
  }
  return chains;
}

// The schedule for strips of `strip` rows of the last program's rows [y0, y1):
// per strip, the rows each program must reach (backwards), then each produces
// them in order (forwards). A ring holds every row between the lowest its
// reader still reads and the highest it has produced: *ring grows to that.
void DepthFirstChain::simulate(const std::vector<const BoundAnchor*>& anchors, int64_t strip, int64_t y0,
                               int64_t y1, std::vector<int64_t>* ring, std::vector<Piece>* pieces) {
  const int n = static_cast<int>(anchors.size());
  std::vector<int64_t> done = start_rows(anchors, y0), need(n, 0);
  for (int64_t y = y0; y < y1; y += strip) {
    need[n - 1] = std::min(y1, y + strip);
    for (int j = n - 2; j >= 0; --j) {
      const RowRange r = input_rows(anchors[j + 1]->geo, done[j + 1], need[j + 1]);
      need[j] = std::max(done[j], r.last);
      (*ring)[j] = std::max((*ring)[j], need[j] - std::min(r.first, done[j]));
    }
    for (int j = 0; j < n; ++j) {
      if (pieces && need[j] > done[j]) pieces->push_back({j, done[j], need[j]});
      done[j] = need[j];
    }
  }
}

std::vector<int64_t> DepthFirstChain::largest_rings(const std::vector<const BoundAnchor*>& anchors, int64_t strip,
                                                    int count) {
  std::vector<int64_t> ring(anchors.size() - 1, 0);
  for (int p = 0; p < count; ++p)
    simulate(anchors, strip, part_start(anchors, count, p), part_start(anchors, count, p + 1), &ring, nullptr);
  return ring;
}

size_t DepthFirstChain::ring_bytes(const std::vector<int64_t>& ring) const {
  size_t bytes = 0;
  for (size_t j = 0; j < ring.size(); ++j) bytes += ring[j] * row_size_[j] * sizeof(float);
  return bytes;
}

bool DepthFirstChain::choose_strip(const std::vector<const BoundAnchor*>& anchors, int count, size_t budget_bytes) {
  for (int64_t strip = 1; strip <= part_start(anchors, count, 1); ++strip) {
    const std::vector<int64_t> ring = largest_rings(anchors, strip, count);
    if (ring_bytes(ring) > budget_bytes) break;
    strip_ = strip;
    ring_rows_ = ring;
  }
  return strip_ > 0;
}

void DepthFirstChain::build_part(const std::vector<const BoundAnchor*>& anchors,
                                 const std::vector<std::unique_ptr<BoundProgram>>& bound, int p, int count) {
  const int n = size();
  Part& part = parts_[p];
  std::vector<Piece> pieces;
  std::vector<int64_t> ring(n - 1, 0);
  simulate(anchors, strip_, part_start(anchors, count, p), part_start(anchors, count, p + 1), &ring, &pieces);
  for (const Piece& piece : pieces) schedule_piece(piece, &part.schedule);
  for (int j = 0; j + 1 < n; ++j) part.rings.emplace_back(static_cast<size_t>(ring_rows_[j] * row_size_[j]));
  for (int j = 0; p > 0 && j < n; ++j) part.copies.push_back(std::make_unique<BoundProgram>(*bound[first_ + j]));
  part.in.resize(n);
  part.out.resize(n);
}

void DepthFirstChain::schedule_piece(const Piece& piece, std::vector<Piece>* schedule) const {
  if (piece.link + 1 == size()) {
    schedule->push_back(piece);
    return;
  }
  const int64_t r = ring_rows_[piece.link];
  for (int64_t y = piece.y0; y < piece.y1;) {
    const int64_t end = std::min(piece.y1, (y / r + 1) * r);
    schedule->push_back({piece.link, y, end});
    y = end;
  }
}

void DepthFirstChain::run(const std::vector<Program>& programs,
                          const std::vector<std::unique_ptr<BoundProgram>>& bound,
                          const std::function<float*(int)>& data, double* seconds, ThreadPool* pool) const {
  const int count = static_cast<int>(parts_.size());
  if (pool && count > 1) {
    pool->parallel_for(count, [&](int p) { run_part(parts_[p], programs, bound, data, p == 0 ? seconds : nullptr); });
    return;
  }
  for (int p = 0; p < count; ++p) run_part(parts_[p], programs, bound, data, p == 0 ? seconds : nullptr);
}

void DepthFirstChain::run_part(Part& part, const std::vector<Program>& programs,
                               const std::vector<std::unique_ptr<BoundProgram>>& bound,
                               const std::function<float*(int)>& data, double* seconds) const {
  const int n = size();
  auto program = [&](int j) -> const BoundProgram& {
    return part.copies.empty() ? *bound[first_ + j] : *part.copies[j];
  };
  auto& in = part.in;
  auto& out = part.out;
  for (int j = 0; j < n; ++j) {
    const Program& p = programs[first_ + j];
    in[j].clear();
    out[j].clear();
    for (size_t i = 0; i < p.inputs.size(); ++i)
      in[j].push_back(j > 0 && static_cast<int>(i) == ring_input_[j] ? part.rings[j - 1].data() : data(p.inputs[i]));
    for (size_t o = 0; o < p.outputs.size(); ++o) out[j].push_back(j + 1 < n ? nullptr : data(p.outputs[o]));
    program(j).before_run(in[j].data());
  }
  for (const Piece& piece : part.schedule) {
    const int j = piece.link;
    const int64_t rs = row_size_[j];
    const auto t0 = seconds ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    int64_t origin = 0;
    if (j + 1 < n) {  // into the ring, where row y0 lies
      out[j][0] = part.rings[j].data() + (piece.y0 % ring_rows_[j]) * rs;
      origin = piece.y0 * rs;
    }
    program(j).run_range(piece.y0 * rs, piece.y1 * rs, in[j].data(), out[j].data(), origin);
    if (seconds) seconds[j] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
}

}  // namespace fd
