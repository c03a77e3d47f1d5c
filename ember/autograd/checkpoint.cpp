// Activation checkpointing (checkpoint.h): a custom backward node that recomputes.
#include "ember/autograd/checkpoint.h"

#include "ember/autograd/autograd.h"
#include "ember/autograd/custom_function.h"
#include "ember/core/autocast_mode.h"
#include "ember/core/generator.h"

namespace ember::utils {

namespace {

struct AutocastState {
  bool cpu = false, gpu = false;
  ScalarType cpu_dtype = kBFloat16, gpu_dtype = kHalf;
  static AutocastState now() {
    return {autocast::is_cpu_enabled(), autocast::is_enabled(), autocast::get_autocast_cpu_dtype(),
            autocast::get_autocast_gpu_dtype()};
  }
  void apply() const {
    autocast::set_cpu_enabled(cpu), autocast::set_enabled(gpu);
    autocast::set_autocast_cpu_dtype(cpu_dtype), autocast::set_autocast_gpu_dtype(gpu_dtype);
  }
};

struct CheckpointNode final : autograd::CppNodeBase {
  std::function<TensorList(const TensorList&)> fn;
  TensorList inputs;  // detached: the recomputation starts from their values
  std::vector<bool> requires_grad;
  Tensor rng_state;  // the CPU default generator's, before the first run
  AutocastState autocast_state;
  bool released = false;

  void release_variables() override {
    inputs.clear();
    fn = nullptr;
    released = true;
  }

  TensorList call_backward(TensorList grads) override {
    EMBER_CHECK(!released && fn, "checkpoint: trying to backward through the checkpointed function a second time "
                "(its inputs were freed by the first backward; pass retain_graph=true to keep them)");
    EMBER_CHECK(!GradMode::is_enabled(), "checkpoint: backward with create_graph=true through a checkpointed "
                "function is not supported (the reentrant variant differentiates its recomputation once)");
    TensorList detached;
    for (size_t i = 0; i < inputs.size(); ++i)
      detached.push_back(inputs[i].defined() ? inputs[i].detach().set_requires_grad(requires_grad[i]) : Tensor());
    TensorList outputs;
    {
      // The first run's random state and autocast settings, then back to the current ones.
      const Tensor current_rng = rng_state.defined() ? default_generator().get_state() : Tensor();
      const AutocastState current_autocast = AutocastState::now();
      if (rng_state.defined()) default_generator().set_state(rng_state);
      autocast_state.apply();
      try {
        AutoGradMode on(true);
        outputs = fn(detached);
      } catch (...) {
        if (current_rng.defined()) default_generator().set_state(current_rng);
        current_autocast.apply();
        throw;
      }
      if (current_rng.defined()) default_generator().set_state(current_rng);
      current_autocast.apply();
    }
    EMBER_CHECK(outputs.size() == grads.size(), "checkpoint: the recomputation returned ", outputs.size(),
                " outputs, the first run ", grads.size());
    TensorList roots, seeds;
    for (size_t k = 0; k < outputs.size(); ++k)
      if (outputs[k].defined() && outputs[k].requires_grad() && grads[k].defined())
        roots.push_back(outputs[k]), seeds.push_back(grads[k]);
    if (!roots.empty()) autograd::backward(roots, seeds);
    TensorList r;
    for (size_t i = 0; i < detached.size(); ++i)
      r.push_back(detached[i].defined() && requires_grad[i] ? detached[i].grad() : Tensor());
    return r;
  }
};

}  // namespace

TensorList checkpoint(std::function<TensorList(const TensorList&)> fn, const TensorList& inputs,
                      bool preserve_rng_state) {
  EMBER_CHECK(fn != nullptr, "checkpoint: the function is empty");
  if (!GradMode::is_enabled()) return fn(inputs);  // nothing to save: as PyTorch, just run it
  auto node = std::make_shared<CheckpointNode>();
  node->name_ = "CheckpointFunctionBackward";
  node->is_tensor_arg_.assign(inputs.size(), true);
  for (const Tensor& t : inputs) {
    node->requires_grad.push_back(t.defined() && t.requires_grad());
    node->inputs.push_back(t.defined() ? t.detach() : Tensor());
  }
  if (preserve_rng_state) node->rng_state = default_generator().get_state();
  node->autocast_state = AutocastState::now();
  autograd::detail::set_custom_edges(node.get(), inputs);
  TensorList outputs;
  {
    AutoGradMode off(false);
    outputs = fn(inputs);
  }
  node->fn = std::move(fn);
  // Recorded even when no input requires grad: parameters inside fn still need their gradients.
  autograd::detail::finish_custom_apply(node.get(), node, inputs, outputs, /*record=*/true);
  return outputs;
}

}  // namespace ember::utils
