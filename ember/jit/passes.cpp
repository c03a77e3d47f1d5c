// Graph passes: dead code, common subexpressions, constant folding (jit.h). Each keeps the
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

void optimize(Graph& g) {
  for (int round = 0; round < 8; ++round) {
    const size_t before = g.nodes().size();
    fold_constants(g);
    eliminate_common_subexpressions(g);
    eliminate_dead_code(g);
    if (g.nodes().size() == before) break;
  }
}

}  // namespace ember::jit
