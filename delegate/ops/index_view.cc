#include "ops/index_view.h"

#include "ops/op_registry.h"
#include "ops/rule_helpers.h"

namespace fd {

Shape row_major_strides(const Shape& s) {
  Shape strides(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) strides[d - 1] = strides[d] * s[d];
  return strides;
}

std::vector<int64_t> stepped_offsets(int64_t first, int64_t step, int64_t count, int64_t stride) {
  std::vector<int64_t> v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) v[i] = (first + i * step) * stride;
  return v;
}

std::string join(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

namespace {

// The view's rule (IndexView::bind) fits the input and gives the output.
std::string rule(const Graph& g, const Node& node) {
  if (std::string why = row_input_legality(g, node); !why.empty()) return why;
  const auto* view = dynamic_cast<const IndexView*>(node.params.get());
  if (!view) return node.name + " without its parameters";
  const Shape& in = g.tensors[node.inputs[0]].shape;
  std::string error;
  const auto map = view->bind(in, &error);
  if (!map) return error;
  if (static_cast<int>(map->walked.size()) > kMaxRank) return "rank above " + std::to_string(kMaxRank);
  if (std::string why = view->left_because(in); !why.empty()) return why;
  return output_legality(g, node, map->output);
}

}  // namespace

extern const AnchorInfo kIndexViewInfo = {
    "INDEX_VIEW", Pattern::kView, kFamilyConv | kFamilyTransformer, 1, 1, kRowOp, rule, nullptr,
    /*read_params=*/nullptr,  // the TF front end makes no index view: its parameters do not travel
};

}  // namespace fd
