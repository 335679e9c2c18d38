// How TensorFlow ops map onto our op list: the TF front end's half of the op
// table (tflite_ops.h is the TFLite one). Op semantics live in the runtime;
// this only names them and reads the attributes.
#pragma once

#include <string>
#include <vector>

#include <map>
#include <set>

#include "frontends/tf/weight_layouts.h"
#include "ir/graph.h"

namespace tensorflow {
class NodeDef;
}

namespace fd {

// The IR nodes computing TF node `def` into *nodes (one, or a chain: a fused
// activation the IR has no slot for, FusedBatchNormV3's MUL then ADD), given
// the IR tensors of its data inputs and outputs. Constant tensors the
// translation derives (filters in the IR's layouts, folded batch-norm vectors)
// and intermediates are appended to g->tensors. Returns "" or why the node
// stays opaque (then *nodes is left empty).
//
// Weights that are not Const values but one of `stable` (tensors read from a
// variable or argument, of static shape) become placeholders the kernel fills
// at run time: recorded in *run_time.
struct TfWeights {
  const std::set<int>* stable = nullptr;
  std::map<int, RunTimeWeight>* run_time = nullptr;
};
// A constant of IR shape `shape` that the kernel fills from run-time tensor
// `source` in `layout` (recorded in *w.run_time); its values count as known
// only at run time.
int run_time_placeholder(Graph* g, int source, WeightLayout layout, const Shape& shape, const TfWeights& w);

std::string translate_tf_node(const tensorflow::NodeDef& def, const std::vector<int>& inputs,
                              const std::vector<int>& outputs, const TfWeights& weights, Graph* g,
                              std::vector<Node>* nodes);

}  // namespace fd
