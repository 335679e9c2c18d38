// CONCATENATION and PACK: their parameters (Node::params) and the one rule
// that the planner, the step and the executor's in-place writes all read.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/op_params.h"
#include "ir/shape.h"

namespace fd {

struct ConcatenationParams : OpParams {
  int axis = 0;       // the axis joined along (negative: from the end of the output)
  bool pack = false;  // PACK: each part first gains an axis of 1 there
  std::string describe() const override;  // "axis -1, each part a new axis"
  bool write(WireWriter& w) const override;
};

std::shared_ptr<const ConcatenationParams> concatenation_params(int axis, bool pack);

// A part of a concatenation seen as rows: `rows` rows of `len` values, each
// row `stride` values apart in the output, the first at `offset`.
struct ConcatSlice {
  int64_t rows = 0, len = 0, stride = 0, offset = 0;
};

struct ConcatLayout {
  Shape output;
  std::vector<ConcatSlice> slices;  // per part
};

// For the parts' shapes of a run: the output, and where each part's rows go;
// nothing if they do not fit (ranks differ, or an axis but the joined one).
std::optional<ConcatLayout> concatenation_layout(std::vector<Shape> parts, const ConcatenationParams& p);

}  // namespace fd
