// Graph passes: dead code, common subexpressions, constant folding, arithmetic identities (jit.h). Each keeps the
// nodes with effects (writes, random draws) and leaves alone every node that reads or produces a
// tensor sharing memory with one some node writes into (Note [JIT graphs]).
#include <map>

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/jit/jit.h"

namespace ember::jit {

void eliminate_dead_code(Graph& g) {
  std::vector<bool> live(g.num_values(), false);
  for (const Value* o : g.outputs()) live[o->id] = true;
  std::vector<bool> keep_node(g.nodes().size(), false);
  for (size_t k = g.nodes().size(); k-- > 0;) {
    const Node& n = *g.nodes()[k];
    bool needed = n.has_effects();
    for (const Value* o : n.outputs) needed = needed || live[o->id];
    if (!needed) continue;
    keep_node[k] = true;
    for (const Value* i : n.inputs)
      if (i) live[i->id] = true;
  }
  size_t k = 0;
  g.remove_nodes_if([&](const Node&) { return !keep_node[k++]; });
}

namespace {
// Nodes a pass may merge or evaluate: no effects, nothing read or made aliases a written tensor.
std::vector<bool> pure_nodes(const Graph& g) {
  const std::vector<const Value*> root = g.alias_roots();
  const std::vector<bool> mutated = g.mutated_roots();
  std::vector<bool> pure;
  for (const auto& n : g.nodes()) {
    bool ok = !n->has_effects();
    for (const Value* i : n->inputs)
      if (i && mutated[root[i->id]->id]) ok = false;
    for (const Value* o : n->outputs)
      if (mutated[root[o->id]->id]) ok = false;
    pure.push_back(ok);
  }
  return pure;
}

std::string node_key(const Node& n) {
  std::string key(n.kind());
  key += "(";
  for (const Value* i : n.inputs) key += (i ? std::to_string(i->id) : "-") + ",";
  key += ")";
  for (const auto& [name, a] : n.attrs) key += name + "=" + attr_str(a) + (a.index() == 1 ? "#" + std::to_string(int(std::get<Scalar>(a).tag())) : "") + ";";
  return key;
}
}  // namespace

void eliminate_common_subexpressions(Graph& g) {
  const std::vector<bool> pure = pure_nodes(g);
  std::map<std::string, const Node*> seen;
  std::vector<bool> drop(g.nodes().size(), false);
  for (size_t k = 0; k < g.nodes().size(); ++k) {
    Node& n = *g.nodes()[k];
    if (!pure[k]) continue;
    auto [it, inserted] = seen.emplace(node_key(n), &n);
    if (inserted) continue;
    for (size_t i = 0; i < n.outputs.size(); ++i) g.replace_uses(n.outputs[i], it->second->outputs[i]);
    drop[k] = true;
  }
  size_t k = 0;
  g.remove_nodes_if([&](const Node&) { return drop[k++]; });
}

void fold_constants(Graph& g, int64_t max_numel) {
  const std::vector<bool> pure = pure_nodes(g);
  std::vector<bool> drop(g.nodes().size(), false);
  NoGradGuard no_grad;
  tracing::PauseGuard not_traced;
  for (size_t k = 0; k < g.nodes().size(); ++k) {
    Node& n = *g.nodes()[k];
    if (!pure[k]) continue;  // factories (no inputs) fold too
    std::vector<Tensor> in;
    bool constant = true;
    for (const Value* i : n.inputs) {
      const Tensor* t = i ? g.constant_value(i) : nullptr;
      // A constant that requires grad is a captured leaf gradients must reach: not folded.
      if (!t || t->requires_grad()) {
        constant = false;
        break;
      }
      in.push_back(*t);
    }
    if (!constant) continue;
    int64_t numel = 0;
    for (const Value* o : n.outputs) {
      int64_t e = 1;
      for (int64_t s : o->type.sizes) e *= s;
      numel += e;
    }
    if (numel > max_numel) continue;
    std::vector<Tensor> out = n.op->run(*n.op, in, n.attrs);
    for (size_t i = 0; i < out.size(); ++i) {
      Value* c = g.add_constant(out[i]);
      g.replace_uses(n.outputs[i], c);
    }
    drop[k] = true;
  }
  size_t k = 0;
  g.remove_nodes_if([&](const Node&) { return drop[k++]; });
}

void simplify_arithmetic(Graph& g) {
  for (const auto& n : g.nodes())
    if (n->mutates) return;  // an identity made an alias of a tensor something writes: never
  const std::vector<bool> pure = pure_nodes(g);
  auto is_number = [&](const Value* v, double x) {
    const Tensor* t = v ? g.constant_value(v) : nullptr;
    return t && t->unsafeGetTensorImpl()->is_wrapped_number() && !t->is_complex() && t->item().toDouble() == x;
  };
  std::vector<bool> drop(g.nodes().size(), false);
  for (size_t k = 0; k < g.nodes().size(); ++k) {
    Node& n = *g.nodes()[k];
    if (!pure[k] || n.outputs.size() != 1 || n.inputs.size() != 2 || tracing::has_attr(n.attrs, "mode")) continue;
    Value* same = nullptr;  // the input the node returns unchanged
    const std::string_view kind = n.kind();
    if (kind == "mul" && is_number(n.inputs[1], 1)) same = n.inputs[0];
    else if (kind == "mul" && is_number(n.inputs[0], 1)) same = n.inputs[1];
    else if (kind == "div_true" && is_number(n.inputs[1], 1)) same = n.inputs[0];
    else if ((kind == "add" || kind == "sub") && is_number(n.inputs[1], 0)) same = n.inputs[0];
    else if (kind == "add" && is_number(n.inputs[0], 0) && tracing::scalar_attr(n.attrs, "s0", "add").toDouble() == 1)
      same = n.inputs[1];
    // Only where the result is that input as it is: same dtype and shape (no promotion, no broadcast).
    if (!same || same->type.dtype != n.outputs[0]->type.dtype || same->type.sizes != n.outputs[0]->type.sizes) continue;
    g.replace_uses(n.outputs[0], same);
    drop[k] = true;
  }
  size_t k = 0;
  g.remove_nodes_if([&](const Node&) { return drop[k++]; });
}

void optimize(Graph& g) {
  for (int round = 0; round < 8; ++round) {
    const size_t before = g.nodes().size();
    simplify_arithmetic(g);
    fold_constants(g);
    eliminate_common_subexpressions(g);
    eliminate_dead_code(g);
    if (g.nodes().size() == before) break;
  }
}

}  // namespace ember::jit
