#include "frontends/tf/tf_patterns.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "frontends/tf/tf_names.h"
#include "tensorflow/core/framework/graph.pb.h"
#include "tensorflow/core/framework/node_def.pb.h"
#include "tensorflow/core/framework/tensor.pb.h"

namespace fd {
namespace {

using tensorflow::NodeDef;

constexpr float kInvSqrt2 = 0.70710678f;

std::string node_name(const std::string& input) {
  const std::string canon = canonical_tensor_name(input[0] == '^' ? input.substr(1) : input);
  return canon.substr(0, canon.rfind(':'));
}

class Matcher {
 public:
  explicit Matcher(const tensorflow::GraphDef& gd);
  // The root (GraphDef index) of an exact GELU around Erf / Erfc node
  // `erf_index`, or -1; *p describes it.
  int gelu(int erf_index, TfPattern* p) const;
  // The root of a hard swish around Relu6 node `relu6_index`, or -1.
  int hard_swish(int relu6_index, TfPattern* p) const;
  bool sixth(const NodeDef* n, std::string* other) const;
  // The root (the Reshape back) of a Tensordot around MatMul `index`, or -1.
  int tensordot(int index, TfPattern* p) const;

 private:
  const NodeDef* producer(const std::string& input) const;
  int index_of(const NodeDef* n) const { return n ? index_.at(n->name()) : -1; }
  bool scalar(const std::string& input, float* v) const;
  bool by_scalar(const NodeDef* n, const char* op, float c, std::string* other) const;
  const NodeDef* only_reader(const NodeDef* n) const;
  bool erf_argument(const NodeDef& e, std::string* x, std::vector<int>* absorbed) const;
  const NodeDef* times_half_times_x(const NodeDef* q, const std::string& x, std::vector<int>* absorbed) const;

  const tensorflow::GraphDef& gd_;
  std::map<std::string, int> index_;
  std::map<std::string, std::vector<int>> readers_;  // node -> nodes reading it (data or control)
};

Matcher::Matcher(const tensorflow::GraphDef& gd) : gd_(gd) {
  for (int i = 0; i < gd.node_size(); ++i) index_[gd.node(i).name()] = i;
  for (int i = 0; i < gd.node_size(); ++i)
    for (const std::string& in : gd.node(i).input()) readers_[node_name(in)].push_back(i);
}

const NodeDef* Matcher::producer(const std::string& input) const {
  if (input.empty() || input[0] == '^') return nullptr;
  auto it = index_.find(node_name(input));
  return it == index_.end() ? nullptr : &gd_.node(it->second);
}

// A float32 Const of one element.
bool Matcher::scalar(const std::string& input, float* v) const {
  const NodeDef* c = producer(input);
  if (!c || c->op() != "Const" || !c->attr().count("value")) return false;
  const tensorflow::TensorProto& t = c->attr().at("value").tensor();
  int64_t count = 1;
  for (const auto& d : t.tensor_shape().dim()) count *= d.size();
  if (t.dtype() != tensorflow::DT_FLOAT || count != 1) return false;
  if (t.float_val_size() == 1) *v = t.float_val(0);
  else if (t.tensor_content().size() == 4) std::memcpy(v, t.tensor_content().data(), 4);
  else return false;
  return true;
}

// n is `op` (float32) of a scalar constant c (either side; RealDiv: the
// divisor) and *other.
bool Matcher::by_scalar(const NodeDef* n, const char* op, float c, std::string* other) const {
  if (!n || n->op() != op || n->input_size() != 2) return false;
  auto t = n->attr().find("T");
  if (t != n->attr().end() && t->second.type() != tensorflow::DT_FLOAT) return false;
  const bool ordered = std::strcmp(op, "RealDiv") == 0;
  for (int side = ordered ? 1 : 0; side < 2; ++side) {
    float v;
    if (scalar(n->input(side), &v) && std::fabs(v - c) <= 1e-6f * std::fabs(c)) {
      *other = n->input(1 - side);
      return true;
    }
  }
  return false;
}

// The one node reading n, or null.
const NodeDef* Matcher::only_reader(const NodeDef* n) const {
  auto it = n ? readers_.find(n->name()) : readers_.end();
  if (it == readers_.end() || it->second.size() != 1) return nullptr;
  return &gd_.node(it->second[0]);
}

// Erfc(-x / sqrt(2)) or Erf(x / sqrt(2)): x, and the nodes computing the argument.
bool Matcher::erf_argument(const NodeDef& e, std::string* x, std::vector<int>* absorbed) const {
  const NodeDef* arg = producer(e.input(0));
  if (!arg || only_reader(arg) != &e) return false;
  absorbed->push_back(index_of(arg));
  if (e.op() == "Erf") return by_scalar(arg, "Mul", kInvSqrt2, x) || by_scalar(arg, "RealDiv", 1.f / kInvSqrt2, x);
  if (by_scalar(arg, "Mul", -kInvSqrt2, x)) return true;
  std::string neg_out;
  const NodeDef* neg = by_scalar(arg, "Mul", kInvSqrt2, &neg_out) ? producer(neg_out) : nullptr;
  if (!neg || neg->op() != "Neg" || only_reader(neg) != arg) return false;
  absorbed->push_back(index_of(neg));
  *x = neg->input(0);
  return true;
}

bool same_tensor(const std::string& a, const std::string& b) {
  return canonical_tensor_name(a) == canonical_tensor_name(b);
}

// q * 0.5 * x, either (q * 0.5) * x or q * (x * 0.5): the root, or null.
const NodeDef* Matcher::times_half_times_x(const NodeDef* q, const std::string& x, std::vector<int>* absorbed) const {
  const NodeDef* r = only_reader(q);
  std::string other;
  if (by_scalar(r, "Mul", 0.5f, &other)) {  // (q * 0.5) * x
    const NodeDef* root = only_reader(r);
    if (!root || root->op() != "Mul" || root->input_size() != 2) return nullptr;
    absorbed->push_back(index_of(r));
    const bool fits = (producer(root->input(0)) == r && same_tensor(root->input(1), x)) ||
                      (producer(root->input(1)) == r && same_tensor(root->input(0), x));
    return fits ? root : nullptr;
  }
  if (!r || r->op() != "Mul" || r->input_size() != 2) return nullptr;  // q * (x * 0.5)
  const NodeDef* half_x = producer(r->input(0)) == q ? producer(r->input(1)) : producer(r->input(0));
  if (!by_scalar(half_x, "Mul", 0.5f, &other) || !same_tensor(other, x) || only_reader(half_x) != r) return nullptr;
  absorbed->push_back(index_of(half_x));
  return r;
}

int Matcher::gelu(int erf_index, TfPattern* p) const {
  const NodeDef& e = gd_.node(erf_index);
  std::string x, other;
  p->absorbed = {erf_index};
  if (!erf_argument(e, &x, &p->absorbed)) return -1;
  const NodeDef* q = &e;
  if (e.op() == "Erf") {  // 1 + erf(...)
    q = only_reader(&e);
    if (!by_scalar(q, "AddV2", 1.f, &other) && !by_scalar(q, "Add", 1.f, &other)) return -1;
    p->absorbed.push_back(index_of(q));
  }
  const NodeDef* root = times_half_times_x(q, x, &p->absorbed);
  auto t = root ? root->attr().find("T") : e.attr().end();
  if (!root || (t != root->attr().end() && t->second.type() != tensorflow::DT_FLOAT)) return -1;
  p->op = EwOp::Gelu;
  p->input = x;
  return index_of(root);
}

// n divides by 6 (or multiplies by 1/6): *other is what it divides.
bool Matcher::sixth(const NodeDef* n, std::string* other) const {
  return by_scalar(n, "RealDiv", 6.f, other) || by_scalar(n, "Mul", 1.f / 6.f, other);
}

// Keras' hard_swish: relu6(x + 3) times x, one of them divided by 6 (Grappler
// turns the division into a MUL by 1/6), in either operand order.
int Matcher::hard_swish(int relu6_index, TfPattern* p) const {
  const NodeDef& r = gd_.node(relu6_index);
  const NodeDef* add = producer(r.input(0));
  std::string x, other;
  if (!(by_scalar(add, "AddV2", 3.f, &x) || by_scalar(add, "Add", 3.f, &x)) || only_reader(add) != &r) return -1;
  p->absorbed = {index_of(add), relu6_index};
  const NodeDef* branch = &r;  // relu6(x + 3), perhaps divided by 6
  if (sixth(only_reader(&r), &other)) {
    branch = only_reader(&r);
    p->absorbed.push_back(index_of(branch));
  }
  const NodeDef* root = only_reader(branch);
  if (!root || root->op() != "Mul" || root->input_size() != 2) return -1;
  const int side = producer(root->input(0)) == branch ? 1 : 0;  // the x side
  if (producer(root->input(1 - side)) != branch) return -1;
  const NodeDef* x_side = producer(root->input(side));
  if (branch == &r) {  // x divided by 6 instead
    if (!sixth(x_side, &other) || !same_tensor(other, x) || only_reader(x_side) != root) return -1;
    p->absorbed.push_back(index_of(x_side));
  } else if (!same_tensor(root->input(side), x)) {
    return -1;
  }
  auto t = root->attr().find("T");
  if (t != root->attr().end() && t->second.type() != tensorflow::DT_FLOAT) return -1;
  p->op = EwOp::HardSwish;
  p->input = x;
  return index_of(root);
}

int Matcher::tensordot(int index, TfPattern* p) const {
  const NodeDef& m = gd_.node(index);
  auto attr_true = [&](const char* name) { auto a = m.attr().find(name); return a != m.attr().end() && a->second.b(); };
  auto t = m.attr().find("T");
  if (attr_true("transpose_a") || (t != m.attr().end() && t->second.type() != tensorflow::DT_FLOAT)) return -1;
  const NodeDef* rows = producer(m.input(0));
  const NodeDef* weights = producer(m.input(1));
  const NodeDef* back = only_reader(&m);
  if (!rows || rows->op() != "Reshape" || !back || back->op() != "Reshape") return -1;
  if (!weights || (weights->op() != "Const" && weights->op() != "ReadVariableOp")) return -1;
  if (producer(back->input(0)) != &m) return -1;
  p->input = rows->input(0);
  const bool alone = only_reader(rows) == &m;  // else the Q, K, V projections of one input, say
  p->absorbed = alone ? std::vector<int>{index_of(rows), index} : std::vector<int>{index};
  p->shared_rows = alone ? -1 : index_of(rows);
  p->matmul = index;
  return index_of(back);
}

}  // namespace

std::map<int, TfPattern> find_tf_patterns(const tensorflow::GraphDef& gd) {
  std::map<int, TfPattern> found;
  Matcher m(gd);
  for (int i = 0; i < gd.node_size(); ++i) {
    const std::string& op = gd.node(i).op();
    if (op != "Erf" && op != "Erfc" && op != "Relu6" && op != "MatMul") continue;
    TfPattern p;
    const int root = op == "Relu6" ? m.hard_swish(i, &p) : op == "MatMul" ? m.tensordot(i, &p) : m.gelu(i, &p);
    if (root >= 0) found[root] = p;
  }
  return found;
}

}  // namespace fd
