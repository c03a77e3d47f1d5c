// Activation checkpointing (checkpoint.h): a custom backward node that recomputes.
#include "ember/autograd/checkpoint.h"

#include <algorithm>
#include <optional>

#include "ember/autograd/autograd.h"
#include "ember/autograd/custom_function.h"
#include "ember/core/autocast_mode.h"
#include "ember/core/generator.h"
#include "ember/cuda/cuda.h"

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

// The random state of the CPU's default generator and of the default generators of the CUDA
// devices the inputs are on (PyTorch's preserve_rng_state: get_rng_state and the inputs'
// devices' CUDA states). A CUDA generator's state is its engine (the seed) and its Philox
// offset.
struct RngStates {
  Tensor cpu;
  struct CudaGen {
    Generator gen;
    MT19937 engine;
    uint64_t offset;
  };
  std::vector<CudaGen> cuda;

  static RngStates capture(const TensorList& inputs) {
    RngStates r;
    r.cpu = default_generator().get_state();
    for (const Tensor& t : inputs) {
      if (!t.defined() || !t.is_cuda()) continue;
      const Generator& g = cuda::default_cuda_generator(t.device().index());
      if (std::any_of(r.cuda.begin(), r.cuda.end(), [&](const CudaGen& d) { return d.gen == g; })) continue;
      std::lock_guard<std::mutex> lock(g.mutex());
      r.cuda.push_back({g, g->engine(), g->philox_offset()});
    }
    return r;
  }
  // The current states of the same generators.
  RngStates now() const {
    RngStates r;
    r.cpu = default_generator().get_state();
    for (const CudaGen& d : cuda) {
      std::lock_guard<std::mutex> lock(d.gen.mutex());
      r.cuda.push_back({d.gen, d.gen->engine(), d.gen->philox_offset()});
    }
    return r;
  }
  void restore() const {
    default_generator().set_state(cpu);
    for (const CudaGen& d : cuda) {
      std::lock_guard<std::mutex> lock(d.gen.mutex());
      d.gen->set_engine(d.engine);
      d.gen->set_philox_offset(d.offset);
    }
  }
};

struct CheckpointNode final : autograd::CppNodeBase {
  std::function<TensorList(const TensorList&)> fn;
  TensorList inputs;  // detached: the recomputation starts from their values
  std::vector<bool> requires_grad;
  std::optional<RngStates> rng;  // before the first run (preserve_rng_state)
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
      const std::optional<RngStates> current_rng = rng ? std::optional<RngStates>(rng->now()) : std::nullopt;
      const AutocastState current_autocast = AutocastState::now();
      if (rng) rng->restore();
      autocast_state.apply();
      try {
        AutoGradMode on(true);
        outputs = fn(detached);
      } catch (...) {
        if (current_rng) current_rng->restore();
        current_autocast.apply();
        throw;
      }
      if (current_rng) current_rng->restore();
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
  if (preserve_rng_state) node->rng = RngStates::capture(inputs);
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
