// Program rewrites: swish and multiply-add become one kernel op each.
#include "runtime/program_rewrite.h"

#include <algorithm>

namespace fd {
namespace {

// How many instructions read each value, plus two for a value written out, so
// that one is never folded into its reader.
std::vector<int> value_uses(const Program& p) {
  std::vector<int> uses(p.value_count(), 0);
  for (const Instr& in : p.code)
    for (int i = 0; i < in.arity(); ++i) ++uses[in.src[i]];
  for (int v : p.output_values) uses[v] += 2;
  return uses;
}

// The instruction making value v if it is the elementwise `op` and v has exactly one reader.
const Instr* single_use_producer(const Program& p, const std::vector<int>& uses, int v, EwKernelOp op) {
  const int ni = static_cast<int>(p.inputs.size());
  if (v < ni || uses[v] != 1) return nullptr;
  const Instr& in = p.code[v - ni];
  return in.anchor < 0 && in.op == op ? &in : nullptr;
}

// Drops the instructions whose values were folded into their reader, and renumbers.
void drop_folded(Program& p, const std::vector<bool>& folded) {
  const int ni = static_cast<int>(p.inputs.size());
  std::vector<int> remap(p.value_count(), -1);
  for (int i = 0; i < ni; ++i) remap[i] = i;
  std::vector<Instr> code;
  for (size_t k = 0; k < p.code.size(); ++k) {
    const int v = ni + static_cast<int>(k);
    if (folded[v]) continue;
    remap[v] = ni + static_cast<int>(code.size());
    code.push_back(p.code[k]);
  }
  for (Instr& in : code)
    for (int& s : in.src)
      if (s >= 0) s = remap[s];
  for (int& v : p.output_values) v = remap[v];
  p.code = std::move(code);
}

}  // namespace

// x * LOGISTIC(x), the logistic read nowhere else, becomes one SWISH(x): one
// pass instead of two (the product rounded once either way). Returns the
// number rewritten.
int fuse_swish(Program& p) {
  std::vector<int> uses = value_uses(p);
  std::vector<bool> folded(p.value_count(), false);
  int fused = 0;
  for (Instr& in : p.code) {
    if (in.anchor >= 0 || in.op != EwKernelOp::Mul) continue;
    for (int side = 0; side < 2; ++side) {
      const Instr* sig = single_use_producer(p, uses, in.src[side], EwKernelOp::Logistic);
      const Instr* as_builtin = single_use_producer(p, uses, in.src[side], EwKernelOp::LogisticAsBuiltin);
      if (!sig) sig = as_builtin;
      if (!sig || sig->src[0] != in.src[1 - side]) continue;
      folded[in.src[side]] = true;
      in = Instr{as_builtin ? EwKernelOp::SwishAsBuiltin : EwKernelOp::Swish, 0.f, {in.src[1 - side]}};
      ++fused;
      break;
    }
  }
  if (fused) drop_folded(p, folded);
  return fused;
}

// MUL feeding only an ADD or SUB becomes one FMA; returns the number rewritten.
int fuse_multiply_add(Program& p) {
  std::vector<int> uses = value_uses(p);
  std::vector<bool> folded(p.value_count(), false);
  int fused = 0;
  for (Instr& in : p.code) {
    if (in.anchor >= 0 || (in.op != EwKernelOp::Add && in.op != EwKernelOp::Sub)) continue;
    for (int side = 0; side < 2; ++side) {
      const int v = in.src[side];
      const Instr* mul = single_use_producer(p, uses, v, EwKernelOp::Mul);
      if (!mul) continue;
      const int other = in.src[1 - side];
      in.op = in.op == EwKernelOp::Add ? EwKernelOp::Fma : side == 0 ? EwKernelOp::Fms : EwKernelOp::Fnma;
      in.src = {mul->src[0], mul->src[1], other};
      ++uses[mul->src[0]];
      ++uses[mul->src[1]];
      uses[v] = 0;
      folded[v] = true;
      ++fused;
      break;
    }
  }
  if (fused) drop_folded(p, folded);
  return fused;
}

}  // namespace fd
