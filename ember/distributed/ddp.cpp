// DistributedDataParallel's Reducer (ddp.h, Note [DDP gradient buckets]).
#include "ember/distributed/ddp.h"

#include <map>

#include "ember/autograd/callbacks.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/cuda/cuda.h"
#include "ember/ops/functions.h"

namespace ember::nn::parallel {

namespace dist = ::ember::distributed;

struct Reducer::Bucket {
  std::vector<size_t> params;  // indices into params_
  Tensor flat;                 // the gradients, packed
  size_t pending = 0;          // gradients still to come this backward
  std::shared_ptr<dist::Work> work;
  bool launched = false;
};

void broadcast_from_rank0(std::vector<Tensor> tensors, const dist::Group& group) {
  if (dist::get_world_size(group) == 1) return;
  // One broadcast per dtype and device: the tensors packed into a flat buffer.
  std::map<std::pair<int, std::string>, std::vector<Tensor>> by_kind;
  for (const Tensor& t : tensors)
    if (t.defined() && t.numel() > 0)
      by_kind[{int(t.scalar_type()), ::ember::detail::str_cat(t.device())}].push_back(t);
  NoGradGuard no_grad;
  const int root = dist::get_global_rank(group ? group : nullptr, 0);
  for (auto& [kind, ts] : by_kind) {
    std::vector<Tensor> flat_parts;
    for (const Tensor& t : ts) flat_parts.push_back(t.detach().reshape({-1}));
    Tensor flat = cat(flat_parts);
    dist::broadcast(flat, root, group);
    int64_t off = 0;
    for (const Tensor& t : ts) {
      Tensor dst = t.detach();
      dst.copy_(flat.narrow(0, off, t.numel()).view(t.sizes()));
      off += t.numel();
    }
  }
}

namespace {
// Where a group's collectives take their tensors: Gloo's on the CPU; NCCL's on the CUDA device
// of the parameters (else the current one), so no communicator is made on another device.
Device collective_device(const dist::Group& group, const std::vector<Tensor>& params) {
  if (dist::get_backend(group) != "nccl") return Device(kCPU);
  for (const Tensor& p : params)
    if (p.defined() && p.is_cuda()) return p.device();
  return Device(kCUDA, cuda::current_device());
}
}  // namespace

void verify_same_parameters(const std::vector<Tensor>& params, const std::vector<std::string>& names,
                            const dist::Group& group, const char* who) {
  const int world = dist::get_world_size(group);
  if (world == 1) return;
  std::vector<std::string> mine;
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& t = params[i];
    mine.push_back(::ember::detail::str_cat(i < names.size() ? names[i] : std::to_string(i), " (",
                                            t.defined() ? ::ember::detail::str_cat(t.scalar_type(), " ", t.sizes())
                                                        : std::string("undefined"),
                                            ")"));
  }
  std::string text;
  for (const std::string& m : mine) text += m + "\n";
  // Rank 0's description to every rank, then who differs.
  const int root = dist::get_global_rank(group ? group : nullptr, 0);
  const Device device = collective_device(group, params);
  Tensor len = full({1}, int64_t(text.size()), TensorOptions().dtype(kLong).device(device));
  dist::broadcast(len, root, group);
  Tensor bytes = dist::get_rank(group) == 0
                     ? from_blob(text.data(), {int64_t(text.size())}, TensorOptions().dtype(kByte)).to(device)
                     : empty({len.item<int64_t>()}, TensorOptions().dtype(kByte).device(device));
  dist::broadcast(bytes, root, group);
  bytes = bytes.to(kCPU);
  const std::string reference(reinterpret_cast<const char*>(bytes.data_ptr<uint8_t>()), size_t(bytes.numel()));
  Tensor differs = full({1}, text == reference ? 0 : 1, TensorOptions().dtype(kInt).device(device));
  Tensor all = empty({world}, TensorOptions().dtype(kInt).device(device));
  dist::all_gather_into_tensor(all, differs, group);
  all = all.to(kCPU);
  std::string ranks;
  for (int r = 0; r < world; ++r)
    if (all.data_ptr<int32_t>()[r]) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
  if (ranks.empty()) return;
  std::string detail;
  if (text != reference) {
    std::vector<std::string> theirs;
    for (size_t a = 0, b; (b = reference.find('\n', a)) != std::string::npos; a = b + 1)
      theirs.push_back(reference.substr(a, b - a));
    size_t i = 0;
    while (i < mine.size() && i < theirs.size() && mine[i] == theirs[i]) ++i;
    detail = i < mine.size() && i < theirs.size()
                 ? ::ember::detail::str_cat("; here parameter ", i, " is ", mine[i], ", on rank 0 ", theirs[i])
                 : ::ember::detail::str_cat("; here ", mine.size(), " parameters and buffers, on rank 0 ", theirs.size());
  }
  EMBER_ERROR(who, ": the parameters and buffers of group rank(s) ", ranks,
              " differ from rank 0's (every rank must build the same model)", detail);
}

Reducer::Reducer(std::vector<Tensor> params, std::vector<std::string> names, dist::Group group,
                 DistributedDataParallelOptions options)
    : params_(std::move(params)), names_(std::move(names)), group_(std::move(group)), options_(options) {
  EMBER_CHECK(options_.bucket_cap_mb > 0, "DistributedDataParallel: bucket_cap_mb must be positive, got ",
              options_.bucket_cap_mb);
  const int64_t cap = std::max<int64_t>(1, int64_t(options_.bucket_cap_mb * 1024 * 1024));
  where_.resize(params_.size());
  // Reverse registration order, a bucket per run of one dtype and device up to the cap.
  for (size_t k = params_.size(); k-- > 0;) {
    const Tensor& p = params_[k];
    EMBER_CHECK(p.is_leaf(), "DistributedDataParallel: parameter ", names_[k], " is not a leaf tensor");
    Bucket* b = buckets_.empty() ? nullptr : buckets_.back().get();
    const bool fits = b && params_[b->params.front()].scalar_type() == p.scalar_type() &&
                      params_[b->params.front()].device() == p.device() &&
                      (b->flat.numel() + p.numel()) * int64_t(p.element_size()) <= cap;
    if (!fits) {
      buckets_.push_back(std::make_unique<Bucket>());
      b = buckets_.back().get();
      b->flat = empty({0}, p.options().requires_grad(false));
    }
    where_[k] = {buckets_.size() - 1, b->flat.numel()};
    b->params.push_back(k);
    b->flat = empty({b->flat.numel() + p.numel()}, p.options().requires_grad(false));
  }
  ready_.assign(params_.size(), false);
  // After accumulation, as PyTorch's reducer: .grad then holds this pass's gradient (changed by
  // any gradient hooks the user registered) plus what earlier no_sync passes left there.
  for (size_t k = 0; k < params_.size(); ++k)
    hooks_.push_back(autograd::register_post_accumulate_grad_hook(params_[k], [this, k](const Tensor&) { on_grad(k); }));
}

Reducer::~Reducer() {
  for (size_t k = 0; k < params_.size(); ++k) autograd::remove_post_accumulate_grad_hook(params_[k], hooks_[k]);
}

std::vector<std::vector<size_t>> Reducer::bucket_indices() const {
  std::vector<std::vector<size_t>> r;
  for (const auto& b : buckets_) r.push_back(b->params);
  return r;
}

void Reducer::prepare_for_backward() {
  // A previous iteration whose backward failed midway may still have reductions running into
  // the buckets: they finish before the buckets are reused (every rank issued the same ones).
  for (auto& b : buckets_) {
    if (b->work) {
      try {
        b->work->wait();
      } catch (const std::exception&) {
      }
    }
  }
  // no_sync is decided at forward time, as PyTorch's.
  expect_backward_ = sync_;
  if (!sync_) return;
  for (auto& b : buckets_) b->pending = b->params.size(), b->launched = false, b->work.reset();
  ready_.assign(params_.size(), false);
  next_launch_ = 0;
  finalize_queued_ = false;
}

void Reducer::on_grad(size_t k) {
  if (!expect_backward_) return;  // a forward under no_sync, or a backward without a DDP forward
  if (!finalize_queued_) {
    finalize_queued_ = true;
    autograd::queue_callback([this] { finalize(); });
  }
  EMBER_CHECK(!ready_[k], "DistributedDataParallel: the gradient of parameter ", names_[k],
              " arrived twice in one backward pass (a parameter used by two backward passes between forwards "
              "is not supported)");
  const auto [bi, off] = where_[k];
  Bucket& b = *buckets_[bi];
  const Tensor& p = params_[k];
  Tensor slot = b.flat.narrow(0, off, p.numel()).view(p.sizes());
  NoGradGuard no_grad;
  slot.copy_(p.grad());
  mark_ready(k);
}

void Reducer::mark_ready(size_t k) {
  ready_[k] = true;
  Bucket& b = *buckets_[where_[k].first];
  --b.pending;
  launch_ready_buckets();
}

// Every rank launches the buckets in the same order: the next one, once all of it is ready.
void Reducer::launch_ready_buckets() {
  while (next_launch_ < buckets_.size() && buckets_[next_launch_]->pending == 0) {
    Bucket& b = *buckets_[next_launch_++];
    // AVG: the division happens before a bfloat16 bucket is rounded back (Note [bfloat16 over Gloo]).
    b.work = dist::all_reduce(b.flat, dist::ReduceOp::AVG, group_, /*async_op=*/true);
    b.launched = true;
  }
}

void Reducer::finalize() {
  expect_backward_ = false;
  // Parameters that took no part in this backward.
  std::vector<std::string> missing;
  for (size_t k = 0; k < params_.size(); ++k)
    if (!ready_[k]) missing.push_back(names_[k]);
  // Which parameters took part here (before the missing ones are filled in).
  std::vector<int32_t> used_here(params_.size());
  for (size_t k = 0; k < params_.size(); ++k) used_here[k] = ready_[k] ? 1 : 0;
  if (!missing.empty()) {
    std::string list;
    for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
    EMBER_CHECK(options_.find_unused_parameters, "DistributedDataParallel: parameters that did not receive a "
                "gradient in this backward pass: ", list, ". This error indicates that your module has parameters "
                "that were not used in producing loss; pass find_unused_parameters=true, or make sure every "
                "parameter takes part in the loss on every rank.");
    NoGradGuard no_grad;
    for (size_t k = 0; k < params_.size(); ++k) {
      if (ready_[k]) continue;
      const auto [bi, off] = where_[k];
      Tensor slot = buckets_[bi]->flat.narrow(0, off, params_[k].numel());
      const Tensor& prior = params_[k].grad();
      if (prior.defined()) slot.copy_(prior.reshape({-1}));
      else slot.zero_();
      mark_ready(k);
    }
  }
  // As PyTorch: a parameter no rank used keeps its .grad untouched (no zeros that weight decay
  // or momentum would then act on). One more all-reduce, after the buckets on every rank.
  std::vector<int32_t> used_anywhere(params_.size(), 1);
  if (options_.find_unused_parameters) {
    Tensor flags =
        from_blob(used_here.data(), {int64_t(used_here.size())}, TensorOptions().dtype(kInt)).to(collective_device(group_, params_));
    dist::all_reduce(flags, dist::ReduceOp::MAX, group_);
    flags = flags.to(kCPU);
    const int32_t* f = flags.data_ptr<int32_t>();
    used_anywhere.assign(f, f + params_.size());
  }
  NoGradGuard no_grad;
  for (auto& bp : buckets_) {
    Bucket& b = *bp;
    EMBER_INTERNAL_ASSERT(b.launched && b.work, "DistributedDataParallel: a bucket was not reduced");
    b.work->wait();
    for (size_t k : b.params) {
      if (!used_anywhere[k]) continue;
      Tensor& g = params_[k].mutable_grad();
      const Tensor reduced = b.flat.narrow(0, where_[k].second, params_[k].numel()).view(params_[k].sizes());
      if (g.defined()) g.detach().copy_(reduced);
      else g = reduced.clone();
    }
  }
}

}  // namespace ember::nn::parallel
