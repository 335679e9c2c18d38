// Which nodes round as TFLite's builtin kernels: those whose output a
// dynamic-range layer quantizes. That layer rounds each input to one of 255
// steps, so a float one ulp away from the builtin's can land a whole step away.
#include "ops/dynamic_range.h"
#include "plan/passes.h"

namespace fd {

std::vector<bool> find_builtin_rounding(const Graph& g, const GraphIndex& index) {
  const int n = static_cast<int>(g.nodes.size());
  std::vector<bool> feeds(n, false);  // a dynamic-range layer reads what it computes
  for (int i = n - 1; i >= 0; --i) {  // readers come after their producers
    const Node& node = g.nodes[i];
    const bool quantizes = is_dynamic_range_fc(g, node) || is_dynamic_range_conv(g, node);
    if (!quantizes && !feeds[i]) continue;
    const size_t read = quantizes ? 1 : node.inputs.size();  // a dynamic-range layer quantizes its input 0
    for (size_t k = 0; k < read && k < node.inputs.size(); ++k) {
      const int t = node.inputs[k];
      if (t >= 0 && index.producer[t] >= 0) feeds[index.producer[t]] = true;
    }
    if (quantizes) feeds[i] = false;  // it computes as TFLite's hybrid kernel already (its readers are done)
  }
  return feeds;
}

}  // namespace fd
