#include "runtime/depth_first.h"

#include <algorithm>
#include <chrono>

#include "runtime/thread_pool.h"

namespace fd {
namespace {

// The anchor a chained program reads its ring through, or null.
const BoundAnchor* window_anchor(BoundProgram& p) {
  const BoundAnchor* a = p.anchor();
  if (!a) return nullptr;
  switch (a->step.op) {
    case AnchorOp::kConv2D:
    case AnchorOp::kDepthwiseConv2D:
    case AnchorOp::kMaxPool2D:
    case AnchorOp::kAveragePool2D: break;
    default: return nullptr;
  }
  const bool rows_only = !a->step.pad.any() || a->step.pad.mode == PadMode::kConstant;  // no mirrored rows
  return a->geo.batch == 1 && rows_only && a->geo.ring_rows == 0 ? a : nullptr;
}

// A program whose domain is its anchor's NHWC output, computed row by row.
bool by_rows(BoundProgram& p) {
  const BoundAnchor* a = window_anchor(p);
  return a && a->output.size() == 4 && p.size() == num_elements(a->output);
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
  const ConvGeometry& g = bound[b]->anchor()->geo;
  const Shape& s = bound[a]->anchor()->output;
  // A filter row cut by padding is copied before the run, when a ring is not yet filled.
  const bool fits = g.in_h == s[1] && g.in_w == s[2] && g.channels == s[3] && !bound[b]->anchor()->filter_rows;
  return fits && bound[b]->reads_whole(i) ? i : -1;
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
    c.ring_input_.push_back(-1);
    for (size_t j = k; j + 1 < programs.size(); ++j) {
      const int i = link_input(programs, bound, exported, min_bytes, j, j + 1);
      if (i < 0) break;
      c.ring_input_.push_back(i);
    }
    const int n = static_cast<int>(c.ring_input_.size());
    if (n < 2) {
      ++k;
      continue;
    }
    std::vector<const BoundAnchor*> anchor(n);
    for (int j = 0; j < n; ++j) {
      anchor[j] = bound[k + j]->anchor();
      c.row_size_.push_back(anchor[j]->output[2] * anchor[j]->output[3]);
    }
    // The schedule for strips of `strip` rows of the last program's rows [y0,
    // y1): per strip, the rows each program must reach (backwards), then each
    // produces them in order (forwards). A ring holds every row between the
    // lowest its reader still reads and the highest it has produced. A part
    // from y0 > 0 starts each program at the first row its reader reads.
    auto simulate = [&](int64_t strip, int64_t y0, int64_t y1, std::vector<int64_t>* ring,
                        std::vector<Piece>* pieces) {
      std::vector<int64_t> done(n, y0), need(n, 0);
      for (int j = n - 2; j >= 0 && y0 > 0; --j)
        done[j] = input_rows(anchor[j + 1]->geo, done[j + 1], done[j + 1] + 1).first;
      for (int64_t y = y0; y < y1; y += strip) {
        need[n - 1] = std::min(y1, y + strip);
        for (int j = n - 2; j >= 0; --j) {
          const RowRange r = input_rows(anchor[j + 1]->geo, done[j + 1], need[j + 1]);
          need[j] = std::max(done[j], r.last);
          (*ring)[j] = std::max((*ring)[j], need[j] - std::min(r.first, done[j]));
        }
        for (int j = 0; j < n; ++j) {
          if (pieces && need[j] > done[j]) pieces->push_back({j, done[j], need[j]});
          done[j] = need[j];
        }
      }
    };
    const int64_t rows = anchor[n - 1]->output[1];
    const int count = static_cast<int>(std::min<int64_t>(std::max(parts, 1), rows));
    auto part_rows = [&](int p) { return rows * p / count; };
    auto rings_for = [&](int64_t strip) {  // every part's rings, the largest per link
      std::vector<int64_t> ring(n - 1, 0);
      for (int p = 0; p < count; ++p) simulate(strip, part_rows(p), part_rows(p + 1), &ring, nullptr);
      return ring;
    };
    auto ring_bytes = [&](const std::vector<int64_t>& ring) {
      size_t bytes = 0;
      for (int j = 0; j + 1 < n; ++j) bytes += ring[j] * c.row_size_[j] * sizeof(float);
      return bytes;
    };
    for (int64_t strip = 1; strip <= part_rows(1); ++strip) {  // the tallest strip within budget
      const std::vector<int64_t> ring = rings_for(strip);
      if (ring_bytes(ring) > budget_bytes) break;
      c.strip_ = strip;
      c.ring_rows_ = ring;
    }
    if (c.strip_ == 0) {
      k += n - 1;
      continue;
    }
    for (int j = 0; j + 1 < n; ++j) bound[k + j + 1]->anchor()->read_ring(c.ring_rows_[j]);
    c.parts_.resize(count);
    for (int p = 0; p < count; ++p) {
      Part& part = c.parts_[p];
      std::vector<Piece> pieces;
      std::vector<int64_t> ring(n - 1, 0);
      simulate(c.strip_, part_rows(p), part_rows(p + 1), &ring, &pieces);
      for (const Piece& q : pieces) {  // a ring's rows are contiguous up to where it wraps
        if (q.link + 1 == n) {
          part.schedule.push_back(q);
          continue;
        }
        const int64_t r = c.ring_rows_[q.link];
        for (int64_t y = q.y0; y < q.y1;) {
          const int64_t end = std::min(q.y1, (y / r + 1) * r);
          part.schedule.push_back({q.link, y, end});
          y = end;
        }
      }
      for (int j = 0; j + 1 < n; ++j) part.rings.emplace_back(static_cast<size_t>(c.ring_rows_[j] * c.row_size_[j]));
      for (int j = 0; p > 0 && j < n; ++j) part.copies.push_back(std::make_unique<BoundProgram>(*bound[k + j]));
      part.in.resize(n);
      part.out.resize(n);
    }
    chains.push_back(std::move(c));
    k += n;
  }
  return chains;
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
