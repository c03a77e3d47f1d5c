// The state of a jit::TracedModule (jit.h; shared by jit.cpp and program_io.cpp).
#pragma once
#include <mutex>
#include <optional>

#include "ember/jit/jit.h"

namespace ember::jit {

struct TracedModule::Impl {
  std::shared_ptr<nn::Module> module;  // null: a function, or a loaded program
  TracedFn fn;                         // null: a loaded program (cannot trace again)
  TraceOptions options;
  // A loaded program's parameters and buffers (names as the module's).
  OrderedDict<std::string, Tensor> own_params{"Parameter"}, own_buffers{"Buffer"};
  bool own_training = false;
  // A dimension of an input whose size a size-generic graph takes at each call.
  struct SizeSymbol {
    size_t input = 0, dim = 0;
  };
  struct Specialization {
    Signature signature;
    std::shared_ptr<Graph> graph;  // traced and optimized: what prints and saves
    std::shared_ptr<Graph> exec;   // what runs: graph with its pointwise chains fused
    // Size-generic (Note [Dynamic sizes] in dynamic.cpp): these input dimensions take any size
    // >= 2 (the inputs contiguous), symbols listed together must be equal; the signature holds
    // the rest (its sizes at these dimensions are one trace's).
    std::vector<SizeSymbol> symbols;
    std::vector<std::pair<size_t, size_t>> equal_symbols;
    // Whether a call with signature `call` may run this graph; *sizes: the symbols' values.
    bool matches(const Signature& call, std::vector<int64_t>* sizes) const;
  };
  Specialization specialize(Signature sig, std::shared_ptr<Graph> g) const;
  // The graph g2 traced for `sig2`, made size-generic with earlier specialization s1 when they
  // differ only in input sizes that explain every difference of the two graphs (dynamic.cpp).
  std::optional<Specialization> generalize(const Specialization& s1, const Signature& sig2, std::shared_ptr<Graph> g2) const;
  std::optional<Specialization> generalize_or_not(const Specialization& s1, const Signature& sig2,
                                                  const std::shared_ptr<Graph>& g2) const;
  std::vector<Specialization> specializations;
  std::mutex mutex;

  // The parameters and buffers bound to the graph's parameters, in a fixed order: the module's
  // (or the loaded program's) parameters, then its buffers.
  std::vector<std::pair<std::string, Tensor>> bound() const {
    std::vector<std::pair<std::string, Tensor>> r;
    auto add = [&r](const OrderedDict<std::string, Tensor>& d) {
      for (const auto& item : d) r.emplace_back(item.key(), item.value());
    };
    add(module ? module->named_parameters() : own_params);
    add(module ? module->named_buffers() : own_buffers);
    return r;
  }
  bool training() const { return module ? module->is_training() : own_training; }

  // Traces fn on inputs (jit.cpp).
  std::shared_ptr<Graph> trace_now(const TensorList& inputs);
};


}  // namespace ember::jit
