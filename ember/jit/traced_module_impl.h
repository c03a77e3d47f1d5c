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

  // The parameters and buffers bound to the graph's parameters, in a fixed order (names).
  std::vector<std::string> param_names() const {
    std::vector<std::string> names;
    if (module) {
      for (const auto& p : module->named_parameters()) names.push_back(p.key());
      for (const auto& b : module->named_buffers()) names.push_back(b.key());
    } else {
      for (const auto& p : own_params) names.push_back(p.key());
      for (const auto& b : own_buffers) names.push_back(b.key());
    }
    return names;
  }
  TensorList param_values() const {
    TensorList r;
    if (module) {
      for (const auto& p : module->named_parameters()) r.push_back(p.value());
      for (const auto& b : module->named_buffers()) r.push_back(b.value());
    } else {
      for (const auto& p : own_params) r.push_back(p.value());
      for (const auto& b : own_buffers) r.push_back(b.value());
    }
    return r;
  }
  bool training() const { return module ? module->is_training() : own_training; }

  // Traces fn on inputs (jit.cpp).
  std::shared_ptr<Graph> trace_now(const TensorList& inputs);
};


}  // namespace ember::jit
