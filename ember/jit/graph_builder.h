// The tracer's recorder (internal to ember::jit): builds a Graph from the ops a traced call
// reaches (Note [JIT programs] in jit.cpp). Used by tracing (jit.cpp) and by the derivation of
// fused backward graphs (autodiff.cpp), which traces the op table's derivative formulas.
#pragma once
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/tensor_impl.h"
#include "ember/jit/ir.h"

namespace ember::jit::detail {

inline std::string describe(const Tensor& t) {
  std::ostringstream os;
  os << "a " << t.scalar_type() << " tensor of shape " << t.sizes();
  return os.str();
}

class GraphBuilder final : public tracing::Recorder {
 public:
  explicit GraphBuilder(Graph& g) : g_(g) {}

  void bind(const Tensor& t, Value* v) {
    env_[t.unsafeGetTensorImpl()] = v;
    keep_.push_back(t);
  }

  void on_new_impl(const TensorImpl* impl) override { born_.insert(impl); }

  Value* value_of(const Tensor& t, std::string_view op) {
    if (!t.defined()) return nullptr;
    const TensorImpl* impl = t.unsafeGetTensorImpl();
    if (auto it = env_.find(impl); it != env_.end()) return it->second;
    if (impl->is_wrapped_number()) {
      Value* c = g_.add_constant(t);  // a Python-style number: promotes as a scalar
      bind(t, c);
      return c;
    }
    EMBER_CHECK(!born_.count(impl), "jit::trace: ", op, " uses ", describe(t),
                " that an op the tracer does not record made during the trace; the graph would hold its value "
                "from this one call. Record that op (Note [Tracing hooks]) or compute the tensor outside the "
                "traced function and pass it as an input");
    Value* c = g_.add_constant(t);  // from outside the call: a constant (by reference)
    bind(t, c);
    return c;
  }

  void record(const tracing::TracedOp& op, const std::vector<Tensor>& inputs, tracing::Attrs attrs,
              const std::vector<Tensor>& outputs, bool mutates) override {
    std::vector<Value*> ins;
    for (const Tensor& t : inputs) ins.push_back(value_of(t, op.name));
    EMBER_INTERNAL_ASSERT(!mutates || (!ins.empty() && ins[0]), op.name, ": a mutation without its tensor");
    std::vector<TensorType> types;
    for (const Tensor& o : outputs) {
      EMBER_CHECK(o.defined(), "jit::trace: ", op.name, " returned an undefined tensor, which a graph cannot hold");
      types.push_back(TensorType::of(o));
    }
    Node* n = g_.add_node(op, std::move(ins), std::move(attrs), std::move(types), mutates);
    for (size_t k = 0; k < outputs.size(); ++k) bind(outputs[k], n->outputs[k]);
  }

  Value* output_value(const Tensor& t, size_t k) {
    EMBER_CHECK(t.defined(), "jit::trace: output ", k, " of the traced function is undefined");
    return value_of(t, "the traced function's output " + std::to_string(k));
  }

 private:
  Graph& g_;
  std::unordered_map<const TensorImpl*, Value*> env_;
  std::unordered_set<const TensorImpl*> born_;
  std::vector<Tensor> keep_;  // every tensor bound: no address is reused while tracing
};

}  // namespace ember::jit::detail
