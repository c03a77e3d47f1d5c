// Size-generic graphs (traced_module_impl.h: Specialization::matches, generalize).
//
// Note [Dynamic sizes]: a trace records sizes as numbers (a view's shape, an expand's sizes), so
// a graph is valid for the sizes it was traced at. When a call differs from a specialization only
// in the sizes of contiguous inputs, the module is traced again at the new sizes and the two
// graphs are compared: if they are the same program (ops, wiring, constants, attributes) except
// for integer attributes that the changed input sizes explain (an attribute that was a*k in the
// first trace and b*k in the second, where an input dimension went from a to b, k a whole
// number: a batch size, a flattened batch times sequence), the second graph becomes
// size-generic: those dimensions are its size symbols, any size >= 2 passes its guard (0 and 1
// stay specialized: broadcasting treats 1 differently), and at each run the explained attributes
// are recomputed from the call's sizes (SizeUse). This is PyTorch's "automatic dynamic shapes"
// (Dynamo marks a dimension dynamic when a second size shows up) without symbolic arithmetic:
// sizes that enter the program any other way (a constant of the batch's shape, x / x.size(0)
// folded into a number) make the graphs differ, and each size keeps its own specialization.
// Fused kernels never depend on sizes (their outputs take the inputs' broadcast shape); the
// fuser groups values whose sizes agree in both traces (Value::twin_sizes), so a coincidence of
// one trace (a batch of 4 beside a dimension of 4) never merges what another size would not;
// fused backward programs are derived per size (FusionGroup::backward).
#include <unordered_map>

#include "ember/core/error.h"
#include "ember/jit/jit.h"
#include "ember/jit/traced_module_impl.h"
#include "ember/ops/functions.h"

namespace ember::jit {

namespace {

bool contiguous(const TensorType& t) {
  int64_t expected = 1;
  for (size_t d = t.sizes.size(); d-- > 0;) {
    if (t.sizes[d] != 1 && t.strides[d] != expected) return false;
    expected *= t.sizes[d];
  }
  return true;
}

bool same_attr(const tracing::Attr& a, const tracing::Attr& b) {
  if (a.index() != b.index() || attr_str(a) != attr_str(b)) return false;
  if (const Scalar* s = std::get_if<Scalar>(&a)) return s->tag() == std::get<Scalar>(b).tag();
  return true;
}

bool same_constant(const Tensor& a, const Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes() || a.device() != b.device() ||
      a.unsafeGetTensorImpl()->is_wrapped_number() != b.unsafeGetTensorImpl()->is_wrapped_number())
    return false;
  if (a.is_same(b)) return true;
  return a.is_cpu() && ember::equal(a, b);
}

struct Symbol {
  int64_t before, after;  // its size in the first and the second trace
};

// The symbol and factor explaining an integer that was `before` and is `after`.
std::optional<SizeUse> explain(int64_t before, int64_t after, const std::vector<Symbol>& symbols) {
  for (size_t k = 0; k < symbols.size(); ++k) {
    const Symbol& s = symbols[k];
    if (before % s.before != 0) continue;
    const int64_t factor = before / s.before;
    if (factor >= 1 && s.after * factor == after) return SizeUse{0, -1, k, factor};
  }
  return std::nullopt;
}

}  // namespace

bool TracedModule::Impl::Specialization::matches(const Signature& call, std::vector<int64_t>* sizes) const {
  if (symbols.empty()) return signature == call;
  if (call.inputs.size() != signature.inputs.size() || !(call.params == signature.params) ||
      call.training != signature.training)
    return false;
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const TensorType &a = call.inputs[i], &b = signature.inputs[i];
    if (a.dtype != b.dtype || a.device != b.device || a.requires_grad != b.requires_grad ||
        a.sizes.size() != b.sizes.size() || !contiguous(a))
      return false;
  }
  std::vector<std::vector<bool>> symbolic(call.inputs.size());
  for (size_t i = 0; i < call.inputs.size(); ++i) symbolic[i].assign(call.inputs[i].sizes.size(), false);
  sizes->clear();
  for (const SizeSymbol& s : symbols) {
    const int64_t v = call.inputs[s.input].sizes[s.dim];
    if (v < 2) return false;
    symbolic[s.input][s.dim] = true;
    sizes->push_back(v);
  }
  for (size_t i = 0; i < call.inputs.size(); ++i)
    for (size_t d = 0; d < symbolic[i].size(); ++d)
      if (!symbolic[i][d] && call.inputs[i].sizes[d] != signature.inputs[i].sizes[d]) return false;
  for (const auto& [a, b] : equal_symbols)
    if ((*sizes)[a] != (*sizes)[b]) return false;
  return true;
}

std::optional<TracedModule::Impl::Specialization> TracedModule::Impl::generalize(const Specialization& s1,
                                                                                 const Signature& sig2,
                                                                                 std::shared_ptr<Graph> g2) const {
  std::optional<Specialization> r = generalize_or_not(s1, sig2, g2);
  if (!r) {  // g2 stays a graph for its own sizes: no trace of the attempt
    for (const auto& n : g2->nodes()) {
      n->size_uses.clear();
      for (Value* o : n->outputs) o->twin_sizes.clear();
    }
    for (Value* v : g2->inputs()) v->twin_sizes.clear();
  }
  return r;
}

std::optional<TracedModule::Impl::Specialization> TracedModule::Impl::generalize_or_not(
    const Specialization& s1, const Signature& sig2, const std::shared_ptr<Graph>& g2) const {
  const Signature& sig1 = s1.signature;
  const Graph& g1 = *s1.graph;
  if (sig1.inputs.size() != sig2.inputs.size() || !(sig1.params == sig2.params) || sig1.training != sig2.training)
    return std::nullopt;
  Specialization r;
  std::vector<Symbol> symbols;
  for (size_t i = 0; i < sig2.inputs.size(); ++i) {
    const TensorType &a = sig1.inputs[i], &b = sig2.inputs[i];
    if (a.dtype != b.dtype || a.device != b.device || a.requires_grad != b.requires_grad ||
        a.sizes.size() != b.sizes.size() || !contiguous(a) || !contiguous(b))
      return std::nullopt;
    for (size_t d = 0; d < a.sizes.size(); ++d) {
      if (a.sizes[d] == b.sizes[d]) continue;
      if (a.sizes[d] < 2 || b.sizes[d] < 2) return std::nullopt;  // 0 and 1 stay specialized
      r.symbols.push_back({i, d});
      symbols.push_back({a.sizes[d], b.sizes[d]});
    }
  }
  if (symbols.empty()) return std::nullopt;
  for (size_t a = 0; a < symbols.size(); ++a)
    for (size_t b = a + 1; b < symbols.size(); ++b)
      if (symbols[a].before == symbols[b].before && symbols[a].after == symbols[b].after) r.equal_symbols.push_back({a, b});
  // Walk both graphs in step: the same program, value for value.
  std::unordered_map<const Value*, const Value*> twin;  // g2's value -> g1's
  auto pair_values = [&](const std::vector<Value*>& v2, const std::vector<Value*>& v1) {
    if (v1.size() != v2.size()) return false;
    for (size_t k = 0; k < v1.size(); ++k) twin[v2[k]] = v1[k];
    return true;
  };
  if (!pair_values(g2->inputs(), g1.inputs()) || !pair_values(g2->params(), g1.params())) return std::nullopt;
  if (g1.constants().size() != g2->constants().size()) return std::nullopt;
  for (size_t k = 0; k < g1.constants().size(); ++k) {
    if (!same_constant(g1.constants()[k].second, g2->constants()[k].second)) return std::nullopt;
    twin[g2->constants()[k].first] = g1.constants()[k].first;
  }
  if (g1.nodes().size() != g2->nodes().size()) return std::nullopt;
  for (size_t k = 0; k < g1.nodes().size(); ++k) {
    const Node& n1 = *g1.nodes()[k];
    Node& n2 = *g2->nodes()[k];
    if (n1.op != n2.op || n1.mutates != n2.mutates || n1.inputs.size() != n2.inputs.size() ||
        n1.outputs.size() != n2.outputs.size() || n1.attrs.size() != n2.attrs.size())
      return std::nullopt;
    for (size_t i = 0; i < n1.inputs.size(); ++i) {
      if (!n1.inputs[i] || !n2.inputs[i]) {
        if (n1.inputs[i] != n2.inputs[i]) return std::nullopt;
        continue;
      }
      auto t = twin.find(n2.inputs[i]);
      if (t == twin.end() || t->second != n1.inputs[i]) return std::nullopt;
    }
    n2.size_uses.clear();
    for (size_t a = 0; a < n1.attrs.size(); ++a) {
      const auto& [name1, v1] = n1.attrs[a];
      const auto& [name2, v2] = n2.attrs[a];
      if (name1 != name2) return std::nullopt;
      if (same_attr(v1, v2)) continue;
      const auto* l1 = std::get_if<std::vector<int64_t>>(&v1);
      const auto* l2 = std::get_if<std::vector<int64_t>>(&v2);
      const Scalar* x1 = std::get_if<Scalar>(&v1);
      const Scalar* x2 = std::get_if<Scalar>(&v2);
      if (l1 && l2 && l1->size() == l2->size()) {
        for (size_t e = 0; e < l1->size(); ++e) {
          if ((*l1)[e] == (*l2)[e]) continue;
          std::optional<SizeUse> u = explain((*l1)[e], (*l2)[e], symbols);
          if (!u) return std::nullopt;
          u->attr = a;
          u->element = int64_t(e);
          n2.size_uses.push_back(*u);
        }
      } else if (x1 && x2 && x1->isIntegral(false) && x2->isIntegral(false)) {
        std::optional<SizeUse> u = explain(x1->toLong(), x2->toLong(), symbols);
        if (!u) return std::nullopt;
        u->attr = a;
        n2.size_uses.push_back(*u);
      } else {
        return std::nullopt;
      }
    }
    for (size_t o = 0; o < n1.outputs.size(); ++o) {
      if (n1.outputs[o]->type.dtype != n2.outputs[o]->type.dtype) return std::nullopt;
      twin[n2.outputs[o]] = n1.outputs[o];
      n2.outputs[o]->twin_sizes = n1.outputs[o]->type.sizes;
    }
  }
  if (g1.outputs().size() != g2->outputs().size()) return std::nullopt;
  for (size_t k = 0; k < g1.outputs().size(); ++k) {
    auto t = twin.find(g2->outputs()[k]);
    if (t == twin.end() || t->second != g1.outputs()[k]) return std::nullopt;
  }
  for (Value* v : g2->inputs()) v->twin_sizes = twin.at(v)->type.sizes;
  Specialization s = specialize(sig2, g2);
  s.symbols = std::move(r.symbols);
  s.equal_symbols = std::move(r.equal_symbols);
  return s;
}

}  // namespace ember::jit
