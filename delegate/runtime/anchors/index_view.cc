// The index views (ops/index_view.h: SLICE, STRIDED_SLICE, GATHER, TILE, the
// parts of SPLIT, SPLIT_V and UNPACK, DEPTH_TO_SPACE, SPACE_TO_DEPTH): the op's rule gives, at each bind, one
// offset per index of each axis; a run walks the output's values in order,
// each the input's value at the sum of its axes' offsets, copying runs of the
// last axis whole where its offsets step by one.
#include <algorithm>
#include <cstring>

#include "ops/index_view.h"
#include "runtime/anchors/anchor_op.h"

namespace fd {
namespace {

struct Walk : BoundState {
  AxisOffsets map;
  bool inner_contiguous = true;  // the last axis's offsets step by one
};

bool bind(BoundAnchor& b, const std::vector<Shape>& inputs, std::string* error) {
  auto map = static_cast<const IndexView&>(*b.step.params).bind(inputs[0], error);
  if (!map) return false;
  if (map->walked.empty() || static_cast<int>(map->walked.size()) > kMaxRank) {
    *error = "an index view of rank 0 or above " + std::to_string(kMaxRank);
    return false;
  }
  if (!bind_row_output(b, map->output, inputs, error)) return false;
  auto walk = std::make_shared<Walk>();
  const std::vector<int64_t>& inner = map->offsets.back();
  for (size_t j = 1; j < inner.size(); ++j)
    walk->inner_contiguous = walk->inner_contiguous && inner[j] == inner[j - 1] + 1;
  walk->map = std::move(*map);
  b.state = std::move(walk);
  return true;
}

// Copies runs of the input to consecutive output: a run that starts where the
// last ended extends it, so short runs that lie end to end (DEPTH_TO_SPACE's
// channels of a block row, a slice's whole rows) copy as one.
class RunCopier {
 public:
  explicit RunCopier(float* out) : out_(out) {}
  ~RunCopier() { flush(); }
  void add(const float* src, int64_t n) {
    if (src != run_ + len_) {
      flush();
      run_ = src;
    }
    len_ += n;
  }

 private:
  void flush() {
    if (len_ <= 8)
      for (int64_t k = 0; k < len_; ++k) out_[k] = run_[k];
    else
      std::memcpy(out_, run_, len_ * sizeof(float));
    out_ += len_;
    len_ = 0;
  }
  float* out_;
  const float* run_ = nullptr;
  int64_t len_ = 0;
};

// Output rows [first, first + count): values [first * n, (first + count) * n).
void run(const BoundAnchor& a, int64_t first, int64_t count, float* out) {
  if (count * a.n == 0) return;
  const Walk& w = static_cast<const Walk&>(*a.state);
  const Shape& walked = w.map.walked;
  const int r = static_cast<int>(walked.size());
  int64_t total = count * a.n, idx[kMaxRank] = {};
  for (int64_t rest = first * a.n, d = r - 1; d >= 0; --d) {  // the first value's indices
    idx[d] = rest % walked[d];
    rest /= walked[d];
  }
  const std::vector<int64_t>& inner = w.map.offsets[r - 1];
  RunCopier copy(out);  // the contiguous runs; single values go straight to out
  while (total > 0) {
    int64_t base = 0;
    for (int d = 0; d + 1 < r; ++d) base += w.map.offsets[d][idx[d]];
    const int64_t j = idx[r - 1], run = std::min(walked[r - 1] - j, total);
    if (w.inner_contiguous) copy.add(a.src + base + inner[j], run);
    else
      for (int64_t k = 0; k < run; ++k) *out++ = a.src[base + inner[j + k]];
    total -= run;
    idx[r - 1] = 0;
    for (int d = r - 2; d >= 0 && ++idx[d] == walked[d]; --d) idx[d] = 0;
  }
}

std::string describe(const AnchorStep& s) { return describe_folds(s) + s.params->describe() + ", copy"; }

}  // namespace

extern const AnchorOpDef kIndexViewAnchor = {
    "IndexView", /*clamps=*/false, /*make=*/nullptr, bind, read_whole_input, run, /*run_tile=*/nullptr,
    /*depth=*/nullptr, describe, /*run_panels=*/nullptr, /*panels=*/nullptr,
};

}  // namespace fd
