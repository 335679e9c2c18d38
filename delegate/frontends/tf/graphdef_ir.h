// The TensorFlow front end's translation: a GraphDef (float32, NHWC) as our
// graph IR, the same IR the TFLite front end builds, so the same planner and
// runtime run it. Every node becomes an IR node (opaque where we do not fuse
// it, so the planner sees every reader) except Const nodes, whose values are
// constant tensors, and Identity nodes, whose output is their input's tensor.
// Weights are converted to the IR's TFLite layouts: conv filters HWIO -> OHWI,
// depthwise HWIM -> [1, H, W, I*M], MatMul [in, out] -> [out, in].
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "frontends/tf/weight_layouts.h"
#include "ir/graph.h"

namespace tensorflow {
class GraphDef;
}

namespace fd {

// What shape inference knows of one output of a node.
struct TfOutputInfo {
  DType dtype = DType::kOther;
  bool rank_known = false;
  Shape dims;     // -1 where unknown
  // The shape at batch 1, where inference at batch 1 and 2 knows it whole and
  // only dim 0 differs (shapes computed from the batch too); else empty.
  Shape planned;
};
// Per node name: its outputs in order.
using TfOutputInfos = std::map<std::string, std::vector<TfOutputInfo>>;

struct GraphDefIr {
  Graph graph;
  std::vector<int> node_index;           // per IR node: its index in the GraphDef, -1 for the preserve node
  std::map<std::string, int> tensor_of;  // "name:k" -> IR tensor (Identity outputs: their input's)
  std::vector<std::string> tensor_name;  // per IR tensor: "name:k" of the output that computes it ("" if new)
  std::map<int, std::string> declined;   // IR node position -> why the front end left it opaque
  std::map<int, RunTimeWeight> run_time_weights;  // placeholder tensor -> its run-time source
  std::set<std::string> aliases;         // Identity nodes whose output is their input's tensor
  std::map<int, std::vector<int>> absorbed;  // GraphDef index -> nodes its IR node computes too (tf_patterns.h)
  std::set<std::string> skipped;         // nodes only patterns read: not translated, dropped once unread
  std::string error;                     // set when the graph cannot be translated at all
};

// `preserve`: nodes whose outputs must exist after the rewrite (fetches): an
// opaque node reading them is added last, so no fold hides them. Unknown
// dimensions: an unknown batch is planned as 1 (TfOutputInfo::planned, else
// an unknown dim 0 of rank >= 2 made 1) and bound again at run time; any other
// unknown dimension or rank makes the tensor's shape dynamic (the planner
// leaves its readers). Weights read from a
// ReadVariableOp, _Arg or Placeholder of static float32 shape become
// run-time weights (tf_ops.h).
GraphDefIr graph_from_graphdef(const tensorflow::GraphDef& gd, const TfOutputInfos& infos,
                               const std::set<std::string>& preserve);

// Our DType for a tensorflow::DataType value.
DType dtype_from_tf(int tf_type);

}  // namespace fd
