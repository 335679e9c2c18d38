// Per-graph indexes the planner's passes share, built once per graph.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"

namespace fd {

// A fixed-size set of node positions.
class NodeSet {
 public:
  explicit NodeSet(size_t n) : words_((n + 63) / 64, 0) {}
  void add(int i) { words_[i / 64] |= uint64_t{1} << (i % 64); }
  bool has(int i) const { return words_[i / 64] >> (i % 64) & 1; }
  void add_all(const NodeSet& o) {
    for (size_t w = 0; w < words_.size(); ++w) words_[w] |= o.words_[w];
  }
  bool intersects(const NodeSet& o) const {
    for (size_t w = 0; w < words_.size(); ++w)
      if (words_[w] & o.words_[w]) return true;
    return false;
  }

 private:
  std::vector<uint64_t> words_;
};

struct GraphIndex {
  explicit GraphIndex(const Graph& g);
  std::vector<int> producer;       // per tensor: the node that writes it, or -1
  std::vector<int> readers;        // per tensor: how many node inputs read it
  std::vector<int> last_reader;    // per tensor: the last node reading it, or -1
  std::vector<NodeSet> ancestors;  // per node: every node it depends on
};

}  // namespace fd
