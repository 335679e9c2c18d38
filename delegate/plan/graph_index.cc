#include "plan/graph_index.h"

namespace fd {

GraphIndex::GraphIndex(const Graph& g)
    : producer(g.tensors.size(), -1), readers(g.tensors.size(), 0), last_reader(g.tensors.size(), -1) {
  const int n = static_cast<int>(g.nodes.size());
  ancestors.assign(n, NodeSet(n));
  for (int i = 0; i < n; ++i) {
    for (int t : g.nodes[i].inputs) {
      ++readers[t];
      last_reader[t] = i;
      if (int p = producer[t]; p >= 0) {
        ancestors[i].add(p);
        ancestors[i].add_all(ancestors[p]);
      }
    }
    for (int t : g.nodes[i].outputs) producer[t] = i;
  }
}

}  // namespace fd
