#include "runtime/q8_conv.h"

#include <cstring>

#include "runtime/q8_quant.h"

namespace fd {

Q8Conv::Q8Conv(const Graph& g, const Node& node, int input, const Q8GemmKernel& kernel)
    : Q8WindowLayer(g, node, input, static_cast<int>(g.tensors[node.inputs[1]].shape[0]), "CONV_2D"),
      kernel_(&kernel) {
  const Tensor& in = g.tensors[node.inputs[0]];
  const Shape& w = g.tensors[node.inputs[1]].shape;
  block_rows_ = kernel.mr;
  k_ = static_cast<int>(w[1] * w[2] * w[3]);
  input_zero_point_ = static_cast<int8_t>(q8_quant_of(in).zero_point);
  indirect_ = kernel.ifn[static_cast<int>(rounding_)] && geo_.channels % kQ8Group == 0;
  Q8PackedLayer l = q8_pack_layer(g, node, channels_, k_, /*float_product=*/false, kernel);
  packed_ = std::make_shared<const std::vector<int32_t>>(std::move(l.packed));
  output_ = l.output;
}

// n bytes from src to dst: 16-byte pieces (a run of taps is short: a call of
// memcpy per run cost more than the copy), then the rest.
inline void copy_run(int8_t* dst, const int8_t* src, size_t n) {
  for (; n >= 16; n -= 16, dst += 16, src += 16) std::memcpy(dst, src, 16);
  std::memcpy(dst, src, n);
}

// Each pixel's taps, runs of taps side by side in the input copied at once.
void Q8Conv::gather(const int8_t* input, int64_t first, int64_t rows, int8_t* a) const {
  const int taps = geo_.taps();
  const int32_t c = static_cast<int32_t>(geo_.channels);
  const int32_t* o = offsets_.data() + first * taps;
  for (int64_t p = 0; p < rows; ++p, o += taps)
    for (int t = 0; t < taps;) {
      if (o[t] < 0) {
        std::memset(a, input_zero_point_, c);
        a += c, ++t;
        continue;
      }
      int end = t + 1;
      while (end < taps && o[end] == o[end - 1] + c) ++end;
      copy_run(a, input + o[t], static_cast<size_t>(end - t) * c);
      a += static_cast<size_t>(end - t) * c, t = end;
    }
}

void Q8Conv::run(const int8_t* input, int64_t first, int64_t rows, int8_t* out) const {
  const int n = channels_, m = static_cast<int>(rows);
  if (offsets_.empty()) {  // dense 1x1: pixel p's row is input pixel p
    q8_gemm(*kernel_, rounding_, m, n, k_, input + first * k_, k_, packed_->data(), out, n, output_);
    return;
  }
  if (indirect_) {
    q8_igemm(*kernel_, rounding_, m, n, geo_.taps(), static_cast<int>(geo_.channels),
             tap_pointers(input, first, rows), packed_->data(), out, n, output_);
    return;
  }
  thread_local std::vector<int8_t> im2col;
  if (im2col.size() < static_cast<size_t>(rows) * k_) im2col.resize(static_cast<size_t>(rows) * k_);
  gather(input, first, rows, im2col.data());
  q8_gemm(*kernel_, rounding_, m, n, k_, im2col.data(), k_, packed_->data(), out, n, output_);
}

}  // namespace fd
