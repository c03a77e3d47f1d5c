// FullyShardedDataParallel (fsdp.h, Note [FSDP flat parameters]).
#include "ember/distributed/fsdp.h"

#include <algorithm>
#include <cmath>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "ember/autograd/autograd_meta.h"
#include "ember/autograd/callbacks.h"
#include "ember/autograd/checkpoint.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/json.h"
#include "ember/core/warning.h"
#include "ember/distributed/ddp.h"
#include "ember/nn/modules.h"
#include "ember/ops/functions.h"
#include "ember/serialize/atomic_file.h"
#include "ember/serialize/safetensors.h"

namespace ember::distributed::fsdp {

AutoWrapPolicy size_based_auto_wrap_policy(int64_t min_num_params) {
  return [min_num_params](const nn::Module&, bool recurse, int64_t nonwrapped_numel) {
    return recurse ? true : nonwrapped_numel >= min_num_params;
  };
}

AutoWrapPolicy module_wrap_policy(std::function<bool(const nn::Module&)> is_unit) {
  EMBER_CHECK(is_unit != nullptr, "module_wrap_policy: the predicate is empty");
  return [is_unit = std::move(is_unit)](const nn::Module& m, bool recurse, int64_t) {
    return recurse ? true : is_unit(m);
  };
}

void apply_activation_checkpointing(nn::Module& root, const std::function<bool(const nn::Module&)>& check_fn) {
  EMBER_CHECK(check_fn != nullptr, "apply_activation_checkpointing: check_fn is empty");
  root.apply([&](nn::Module& m) {
    if (&m == &root || !check_fn(m)) return;
    // A frozen block called on inputs that need no gradient runs plainly: nothing would flow
    // back through it, and its outputs must not claim to require grad (PyTorch's reentrant
    // checkpoint returns such outputs without a graph too).
    nn::Module* self = &m;  // the wrapper lives in m's hooks: m outlives it
    m.set_call_wrapper([self](const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& run,
                              const std::vector<Tensor>& inputs) {
      const auto needs_grad = [](const Tensor& t) { return t.defined() && t.requires_grad(); };
      const std::vector<Tensor> params = self->parameters();
      if (std::none_of(inputs.begin(), inputs.end(), needs_grad) && std::none_of(params.begin(), params.end(), needs_grad))
        return run(inputs);
      return utils::checkpoint(run, inputs);
    });
  });
}

void default_param_init_fn(nn::Module& m) {
  NoGradGuard no_grad;
  if (auto* p = dynamic_cast<nn::LinearImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::Conv1dImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::Conv2dImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::Conv3dImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::ConvTranspose1dImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::ConvTranspose2dImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::ConvTranspose3dImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::EmbeddingBagImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::EmbeddingImpl*>(&m)) {  // PyTorch's Embedding.reset_parameters
    p->weight.normal_();
    if (p->options.padding_idx()) p->weight[*p->options.padding_idx()].fill_(0);
    return;
  }
  if (auto* p = dynamic_cast<nn::LayerNormImpl*>(&m)) {
    if (p->weight.defined()) p->weight.fill_(1);
    if (p->bias.defined()) p->bias.zero_();
    return;
  }
  if (auto* p = dynamic_cast<nn::GroupNormImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::BatchNorm1dImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::BatchNorm2dImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::BatchNorm3dImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::InstanceNorm1dImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::InstanceNorm2dImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::InstanceNorm3dImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::MultiheadAttentionImpl*>(&m)) return p->_reset_parameters();
  if (auto* p = dynamic_cast<nn::RNNImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::LSTMImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::GRUImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::RNNCellImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::LSTMCellImpl*>(&m)) return p->reset_parameters();
  if (auto* p = dynamic_cast<nn::GRUCellImpl*>(&m)) return p->reset_parameters();
  EMBER_ERROR("FullyShardedDataParallel: cannot initialize ", m.name(), ", which has parameters or buffers on the "
              "meta device: default_param_init_fn knows ember's built-in modules only; pass param_init_fn");
}

namespace detail {

namespace {

constexpr int kMaxPrefetchedGathers = 2;
constexpr size_t kMaxReductionsInFlight = 2;
constexpr const char* kShardedFormat = "ember.fsdp.sharded_state_dict/1";

// Points `p` at `data` (storage, device, dtype, geometry) without bumping its version: the
// tensors backward saved from p see the gathered buffer again (Note [FSDP flat parameters]).
// Tensor::set_data does the same and bumps the version, which would fail those saved tensors.
void point_at(const Tensor& p, const Tensor& data) {
  TensorImpl* impl = p.unsafeGetTensorImpl();
  const TensorImpl* src = data.unsafeGetTensorImpl();
  impl->set_storage(src->storage());
  impl->set_device(src->device());
  impl->set_dtype(src->dtype());
  impl->set_sizes_and_strides(src->sizes(), src->strides());
  impl->set_storage_offset(src->storage_offset());
}

int64_t numel_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

const char* strategy_name(ShardingStrategy s) {
  switch (s) {
    case ShardingStrategy::FULL_SHARD: return "FULL_SHARD";
    case ShardingStrategy::SHARD_GRAD_OP: return "SHARD_GRAD_OP";
    case ShardingStrategy::NO_SHARD: return "NO_SHARD";
    case ShardingStrategy::HYBRID_SHARD: return "HYBRID_SHARD";
  }
  return "?";
}

}  // namespace

struct Entry {
  Tensor param;  // the module's own parameter tensor
  std::string fqn;
  std::vector<int64_t> shape;
  int64_t offset = 0, numel = 0;  // in the unit's flat buffer
  unsigned hook = 0;
};

struct Unit {
  enum State { SHARDED, GATHERING, UNSHARDED };
  size_t index = 0;
  std::shared_ptr<nn::Module> module;
  std::string name;  // "" for the root
  bool is_root = false;
  std::vector<Entry> entries;
  ScalarType dtype = kFloat;          // the parameters' own dtype (flat parameter, optimizer)
  ScalarType compute_dtype = kFloat;  // gathered parameters (MixedPrecision.param_dtype)
  Device device = kCPU;               // where the module computes
  bool requires_grad = true;
  int64_t numel = 0, padded = 0, shard = 0;
  Tensor flat;  // this rank's shard: the optimizer's parameter
  // Gathering / gathered.
  State state = SHARDED;
  Tensor full, gather_src;
  // The gathered buffer's storage: the same StorageImpl for the unit's life, its memory freed on
  // reshard and allocated again on unshard, so that views backward saved of the parameters (a
  // weight's transpose) do not keep a freed unit's memory (Note [FSDP flat parameters]).
  Storage full_storage;
  std::shared_ptr<Work> gather_work;
  bool full_precision = false;  // gathered in dtype (summon_full_params), not compute_dtype
  // Per iteration.
  bool ran_forward = false, hooked = false, pre_backward_done = false, no_grad_forward = false;
  // Per backward: each parameter's gradient as autograd produced it, held until the unit's last
  // one arrives; then the gathered parameters are freed and the gradients copied into one flat
  // buffer for the reduction (Note [FSDP gradient buffers]).
  std::vector<Tensor> grads;
  bool has_grads = false;
  std::vector<bool> ready;
  size_t pending = 0;
  bool reduce_launched = false;
  bool no_sync_counting = false;  // a no_sync backward counts the unit's gradients (to free it)
  Tensor reduced;  // the reduced shard (reduce dtype)
  std::shared_ptr<Work> reduce_work;
  unsigned pre_hook = 0, post_hook = 0;
};

class FsdpState : public std::enable_shared_from_this<FsdpState> {
 public:
  FsdpState(std::shared_ptr<nn::Module> root, Group group, FullyShardedDataParallelOptions options);
  ~FsdpState();
  void build();

  void pre_root_forward();
  Tensor cast_input(const Tensor& t) const;
  void post_root_forward(const std::vector<Tensor>& outputs);

  std::vector<Tensor> parameters() const;
  OrderedDict<std::string, Tensor> named_parameters() const;
  void zero_grad(bool set_to_none);
  void set_sync(bool on) { sync_ = on; }
  bool sync() const { return sync_; }
  double clip_grad_norm_(double max_norm, double norm_type);
  OrderedDict<std::string, Tensor> full_state_dict(bool rank0_only, bool offload_to_cpu);
  void load_full_state_dict(const OrderedDict<std::string, Tensor>& state);
  void save_sharded_state_dict(const std::string& dir);
  void load_sharded_state_dict(const std::string& dir);
  void summon_full_params(bool on, bool writeback);
  optim::OptimizerStateDict full_optim_state_dict(const optim::Optimizer& opt, bool rank0_only);
  void load_full_optim_state_dict(optim::Optimizer& opt, const optim::OptimizerStateDict& full);
  std::vector<std::string> unit_names() const;
  size_t unsharded_units() const;

 private:
  bool shards() const { return options_.sharding_strategy != ShardingStrategy::NO_SHARD; }
  bool reshard_after_forward() const {
    return options_.sharding_strategy == ShardingStrategy::FULL_SHARD ||
           options_.sharding_strategy == ShardingStrategy::HYBRID_SHARD;
  }
  std::string what() const;
  void make_groups();
  void plan_units();
  void init_unit(Unit& u);
  void check_unit(const Unit& u) const;
  void materialize(Unit& u);
  void install_hooks(Unit& u);
  Tensor full_from_flat_shards(Unit& u, bool full_precision);  // synchronous gather (original dtype)
  Tensor gather_flat(const Unit& u, const Tensor& shard);        // a shard-shaped tensor, gathered
  // The optimizer's parameters as units (an error for one that is no flat parameter here).
  std::vector<Unit*> units_of(const optim::Optimizer& opt) const;
  std::map<std::string, int64_t> original_indices() const;

  void issue_gather(Unit& u, bool full_precision = false);
  void unshard(Unit& u, bool full_precision = false);
  void reshard(Unit& u);
  void drop_gathered(Unit& u);
  void prefetch(Unit* u);
  Unit* next_in_forward(const Unit& u);
  Unit* next_in_backward(const Unit& u);

  void pre_forward(Unit& u);
  void post_forward(Unit& u, const std::vector<Tensor>& outputs);
  void hook_outputs(Unit& u, const std::vector<Tensor>& outputs);
  void pre_backward(Unit& u);
  void start_backward();
  void on_grad(Unit& u, size_t k);
  void on_grad_no_sync(Unit& u, size_t k);
  size_t reached_parameters(const Unit& u) const;
  Tensor flatten_grads(Unit& u);
  void launch_reduce(Unit& u);
  void finalize_backward();

  std::shared_ptr<nn::Module> root_;
  Group group_;  // the whole group (nullptr: the default one)
  FullyShardedDataParallelOptions options_;
  Group shard_group_, replicate_group_;
  int shard_size_ = 1, shard_rank_ = 0, replica_rank_ = 0;
  bool replicated_ = false;  // gradients are also averaged over replicate_group_
  std::vector<std::unique_ptr<Unit>> units_;  // nested units first, the root last
  std::vector<Unit*> forward_order_;          // nested units in the order their forwards ran
  bool order_recorded_ = false;
  std::vector<std::pair<std::string, ScalarType>> buffer_dtypes_;  // buffers cast by buffer_dtype
  bool sync_ = true, in_root_forward_ = false, backward_expected_ = false, backward_started_ = false;
  bool warned_unhooked_ = false, summoned_ = false;
  std::vector<Unit*> reduce_order_;  // units in the order their reductions were launched
  size_t drained_ = 0;               // reduce_order_[0, drained_) have their gradients
  void drain_reductions(size_t keep);
};

FsdpState::FsdpState(std::shared_ptr<nn::Module> root, Group group, FullyShardedDataParallelOptions options)
    : root_(std::move(root)), group_(std::move(group)), options_(std::move(options)) {
  EMBER_CHECK(root_ != nullptr, "FullyShardedDataParallel: the module is empty");
  EMBER_CHECK(is_initialized(), "FullyShardedDataParallel: call init_process_group first");
  EMBER_CHECK(!is_non_group_member(group_), "FullyShardedDataParallel: this rank is not a member of the given "
              "process group");
  const MixedPrecision& mp = options_.mixed_precision;
  for (const auto& d : {mp.param_dtype, mp.reduce_dtype, mp.buffer_dtype})
    EMBER_CHECK_TYPE(!d || isFloatingType(*d), "FullyShardedDataParallel: MixedPrecision dtypes must be floating, "
                     "got ", *d);
}

void FsdpState::build() {
  make_groups();
  plan_units();
  {
    std::vector<Tensor> all;
    std::vector<std::string> names;
    for (auto& u : units_)
      for (const Entry& e : u->entries) all.push_back(e.param), names.push_back(e.fqn);
    nn::parallel::verify_same_parameters(all, names, group_, "FullyShardedDataParallel");
  }
  for (auto& u : units_) check_unit(*u);
  for (auto& u : units_) {
    materialize(*u);
    init_unit(*u);
  }
  // Buffers: rank 0's when asked, then buffer_dtype.
  NoGradGuard no_grad;
  if (options_.sync_module_states) nn::parallel::broadcast_from_rank0(root_->buffers(), group_);
  if (const auto bd = options_.mixed_precision.buffer_dtype) {
    for (auto& item : root_->named_buffers()) {
      Tensor b = item.value();
      if (!b.defined() || !isFloatingType(b.scalar_type()) || b.scalar_type() == *bd) continue;
      buffer_dtypes_.emplace_back(item.key(), b.scalar_type());
      nn::detail::set_data(b, b.to(*bd));
    }
  }
  for (auto& u : units_) install_hooks(*u);
}

FsdpState::~FsdpState() {
  for (auto& u : units_) {
    if (!u->is_root) {
      u->module->remove_forward_hook(u->pre_hook);
      u->module->remove_forward_hook(u->post_hook);
    }
    for (Entry& e : u->entries)
      if (e.hook) autograd::remove_post_accumulate_grad_hook(e.param, e.hook);
  }
}

std::string FsdpState::what() const {
  return ember::detail::str_cat("FullyShardedDataParallel (", strategy_name(options_.sharding_strategy), ", rank ",
                                get_rank(group_), " of ", get_world_size(group_), ")");
}

void FsdpState::make_groups() {
  const auto strategy = options_.sharding_strategy;
  const bool given = options_.intra_node_group != nullptr || options_.inter_node_group != nullptr;
  EMBER_CHECK(strategy == ShardingStrategy::HYBRID_SHARD || !given, "FullyShardedDataParallel: intra_node_group / "
              "inter_node_group are for HYBRID_SHARD, not ", strategy_name(strategy));
  if (strategy == ShardingStrategy::NO_SHARD) {
    shard_size_ = 1, shard_rank_ = 0, replica_rank_ = get_rank(group_);
    replicate_group_ = group_;  // nullptr: the default group
    replicated_ = get_world_size(group_) > 1;
    return;
  }
  if (strategy != ShardingStrategy::HYBRID_SHARD) {
    shard_group_ = group_;
  } else if (given) {
    EMBER_CHECK(options_.intra_node_group && options_.inter_node_group, "FullyShardedDataParallel: HYBRID_SHARD "
                "needs both intra_node_group and inter_node_group, or neither");
    shard_group_ = options_.intra_node_group, replicate_group_ = options_.inter_node_group;
    EMBER_CHECK(get_world_size(shard_group_) * get_world_size(replicate_group_) == get_world_size(group_),
                "FullyShardedDataParallel: HYBRID_SHARD groups of ", get_world_size(shard_group_), " and ",
                get_world_size(replicate_group_), " ranks do not cover the ", get_world_size(group_), " ranks");
  } else {
    // One node per LOCAL_WORLD_SIZE consecutive ranks (torchrun's numbering).
    EMBER_CHECK(group_ == nullptr, "FullyShardedDataParallel: HYBRID_SHARD over a subgroup needs explicit "
                "intra_node_group and inter_node_group");
    const int world = get_world_size(), rank = get_rank();
    int local = world;
    if (const char* v = std::getenv("LOCAL_WORLD_SIZE")) local = std::max(1, std::atoi(v));
    EMBER_CHECK(world % local == 0, "FullyShardedDataParallel: HYBRID_SHARD: LOCAL_WORLD_SIZE=", local,
                " does not divide the world size ", world);
    for (int node = 0; node < world / local; ++node) {  // every rank creates every group, in order
      std::vector<int> ranks;
      for (int r = 0; r < local; ++r) ranks.push_back(node * local + r);
      Group g = new_group(ranks);
      if (!is_non_group_member(g)) shard_group_ = g;
    }
    for (int l = 0; l < local; ++l) {
      std::vector<int> ranks;
      for (int node = 0; node < world / local; ++node) ranks.push_back(node * local + l);
      Group g = new_group(ranks);
      if (!is_non_group_member(g)) replicate_group_ = g;
    }
    (void)rank;
  }
  shard_size_ = get_world_size(shard_group_);
  shard_rank_ = get_rank(shard_group_);
  replica_rank_ = replicate_group_ ? get_rank(replicate_group_) : 0;
  replicated_ = replicate_group_ && get_world_size(replicate_group_) > 1;
}

// Units by the auto-wrap policy, post-order (PyTorch's _recursive_wrap); parameters go to the
// innermost unit holding them, each parameter once.
void FsdpState::plan_units() {
  // Each parameter's unit and name. A parameter tied across units (the same tensor under two
  // names in two units, e.g. an embedding and an output head) would be empty in one of them
  // whenever the other is sharded: an error naming both.
  std::map<const TensorImpl*, std::pair<size_t, std::string>> claimed;
  std::function<void(const std::shared_ptr<nn::Module>&, const std::string&, bool)> visit =
      [&](const std::shared_ptr<nn::Module>& m, const std::string& prefix, bool is_root) {
        auto own_numel = [&] {
          int64_t n = 0;
          for (const Tensor& p : m->parameters())
            if (!claimed.contains(p.unsafeGetTensorImpl())) n += p.numel();
          return n;
        };
        if (options_.auto_wrap_policy && options_.auto_wrap_policy(*m, true, own_numel()))
          for (auto& child : m->named_children())
            visit(child.value(), prefix.empty() ? child.key() : prefix + "." + child.key(), false);
        const bool unit = is_root || (options_.auto_wrap_policy && options_.auto_wrap_policy(*m, false, own_numel()));
        if (!unit) return;
        auto u = std::make_unique<Unit>();
        u->index = units_.size();
        u->module = m, u->name = prefix, u->is_root = is_root;
        for (auto& item : m->named_parameters()) {
          const Tensor& p = item.value();
          if (!p.defined()) continue;
          const std::string fqn = prefix.empty() ? item.key() : prefix + "." + item.key();
          auto [it, fresh] = claimed.emplace(p.unsafeGetTensorImpl(), std::make_pair(u->index, fqn));
          if (!fresh) {
            EMBER_CHECK(it->second.first == u->index || it->second.second == fqn, what(), ": parameter ", fqn,
                        " is the same tensor as ", it->second.second, ", which another unit holds; put the modules "
                        "that share it in one unit (wrap their common parent)");
            continue;
          }
          Entry e;
          e.param = p;
          e.fqn = fqn;
          e.shape = p.sizes().vec();
          e.numel = p.numel();
          u->entries.push_back(std::move(e));
        }
        units_.push_back(std::move(u));
      };
  visit(root_, "", true);
}

// Deferred initialization: the modules of u (not of nested units) that own tensors on the meta
// device get real, uninitialized ones, then param_init_fn fills them.
void FsdpState::materialize(Unit& u) {
  std::set<const nn::Module*> nested;
  for (const auto& v : units_)
    if (v.get() != &u) nested.insert(v->module.get());
  std::vector<nn::Module*> owned;
  std::function<void(nn::Module&)> walk = [&](nn::Module& m) {
    owned.push_back(&m);
    for (const auto& c : m.children())
      if (!nested.contains(c.get())) walk(*c);
  };
  walk(*u.module);
  const Device device = options_.device_id.value_or(Device(kCPU));
  EMBER_CHECK(!device.is_meta(), what(), ": device_id must be a real device, got meta");
  for (nn::Module* m : owned) {
    bool any = false;
    NoGradGuard no_grad;
    for (auto& list : {m->named_parameters(/*recurse=*/false), m->named_buffers(/*recurse=*/false)})
      for (const auto& item : list) {
        const Tensor& t = item.value();
        if (!t.defined() || !t.is_meta()) continue;
        any = true;
        point_at(t, empty(t.sizes(), t.options().device(device).requires_grad(false)));
      }
    if (!any) continue;
    if (options_.param_init_fn) options_.param_init_fn(*m);
    else default_param_init_fn(*m);
  }
}

// What flattening a unit needs: one dtype, one device (meta aside: materialized later), all
// parameters trainable or all frozen. Checked for every unit before any is sharded, so a
// refused module is left as it was.
void FsdpState::check_unit(const Unit& u) const {
  if (u.entries.empty()) return;
  const Entry& first = u.entries.front();
  const std::string unit = u.name.empty() ? std::string("the root module") : "unit " + u.name;
  for (const Entry& e : u.entries) {
    EMBER_CHECK_TYPE(e.param.scalar_type() == first.param.scalar_type(), what(), ": the parameters of ", unit,
                     " must share one dtype (they are flattened together): ", first.fqn, " is ",
                     first.param.scalar_type(), ", ", e.fqn, " is ", e.param.scalar_type());
    EMBER_CHECK(e.param.device() == first.param.device() || e.param.is_meta() || first.param.is_meta(), what(),
                ": the parameters of ", unit, " must be on one device: ", first.fqn, " is on ", first.param.device(),
                ", ", e.fqn, " on ", e.param.device());
    EMBER_CHECK(e.param.requires_grad() == first.param.requires_grad(), what(), ": the parameters of ", unit,
                " must all require grad or all not (", e.fqn, " differs); wrap frozen modules in their own unit");
  }
}

void FsdpState::init_unit(Unit& u) {
  if (u.entries.empty()) return;
  check_unit(u);
  const Tensor& first = u.entries.front().param;
  u.dtype = first.scalar_type();
  u.device = first.device();
  u.requires_grad = first.requires_grad();
  for (const Entry& e : u.entries)
    EMBER_CHECK(!e.param.is_meta(), what(), ": parameter ", e.fqn, " is on the meta device");
  const auto pd = options_.mixed_precision.param_dtype;
  u.compute_dtype = pd && isFloatingType(u.dtype) ? *pd : u.dtype;
  int64_t off = 0;
  for (Entry& e : u.entries) e.offset = off, off += e.numel;
  u.numel = off;
  u.padded = (u.numel + shard_size_ - 1) / shard_size_ * shard_size_;
  u.shard = u.padded / shard_size_;

  NoGradGuard no_grad;
  std::vector<Tensor> parts;
  for (const Entry& e : u.entries) parts.push_back(e.param.detach().reshape({-1}));
  if (u.padded > u.numel) parts.push_back(zeros({u.padded - u.numel}, first.options().requires_grad(false)));
  Tensor full = cat(parts);
  if (options_.sync_module_states && get_world_size(group_) > 1)
    broadcast(full, get_global_rank(group_, 0), group_);
  Tensor shard = full.narrow(0, int64_t(shard_rank_) * u.shard, u.shard).clone();
  if (options_.cpu_offload.offload_params) shard = shard.to(kCPU);
  u.flat = shard.set_requires_grad(u.requires_grad);
  u.state = Unit::UNSHARDED;  // so that reshard points the parameters at their sharded form
  reshard(u);
}

void FsdpState::install_hooks(Unit& u) {
  if (u.entries.empty()) return;
  std::weak_ptr<FsdpState> weak = weak_from_this();
  Unit* up = &u;
  if (!u.is_root) {
    u.pre_hook = u.module->register_forward_pre_hook([weak, up](nn::Module&) {
      if (auto s = weak.lock()) s->pre_forward(*up);
    });
    u.post_hook = u.module->register_forward_hook([weak, up](nn::Module&, const std::vector<Tensor>& outputs) {
      if (auto s = weak.lock()) s->post_forward(*up, outputs);
    });
  }
  if (!u.requires_grad) return;
  u.ready.assign(u.entries.size(), false);
  u.grads.assign(u.entries.size(), Tensor());
  for (size_t k = 0; k < u.entries.size(); ++k)
    u.entries[k].hook = autograd::register_post_accumulate_grad_hook(u.entries[k].param, [weak, up, k](const Tensor&) {
      if (auto s = weak.lock()) s->on_grad(*up, k);
    });
}

// ---- gathering and freeing ----------------------------------------------------------

namespace {
// A tensor of `numel` elements of `dtype` over `storage`, whose memory is (re)allocated here.
Tensor refill(Storage& storage, int64_t numel, ScalarType dtype, Device device) {
  const size_t nbytes = size_t(numel) * element_size(dtype);
  if (!storage.defined()) {
    storage = Storage::allocate(nbytes, device);
    storage.unsafeGetStorageImpl()->inference = false;  // FSDP's buffer, whatever mode first gathered it
  } else if (storage.data() == nullptr || storage.nbytes() != nbytes) {
    Storage fresh = Storage::allocate(nbytes, device);
    StorageImpl* impl = storage.unsafeGetStorageImpl();
    impl->data_ptr = std::move(fresh.unsafeGetStorageImpl()->data_ptr);
    impl->nbytes = nbytes;
  }
  auto impl = make_intrusive<TensorImpl>(storage, dtype, storage.device());
  impl->set_sizes_contiguous({numel});
  return Tensor(std::move(impl));
}

// Frees the memory of `storage`, keeping the StorageImpl (and every view of it) in place.
void release(Storage& storage) {
  if (!storage.defined() || storage.data() == nullptr) return;
  StorageImpl* impl = storage.unsafeGetStorageImpl();
  const Device device = impl->data_ptr.device();
  impl->data_ptr = DataPtr(nullptr, nullptr, nullptr, device);
  impl->nbytes = 0;
}
}  // namespace

void FsdpState::issue_gather(Unit& u, bool full_precision) {
  if (u.state != Unit::SHARDED || u.entries.empty()) return;
  NoGradGuard no_grad;
  const ScalarType dt = full_precision ? u.dtype : u.compute_dtype;
  u.full_precision = full_precision;
  if (shard_size_ == 1 && dt == u.dtype && u.flat.device() == u.device) {
    u.full = u.flat.detach();  // NO_SHARD in the parameters' own dtype: the flat parameter itself
  } else if (shard_size_ == 1) {
    u.full = refill(u.full_storage, u.padded, dt, u.device);
    u.full.copy_(u.flat.detach());  // NO_SHARD cast or moved
  } else {
    Tensor src = u.flat.detach().to(u.device, dt);  // a copy only for offloaded or cast shards
    u.full = refill(u.full_storage, u.padded, dt, u.device);
    u.gather_src = src;
    u.gather_work = all_gather_into_tensor(u.full, src, shard_group_, /*async_op=*/true);
  }
  u.state = Unit::GATHERING;
}

void FsdpState::unshard(Unit& u, bool full_precision) {
  if (u.entries.empty()) return;
  if (u.state == Unit::GATHERING && u.full_precision != full_precision) {
    if (u.gather_work) u.gather_work->wait();
    u.gather_work.reset(), u.gather_src = Tensor(), u.full = Tensor();
    u.state = Unit::SHARDED;
  }
  if (u.state == Unit::UNSHARDED && u.full_precision == full_precision) return;
  if (u.state == Unit::UNSHARDED) reshard(u);  // held in the other precision
  issue_gather(u, full_precision);
  if (u.gather_work) u.gather_work->wait();
  u.gather_work.reset(), u.gather_src = Tensor();
  for (const Entry& e : u.entries) point_at(e.param, u.full.narrow(0, e.offset, e.numel).view(e.shape));
  u.state = Unit::UNSHARDED;
}

void FsdpState::reshard(Unit& u) {
  if (u.state != Unit::UNSHARDED || u.entries.empty()) return;
  if (shards()) {
    const Tensor none = empty({0}, u.flat.options().device(u.device).requires_grad(false));
    for (const Entry& e : u.entries) point_at(e.param, none);
  } else {
    // NO_SHARD: the parameters are views into the (whole) flat parameter between steps.
    for (const Entry& e : u.entries) point_at(e.param, u.flat.detach().narrow(0, e.offset, e.numel).view(e.shape));
  }
  u.full = Tensor();
  release(u.full_storage);
  u.state = Unit::SHARDED;
}

// Discards whatever was gathered (in flight or done: it predates a change of the shards) and
// points the parameters at their sharded form (NO_SHARD: views of the current flat parameter).
void FsdpState::drop_gathered(Unit& u) {
  if (u.entries.empty()) return;
  if (u.gather_work) {
    try {
      u.gather_work->wait();
    } catch (const std::exception&) {
    }
  }
  u.gather_work.reset(), u.gather_src = Tensor();
  u.state = Unit::UNSHARDED;
  reshard(u);
}

// Starts gathering `u` ahead of its use, unless too many gathers are already ahead.
void FsdpState::prefetch(Unit* u) {
  if (!u || u->state != Unit::SHARDED || u->entries.empty()) return;
  if (options_.limit_all_gathers) {
    int ahead = 0;
    for (auto& v : units_) ahead += v->state == Unit::GATHERING ? 1 : 0;
    if (ahead >= kMaxPrefetchedGathers) return;
  }
  issue_gather(*u);
}

Unit* FsdpState::next_in_forward(const Unit& u) {
  auto it = std::find(forward_order_.begin(), forward_order_.end(), &u);
  if (it == forward_order_.end() || ++it == forward_order_.end()) return nullptr;
  return *it;
}

Unit* FsdpState::next_in_backward(const Unit& u) {
  if (u.is_root) return forward_order_.empty() ? nullptr : forward_order_.back();
  auto it = std::find(forward_order_.begin(), forward_order_.end(), &u);
  if (it == forward_order_.end() || it == forward_order_.begin()) return nullptr;
  return *(it - 1);
}

// ---- forward ------------------------------------------------------------------------

void FsdpState::pre_root_forward() {
  EMBER_CHECK(!summoned_, what(), ": forward inside summon_full_params");
  // A backward that did not happen (evaluation with grad mode on): start afresh. Anything
  // gathered before now may predate an optimizer step.
  for (auto& u : units_) {
    drop_gathered(*u);
    u->ran_forward = u->hooked = u->pre_backward_done = u->no_grad_forward = false;
    if (u->reduce_work) {
      try {
        u->reduce_work->wait();
      } catch (const std::exception&) {
      }
    }
    u->reduce_work.reset(), u->reduced = Tensor(), u->reduce_launched = false;
  }
  drained_ = 0;
  if (!forward_order_.empty()) order_recorded_ = true;
  backward_expected_ = backward_started_ = false;
  reduce_order_.clear();
  in_root_forward_ = true;
  Unit& root = *units_.back();
  root.ran_forward = true;
  unshard(root);
  if (options_.forward_prefetch && !forward_order_.empty()) prefetch(forward_order_.front());
}

Tensor FsdpState::cast_input(const Tensor& t) const {
  const auto pd = options_.mixed_precision.param_dtype;
  if (!pd || !t.defined() || !isFloatingType(t.scalar_type()) || t.scalar_type() == *pd) return t;
  return t.to(*pd);
}

void FsdpState::post_root_forward(const std::vector<Tensor>& outputs) {
  in_root_forward_ = false;
  Unit& root = *units_.back();
  hook_outputs(root, outputs);
  backward_expected_ = root.hooked;
  for (auto& u : units_) backward_expected_ = backward_expected_ || u->hooked;
  // No backward will come (evaluation, or no output needs a gradient): free everything now.
  if (!backward_expected_)
    for (auto& u : units_) reshard(*u);
}

void FsdpState::pre_forward(Unit& u) {
  const bool recomputing = autograd::in_backward_pass();  // a checkpointed call run again in backward
  if (!recomputing && !order_recorded_ &&
      std::find(forward_order_.begin(), forward_order_.end(), &u) == forward_order_.end())
    forward_order_.push_back(&u);
  u.ran_forward = true;
  unshard(u);
  if (options_.forward_prefetch && !recomputing) prefetch(next_in_forward(u));
}

void FsdpState::post_forward(Unit& u, const std::vector<Tensor>& outputs) {
  // A recomputation inside backward (activation checkpointing through ember::utils::checkpoint
  // around the unit's call): its backward follows at once and needs the parameters.
  if (autograd::in_backward_pass()) return;
  // Run without grad (the first run of a checkpointed call): a recomputation in backward will
  // gather the unit again, so backward's start need not.
  if (!GradMode::is_enabled()) u.no_grad_forward = true;
  hook_outputs(u, outputs);
  // Without a backward to come the unit is freed whatever the strategy.
  if (reshard_after_forward() || !u.hooked) reshard(u);
}

void FsdpState::hook_outputs(Unit& u, const std::vector<Tensor>& outputs) {
  // Frozen units too: gradients flowing through them to earlier units read their parameters.
  if (!GradMode::is_enabled() || u.entries.empty()) return;
  std::weak_ptr<FsdpState> weak = weak_from_this();
  Unit* up = &u;
  for (const Tensor& t : outputs) {
    // A leaf output (a parameter returned as is) would keep the hook for good, and fire too late.
    if (!t.defined() || !t.requires_grad() || !t.grad_fn()) continue;
    t.register_hook([weak, up](const Tensor&) {
      if (auto s = weak.lock()) s->pre_backward(*up);
    });
    u.hooked = true;
  }
}

// ---- backward -----------------------------------------------------------------------

void FsdpState::start_backward() {
  if (backward_started_) return;
  backward_started_ = true;
  std::weak_ptr<FsdpState> weak = weak_from_this();
  autograd::queue_callback([weak] {
    if (auto s = weak.lock()) s->finalize_backward();
  });
  for (auto& u : units_) {
    for (Tensor& g : u->grads) g = Tensor();
    u->has_grads = false, u->pending = 0, u->reduce_launched = false, u->no_sync_counting = false;
    std::fill(u->ready.begin(), u->ready.end(), false);
    u->pending = u->requires_grad ? u->entries.size() : 0;
  }
  // Units whose outputs carried no hook (their forward returned no tensor that needs a gradient,
  // or they ran outside a call that runs hooks) are gathered now, for safety.
  for (auto& u : units_) {
    if (u->ran_forward && !u->hooked && !u->no_grad_forward && !u->entries.empty() && u->state != Unit::UNSHARDED) {
      if (!warned_unhooked_) {
        warned_unhooked_ = true;
        EMBER_WARN(what(), ": unit ", u->name, " produced no output that needs a gradient, so its parameters are "
                   "gathered at the start of backward (more memory than necessary)");
      }
      unshard(*u);
    }
  }
}

void FsdpState::pre_backward(Unit& u) {
  start_backward();
  if (u.pre_backward_done) return;
  u.pre_backward_done = true;
  unshard(u);
  if (options_.backward_prefetch == BackwardPrefetch::BACKWARD_PRE) prefetch(next_in_backward(u));
}

// The parameters of u this backward will reach: those the graph holds a gradient accumulator
// for (as a flat parameter's single accumulator fires once its used views are done, in
// PyTorch), so a parameter unused on some rank does not hold its unit back there.
size_t FsdpState::reached_parameters(const Unit& u) const {
  size_t live = 0;
  for (const Entry& x : u.entries) {
    const autograd::AutogradMeta* m = autograd::get_meta(x.param);
    live += m && !m->grad_accumulator_.expired() ? 1 : 0;
  }
  return live > 0 ? live : u.entries.size();
}

// no_sync: the gradient stays, unsharded, in the parameter's .grad (no reduction); FULL_SHARD and
// HYBRID_SHARD still free the unit once its parameters are done, as PyTorch does.
void FsdpState::on_grad_no_sync(Unit& u, size_t k) {
  start_backward();
  if (!u.no_sync_counting) {
    u.no_sync_counting = true;
    std::fill(u.ready.begin(), u.ready.end(), false);
    u.pending = reached_parameters(u);
  }
  if (u.ready[k]) return;
  u.ready[k] = true;
  if (--u.pending > 0) return;
  if (reshard_after_forward()) reshard(u);
}

void FsdpState::on_grad(Unit& u, size_t k) {
  if (!autograd::in_backward_pass()) return;
  if (!sync_) return on_grad_no_sync(u, k);
  start_backward();
  Entry& e = u.entries[k];
  Tensor& g = e.param.mutable_grad();
  if (!g.defined()) return;
  NoGradGuard no_grad;
  if (u.reduce_launched) {
    // A gradient after the unit's reduction (a layer used again, recomputed in a nested
    // backward): it is reduced with whatever else comes, at the end of backward.
    u.reduce_launched = false;
    std::fill(u.ready.begin(), u.ready.end(), false);
    u.pending = SIZE_MAX;
  }
  if (!u.has_grads) {
    u.has_grads = true;
    if (u.pending != SIZE_MAX) u.pending = reached_parameters(u);
  }
  // The parameter's .grad is not kept: the unit holds it (a second gradient in one backward is
  // added out of place, the first may be a buffer autograd shares under create_graph).
  Tensor& held = u.grads[k];
  held = held.defined() ? held.add(g) : std::move(g);
  g = Tensor();
  if (u.ready[k]) return;
  u.ready[k] = true;
  if (u.pending == SIZE_MAX || --u.pending > 0) return;
  if (shards()) reshard(u);  // before the flat gradient is allocated
  launch_reduce(u);
  if (options_.backward_prefetch == BackwardPrefetch::BACKWARD_POST) prefetch(next_in_backward(u));
}

// Note [FSDP gradient buffers]: the reduction needs a unit's gradient as one flat buffer of
// its padded size. Copying each gradient into it as it arrives kept, at the unit's last
// gradient, three unit-sized buffers at once: the gathered parameters, the flat gradient and the
// gradient autograd just produced (for the largest unit, a language model's head, that was
// the peak of the whole step). The gradients are now held as autograd gives them, the
// gathered parameters are freed once the last has come, and only then is the flat buffer
// made: two unit-sized buffers at most. A unit whose one gradient already fills its padded
// size (a single parameter whose size the world divides) is reduced from that gradient as it
// is, when nothing else holds it.
Tensor FsdpState::flatten_grads(Unit& u) {
  u.has_grads = false;
  const Tensor* first = nullptr;
  for (const Tensor& g : u.grads)
    if (g.defined() && !first) first = &g;
  EMBER_CHECK(first, what(), ": internal error: unit ", u.name, " reduces without a gradient");
  if (u.entries.size() == 1 && u.numel == u.padded && first->is_contiguous() && first->use_count() == 1 &&
      first->storage().use_count() == 1) {
    Tensor g = std::move(u.grads[0]);
    u.grads[0] = Tensor();
    return g.view({-1});
  }
  Tensor flat = zeros({u.padded}, first->options().requires_grad(false));
  for (size_t k = 0; k < u.entries.size(); ++k) {
    if (!u.grads[k].defined()) continue;
    flat.narrow(0, u.entries[k].offset, u.entries[k].numel).copy_(u.grads[k].reshape({-1}));
    u.grads[k] = Tensor();
  }
  return flat;
}

void FsdpState::launch_reduce(Unit& u) {
  if (u.reduce_launched) return;
  u.reduce_launched = true;
  NoGradGuard no_grad;
  const auto rd = options_.mixed_precision.reduce_dtype ? options_.mixed_precision.reduce_dtype
                                                        : options_.mixed_precision.param_dtype;
  Tensor g = flatten_grads(u);
  if (rd && isFloatingType(g.scalar_type())) g = g.to(*rd);
  if (shard_size_ == 1) {
    u.reduced = g;
    if (replicated_)
      u.reduce_work = all_reduce(u.reduced, ReduceOp::AVG, replicate_group_, /*async_op=*/true);
  } else {
    u.reduced = empty({u.shard}, g.options());
    u.reduce_work = reduce_scatter_tensor(u.reduced, g, ReduceOp::AVG, shard_group_, /*async_op=*/true);
  }
  reduce_order_.push_back(&u);
  drain_reductions(kMaxReductionsInFlight);
}

// Waits for the oldest reductions until at most `keep` are in flight, giving each flat
// parameter its gradient shard at once: a unit's reduction buffers live only while it runs.
void FsdpState::drain_reductions(size_t keep) {
  NoGradGuard no_grad;
  while (reduce_order_.size() - drained_ > keep) {
    Unit* u = reduce_order_[drained_++];
    if (u->reduce_work) u->reduce_work->wait();
    u->reduce_work.reset();
    Tensor shard = u->reduced;
    u->reduced = Tensor();
    // HYBRID_SHARD: the replicas of this shard average theirs.
    if (shard_size_ > 1 && replicated_) all_reduce(shard, ReduceOp::AVG, replicate_group_);
    shard = shard.to(u->flat.device(), u->dtype);
    Tensor& g = u->flat.mutable_grad();
    if (g.defined()) g.add_(shard);
    else g = shard;  // a buffer of its own (the reduction's output, or a converted copy)
  }
}

void FsdpState::finalize_backward() {
  backward_started_ = false;
  if (sync_) {
    // Units with only part of their gradients (parameters this backward did not reach): the
    // rest count as zero, as for a parameter without a gradient in PyTorch's flat parameter.
    for (auto& u : units_)
      if (u->has_grads && !u->reduce_launched) launch_reduce(*u);
    drain_reductions(0);
    reduce_order_.clear();
    drained_ = 0;
  }
  // Everything is freed, prefetches that were not used included (the step will change the shards).
  for (auto& u : units_) {
    u->pre_backward_done = false;
    drop_gathered(*u);
  }
}

// ---- parameters and gradients ----------------------------------------------------------

std::vector<Tensor> FsdpState::parameters() const {
  std::vector<Tensor> r;
  for (const auto& u : units_)
    if (u->flat.defined()) r.push_back(u->flat);
  return r;
}

OrderedDict<std::string, Tensor> FsdpState::named_parameters() const {
  OrderedDict<std::string, Tensor> r("Parameter");
  for (const auto& u : units_)
    if (u->flat.defined()) r.insert(u->name.empty() ? "_flat_param" : u->name + "._flat_param", u->flat);
  return r;
}

void FsdpState::zero_grad(bool set_to_none) {
  NoGradGuard no_grad;
  for (auto& u : units_) {
    if (!u->flat.defined()) continue;
    Tensor& g = u->flat.mutable_grad();
    if (g.defined()) {
      if (set_to_none) g = Tensor();
      else g.zero_();
    }
    for (Entry& e : u->entries) e.param.mutable_grad() = Tensor();  // no_sync's unsharded gradients
  }
}

double FsdpState::clip_grad_norm_(double max_norm, double norm_type) {
  EMBER_CHECK(!units_.empty(), what(), ": clip_grad_norm_ without parameters");
  NoGradGuard no_grad;
  const bool inf = std::isinf(norm_type);
  Device where = kCPU;
  for (auto& u : units_)
    if (u->flat.defined()) where = u->flat.device();
  Tensor acc = zeros({1}, TensorOptions().dtype(kDouble).device(where));
  for (auto& u : units_) {
    if (!u->flat.defined() || !u->flat.grad().defined()) continue;
    const Tensor g = u->flat.grad().to(kDouble);
    if (inf) acc = maximum(acc, g.abs().max().reshape({1}));
    else acc += g.abs().pow(norm_type).sum().reshape({1});
  }
  if (shard_size_ > 1) all_reduce(acc, inf ? ReduceOp::MAX : ReduceOp::SUM, shard_group_);
  const double total = inf ? acc.item<double>() : std::pow(acc.item<double>(), 1.0 / norm_type);
  const double coef = max_norm / (total + 1e-6);
  if (coef < 1)
    for (auto& u : units_)
      if (u->flat.defined() && u->flat.grad().defined()) u->flat.mutable_grad().mul_(coef);
  return total;
}

// ---- state dicts ----------------------------------------------------------------------

Tensor FsdpState::full_from_flat_shards(Unit& u, bool) {
  NoGradGuard no_grad;
  Tensor shard = u.flat.detach();
  if (shard_size_ == 1) return shard;
  Tensor full = empty({u.padded}, shard.options());
  Tensor src = shard.contiguous();
  all_gather_into_tensor(full, src, shard_group_);
  return full;
}

OrderedDict<std::string, Tensor> FsdpState::full_state_dict(bool rank0_only, bool offload_to_cpu) {
  EMBER_CHECK(!summoned_, what(), ": state_dict inside summon_full_params");
  const bool keep = !rank0_only || get_rank(group_) == 0;
  std::map<std::string, Tensor> gathered;
  for (auto& u : units_) {
    if (u->entries.empty()) continue;
    Tensor full = full_from_flat_shards(*u, true);
    if (!keep) continue;
    for (const Entry& e : u->entries) {
      Tensor t = full.narrow(0, e.offset, e.numel).view(e.shape).clone();
      gathered[e.fqn] = offload_to_cpu ? t.to(kCPU) : t;
    }
  }
  OrderedDict<std::string, Tensor> r("Tensor");
  if (!keep) return r;
  for (auto& u : units_)
    for (const Entry& e : u->entries) r.insert(e.fqn, gathered.at(e.fqn));
  NoGradGuard no_grad;
  for (auto& item : root_->named_buffers()) {
    if (!item.value().defined()) continue;
    Tensor b = item.value().detach().clone();
    for (const auto& [name, dt] : buffer_dtypes_)
      if (name == item.key()) b = b.to(dt);
    r.insert(item.key(), offload_to_cpu ? b.to(kCPU) : b);
  }
  return r;
}

void FsdpState::load_full_state_dict(const OrderedDict<std::string, Tensor>& state) {
  EMBER_CHECK(!summoned_, what(), ": load_state_dict inside summon_full_params");
  NoGradGuard no_grad;
  for (auto& u : units_) {
    if (u->entries.empty()) continue;
    Tensor full = zeros({u->padded}, u->flat.options().requires_grad(false));
    for (const Entry& e : u->entries) {
      const Tensor* t = state.find(e.fqn);
      EMBER_CHECK(t != nullptr, what(), ": load_state_dict: missing parameter ", e.fqn);
      EMBER_CHECK(t->sizes().vec() == e.shape, what(), ": load_state_dict: parameter ", e.fqn, " has shape ",
                  t->sizes(), ", the module's is ", IntArrayRef(e.shape));
      full.narrow(0, e.offset, e.numel).copy_(t->reshape({-1}));
    }
    u->flat.detach().copy_(full.narrow(0, int64_t(shard_rank_) * u->shard, u->shard));
    drop_gathered(*u);
  }
  for (auto& item : root_->named_buffers()) {
    if (!item.value().defined()) continue;
    const Tensor* t = state.find(item.key());
    EMBER_CHECK(t != nullptr, what(), ": load_state_dict: missing buffer ", item.key());
    EMBER_CHECK(t->sizes() == item.value().sizes(), what(), ": load_state_dict: buffer ", item.key(), " has shape ",
                t->sizes(), ", the module's is ", item.value().sizes());
    item.value().detach().copy_(*t);
  }
  std::set<std::string> known;
  for (auto& u : units_)
    for (const Entry& e : u->entries) known.insert(e.fqn);
  for (auto& item : root_->named_buffers()) known.insert(item.key());
  for (const auto& item : state)
    EMBER_CHECK(known.contains(item.key()), what(), ": load_state_dict: unexpected key ", item.key());
}

namespace {
std::string shard_file(int s) { return ember::detail::str_cat("shard-", s, ".safetensors"); }
}  // namespace

void FsdpState::save_sharded_state_dict(const std::string& dir) {
  EMBER_CHECK(!summoned_, what(), ": save_sharded_state_dict inside summon_full_params");
  std::filesystem::create_directories(dir);
  // The ranks of replica 0 write one file per shard; rank 0 adds the buffers and the index.
  NoGradGuard no_grad;
  if (replica_rank_ == 0) {
    std::map<std::string, Tensor> tensors;
    std::map<std::string, std::string> metadata{{"format", kShardedFormat}};
    for (auto& u : units_) {
      const int64_t lo = int64_t(shard_rank_) * u->shard, hi = lo + u->shard;
      for (const Entry& e : u->entries) {
        const int64_t a = std::max(lo, e.offset), b = std::min(hi, e.offset + e.numel);
        if (a >= b) continue;
        tensors[e.fqn] = u->flat.detach().narrow(0, a - lo, b - a).to(kCPU).clone();
        metadata["offset." + e.fqn] = std::to_string(a - e.offset);
      }
    }
    if (shard_rank_ == 0)
      for (auto& item : root_->named_buffers()) {
        if (!item.value().defined()) continue;
        Tensor b = item.value().detach().to(kCPU).clone();
        for (const auto& [name, dt] : buffer_dtypes_)
          if (name == item.key()) b = b.to(dt);
        tensors[item.key()] = b;
        metadata["buffer." + item.key()] = "1";
      }
    serialize::save_file(tensors, (std::filesystem::path(dir) / shard_file(shard_rank_)).string(), metadata);
  }
  if (get_rank(group_) == 0) {
    json::Object params;
    for (auto& u : units_)
      for (const Entry& e : u->entries) {
        json::Array shape, pieces;
        for (int64_t d : e.shape) shape.emplace_back(d);
        for (int s = 0; s < shard_size_; ++s) {
          const int64_t lo = int64_t(s) * u->shard, hi = lo + u->shard;
          const int64_t a = std::max(lo, e.offset), b = std::min(hi, e.offset + e.numel);
          if (a < b) pieces.emplace_back(json::Array{json::Value(shard_file(s)), json::Value(a - e.offset), json::Value(b - a)});
        }
        params.emplace_back(e.fqn, json::Object{{"shape", shape}, {"pieces", pieces}});
      }
    json::Array buffers;
    for (auto& item : root_->named_buffers())
      if (item.value().defined()) buffers.emplace_back(item.key());
    json::Object index{{"format", kShardedFormat}, {"files", int64_t(shard_size_)}, {"params", params},
                       {"buffers", buffers}, {"buffer_file", shard_file(0)}};
    serialize::write_file_atomic((std::filesystem::path(dir) / "index.json").string(), json::dump(index));
  }
  barrier(group_);  // every file is in place when any rank returns
}

void FsdpState::load_sharded_state_dict(const std::string& dir) {
  EMBER_CHECK(!summoned_, what(), ": load_sharded_state_dict inside summon_full_params");
  const std::filesystem::path root(dir);
  std::string text;
  {
    std::ifstream in(root / "index.json", std::ios::binary);
    EMBER_CHECK(in.good(), what(), ": load_sharded_state_dict: cannot open ", (root / "index.json").string());
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  const std::string index_name = (root / "index.json").string();
  const json::Value index = json::parse(text, index_name);
  const json::Value* fmt = index.find("format");
  EMBER_CHECK(fmt && fmt->is_string() && fmt->as_string() == kShardedFormat, what(), ": ", index_name,
              " is not an ember FSDP sharded state dict (format ", kShardedFormat, ")");
  const json::Value* params = index.find("params");
  EMBER_CHECK(params && params->is_object(), what(), ": ", index_name, " has no \"params\" object");
  std::map<std::string, serialize::SafetensorsContents> files;
  auto file = [&](const std::string& name) -> serialize::SafetensorsContents& {
    EMBER_CHECK(name.find('/') == std::string::npos && name.find("..") == std::string::npos, what(), ": ",
                index_name, " names a file outside its directory: ", name);
    auto it = files.find(name);
    if (it == files.end()) it = files.emplace(name, serialize::load_file((root / name).string())).first;
    return it->second;
  };
  NoGradGuard no_grad;
  for (auto& u : units_) {
    if (u->entries.empty()) continue;
    const int64_t lo = int64_t(shard_rank_) * u->shard, hi = lo + u->shard;
    Tensor shard = zeros({u->shard}, u->flat.options().requires_grad(false).device(kCPU));
    for (const Entry& e : u->entries) {
      const json::Value* p = params->find(e.fqn);
      EMBER_CHECK(p != nullptr, what(), ": ", index_name, " has no parameter ", e.fqn);
      std::vector<int64_t> shape;
      for (const json::Value& d : p->find("shape") ? p->find("shape")->as_array("shape") : json::Array{})
        shape.push_back(d.as_int("shape"));
      EMBER_CHECK(shape == e.shape, what(), ": parameter ", e.fqn, " has shape ", IntArrayRef(shape), " in ",
                  index_name, ", the module's is ", IntArrayRef(e.shape));
      const int64_t a = std::max(lo, e.offset), b = std::min(hi, e.offset + e.numel);
      if (a >= b) continue;  // none of it here
      // The wanted range of the flattened parameter, [a, b) - e.offset, from the pieces covering it.
      int64_t covered = 0;
      const json::Value* pieces = p->find("pieces");
      EMBER_CHECK(pieces != nullptr, what(), ": ", index_name, ": parameter ", e.fqn, " has no pieces");
      for (const json::Value& piece : pieces->as_array("pieces")) {
        const json::Array& pa = piece.as_array("piece");
        EMBER_CHECK(pa.size() == 3, what(), ": ", index_name, ": a piece of ", e.fqn, " is not [file, offset, numel]");
        const int64_t poff = pa[1].as_int("offset"), pn = pa[2].as_int("numel");
        const int64_t x = std::max(a - e.offset, poff), y = std::min(b - e.offset, poff + pn);
        if (x >= y) continue;
        serialize::SafetensorsContents& f = file(pa[0].as_string("file"));
        auto t = f.tensors.find(e.fqn);
        EMBER_CHECK(t != f.tensors.end() && t->second.dim() == 1 && t->second.numel() == pn, what(), ": ",
                    pa[0].as_string(), " lacks the piece of ", e.fqn, " the index names");
        shard.narrow(0, e.offset + x - lo, y - x).copy_(t->second.narrow(0, x - poff, y - x));
        covered += y - x;
      }
      EMBER_CHECK(covered == b - a, what(), ": ", index_name, ": the pieces of ", e.fqn, " do not cover it");
    }
    u->flat.detach().copy_(shard);
    drop_gathered(*u);
  }
  const json::Value* bfile = index.find("buffer_file");
  for (auto& item : root_->named_buffers()) {
    if (!item.value().defined()) continue;
    EMBER_CHECK(bfile && bfile->is_string(), what(), ": ", index_name, " has no buffer_file");
    serialize::SafetensorsContents& f = file(bfile->as_string());
    auto t = f.tensors.find(item.key());
    EMBER_CHECK(t != f.tensors.end(), what(), ": ", bfile->as_string(), " has no buffer ", item.key());
    EMBER_CHECK(t->second.sizes() == item.value().sizes(), what(), ": buffer ", item.key(), " has shape ",
                t->second.sizes(), ", the module's is ", item.value().sizes());
    item.value().detach().copy_(t->second);
  }
}

void FsdpState::summon_full_params(bool on, bool writeback) {
  if (on) {
    EMBER_CHECK(!summoned_, what(), ": summon_full_params is already active");
    EMBER_CHECK(!autograd::in_backward_pass(), what(), ": summon_full_params during backward");
    for (auto& u : units_) reshard(*u);
    for (auto& u : units_) unshard(*u, /*full_precision=*/true);
    summoned_ = true;
    return;
  }
  if (!summoned_) return;
  summoned_ = false;
  NoGradGuard no_grad;
  for (auto& u : units_) {
    if (u->entries.empty()) continue;
    if (writeback && u->full.defined() && !u->full.is_same(u->flat))
      u->flat.detach().copy_(u->full.narrow(0, int64_t(shard_rank_) * u->shard, u->shard));
    reshard(*u);
  }
}

// ---- optimizer state ------------------------------------------------------------------

Tensor FsdpState::gather_flat(const Unit& u, const Tensor& shard) {
  NoGradGuard no_grad;
  if (shard_size_ == 1) return shard.detach();
  Tensor full = empty({u.padded}, shard.options().requires_grad(false));
  Tensor src = shard.detach().contiguous();
  all_gather_into_tensor(full, src, shard_group_);
  return full;
}

std::vector<Unit*> FsdpState::units_of(const optim::Optimizer& opt) const {
  std::map<const TensorImpl*, Unit*> by_flat;
  for (const auto& u : units_)
    if (u->flat.defined()) by_flat[u->flat.unsafeGetTensorImpl()] = u.get();
  std::vector<Unit*> r;
  for (const auto& g : opt.param_groups())
    for (const Tensor& p : g.params()) {
      auto it = by_flat.find(p.unsafeGetTensorImpl());
      EMBER_CHECK(it != by_flat.end(), what(), ": the optimizer holds a parameter of shape ", p.sizes(),
                  " that is not one of this module's flat parameters (build it from parameters())");
      r.push_back(it->second);
    }
  return r;
}

std::map<std::string, int64_t> FsdpState::original_indices() const {
  std::map<std::string, int64_t> r;
  int64_t i = 0;
  for (const auto& item : root_->named_parameters()) r.emplace(item.key(), i++);
  return r;
}

optim::OptimizerStateDict FsdpState::full_optim_state_dict(const optim::Optimizer& opt, bool rank0_only) {
  const std::vector<Unit*> flat_units = units_of(opt);
  const auto index = original_indices();
  const optim::OptimizerStateDict local = opt.state_dict();
  const bool keep = !rank0_only || get_rank(group_) == 0;
  optim::OptimizerStateDict full;
  size_t flat_i = 0;
  for (const auto& g : local.param_groups) {
    optim::OptimizerStateDict::Group fg;
    fg.options = g.options ? g.options->clone() : nullptr;
    for (size_t k = 0; k < g.params.size(); ++k, ++flat_i)
      for (const Entry& e : flat_units[flat_i]->entries) fg.params.push_back(index.at(e.fqn));
    std::sort(fg.params.begin(), fg.params.end());  // as a plain optimizer over module->parameters() lists them
    full.param_groups.push_back(std::move(fg));
  }
  // Every rank gathers the same tensors in the same order (the state's keys are sorted).
  for (const auto& [i, st] : local.state) {
    const Unit& u = *flat_units[size_t(i)];
    for (const Entry& e : u.entries) full.state[index.at(e.fqn)].step = st.step;
    for (const auto& [name, t] : st.tensors) {
      const bool per_element = t.defined() && t.dim() == 1 && t.numel() == u.shard;
      Tensor whole = per_element ? gather_flat(u, t) : t;
      if (!keep) continue;
      for (const Entry& e : u.entries)
        full.state[index.at(e.fqn)].tensors[name] =
            per_element ? whole.narrow(0, e.offset, e.numel).view(e.shape).clone() : t.clone();
    }
  }
  if (!keep) return {};
  return full;
}

void FsdpState::load_full_optim_state_dict(optim::Optimizer& opt, const optim::OptimizerStateDict& full) {
  const std::vector<Unit*> flat_units = units_of(opt);
  const auto index = original_indices();
  std::map<int64_t, size_t> group_of;  // original index -> group of `full`
  for (size_t g = 0; g < full.param_groups.size(); ++g)
    for (int64_t i : full.param_groups[g].params) group_of[i] = g;
  optim::OptimizerStateDict local;
  NoGradGuard no_grad;
  size_t flat_i = 0;
  for (const auto& g : opt.param_groups()) {
    optim::OptimizerStateDict::Group lg;
    std::optional<size_t> source;
    for (size_t k = 0; k < g.params().size(); ++k, ++flat_i) {
      lg.params.push_back(int64_t(flat_i));
      const Unit& u = *flat_units[flat_i];
      // The unit's parameters: all in one group of `full`, all with state or none.
      size_t with_state = 0;
      for (const Entry& e : u.entries) {
        const int64_t oi = index.at(e.fqn);
        auto it = group_of.find(oi);
        EMBER_CHECK(it != group_of.end(), what(), ": load_optim_state_dict: parameter ", e.fqn, " (index ", oi,
                    ") is in no parameter group of the dict");
        EMBER_CHECK(!source || *source == it->second, what(), ": load_optim_state_dict: the parameters of one flat "
                    "parameter are in different groups of the dict (", e.fqn, ")");
        source = it->second;
        with_state += full.state.count(oi);
      }
      if (with_state == 0) continue;
      EMBER_CHECK(with_state == u.entries.size(), what(), ": load_optim_state_dict: some parameters of ",
                  u.name.empty() ? std::string("the root unit") : u.name, " have optimizer state and some do not");
      const auto& first = full.state.at(index.at(u.entries.front().fqn));
      optim::OptimizerStateDict::ParamState ps;
      ps.step = first.step;
      for (const auto& [name, t0] : first.tensors) {
        // Shaped like the parameter: one value per element (moments); else a scalar (a step tensor).
        const bool per_element = t0.defined() && t0.sizes().vec() == u.entries.front().shape;
        if (!per_element) {
          ps.tensors[name] = t0.defined() ? t0.clone() : t0;
          continue;
        }
        Tensor flat = zeros({u.padded}, t0.options().requires_grad(false));
        for (const Entry& e : u.entries) {
          const auto& st = full.state.at(index.at(e.fqn));
          auto it = st.tensors.find(name);
          EMBER_CHECK(it != st.tensors.end() && it->second.numel() == e.numel, what(), ": load_optim_state_dict: ",
                      "state '", name, "' of ", e.fqn, " is missing or not shaped like the parameter ",
                      IntArrayRef(e.shape));
          flat.narrow(0, e.offset, e.numel).copy_(it->second.reshape({-1}));
        }
        ps.tensors[name] = flat.narrow(0, int64_t(shard_rank_) * u.shard, u.shard).clone().to(u.flat.device());
      }
      local.state[int64_t(flat_i)] = std::move(ps);
    }
    EMBER_CHECK(source.has_value() || g.params().empty(), what(), ": load_optim_state_dict: an empty group");
    lg.options = source && full.param_groups[*source].options ? full.param_groups[*source].options->clone()
                                                              : (g.has_options() ? g.options().clone() : nullptr);
    local.param_groups.push_back(std::move(lg));
  }
  opt.load_state_dict(local);
}

std::vector<std::string> FsdpState::unit_names() const {
  std::vector<std::string> r;
  for (const auto& u : units_) r.push_back(u->name);
  return r;
}

size_t FsdpState::unsharded_units() const {
  size_t n = 0;
  for (const auto& u : units_) n += (u->state == Unit::UNSHARDED && shards() && !u->entries.empty()) ? 1 : 0;
  return n;
}

}  // namespace detail

// ---- FsdpRuntime --------------------------------------------------------------------

FsdpRuntime::FsdpRuntime(std::shared_ptr<nn::Module> root, Group group, FullyShardedDataParallelOptions options)
    : state_(std::make_shared<detail::FsdpState>(std::move(root), std::move(group), std::move(options))) {
  state_->build();
}
FsdpRuntime::~FsdpRuntime() = default;
void FsdpRuntime::pre_root_forward() { state_->pre_root_forward(); }
Tensor FsdpRuntime::cast_input(const Tensor& t) const { return state_->cast_input(t); }
void FsdpRuntime::post_root_forward(const std::vector<Tensor>& outputs) { state_->post_root_forward(outputs); }
std::vector<Tensor> FsdpRuntime::parameters() const { return state_->parameters(); }
OrderedDict<std::string, Tensor> FsdpRuntime::named_parameters() const { return state_->named_parameters(); }
void FsdpRuntime::zero_grad(bool set_to_none) { state_->zero_grad(set_to_none); }
void FsdpRuntime::set_sync(bool on) { state_->set_sync(on); }
bool FsdpRuntime::sync() const { return state_->sync(); }
double FsdpRuntime::clip_grad_norm_(double max_norm, double norm_type) {
  return state_->clip_grad_norm_(max_norm, norm_type);
}
OrderedDict<std::string, Tensor> FsdpRuntime::full_state_dict(bool rank0_only, bool offload_to_cpu) {
  return state_->full_state_dict(rank0_only, offload_to_cpu);
}
void FsdpRuntime::load_full_state_dict(const OrderedDict<std::string, Tensor>& state) {
  state_->load_full_state_dict(state);
}
void FsdpRuntime::save_sharded_state_dict(const std::string& dir) { state_->save_sharded_state_dict(dir); }
void FsdpRuntime::load_sharded_state_dict(const std::string& dir) { state_->load_sharded_state_dict(dir); }
void FsdpRuntime::summon_full_params(bool on, bool writeback) { state_->summon_full_params(on, writeback); }
optim::OptimizerStateDict FsdpRuntime::full_optim_state_dict(const optim::Optimizer& optimizer, bool rank0_only) {
  return state_->full_optim_state_dict(optimizer, rank0_only);
}
void FsdpRuntime::load_full_optim_state_dict(optim::Optimizer& optimizer, const optim::OptimizerStateDict& full) {
  state_->load_full_optim_state_dict(optimizer, full);
}
std::vector<std::string> FsdpRuntime::unit_names() const { return state_->unit_names(); }
size_t FsdpRuntime::unsharded_units() const { return state_->unsharded_units(); }

}  // namespace ember::distributed::fsdp
