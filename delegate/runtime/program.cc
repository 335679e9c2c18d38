// Building a group's program: its instructions, with what the plan folds into
// each anchor and the rewrites it records (SWISH, FMA); and its text form.
#include "runtime/program.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "ir/shape.h"
#include "ops/op_classes.h"
#include "ops/pad.h"
#include "ops/quantized.h"

namespace fd {
namespace {

EwKernelOp activation_op(Activation a) {
  switch (a) {
    case Activation::kRelu: return EwKernelOp::Relu;
    case Activation::kReluN1To1: return EwKernelOp::ReluN1To1;
    case Activation::kRelu6: return EwKernelOp::Relu6;
    default: return EwKernelOp::kCount;  // the planner declines any other activation
  }
}


// The planner's folds of one group, by the anchor they fold into.
struct GroupFolds {
  std::map<int, const Fold*> affine;                   // CONV_2D -> its input map
  std::map<int, std::array<const Node*, 2>> transpose;  // BATCH_MATMUL -> per operand
  std::map<int, std::vector<int>> scaled;              // anchor -> {the MUL's tensor, its per-channel scale}
  std::map<int, const Node*> pad;                      // anchor -> the PAD before it
  std::map<int, const Fold*> output;                   // anchor -> its output map
  std::map<int, const Fold*> rewrite;                  // elementwise node -> kSwish or kMultiplyAdd into it
  std::map<int, EwOp> power;                           // POW node -> the op it runs as (kSquare, kSqrt)
  std::set<int> outputs;  // of folded nodes: they run only if their output must be stored
  std::set<int> mapped;   // of output maps' nodes: the anchor computes the last, the rest never exist

  GroupFolds(const Graph& g, const std::vector<Fold>& folds, const std::vector<bool>& written) {
    for (const Fold& f : folds) {
      if (is_power(f)) {  // folds no node
        power[f.anchor] = f.kind == FoldKind::kSquare ? EwOp::Square : EwOp::Sqrt;
        continue;
      }
      const Node& first = g.nodes[f.nodes[0]];
      if (f.kind == FoldKind::kOutputAffine) {
        add_output_map(g, f, written);
        continue;
      }
      if (is_rewrite(f)) continue;  // below, once the maps are known
      switch (f.kind) {
        case FoldKind::kPad: pad[f.anchor] = &first; break;
        case FoldKind::kTranspose: transpose[f.anchor][f.operand] = &first; break;
        case FoldKind::kChannelScale:
          scaled[f.anchor] = {first.inputs[1 - f.operand], first.inputs[f.operand]};
          break;
        case FoldKind::kInputAffine: affine[f.anchor] = &f; break;
        case FoldKind::kConstant: break;  // the anchor packs the values of its input
        case FoldKind::kOutputAffine: break;
        case FoldKind::kSwish:
        case FoldKind::kMultiplyAdd: break;  // is_rewrite: below
        case FoldKind::kSquare:
        case FoldKind::kSqrt: break;  // above
      }
      // An input map runs whole if one of its values must be stored.
      bool stored = false;
      for (int m : f.nodes) stored = stored || written[g.nodes[m].outputs[0]];
      if (f.kind != FoldKind::kInputAffine || !stored)
        for (int m : f.nodes) outputs.insert(g.nodes[m].outputs[0]);
    }
    for (FoldKind kind : {FoldKind::kSwish, FoldKind::kMultiplyAdd})  // a MUL run as SWISH is no product
      for (const Fold& f : folds)
        if (f.kind == kind) add_rewrite(g, f, written);
  }

  static bool is_rewrite(const Fold& f) { return f.kind == FoldKind::kSwish || f.kind == FoldKind::kMultiplyAdd; }

  // A rewrite is made unless its folded value must be stored, an output map
  // computes either node (its anchor then makes the value the rewrite would read
  // through), or its MUL runs as a SWISH already: then both nodes run as they are.
  // Of an ADD's candidates (one per input that is a MUL), the first it can make.
  void add_rewrite(const Graph& g, const Fold& f, const std::vector<bool>& written) {
    const int folded = f.nodes[0];
    if (written[g.nodes[folded].outputs[0]] || mapped.count(folded) || mapped.count(f.anchor)) return;
    if (f.kind == FoldKind::kMultiplyAdd && (rewrite.count(folded) || rewrite.count(f.anchor))) return;  // one per node
    rewrite[f.anchor] = &f;
    outputs.insert(g.nodes[folded].outputs[0]);
  }

  // An output map folds unless a value before its last must be stored: then its nodes run.
  void add_output_map(const Graph& g, const Fold& f, const std::vector<bool>& written) {
    if (written[g.nodes[f.anchor].outputs[0]]) return;
    for (size_t i = 0; i + 1 < f.nodes.size(); ++i)
      if (written[g.nodes[f.nodes[i]].outputs[0]]) return;
    output[f.anchor] = &f;
    for (int m : f.nodes) mapped.insert(m);
  }
};

class ProgramBuilder {
 public:
  // `folds`: those within the group; the builder keeps them (GroupFolds points into them).
  ProgramBuilder(const Graph& g, std::vector<Fold> folds, const std::vector<bool>& written, const Kernels& kernels,
                 const std::set<int>& in_place, const std::vector<bool>& rounded)
      : g_(g), within_(std::move(folds)), folds_(g, within_, written), written_(written), kernels_(kernels),
        in_place_(in_place), rounded_(rounded) {}
  Program build(const std::vector<int>& group);

 private:
  std::vector<int> reads(int pos, EwOp op) const;
  bool runs(int pos) const {  // a folded node (a PAD too) runs only if its output must be stored
    const Node& node = g_.nodes[pos];
    if (node.kind == OpKind::kConstant) return false;  // the executor copies it out if it must be stored
    if (folds_.mapped.count(pos)) return false;         // its anchor computes it
    return !folds_.outputs.count(node.outputs[0]) || written_[node.outputs[0]];
  }
  EwOp op_of(int pos) const;
  EwKernelOp rewritten_op(const Fold& f) const;
  std::vector<int> rewritten_reads(const Fold& f) const;
  AnchorStep anchor_of(int pos) const;
  void emit(int pos, EwOp op);

  const Graph& g_;
  const std::vector<Fold> within_;
  const GroupFolds folds_;
  const std::vector<bool>& written_;
  const Kernels& kernels_;
  const std::set<int>& in_place_;
  const std::vector<bool>& rounded_;
  bool is_rounded(int pos) const { return pos < static_cast<int>(rounded_.size()) && rounded_[pos]; }
  Program p_;
  std::map<int, int> value_of_;  // tensor -> value
};

// The op of the same math that rounds as TFLite's builtin kernel, where ours rounds otherwise.
EwKernelOp as_builtin(EwKernelOp op) {
  if (op == EwKernelOp::Logistic) return EwKernelOp::LogisticAsBuiltin;
  return op == EwKernelOp::Gelu ? EwKernelOp::GeluAsBuiltin : op;
}

// The node's elementwise op, or the one the plan runs a POW as (kSquare, kSqrt).
EwOp ProgramBuilder::op_of(int pos) const {
  const Node& node = g_.nodes[pos];
  if (node.kind != OpKind::kElementwise) return EwOp::kCount;
  auto it = folds_.power.find(pos);
  return it == folds_.power.end() ? node.ew : it->second;
}

// A node the plan rewrites (kSwish, kMultiplyAdd) as one kernel op: the op.
EwKernelOp ProgramBuilder::rewritten_op(const Fold& f) const {
  if (f.kind == FoldKind::kSwish) return is_rounded(f.nodes[0]) ? EwKernelOp::SwishAsBuiltin : EwKernelOp::Swish;
  if (g_.nodes[f.anchor].ew == EwOp::Add) return EwKernelOp::Fma;
  return f.operand == 0 ? EwKernelOp::Fms : EwKernelOp::Fnma;  // MUL - c, c - MUL
}

// ... and what it reads: SWISH x; FMA the product's factors, then the other addend.
std::vector<int> ProgramBuilder::rewritten_reads(const Fold& f) const {
  const Node& node = g_.nodes[f.anchor];
  if (f.kind == FoldKind::kSwish) return {node.inputs[1 - f.operand]};
  const Node& mul = g_.nodes[f.nodes[0]];
  return {mul.inputs[0], mul.inputs[1], node.inputs[1 - f.operand]};
}

// The tensors a node takes as values; an anchor reads through what folds into it.
std::vector<int> ProgramBuilder::reads(int pos, EwOp op) const {
  const Node& node = g_.nodes[pos];
  if (auto it = folds_.affine.find(pos); it != folds_.affine.end()) return {it->second->source};
  if (auto it = folds_.rewrite.find(pos); it != folds_.rewrite.end()) return rewritten_reads(*it->second);
  if (node.kind == OpKind::kElementwise) return std::vector<int>(node.inputs.begin(), node.inputs.begin() + ew_arity(op));
  if (auto it = folds_.scaled.find(pos); it != folds_.scaled.end()) return it->second;
  if (auto it = folds_.pad.find(pos); it != folds_.pad.end()) return {it->second->inputs[0]};
  if (node.kind != OpKind::kAnchor || anchor_info(node.anchor).has(kConstantWeights)) return {node.inputs[0]};
  std::vector<int> in = node.inputs;  // every input a run-time value; a folded TRANSPOSE's read through it
  if (auto it = folds_.transpose.find(pos); it != folds_.transpose.end())
    for (int i = 0; i < 2; ++i)
      if (it->second[i]) in[i] = it->second[i]->inputs[0];
  return in;
}

AnchorStep ProgramBuilder::anchor_of(int pos) const {
  const Node& node = g_.nodes[pos];
  auto pad = folds_.pad.find(pos);
  const FoldedPad fp = node.kind == OpKind::kPad ? folded_pad(params_as<PadParams>(node.params))
                       : pad != folds_.pad.end() ? folded_pad(params_as<PadParams>(pad->second->params))
                                                 : FoldedPad{};
  AnchorFolds folds;
  folds.pad = fp;
  if (auto it = folds_.affine.find(pos); it != folds_.affine.end()) folds.input_affine = it->second;
  if (auto it = folds_.output.find(pos); it != folds_.output.end()) folds.output_affine = it->second;
  folds.scale_input = folds_.scaled.count(pos) > 0;
  folds.rounds_as_builtin = is_rounded(pos);
  if (auto it = folds_.transpose.find(pos); it != folds_.transpose.end())
    for (int i = 0; i < 2; ++i) folds.transposed[i] = it->second[i];
  for (int t : node.inputs) folds.in_place.push_back(in_place_.count(t) > 0);
  return make_anchor(g_, node, folds, kernels_);
}

// The node's instructions (an anchor, or an op and its fused activation).
void ProgramBuilder::emit(int pos, EwOp op) {
  const Node& node = g_.nodes[pos];
  const int ni = static_cast<int>(p_.inputs.size());
  Instr in{is_rounded(pos) ? as_builtin(kernel_op(op)) : kernel_op(op), node.param, {}};
  if (auto it = folds_.rewrite.find(pos); it != folds_.rewrite.end()) in.op = rewritten_op(*it->second);
  if (folds_.power.count(pos) && in.op == EwKernelOp::Sqrt) in.op = EwKernelOp::SqrtAsPow;  // pow's -0, -inf
  for (int t : reads(pos, op)) in.src.push_back(value_of_.at(t));
  if (node.kind != OpKind::kElementwise) {
    in.anchor = static_cast<int>(p_.anchors.size());
    p_.anchors.push_back(anchor_of(pos));
  }
  p_.code.push_back(in);
  if (node.kind == OpKind::kElementwise && node.act != Activation::kNone)
    p_.code.push_back(Instr{activation_op(node.act), 0.f, {ni + static_cast<int>(p_.code.size()) - 1}});
  auto map = folds_.output.find(pos);  // the anchor computes its output map's last value
  const int out = map == folds_.output.end() ? node.outputs[0] : g_.nodes[map->second->nodes.back()].outputs[0];
  value_of_[out] = ni + static_cast<int>(p_.code.size()) - 1;
  if (written_[out]) {
    p_.outputs.push_back(out);
    p_.output_values.push_back(value_of_[out]);
  }
}

Program ProgramBuilder::build(const std::vector<int>& group) {
  std::vector<bool> produced(g_.tensors.size(), false);
  for (int pos : group) {  // a folded PAD's reader reads its input instead; a constant node's, the graph's values
    const int out = g_.nodes[pos].outputs[0];
    const OpKind kind = g_.nodes[pos].kind;
    if ((kind != OpKind::kPad || !folds_.outputs.count(out)) && kind != OpKind::kConstant) produced[out] = true;
  }
  for (int pos : group) {  // the program's inputs: what running nodes read from outside
    if (!runs(pos)) continue;
    for (int t : reads(pos, op_of(pos))) {
      if (produced[t] || value_of_.count(t)) continue;
      value_of_[t] = static_cast<int>(p_.inputs.size());
      p_.inputs.push_back(t);
    }
  }
  for (int pos : group)
    if (runs(pos)) emit(pos, op_of(pos));
  return std::move(p_);
}

// An int8 group (every node int8, planner's grouping): tables of its inputs.
Program build_int8_program(const Graph& g, const std::vector<int>& group, const std::vector<bool>& written,
                           const Kernels& kernels) {
  Program p;
  std::set<int> produced;
  for (int pos : group) produced.insert(g.nodes[pos].outputs[0]);
  for (int pos : group) {
    for (int t : g.nodes[pos].inputs)
      if (!produced.count(t) && !g.tensors[t].is_constant &&
          std::find(p.inputs.begin(), p.inputs.end(), t) == p.inputs.end())
        p.inputs.push_back(t);
    if (written[g.nodes[pos].outputs[0]]) p.outputs.push_back(g.nodes[pos].outputs[0]);
  }
  p.q8 = std::make_shared<const Q8Program>(
      build_q8_program(g, group, p.inputs, p.outputs, *kernels.q8,
                       {kernels.q8_gemm, kernels.q8_depthwise, kernels.q8}));
  return p;
}

}  // namespace

EwKernelOp kernel_op(EwOp op) {
  switch (op) {
#define FD_LOWER(name, arity) \
  case EwOp::name: return EwKernelOp::name;
    FD_GRAPH_EW_OPS(FD_LOWER)
#undef FD_LOWER
    case EwOp::kCount: break;
  }
  return EwKernelOp::kCount;
}

Program build_program(const Graph& g, const std::vector<int>& group, const std::vector<Fold>& folds,
                      const std::vector<bool>& written, const Kernels& kernels, const std::set<int>& in_place,
                      const std::vector<bool>& rounded) {
  if (!group.empty() && is_int8_node(g, g.nodes[group[0]]))
    return build_int8_program(g, group, written, kernels);
  return ProgramBuilder(g, folds_within(folds, group), written, kernels, in_place, rounded).build(group);
}

std::string Program::to_string() const {
  const int ni = static_cast<int>(inputs.size());
  if (q8) return q8->to_string(ni);
  auto name = [&](int v) {
    return v < ni ? "in" + std::to_string(v) + "(t" + std::to_string(inputs[v]) + ")"
                  : "v" + std::to_string(v);
  };
  std::string s;
  for (size_t k = 0; k < code.size(); ++k) {
    const Instr& in = code[k];
    if (in.anchor >= 0) {
      s += "v" + std::to_string(ni + k) + " = " + anchors[in.anchor].to_string() + "(";
    } else {
      s += "v" + std::to_string(ni + k) + " = " + kernel_op_name(in.op) + "(";
    }
    for (int i = 0; i < in.arity(); ++i) s += (i ? ", " : "") + name(in.src[i]);
    s += ")\n";
  }
  for (size_t o = 0; o < outputs.size(); ++o)
    s += "t" + std::to_string(outputs[o]) + " <- " + name(output_values[o]) + "\n";
  return s;
}

}  // namespace fd
