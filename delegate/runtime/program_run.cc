// Running a bound program: tile by tile, each step over the tile (anchors by
// rows of their output), in parallel where the work pays for the pool.
#include "runtime/program.h"

#include <algorithm>
#include <cstring>

#include "ops/op_classes.h"
#include "runtime/thread_pool.h"

namespace fd {
namespace {

// Fills a dense tile with n elements of a broadcast input, from linear index t0
// of the (coalesced) domain on. After coalescing, an input's innermost stride is
// 1 (it varies there) or 0 (it is broadcast there).
void gather_tile(const Shape& dom, const Shape& strides, int64_t t0, int64_t n, const float* tensor,
                 float* tile) {
  const int r = static_cast<int>(dom.size());
  int64_t idx[kMaxRank];
  int64_t off = 0;  // of the segment's first element
  for (int d = r - 1; d >= 0; --d) {
    idx[d] = t0 % dom[d];
    t0 /= dom[d];
    off += idx[d] * strides[d];
  }
  const int64_t inner = dom[r - 1];
  const bool varies = strides[r - 1] != 0;
  while (n > 0) {
    const int64_t seg = std::min(n, inner - idx[r - 1]);
    const float* src = tensor + off;
    if (varies) std::copy(src, src + seg, tile);
    else std::fill(tile, tile + seg, *src);
    tile += seg;
    n -= seg;
    off -= idx[r - 1] * strides[r - 1];
    idx[r - 1] = 0;
    for (int d = r - 2; d >= 0; --d) {  // the next index: carry into outer dims
      off += strides[d];
      if (++idx[d] < dom[d]) break;
      off -= dom[d] * strides[d];
      idx[d] = 0;
    }
  }
}

// Run in parallel from this many elements, or this many multiply-adds (about
// 10 us of one core): below, waking the pool costs more than it saves.
constexpr int64_t kParallelMinElements = 1 << 14;
constexpr int64_t kParallelMinWork = 1 << 18;
// Tile sizes: runtime/tiling.h. Where weights stream from L3, the tile grows to
// a GEMM row block (kGemmRowBlock rows, shared evenly) so that they stream once
// per block, not once per tile; row programs keep L1 tiles otherwise.

}  // namespace

void BoundProgram::before_run(const float* const* inputs) const {
  std::vector<const float*> anchor_inputs;
  for (const Step& s : steps_) {
    if (s.anchor < 0 || s.tile_input) continue;
    anchor_inputs.clear();
    for (int slot : s.src) anchor_inputs.push_back(inputs[slot]);
    anchors_[s.anchor].before_run(anchor_inputs.data());
  }
}

void BoundProgram::run(const float* const* inputs, float* const* outputs, ThreadPool* pool) const {
  if (total_ == 0) return;
  if (q8_) {  // int8 tensors: the front end's buffers hold int8 values
    q8_->run(reinterpret_cast<const int8_t* const*>(inputs), reinterpret_cast<int8_t* const*>(outputs), pool);
    return;
  }
  before_run(inputs);
  const int workers = pool ? pool->size() : 1;
  if (workers <= 1 || (total_ < kParallelMinElements && total_ * depth_ < kParallelMinWork)) {
    run_range(0, total_, inputs, outputs, 0);
    return;
  }
  // Rows too few to share (a batch-1 FULLY_CONNECTED): the GEMM shares its
  // columns, and its epilogue runs on this thread.
  if (row_ > 0 && total_ / row_ <= mr_ && anchors_.size() == 1 && anchor_panels(anchors_[0]) >= 2 * workers) {
    run_range(0, total_, inputs, outputs, 0, pool);
    return;
  }
  // One chunk per worker, cut at whole tiles; with an anchor at whole blocks of
  // the GEMM's rows, or at single rows where blocks are too few to share evenly.
  int64_t grain = tile_;
  if (row_ > 0) grain = total_ / (row_ * mr_) >= 4 * workers ? row_ * mr_ : row_;
  const int64_t units = (total_ + grain - 1) / grain;
  const int chunks = static_cast<int>(std::min<int64_t>(workers, units));
  pool->parallel_for(chunks, [&](int c) {
    run_range(std::min(total_, units * c / chunks * grain), std::min(total_, units * (c + 1) / chunks * grain),
              inputs, outputs, 0);
  });
}

namespace {

// Elements [first, first + n) of a dense tensor into rows of len elements,
// stride apart, at out.
void store_strided(const float* tile, int64_t first, int64_t n, int64_t len, int64_t stride, float* out) {
  while (n > 0) {
    const int64_t row = first / len, col = first % len;
    const int64_t seg = std::min(n, len - col);
    std::memcpy(out + row * stride + col, tile, seg * sizeof(float));
    tile += seg;
    first += seg;
    n -= seg;
  }
}

}  // namespace

void BoundProgram::run_range(int64_t first, int64_t last, const float* const* in, float* const* out,
                             int64_t origin, ThreadPool* column_pool) const {
  if (first >= last) return;
  const size_t ni = in_.size(), no = outputs_;
  const size_t stride = (tile_ + 15) / 16 * 16;  // keep each buffer 64-byte aligned
  const int scratch_buffers = buffers_ + strided_outputs_;
  thread_local ScratchVector<float> scratch_buffer;
  thread_local std::vector<float*> slot_buffer;
  ScratchVector<float>& scratch = scratch_buffer;  // one thread-local lookup, not one per use
  std::vector<float*>& slots = slot_buffer;
  if (scratch.size() < scratch_buffers * stride + 16) scratch.resize(scratch_buffers * stride + 16);
  float* base = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t{63});
  slots.assign(ni + no + buffers_, nullptr);
  for (int k = 0; k < buffers_; ++k) slots[ni + no + k] = base + k * stride;
  auto buffer = [&](int k) { return slots[ni + no + k]; };
  for (size_t o = 0, j = 0; o < no; ++o)  // a strided output is computed in a buffer of its own
    if (output_strided_[o].len > 0) slots[ni + o] = base + (buffers_ + j++) * stride;

  // An invariant input repeats with the inner dimension, which divides the
  // tile: gathered once if the range starts at a multiple of it, else per tile.
  const bool once = first % domain_.back() == 0;
  for (size_t i = 0; i < ni; ++i)
    if (in_[i].mode == Mode::kInvariant && once)
      gather_tile(domain_, in_[i].strides, first, std::min<int64_t>(tile_, last - first), in[i], buffer(in_[i].buffer));
  for (int64_t t0 = first; t0 < last; t0 += tile_) {
    const int64_t n = std::min<int64_t>(tile_, last - t0);
    for (size_t i = 0; i < ni; ++i) {
      switch (in_[i].mode) {
        case Mode::kDense: slots[i] = const_cast<float*>(in[i]) + t0; break;
        case Mode::kInvariant:
          slots[i] = buffer(in_[i].buffer);
          if (!once) gather_tile(domain_, in_[i].strides, t0, n, in[i], slots[i]);
          break;
        case Mode::kGathered:
          slots[i] = buffer(in_[i].buffer);
          gather_tile(domain_, in_[i].strides, t0, n, in[i], slots[i]);
          break;
        case Mode::kWhole: break;
      }
    }
    for (size_t o = 0; o < no; ++o)
      if (!output_strided_[o].len) slots[ni + o] = out[o] + output_index(o, t0 - origin);
    run_tile(t0, n, slots.data(), column_pool);
    for (size_t o = 0; o < no; ++o) {
      const Strided& st = output_strided_[o];
      if (st.len) store_strided(slots[ni + o], output_index(o, t0 - origin), output_index(o, n), st.len, st.stride, out[o]);
    }
  }
}

// The steps on one tile: elements [t0, t0 + n) of the domain.
void BoundProgram::run_tile(int64_t t0, int64_t n, float* const* slots, ThreadPool* column_pool) const {
  for (const Step& s : steps_) {
    if (s.rows_fn) {
      const size_t arity = s.src.size();
      s.rows_fn(slots[s.src[0]], slots[s.src[1]], arity > 2 ? slots[s.src[2]] : nullptr, slots[s.dst],
                static_cast<size_t>(n / row_len_), static_cast<size_t>(row_len_), s.param);
    } else if (s.tile_input) {  // a row op on the tile's rows
      run_row_op(anchors_[s.anchor], slots[s.src[0]], t0 / row_len_, n / row_len_, slots[s.dst]);
    } else if (s.anchor >= 0 && s.rows) {  // one value per row, from the whole input tensor
      run_anchor(anchors_[s.anchor], t0 / row_len_, n / row_len_, slots[s.dst]);
    } else if (s.anchor >= 0) {  // whole rows of the anchor's output, from the whole input tensor
      run_anchor_rows(anchors_[s.anchor], t0, n, slots[s.dst], column_pool);
    } else {
      run_elementwise(s, s.rows ? t0 / row_len_ : t0, s.rows ? n / row_len_ : n, slots);
    }
  }
}

// Values [first, first + n) of an elementwise step; those from its tail_from on by its tail_fn.
void BoundProgram::run_elementwise(const Step& s, int64_t first, int64_t n, float* const* slots) const {
  const size_t arity = s.src.size();
  auto operand = [&](size_t k, int64_t at) { return k < arity ? slots[s.src[k]] + at : nullptr; };
  const int64_t body = s.tail_fn ? std::clamp<int64_t>(s.tail_from - first, 0, n) : n;
  if (body > 0) s.fn(operand(0, 0), operand(1, 0), operand(2, 0), slots[s.dst], static_cast<size_t>(body), s.param);
  if (body < n)
    s.tail_fn(operand(0, body), operand(1, body), operand(2, body), slots[s.dst] + body, static_cast<size_t>(n - body),
              s.param);
}

// With column_pool, the GEMM's panels are shared over it.
void BoundProgram::run_anchor_rows(const BoundAnchor& a, int64_t t0, int64_t n, float* out,
                                   ThreadPool* column_pool) const {
  if (!column_pool) {
    run_anchor(a, t0 / a.n, n / a.n, out);
    return;
  }
  const int panels = anchor_panels(a), chunks = column_pool->size();
  column_pool->parallel_for(chunks, [&](int c) {
    run_anchor_panels(a, t0 / a.n, n / a.n, panels * c / chunks, panels * (c + 1) / chunks, out);
  });
}

}  // namespace fd
