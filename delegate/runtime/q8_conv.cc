#include "runtime/q8_conv.h"

#include <algorithm>
#include <cstring>

#include "ir/shape.h"
#include "runtime/q8_quant.h"

namespace fd {

namespace {

// A filter [n, taps, c] with each tap's c weights padded to `piece` with zeros.
std::vector<int8_t> padded_filter(const int8_t* w, int n, int taps, int c, int piece) {
  std::vector<int8_t> padded(static_cast<size_t>(n) * taps * piece, 0);
  for (int64_t t = 0; t < int64_t{n} * taps; ++t) std::copy(w + t * c, w + (t + 1) * c, padded.begin() + t * piece);
  return padded;
}

// n bytes from src to dst: 16-byte pieces (a run of taps is short: a call of
// memcpy per run cost more than the copy), then the rest.
void copy_run(int8_t* dst, const int8_t* src, size_t n) {
  for (; n >= 16; n -= 16, dst += 16, src += 16) std::memcpy(dst, src, 16);
  std::memcpy(dst, src, n);
}

}  // namespace

Q8Conv::Q8Conv(const Graph& g, const Node& node, const Node* pad, int input, const Q8GemmKernel& kernel)
    : Q8WindowLayer(g, node, pad, input, static_cast<int>(g.tensors[node.inputs[1]].shape[0]), "CONV_2D"),
      kernel_(&q8_gemm_kernel_for_columns(kernel, channels_)) {
  const Tensor& in = g.tensors[node.inputs[0]];
  const int c = static_cast<int>(geo_.channels), taps = geo_.taps();
  const int piece = (c + kQ8Group - 1) / kQ8Group * kQ8Group;
  if (!geo_.dense() && kernel_->ifn[static_cast<int>(rounding_)] && 3 * piece <= 4 * c)
    piece_ = piece;  // a third more MACs at most (a dense 1x1 reads its rows as they are: no pieces)
  block_rows_ = kernel_->mr;
  k_ = taps * (piece_ ? piece_ : c);
  zero_row_.resize(k_ / taps, static_cast<int8_t>(q8_quant_of(in).zero_point));
  const auto* w = static_cast<const int8_t*>(g.tensors[node.inputs[1]].data.bytes());
  const std::vector<int8_t> padded = piece_ > c ? padded_filter(w, channels_, taps, c, piece_) : std::vector<int8_t>{};
  Q8PackedLayer l = q8_pack_layer(g, node, channels_, k_, /*float_product=*/false, *kernel_,
                                  padded.empty() ? nullptr : padded.data());
  packed_ = std::make_shared<const std::vector<int32_t>>(std::move(l.packed));
  output_ = l.output;
  geometry_changed();
}

// Each pixel's taps, runs of taps side by side in the input copied at once.
void Q8Conv::gather(const int8_t* input, int64_t first, int64_t rows, int8_t* a) const {
  const int taps = geo_.taps();
  const int32_t c = static_cast<int32_t>(geo_.channels);
  const int32_t* o = offsets_.data() + first * taps;
  for (int64_t p = 0; p < rows; ++p, o += taps)
    for (int t = 0; t < taps;) {
      if (o[t] < 0) {
        std::memset(a, zero_row_[0], c);
        a += c, ++t;
        continue;
      }
      int end = t + 1;
      while (end < taps && o[end] == o[end - 1] + c) ++end;
      copy_run(a, input + o[t], static_cast<size_t>(end - t) * c);
      a += static_cast<size_t>(end - t) * c, t = end;
    }
}

void Q8Conv::geometry_changed() {
  const int64_t size = num_elements(input_shape_), taps = geo_.taps(), pixels = geo_.pixels();
  near_end_ = pixels;
  if (piece_ <= geo_.channels) return;  // every piece within its pixel
  for (int64_t i = 0; i < pixels * taps && near_end_ == pixels; ++i)
    if (offsets_[i] >= 0 && int64_t{offsets_[i]} + piece_ > size) near_end_ = i / taps;
}

// Rows whose pieces would read past the input's end: from a copy of the input
// from the least offset they read on, padded with zeros.
void Q8Conv::run_near_end(const int8_t* input, int64_t first, int64_t rows, int8_t* out) const {
  const int64_t size = num_elements(input_shape_), count = rows * geo_.taps();
  const int32_t* o = offsets_.data() + first * geo_.taps();
  int32_t least = static_cast<int32_t>(size);
  for (int64_t i = 0; i < count; ++i)
    if (o[i] >= 0) least = std::min(least, o[i]);
  thread_local std::vector<int8_t> tail;
  thread_local std::vector<int32_t> shifted;
  tail.assign(static_cast<size_t>(size - least + piece_), 0);
  std::copy(input + least, input + size, tail.begin());
  shifted.resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) shifted[i] = o[i] >= 0 ? o[i] - least : -1;
  q8_igemm(*kernel_, rounding_, static_cast<int>(rows), channels_, geo_.taps(), piece_,
           {tail.data(), shifted.data(), zero_row_.data()}, packed_->data(), out, channels_, output_);
}

void Q8Conv::run_from(const int8_t* input, int64_t first, int64_t rows, int8_t* out) const {
  const int n = channels_, m = static_cast<int>(rows);
  if (offsets_.empty()) {  // dense 1x1: pixel p's row is input pixel p
    q8_gemm(*kernel_, rounding_, m, n, k_, input + first * k_, k_, packed_->data(), out, n, output_);
    return;
  }
  if (piece_) {
    const int64_t inside = std::clamp<int64_t>(near_end_ - first, 0, rows);
    if (inside > 0)
      q8_igemm(*kernel_, rounding_, static_cast<int>(inside), n, geo_.taps(), piece_,
               {input, offsets_.data() + first * geo_.taps(), zero_row_.data()}, packed_->data(), out, n, output_);
    if (inside < rows) run_near_end(input, first + inside, rows - inside, out + inside * n);
    return;
  }
  thread_local std::vector<int8_t> im2col;
  if (im2col.size() < static_cast<size_t>(rows) * k_) im2col.resize(static_cast<size_t>(rows) * k_);
  gather(input, first, rows, im2col.data());
  q8_gemm(*kernel_, rounding_, m, n, k_, im2col.data(), k_, packed_->data(), out, n, output_);
}

}  // namespace fd
