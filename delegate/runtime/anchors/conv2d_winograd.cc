// CONV_2D in Winograd form: the output pixels asked for, as 2x2 tiles, each
// tile's 4x4 input pixels found through the convolution's indirection rows (so
// padding, folded PADs and input maps read as they do in the direct form), run
// by runtime/winograd.cc. A filter dilated by d is a 3x3 filter on a lattice
// of step d: a tile's outputs lie d apart ((y, x), (y + d, x), ...), so a run
// takes whole blocks of 2 d output rows.
#include <vector>

#include "runtime/anchors/anchor_op.h"

namespace fd {
namespace {

struct Tiles {
  std::vector<const float*> patches;  // 16 per tile
  std::vector<float*> outs;           // 4 per tile, null where not asked for
};

// The tile whose top-left output pixel is (y, x) of image b. Input pixel (i, j)
// of its 4x4 block is tap (min(i, 2), min(j, 2)) of output pixel (y + dh (i ==
// 3), x + dw (j == 3)); pixels past the output's edge give the zero row (what
// they read only reaches outputs that are not written).
void add_tile(const BoundAnchor& a, int64_t b, int64_t y, int64_t x, int64_t first, int64_t end, float* out,
              Tiles* t) {
  const int64_t h = a.geo.out_h, w = a.geo.out_w, pix = (b * h + y) * w + x;
  const int dh = a.geo.p.dilation_h, dw = a.geo.p.dilation_w;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const int dy = i == 3, dx = j == 3;
      const bool inside = y + dy * dh < h && x + dx * dw < w;
      const int tap = (i - dy) * 3 + (j - dx);
      t->patches.push_back(inside ? a.rows[(pix + dy * dh * w + dx * dw) * 9 + tap] : a.zero_row.data());
    }
  for (int dy = 0; dy < 2; ++dy)
    for (int dx = 0; dx < 2; ++dx) {
      const int64_t p = pix + dy * dh * w + dx * dw;
      const bool wanted = y + dy * dh < h && x + dx * dw < w && p >= first && p < end;
      t->outs.push_back(wanted ? out + (p - first) * a.n : nullptr);
    }
}

// The first of the pair of rows (or columns) d apart that 2x2 tiles put v in.
int64_t tile_start(int64_t v, int d) { return v % (2 * d) < d ? v : v - d; }

}  // namespace

void run_winograd_panels(const BoundAnchor& a, const WinogradKernel& kernel, const WinogradWeights& weights,
                         int64_t first, int64_t count, int first_panel, int last_panel, float* out) {
  if (count <= 0) return;
  const int64_t h = a.geo.out_h, w = a.geo.out_w, end = first + count;
  const int dh = a.geo.p.dilation_h, dw = a.geo.p.dilation_w;
  thread_local Tiles t;
  t.patches.clear();
  t.outs.clear();
  for (int64_t r = first / w; r <= (end - 1) / w; ++r) {  // output rows, all images in turn
    const int64_t b = r / h, y = r % h, top = tile_start(y, dh);
    if (top != y && r - dh >= first / w) continue;  // done with row y - dh
    for (int64_t x = 0; x < w; ++x)
      if (tile_start(x, dw) == x) add_tile(a, b, top, x, first, end, out, &t);
  }
  const AnchorStep& s = a.step;
  winograd_tiles(kernel, *s.gemm, weights, static_cast<int>(t.outs.size() / 4), t.patches.data(), t.outs.data(),
                 s.lo, s.hi, first_panel, last_panel);
}

}  // namespace fd
