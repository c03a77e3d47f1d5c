// torch.distributed.fsdp.FullyShardedDataParallel for ember modules: every rank holds 1/N of
// each wrapped unit's parameters, gathers a unit's full parameters just before the unit
// computes (forward, then again in backward) and frees them after, and reduce-scatters the
// gradients, so the optimizer updates (and keeps state for) only the local shard.
//
// Note [FSDP flat parameters]
// The root module and each submodule the auto-wrap policy picks is a *unit*. A unit owns the
// parameters of its subtree that no nested unit owns; they are flattened, in registration
// order, into one 1-D buffer padded to a multiple of the shard group's size, and each rank
// keeps its contiguous 1/N of it as the unit's flat parameter (a leaf that requires grad: what
// `parameters()` gives the optimizer). The module keeps its own parameter tensors (so its
// forward code is unchanged); while the unit is *sharded* they are empty (size 0), while it
// is *unsharded* they are views into the gathered buffer. Swapping what they point to does
// not bump their version counters: backward's saved tensors see the buffer gathered again
// before the unit's backward. The gathered buffer keeps one StorageImpl for the unit's life:
// freeing a unit releases that storage's memory in place (PyTorch's storage resize_(0)), so
// views of a parameter that backward saved (a weight's transpose) neither keep the memory nor
// go stale (gathering again refills the same storage). Such a view must not be read while the
// unit is freed; FSDP gathers every unit before its backward (below).
//
//   forward:  the root gathers its unit before calling the module; a nested unit's forward
//             pre-hook gathers it (waiting for a prefetch), its forward hook frees it again
//             (FULL_SHARD, HYBRID_SHARD) and registers a gradient hook on its outputs.
//   backward: the first gradient reaching a unit's outputs gathers the unit again (and, with
//             BACKWARD_PRE, starts gathering the unit that runs next). Each parameter's
//             post-accumulate hook moves its .grad into the unit's flat gradient; once all of
//             them are in, the flat gradient is reduce-scattered (ReduceOp::AVG) asynchronously
//             and the unit is freed. With more than two reductions in flight the oldest is
//             waited for, HYBRID_SHARD all-reduces its shard across replicas, and its flat
//             parameter's .grad receives the shard (accumulated like .grad); the end of
//             backward (an engine callback) does the same for the rest. A unit whose outputs
//             carried no hook (an output that is not a tensor) is gathered when backward starts;
//             a unit whose forward ran without grad (the first run of a checkpointed call) is
//             gathered by the recomputation's pre-hook and kept until its gradients are in.
//
// Strategies: FULL_SHARD frees after forward and backward; SHARD_GRAD_OP keeps parameters
// gathered from forward to the end of backward; NO_SHARD keeps the whole flat parameter on
// every rank and all-reduces gradients (DDP); HYBRID_SHARD shards within `intra_node_group`
// and replicates across `inter_node_group` (default: the ranks of one node, LOCAL_WORLD_SIZE,
// and the ranks with the same local rank). MixedPrecision gathers parameters in param_dtype
// (the module computes in it; floating inputs of the root's forward are cast to it),
// reduces gradients in reduce_dtype (default param_dtype) and keeps flat parameters, their
// gradients and the optimizer in the original precision; buffer_dtype casts the buffers.
//
// The module's units must be called through their holders or a Sequential (`layer(x)`), as
// forward hooks need (Module::register_forward_hook); every rank must run the same units in
// the same order (the collectives match by order, as in PyTorch).
//
//   namespace fsdp = ember::distributed::fsdp;
//   fsdp::FullyShardedDataParallelOptions o;
//   o.auto_wrap_policy = fsdp::ModuleWrapPolicy<torch::nn::TransformerEncoderLayerImpl>();
//   fsdp::FullyShardedDataParallel<Net> model(net, o);      // after init_process_group
//   torch::optim::AdamW opt(model.parameters(), 1e-3);      // the local shards
//   loss_fn(model(x), y).backward();  opt.step();
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "ember/distributed/distributed.h"
#include "ember/nn/module.h"
#include "ember/optim/optimizer.h"

namespace ember::distributed::fsdp {

enum class ShardingStrategy { FULL_SHARD, SHARD_GRAD_OP, NO_SHARD, HYBRID_SHARD };
// NONE is PyTorch's backward_prefetch=None.
enum class BackwardPrefetch { NONE, BACKWARD_PRE, BACKWARD_POST };

struct MixedPrecision {
  std::optional<ScalarType> param_dtype;   // gathered parameters and the computation
  std::optional<ScalarType> reduce_dtype;  // gradient reduction (default: param_dtype)
  std::optional<ScalarType> buffer_dtype;  // buffers
};

struct CPUOffload {
  bool offload_params = false;  // flat parameters, their gradients and the optimizer on the CPU
};

// PyTorch's auto_wrap_policy callable: asked with recurse = true whether to look into a
// module's children, and with recurse = false whether to make the module a unit;
// nonwrapped_numel counts its parameters not already in nested units.
using AutoWrapPolicy = std::function<bool(const nn::Module& module, bool recurse, int64_t nonwrapped_numel)>;

// Units of at least min_num_params parameters not already wrapped (PyTorch's default 1e8).
AutoWrapPolicy size_based_auto_wrap_policy(int64_t min_num_params = 100000000);
// Units: the modules for which is_unit answers true.
AutoWrapPolicy module_wrap_policy(std::function<bool(const nn::Module&)> is_unit);
// Units: the modules of the given implementation types (PyTorch's ModuleWrapPolicy /
// transformer_auto_wrap_policy), e.g. ModuleWrapPolicy<torch::nn::TransformerEncoderLayerImpl>().
template <class... Impl>
AutoWrapPolicy ModuleWrapPolicy() {
  return module_wrap_policy([](const nn::Module& m) { return (... || (dynamic_cast<const Impl*>(&m) != nullptr)); });
}

// Activation checkpointing of the submodules for which check_fn answers true (PyTorch's
// apply_activation_checkpointing): their calls run through ember::utils::checkpoint, so their
// intermediate tensors are recomputed in backward instead of kept. Works with or without FSDP
// (a unit's parameters are gathered before its recomputation); call it before or after wrapping.
void apply_activation_checkpointing(nn::Module& root, const std::function<bool(const nn::Module&)>& check_fn);

struct FullyShardedDataParallelOptions {
  ShardingStrategy sharding_strategy = ShardingStrategy::FULL_SHARD;
  BackwardPrefetch backward_prefetch = BackwardPrefetch::BACKWARD_PRE;
  bool forward_prefetch = false;
  // At most two gathers issued ahead of their use (PyTorch's rate limiter); later prefetches wait.
  bool limit_all_gathers = true;
  MixedPrecision mixed_precision;
  CPUOffload cpu_offload;
  AutoWrapPolicy auto_wrap_policy;  // empty: the root is the only unit
  // Broadcast rank 0's parameters and buffers at construction (PyTorch's default: false, so
  // every rank must initialize the model identically, e.g. with the same seed).
  bool sync_module_states = false;
  // HYBRID_SHARD only: the group a unit is sharded over and the one its shards are replicated
  // over (both or neither; default from LOCAL_WORLD_SIZE).
  Group intra_node_group, inter_node_group;
  // Deferred initialization: parameters and buffers on the meta device (a model built after
  // set_default_device(kMeta)) are materialized one unit at a time on device_id (default: the
  // CPU), each module owning some passed to param_init_fn (default: default_param_init_fn), then
  // the unit is sharded, so no rank ever holds more than one unit unsharded.
  std::function<void(nn::Module&)> param_init_fn;
  std::optional<Device> device_id;
};

// Re-initializes a built-in module's own parameters and buffers as its constructor does
// (PyTorch's reset_parameters: Linear, Conv*/ConvTranspose*, Embedding, EmbeddingBag, LayerNorm,
// GroupNorm, BatchNorm*/InstanceNorm*, MultiheadAttention, RNN/LSTM/GRU and their cells); an
// error naming the module for other types, which need an explicit param_init_fn.
void default_param_init_fn(nn::Module& module);

namespace detail {
class FsdpState;
}

// The machinery for one root module (independent of its type); FullyShardedDataParallel holds one.
class FsdpRuntime {
 public:
  FsdpRuntime(std::shared_ptr<nn::Module> root, Group group, FullyShardedDataParallelOptions options);
  ~FsdpRuntime();
  FsdpRuntime(const FsdpRuntime&) = delete;
  FsdpRuntime& operator=(const FsdpRuntime&) = delete;

  void pre_root_forward();
  Tensor cast_input(const Tensor& t) const;  // MixedPrecision's cast of the root's inputs
  void post_root_forward(const std::vector<Tensor>& outputs);

  std::vector<Tensor> parameters() const;
  OrderedDict<std::string, Tensor> named_parameters() const;
  void zero_grad(bool set_to_none = true);
  void set_sync(bool on);
  bool sync() const;
  double clip_grad_norm_(double max_norm, double norm_type = 2.0);

  OrderedDict<std::string, Tensor> full_state_dict(bool rank0_only, bool offload_to_cpu);
  void load_full_state_dict(const OrderedDict<std::string, Tensor>& state);
  void save_sharded_state_dict(const std::string& dir);
  void load_sharded_state_dict(const std::string& dir);
  void summon_full_params(bool on, bool writeback);
  optim::OptimizerStateDict full_optim_state_dict(const optim::Optimizer& optimizer, bool rank0_only);
  void load_full_optim_state_dict(optim::Optimizer& optimizer, const optim::OptimizerStateDict& full);

  // For tests and benchmarks: the units' module names ("" for the root), in creation order
  // (nested units before the units holding them, the root last).
  std::vector<std::string> unit_names() const;
  size_t unsharded_units() const;

 private:
  std::shared_ptr<detail::FsdpState> state_;  // shared: its hooks hold weak references
};

template <class ModuleHolder>
class FullyShardedDataParallel {
 public:
  explicit FullyShardedDataParallel(ModuleHolder module, FullyShardedDataParallelOptions options = {},
                                    Group group = nullptr)
      : module_(std::move(module)),
        runtime_(std::make_unique<FsdpRuntime>(module_.ptr(), std::move(group), std::move(options))) {}

  template <class... Args>
  auto forward(Args&&... args) {
    runtime_->pre_root_forward();
    auto cast = [this](auto&& a) -> decltype(auto) {
      if constexpr (std::is_same_v<std::decay_t<decltype(a)>, Tensor>) return runtime_->cast_input(a);
      else return std::forward<decltype(a)>(a);
    };
    auto result = module_->forward(cast(std::forward<Args>(args))...);
    std::vector<Tensor> outputs;
    nn::detail::collect_tensors(result, outputs);
    runtime_->post_root_forward(outputs);
    return result;
  }
  template <class... Args>
  auto operator()(Args&&... args) {
    return forward(std::forward<Args>(args)...);
  }

  ModuleHolder& module() { return module_; }
  // The flat parameters (this rank's shards): what the optimizer updates.
  std::vector<Tensor> parameters() const { return runtime_->parameters(); }
  OrderedDict<std::string, Tensor> named_parameters() const { return runtime_->named_parameters(); }
  // PyTorch's default set_to_none = true.
  void zero_grad(bool set_to_none = true) { runtime_->zero_grad(set_to_none); }
  // The total gradient norm over every rank's shards, gradients scaled to max_norm when above it
  // (FSDP.clip_grad_norm_). Returns the total norm.
  double clip_grad_norm_(double max_norm, double norm_type = 2.0) {
    return runtime_->clip_grad_norm_(max_norm, norm_type);
  }

  // The whole model's parameters and buffers under their module names (FULL_STATE_DICT):
  // every rank takes part; with rank0_only the others get an empty dict.
  OrderedDict<std::string, Tensor> state_dict(bool rank0_only = false, bool offload_to_cpu = true) {
    return runtime_->full_state_dict(rank0_only, offload_to_cpu);
  }
  // From a full state dict (every rank passes one): each rank keeps its shard.
  void load_state_dict(const OrderedDict<std::string, Tensor>& state) { runtime_->load_full_state_dict(state); }
  // SHARDED_STATE_DICT on disk: one safetensors file per rank and an index (index.json),
  // loadable by any number of ranks.
  void save_sharded_state_dict(const std::string& dir) { runtime_->save_sharded_state_dict(dir); }
  void load_sharded_state_dict(const std::string& dir) { runtime_->load_sharded_state_dict(dir); }

  // The optimizer's state as if it optimized the unwrapped module (FSDP.optim_state_dict):
  // parameters numbered in module->parameters() order, state tensors gathered and unflattened,
  // so a plain optimizer over the module loads it, and so does FSDP on any number of ranks.
  // Every rank takes part; with rank0_only the others get an empty dict.
  optim::OptimizerStateDict optim_state_dict(const optim::Optimizer& optimizer, bool rank0_only = false) {
    return runtime_->full_optim_state_dict(optimizer, rank0_only);
  }
  // Loads such a dict (from FSDP or a plain optimizer) into an optimizer over parameters().
  void load_optim_state_dict(optim::Optimizer& optimizer, const optim::OptimizerStateDict& full) {
    runtime_->load_full_optim_state_dict(optimizer, full);
  }

  // Gradients accumulate unsharded and locally while the guard lives (FSDP.no_sync()).
  class NoSync {
   public:
    explicit NoSync(FsdpRuntime& r) : r_(r), previous_(r.sync()) { r_.set_sync(false); }
    ~NoSync() { r_.set_sync(previous_); }
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    FsdpRuntime& r_;
    bool previous_;
  };
  [[nodiscard]] std::unique_ptr<NoSync> no_sync() { return std::make_unique<NoSync>(*runtime_); }

  // The module's own parameters hold the full values while the guard lives
  // (FSDP.summon_full_params); with writeback, changes to them go back to the shards.
  class FullParams {
   public:
    FullParams(FsdpRuntime& r, bool writeback) : r_(r), writeback_(writeback) { r_.summon_full_params(true, writeback); }
    ~FullParams() { r_.summon_full_params(false, writeback_); }  // local copies only: no collective
    FullParams(const FullParams&) = delete;
    FullParams& operator=(const FullParams&) = delete;

   private:
    FsdpRuntime& r_;
    bool writeback_;
  };
  [[nodiscard]] std::unique_ptr<FullParams> summon_full_params(bool writeback = true) {
    return std::make_unique<FullParams>(*runtime_, writeback);
  }

  FsdpRuntime& runtime() { return *runtime_; }

 private:
  ModuleHolder module_;
  std::unique_ptr<FsdpRuntime> runtime_;
};

}  // namespace ember::distributed::fsdp
