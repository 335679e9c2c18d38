// An int8 CONV_2D as the first step of an int8 group (runtime/q8_layer.h), as
// TFLite's optimized int8 kernel computes it (optimized_integer_ops::ConvPerChannel):
// each output pixel's window of input values (im2col; a padding tap reads the
// input's zero point, so it adds nothing) is a row of the int8 GEMM
// (kernels/q8_gemm.h) over the filter [oc, kh, kw, ic] as [oc, kh * kw * ic];
// a dense 1x1 reads its input rows in place; where the kernel has an indirect
// form, it reads each tap's pixel in place instead of the im2col copy.
#pragma once

#include <memory>
#include <vector>

#include "kernels/q8_gemm.h"
#include "runtime/q8_window_layer.h"

namespace fd {

class Q8Conv : public Q8WindowLayer {
 public:
  // The layer `node` (ops/quantized.h's q8_anchor_rule holds) reading program input `input`,
  // through `pad` where a PAD folds into it (else null).
  Q8Conv(const Graph& g, const Node& node, const Node* pad, int input, const Q8GemmKernel& kernel);
  const char* name() const override { return "Conv2D"; }
  void run_from(const int8_t* input, int64_t first, int64_t rows, int8_t* out) const override;

 private:
  std::shared_ptr<Q8WindowLayer> copy() const override { return std::make_shared<Q8Conv>(*this); }
  // Rows [first, first + rows) of the im2col matrix into `a` (rows * k_ values).
  void gather(const int8_t* input, int64_t first, int64_t rows, int8_t* a) const;
  void geometry_changed() override;  // near_end_
  void run_near_end(const int8_t* input, int64_t first, int64_t rows, int8_t* out) const;

  const Q8GemmKernel* kernel_;
  Q8Rounding rounding_ = Q8Rounding::kRuyX86;  // what TFLite's x86 kernels (ruy) round as
  int k_ = 0;
  // Bytes the kernel reads at each tap's pixel in place (0: an im2col copy
  // instead): the channels rounded up to 4, the next pixel's bytes past them
  // read against zero weights.
  int piece_ = 0;
  int64_t near_end_ = 0;  // the first output pixel whose pieces would read past the input's end
  Q8GemmOutput output_;
  std::shared_ptr<const std::vector<int32_t>> packed_;  // q8_pack_weights' bytes, shared by resized copies
};

}  // namespace fd
