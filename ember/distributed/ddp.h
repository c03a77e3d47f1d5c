// torch.nn.parallel.DistributedDataParallel for ember modules: every rank holds the whole
// model, runs its share of the batch, and the gradients are averaged over the ranks during
// backward, so that every rank's optimizer takes the same step.
//
// Note [DDP gradient buckets]
// At construction the parameters and buffers are broadcast from the group's rank 0. The
// parameters that require grad are packed, in reverse registration order (roughly the order
// backward produces their gradients), into buckets of at most bucket_cap_mb (one dtype and
// device each). A post-accumulate hook on every parameter copies its .grad (this pass's
// gradient, after the user's gradient hooks, plus what no_sync steps left there) into its
// bucket's flat buffer as soon as backward has accumulated it; a bucket
// whose gradients are all in is all-reduced asynchronously at once, in bucket order on every
// rank, so communication overlaps the rest of backward (averaged: ReduceOp::AVG). When
// backward ends (an engine callback) the reductions are waited for and written to each
// parameter's .grad. With find_unused_parameters, parameters that took no part in the loss
// count as ready with a zero gradient at the end of backward; without it their absence is an
// error naming them (as PyTorch's). Inside no_sync() gradients only accumulate locally. The
// all-reduce sums exactly the same bytes on every rank, so the parameters stay bitwise equal.
//
//   auto ddp = ember::nn::parallel::DistributedDataParallel<Net>(net);  // after init_process_group
//   auto loss = loss_fn(ddp(x), y);
//   loss.backward();                                                    // gradients averaged
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/distributed/distributed.h"
#include "ember/nn/module.h"

namespace ember::nn::parallel {

struct DistributedDataParallelOptions {
  double bucket_cap_mb = 25;            // PyTorch's default
  bool find_unused_parameters = false;  // see Note [DDP gradient buckets]
  bool broadcast_buffers = true;        // rank 0's buffers before every forward
};

// The gradient machinery of DDP for one list of parameters (independent of the module type).
class Reducer {
 public:
  Reducer(std::vector<Tensor> params, std::vector<std::string> names, distributed::Group group,
          DistributedDataParallelOptions options);
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  // Called at every forward: the next backward reduces (unless no_sync is on).
  void prepare_for_backward();
  void set_sync(bool on) { sync_ = on; }  // read by the next prepare_for_backward
  bool sync() const { return sync_; }
  // Bucket layout, for tests and benchmarks: the parameters' indices per bucket.
  std::vector<std::vector<size_t>> bucket_indices() const;

 private:
  struct Bucket;
  void on_grad(size_t param);
  void mark_ready(size_t param);
  void launch_ready_buckets();
  void finalize();

  std::vector<Tensor> params_;
  std::vector<std::string> names_;
  distributed::Group group_;
  DistributedDataParallelOptions options_;
  std::vector<std::unique_ptr<Bucket>> buckets_;
  std::vector<std::pair<size_t, int64_t>> where_;  // param -> (bucket, offset)
  std::vector<unsigned> hooks_;
  std::vector<bool> ready_;
  size_t next_launch_ = 0;
  bool expect_backward_ = false, finalize_queued_ = false, sync_ = true;
};

// Broadcasts `tensors` from group rank 0 (flattened per dtype).
void broadcast_from_rank0(std::vector<Tensor> tensors, const distributed::Group& group);
// Checks that every rank of `group` has the same parameters (names, dtypes, shapes) as rank 0
// (PyTorch's _verify_param_shape_across_processes); otherwise every rank raises an error naming
// the ranks that differ and, on those, the first parameter that does.
void verify_same_parameters(const std::vector<Tensor>& params, const std::vector<std::string>& names,
                            const distributed::Group& group, const char* who);

template <class ModuleHolder>
class DistributedDataParallel {
 public:
  explicit DistributedDataParallel(ModuleHolder module, distributed::Group group = nullptr,
                                   DistributedDataParallelOptions options = {})
      : module_(std::move(module)), group_(std::move(group)), options_(options) {
    EMBER_CHECK(!distributed::is_non_group_member(group_),
                "DistributedDataParallel: this rank is not a member of the given process group");
    std::vector<Tensor> params, all;
    std::vector<std::string> names;
    for (auto& item : module_->named_parameters()) {
      all.push_back(item.value());
      if (item.value().requires_grad()) params.push_back(item.value()), names.push_back(item.key());
    }
    for (auto& b : module_->buffers()) all.push_back(b);
    std::vector<std::string> all_names;
    for (auto& item : module_->named_parameters()) all_names.push_back(item.key());
    for (auto& item : module_->named_buffers()) all_names.push_back(item.key());
    verify_same_parameters(all, all_names, group_, "DistributedDataParallel");
    broadcast_from_rank0(all, group_);
    reducer_ = std::make_unique<Reducer>(std::move(params), std::move(names), group_, options_);
  }

  template <class... Args>
  auto forward(Args&&... args) {
    if (options_.broadcast_buffers) broadcast_from_rank0(module_->buffers(), group_);
    reducer_->prepare_for_backward();
    return module_->forward(std::forward<Args>(args)...);
  }
  template <class... Args>
  auto operator()(Args&&... args) {
    return forward(std::forward<Args>(args)...);
  }

  ModuleHolder& module() { return module_; }
  std::vector<Tensor> parameters() const { return module_->parameters(); }
  Reducer& reducer() { return *reducer_; }

  // Gradients accumulate locally (no communication) while the guard lives (torch's no_sync()).
  class NoSync {
   public:
    explicit NoSync(Reducer& r) : r_(r), previous_(r.sync()) { r_.set_sync(false); }
    ~NoSync() { r_.set_sync(previous_); }
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    Reducer& r_;
    bool previous_;
  };
  [[nodiscard]] std::unique_ptr<NoSync> no_sync() { return std::make_unique<NoSync>(*reducer_); }

 private:
  ModuleHolder module_;
  distributed::Group group_;
  DistributedDataParallelOptions options_;
  std::unique_ptr<Reducer> reducer_;
};

}  // namespace ember::nn::parallel
