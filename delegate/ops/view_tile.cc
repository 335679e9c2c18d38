// TILE: each axis repeated, index i of the output reading i mod the input's size.
#include "ir/shape.h"
#include "ops/index_view.h"

namespace fd {
namespace {

class Tile : public IndexView {
 public:
  explicit Tile(std::vector<int64_t> multiples) : multiples_(std::move(multiples)) {}
  std::string describe() const override { return "multiples " + join(multiples_); }

  std::optional<AxisOffsets> bind(const Shape& in, std::string* error) const override {
    if (in.size() != multiples_.size()) {
      *error = "TILE " + describe() + " does not fit its input " + to_string(in);
      return std::nullopt;
    }
    const Shape strides = row_major_strides(in);
    AxisOffsets m;
    for (size_t d = 0; d < in.size(); ++d) {
      m.output.push_back(in[d] * multiples_[d]);
      std::vector<int64_t> offsets(static_cast<size_t>(m.output.back()));
      for (size_t i = 0; i < offsets.size(); ++i) offsets[i] = static_cast<int64_t>(i) % in[d] * strides[d];
      m.offsets.push_back(std::move(offsets));
    }
    m.walked = m.output;
    return m;
  }

 private:
  std::vector<int64_t> multiples_;
};

}  // namespace

std::shared_ptr<const IndexView> tile_view(std::vector<int64_t> multiples) {
  return std::make_shared<Tile>(std::move(multiples));
}

}  // namespace fd
