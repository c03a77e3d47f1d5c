// The state of a jit::TracedModule (jit.h; shared by jit.cpp and program_io.cpp).
#pragma once
#include <mutex>

#include "ember/jit/jit.h"

namespace ember::jit {

struct TracedModule::Impl {
  std::shared_ptr<nn::Module> module;  // null: a function, or a loaded program
  TracedFn fn;                         // null: a loaded program (cannot trace again)
  TraceOptions options;
  // A loaded program's parameters and buffers (names as the module's).
  OrderedDict<std::string, Tensor> own_params{"Parameter"}, own_buffers{"Buffer"};
  bool own_training = false;
  struct Specialization {
    Signature signature;
    std::shared_ptr<Graph> graph;  // traced and optimized: what prints and saves
    std::shared_ptr<Graph> exec;   // what runs: graph with its pointwise chains fused
  };
  Specialization specialize(Signature sig, std::shared_ptr<Graph> g) const;
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
