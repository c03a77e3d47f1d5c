// ProcessGroup, Work and ProcessGroupGloo (process_group.h).
#include "ember/distributed/process_group.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/alltoallv.h>
#include <gloo/broadcast.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/scatter.h>
#include <gloo/common/error.h>
#include <gloo/common/logging.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/types.h>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <thread>

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/distributed/process_group_util.h"
#include "ember/ops/functions.h"

namespace ember::distributed {

const char* to_string(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM: return "SUM";
    case ReduceOp::AVG: return "AVG";
    case ReduceOp::PRODUCT: return "PRODUCT";
    case ReduceOp::MIN: return "MIN";
    case ReduceOp::MAX: return "MAX";
  }
  return "?";
}

// ---- Work ---------------------------------------------------------------------------------------

Work::Work(std::string op, std::vector<Tensor> outputs) : op_(std::move(op)), outputs_(std::move(outputs)) {}
Work::~Work() = default;

bool Work::isCompleted() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->completed;
}
bool Work::isSuccess() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->completed && !state_->error;
}
std::exception_ptr Work::exception() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->error;
}
bool Work::wait(std::chrono::milliseconds timeout) {
  Completion& c = *state_;
  std::unique_lock<std::mutex> lock(c.mutex);
  if (timeout > std::chrono::milliseconds::zero()) {
    EMBER_CHECK(c.cv.wait_for(lock, timeout, [&] { return c.completed; }), "ProcessGroup: ", op_,
                " did not complete within ", timeout.count(), " ms (Work::wait's timeout)");
  } else {
    c.cv.wait(lock, [&] { return c.completed; });
  }
  if (c.error) std::rethrow_exception(c.error);
  return true;
}
std::vector<Tensor> Work::result() {
  wait();
  return outputs_;
}
void Work::finish(std::exception_ptr error) { state_->finish(std::move(error)); }
void Work::Completion::finish(std::exception_ptr e) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (completed) return;  // the first outcome stands (a watchdog and a poll may both report)
    completed = true;
    error = std::move(e);
  }
  cv.notify_all();
}

ProcessGroup::ProcessGroup(int rank, int size) : rank_(rank), size_(size) {
  EMBER_CHECK(size >= 1 && rank >= 0 && rank < size, "ProcessGroup: rank ", rank, " is not in [0, ", size,
              ") for a group of size ", size);
}
ProcessGroup::~ProcessGroup() = default;

void ProcessGroup::unsupported(const char* op) const {
  EMBER_CHECK(false, "ProcessGroup ", getBackendName(), " does not support ", op);
}
std::shared_ptr<Work> ProcessGroup::reduce(std::vector<Tensor>&, const ReduceOptions&) { unsupported("reduce"); }
std::shared_ptr<Work> ProcessGroup::gather(std::vector<std::vector<Tensor>>&, std::vector<Tensor>&,
                                           const GatherOptions&) {
  unsupported("gather");
}
std::shared_ptr<Work> ProcessGroup::scatter(std::vector<Tensor>&, std::vector<std::vector<Tensor>>&,
                                            const ScatterOptions&) {
  unsupported("scatter");
}
std::shared_ptr<Work> ProcessGroup::reduce_scatter(std::vector<Tensor>&, std::vector<std::vector<Tensor>>&,
                                                   const ReduceScatterOptions&) {
  unsupported("reduce_scatter");
}
std::shared_ptr<Work> ProcessGroup::_allgather_base(Tensor&, Tensor&, const AllgatherOptions&) {
  unsupported("_allgather_base");
}
std::shared_ptr<Work> ProcessGroup::_reduce_scatter_base(Tensor&, Tensor&, const ReduceScatterOptions&) {
  unsupported("_reduce_scatter_base");
}
std::shared_ptr<Work> ProcessGroup::alltoall(std::vector<Tensor>&, std::vector<Tensor>&, const AllToAllOptions&) {
  unsupported("alltoall");
}
std::shared_ptr<Work> ProcessGroup::send(std::vector<Tensor>&, int, int) { unsupported("send"); }
std::shared_ptr<Work> ProcessGroup::recv(std::vector<Tensor>&, int, int) { unsupported("recv"); }

// ---- Gloo -------------------------------------------------------------------------------------------

namespace {

// Gloo's rendezvous store on top of ember's (PyTorch's GlooStore).
class GlooStore : public ::gloo::rendezvous::Store {
 public:
  explicit GlooStore(std::shared_ptr<distributed::Store> store) : store_(std::move(store)) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    store_->set(key, std::vector<uint8_t>(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    const std::vector<uint8_t> v = store_->get(key);
    return {v.begin(), v.end()};
  }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    store_->wait(keys, timeout);
  }

 private:
  std::shared_ptr<distributed::Store> store_;
};

// Note [bfloat16 over Gloo]
// Gloo has no bfloat16: such a tensor travels as float32 (a copy), is reduced there, and is
// rounded back into the caller's tensor once, so sums keep float32's precision until the end.
bool travels_as_float(ScalarType t) { return t == kBFloat16; }

template <class F>
void visit_gloo_type(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case kFloat: return f(float{});
    case kDouble: return f(double{});
    case kHalf: return f(::gloo::float16{});
    case kChar: return f(int8_t{});
    case kByte: return f(uint8_t{});
    case kInt: return f(int32_t{});
    case kLong: return f(int64_t{});
    default: EMBER_CHECK_TYPE(false, "ProcessGroupGloo::", op, ": unsupported dtype ", t);
  }
}

template <class T>
::gloo::AllreduceOptions::Func reduce_fn(ReduceOp op) {
  using Fn = void (*)(void*, const void*, const void*, size_t);  // Gloo's overloads taking void*
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG: return static_cast<Fn>(&::gloo::sum<T>);
    case ReduceOp::PRODUCT: return static_cast<Fn>(&::gloo::product<T>);
    case ReduceOp::MIN: return static_cast<Fn>(&::gloo::min<T>);
    case ReduceOp::MAX: return static_cast<Fn>(&::gloo::max<T>);
  }
  return {};
}

void check_cpu_dense(const Tensor& t, const char* op) {
  EMBER_CHECK(t.defined(), "ProcessGroupGloo::", op, ": expected a defined tensor");
  EMBER_CHECK(t.is_cpu(), "ProcessGroupGloo::", op, ": Gloo takes CPU tensors, got one on ", t.device(),
              " (CUDA tensors are NCCL's)");
  EMBER_CHECK(t.is_contiguous(), "ProcessGroupGloo::", op, ": expected a contiguous tensor, got strides ", t.strides());
}

// `t` (contiguous CPU) reduced over the ranks in place by Gloo's allreduce, or by its reduce
// to `root` (root >= 0; the other ranks' t is scratch), bfloat16 through float, AVG divided.
void gloo_reduce_in_place(const std::shared_ptr<::gloo::Context>& context, const Tensor& t, ReduceOp op, int root,
                          uint32_t tag, std::chrono::milliseconds timeout) {
  Tensor buf = travels_as_float(t.scalar_type()) ? t.to(kFloat) : t;
  visit_gloo_type(buf.scalar_type(), root < 0 ? "allreduce" : "reduce", [&](auto tag_type) {
    using T = decltype(tag_type);
    T* p = static_cast<T*>(buf.data_ptr());
    if (buf.numel() == 0) return;
    if (root < 0) {
      ::gloo::AllreduceOptions o(context);
      o.setOutput(p, size_t(buf.numel()));
      o.setReduceFunction(reduce_fn<T>(op));
      o.setTag(tag);
      o.setTimeout(timeout);
      ::gloo::allreduce(o);
    } else {
      ::gloo::ReduceOptions o(context);
      o.setInput(p, size_t(buf.numel()));
      o.setOutput(p, size_t(buf.numel()));
      o.setRoot(root);
      o.setReduceFunction(reduce_fn<T>(op));
      o.setTag(tag);
      o.setTimeout(timeout);
      ::gloo::reduce(o);
    }
  });
  if (op == ReduceOp::AVG) buf.div_(double(context->size));
  if (!buf.is_same(t)) t.copy_(buf);
}

void check_reduce_op(const Tensor& t, ReduceOp op, const char* name) {
  EMBER_CHECK_TYPE(op != ReduceOp::AVG || isFloatingType(t.scalar_type()), "ProcessGroupGloo::", name,
                   ": ReduceOp.AVG needs a floating tensor, got ", t.scalar_type());
}

void check_same_meta(const Tensor& t, const Tensor& like, const char* op, const char* what) {
  EMBER_CHECK(t.defined() && t.is_cpu() && t.sizes() == like.sizes() && t.scalar_type() == like.scalar_type(),
              "ProcessGroupGloo::", op, ": every ", what, " must be a CPU tensor of shape ", like.sizes(), " and dtype ",
              like.scalar_type());
}

size_t nbytes(const Tensor& t) { return size_t(t.numel()) * t.element_size(); }
uint8_t* bytes_of(const Tensor& t) { return static_cast<uint8_t*>(t.data_ptr()); }

// A point-to-point transfer: posted at once, waited for by wait().
class P2PWork : public Work {
 public:
  P2PWork(std::string op, Tensor t, std::unique_ptr<::gloo::transport::UnboundBuffer> buf, bool is_send,
          std::chrono::milliseconds timeout, int peer)
      : Work(std::move(op), {t}), tensor_(std::move(t)), buf_(std::move(buf)), send_(is_send), timeout_(timeout),
        peer_(peer) {}
  bool wait(std::chrono::milliseconds timeout) override {
    std::lock_guard<std::mutex> lock(wait_mutex_);
    if (!done_) {
      const std::chrono::milliseconds t = timeout > std::chrono::milliseconds::zero() ? timeout : timeout_;
      try {
        const bool ok = send_ ? buf_->waitSend(t) : buf_->waitRecv(t);
        EMBER_CHECK(ok, "ProcessGroupGloo: ", op(), send_ ? " to" : " from", " rank ", peer_, " was aborted");
        done_ = true;
        finish();
      } catch (const ::gloo::Exception& e) {
        const std::string what = ::ember::detail::str_cat(
            "ProcessGroupGloo: ", op(), send_ ? " to" : " from", " rank ", peer_, " did not complete within ",
            t.count(), " ms (that rank died, hung or posted no matching ", send_ ? "recv" : "send", "): ", e.what());
        // A wait with its own timeout leaves the transfer posted: it may be waited for again.
        if (timeout > std::chrono::milliseconds::zero()) throw Error(what);
        done_ = true;
        finish(std::make_exception_ptr(Error(what)));
      } catch (const Error&) {
        done_ = true;
        finish(std::current_exception());
      }
    }
    return Work::wait(std::chrono::milliseconds::zero());
  }
  // Known without blocking: true once a wait() saw the transfer end.
  bool isCompleted() override { return done_.load(); }

 private:
  Tensor tensor_;  // keeps the memory alive while the transfer runs
  std::unique_ptr<::gloo::transport::UnboundBuffer> buf_;
  bool send_;
  std::chrono::milliseconds timeout_;
  int peer_;
  std::mutex wait_mutex_;
  std::atomic<bool> done_{false};
};

// Point-to-point slots apart from the collectives' (Gloo builds those from small prefixes).
uint64_t p2p_slot(int tag) { return (uint64_t(0xE3) << 56) | uint32_t(tag); }

}  // namespace

struct ProcessGroupGloo::Impl {
  std::shared_ptr<::gloo::rendezvous::Context> context;
  std::shared_ptr<Store> store;
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue;
  bool stop = false;
  uint32_t next_tag = 0;
  std::thread worker;
};

ProcessGroupGloo::ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size)
    : ProcessGroupGloo(std::move(store), rank, size, Options()) {}

namespace {
// Note [SIGPIPE and Gloo]: Gloo's TCP pairs write with writev, which raises SIGPIPE when the peer
// has closed its end; a rank that dies mid-collective would then kill every rank that writes to
// it, silently, instead of their collectives failing with an error naming it. So a process that
// makes a Gloo group and still has SIGPIPE's default action ignores SIGPIPE from then on (its
// writes to closed pipes and sockets fail with EPIPE), as Python, and so every PyTorch program,
// does from the start. A program that installed its own SIGPIPE handler keeps it.
void ignore_default_sigpipe() {
  struct sigaction current {};
  if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) ::signal(SIGPIPE, SIG_IGN);
}
}  // namespace

ProcessGroupGloo::ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size, Options options)
    : ProcessGroup(rank, size), options_(std::move(options)), impl_(std::make_unique<Impl>()) {
  EMBER_CHECK(store != nullptr, "ProcessGroupGloo: expected a store");
  ignore_default_sigpipe();
  ::gloo::transport::tcp::attr attr;
  attr.hostname = options_.iface.empty() ? options_.hostname : "";
  attr.iface = options_.iface;
  if (attr.hostname.empty() && attr.iface.empty()) {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    attr.hostname = host;
  }
  try {
    std::shared_ptr<::gloo::transport::Device> device = ::gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<::gloo::rendezvous::Context>(rank, size);
    context->setTimeout(options_.timeout);
    store->set("ember_pg_proc/" + std::to_string(rank), detail::proc_id());
    impl_->store = store;
    GlooStore gloo_store(std::move(store));
    ::gloo::rendezvous::PrefixStore prefixed("ember_gloo", gloo_store);
    context->connectFullMesh(prefixed, device);
    impl_->context = std::move(context);
  } catch (const ::gloo::Exception& e) {
    EMBER_CHECK(false, "ProcessGroupGloo: rank ", rank, " of ", size, " could not connect to the other ranks: ",
                e.what());
  }
  impl_->worker = std::thread([impl = impl_.get()] {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(impl->mutex);
        impl->cv.wait(lock, [&] { return impl->stop || !impl->queue.empty(); });
        if (impl->queue.empty()) return;  // stopping, nothing left
        job = std::move(impl->queue.front());
        impl->queue.pop_front();
      }
      job();
    }
  });
}

ProcessGroupGloo::~ProcessGroupGloo() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stop = true;
  }
  impl_->cv.notify_all();
  if (impl_->worker.joinable()) impl_->worker.join();
}

std::shared_ptr<Work> ProcessGroupGloo::enqueue(std::string op, std::vector<Tensor> outputs,
                                                std::chrono::milliseconds timeout,
                                                std::function<void(uint32_t, std::chrono::milliseconds)> run) {
  auto work = std::make_shared<Work>(op, std::move(outputs));
  const std::chrono::milliseconds t = timeout == kUnsetTimeout ? options_.timeout : timeout;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    const uint32_t tag = impl_->next_tag++;
    impl_->queue.push_back([this, done = work->completion(), op, t, tag, run = std::move(run)]() mutable {
      // The collectives write the callers' tensors as data: never recorded by autograd (grad
      // mode is per thread, and the caller's guard does not reach this worker).
      autograd::BelowAutogradGuard below;
      std::exception_ptr error;
      try {
        run(tag, t);
      } catch (const ::gloo::Exception& e) {
        // A rank that died closes its connections; one that hangs runs the clock out.
        error = std::make_exception_ptr(Error(::ember::detail::str_cat(
            "ProcessGroupGloo: ", op, " failed on rank ", rank_, " of ", size_, " (timeout ", t.count(),
            " ms): another rank died, hung or disagrees on the collective", detail::gone_ranks(*impl_->store, rank_, size_),
            ": ", e.what())));
      } catch (const Error&) {
        error = std::current_exception();
      } catch (const ::gloo::EnforceNotMet& e) {
        // Gloo's own checks ("[enforce fail at gloo/...]"), given the collective.
        error = std::make_exception_ptr(Error(::ember::detail::str_cat(
            "ProcessGroupGloo: ", op, " failed on rank ", rank_, " of ", size_, ": Gloo refused it (do the ranks "
            "pass the same shapes and dtypes?): ", e.what())));
      } catch (...) {
        error = std::current_exception();
      }
      run = nullptr;  // the tensors (and staging buffers) it captured go before any waiter wakes
      done->finish(std::move(error));
    });
  }
  impl_->cv.notify_one();
  return work;
}

std::shared_ptr<Work> ProcessGroupGloo::allreduce(std::vector<Tensor>& tensors, const AllreduceOptions& opts) {
  EMBER_CHECK(tensors.size() == 1, "ProcessGroupGloo::allreduce: expected one tensor, got ", tensors.size());
  Tensor t = tensors[0];
  check_cpu_dense(t, "allreduce");
  const ScalarType dt = t.scalar_type();
  EMBER_CHECK_TYPE(opts.reduceOp != ReduceOp::AVG || isFloatingType(dt),
                   "ProcessGroupGloo::allreduce: ReduceOp.AVG needs a floating tensor, got ", dt);
  const ReduceOp op = opts.reduceOp;
  return enqueue("allreduce", {t}, opts.timeout, [this, t, op](uint32_t tag, std::chrono::milliseconds timeout) {
    gloo_reduce_in_place(impl_->context, t, op, -1, tag, timeout);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::broadcast(std::vector<Tensor>& tensors, const BroadcastOptions& opts) {
  EMBER_CHECK(tensors.size() == 1 && opts.rootTensor == 0, "ProcessGroupGloo::broadcast: expected one tensor");
  EMBER_CHECK(opts.rootRank >= 0 && opts.rootRank < size_, "ProcessGroupGloo::broadcast: root rank ", opts.rootRank,
              " is not in [0, ", size_, ")");
  Tensor t = tensors[0];
  check_cpu_dense(t, "broadcast");
  const int root = int(opts.rootRank);
  return enqueue("broadcast", {t}, opts.timeout, [this, t, root](uint32_t tag, std::chrono::milliseconds timeout) {
    // Bytes are bytes: any dtype travels as uint8 (bool and bfloat16 included).
    ::gloo::BroadcastOptions o(impl_->context);
    uint8_t* p = static_cast<uint8_t*>(t.data_ptr());
    const size_t bytes = size_t(t.numel()) * t.element_size();
    if (rank_ == root) o.setInput(p, bytes);
    o.setOutput(p, bytes);
    o.setRoot(root);
    o.setTag(tag);
    o.setTimeout(timeout);
    if (bytes > 0) ::gloo::broadcast(o);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::allgather(std::vector<std::vector<Tensor>>& outputs,
                                                  std::vector<Tensor>& inputs, const AllgatherOptions& opts) {
  EMBER_CHECK(inputs.size() == 1 && outputs.size() == 1, "ProcessGroupGloo::allgather: expected one input and one "
              "list of outputs, got ", inputs.size(), " and ", outputs.size());
  const Tensor in = inputs[0];
  check_cpu_dense(in, "allgather");
  std::vector<Tensor> outs = outputs[0];
  EMBER_CHECK(int(outs.size()) == size_, "ProcessGroupGloo::allgather: expected ", size_,
              " output tensors (one per rank), got ", outs.size());
  for (const Tensor& o : outs) {
    EMBER_CHECK(o.defined() && o.sizes() == in.sizes() && o.scalar_type() == in.scalar_type(),
                "ProcessGroupGloo::allgather: every output must have the input's shape ", in.sizes(), " and dtype ",
                in.scalar_type());
    EMBER_CHECK(o.is_cpu(), "ProcessGroupGloo::allgather: outputs must be CPU tensors");
  }
  return enqueue("allgather", outs, opts.timeout, [this, in, outs](uint32_t tag, std::chrono::milliseconds timeout) {
    const size_t bytes = size_t(in.numel()) * in.element_size();
    // Gathered into one flat buffer, then split into the outputs.
    Tensor flat = empty({int64_t(bytes) * size_}, TensorOptions().dtype(kByte));
    ::gloo::AllgatherOptions o(impl_->context);
    o.setInput(static_cast<uint8_t*>(in.data_ptr()), bytes);
    o.setOutput(flat.data_ptr<uint8_t>(), bytes * size_t(size_));
    o.setTag(tag);
    o.setTimeout(timeout);
    if (bytes > 0) ::gloo::allgather(o);
    for (int r = 0; r < size_; ++r) {
      Tensor dst = outs[size_t(r)];
      Tensor src = from_blob(flat.data_ptr<uint8_t>() + size_t(r) * bytes, in.sizes(), in.options());
      dst.copy_(src);
    }
  });
}

std::shared_ptr<Work> ProcessGroupGloo::barrier(const BarrierOptions& opts) {
  return enqueue("barrier", {}, opts.timeout, [this](uint32_t tag, std::chrono::milliseconds timeout) {
    ::gloo::BarrierOptions o(impl_->context);
    o.setTag(tag);
    o.setTimeout(timeout);
    ::gloo::barrier(o);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::reduce(std::vector<Tensor>& tensors, const ReduceOptions& opts) {
  EMBER_CHECK(tensors.size() == 1 && opts.rootTensor == 0, "ProcessGroupGloo::reduce: expected one tensor");
  EMBER_CHECK(opts.rootRank >= 0 && opts.rootRank < size_, "ProcessGroupGloo::reduce: root rank ", opts.rootRank,
              " is not in [0, ", size_, ")");
  Tensor t = tensors[0];
  check_cpu_dense(t, "reduce");
  check_reduce_op(t, opts.reduceOp, "reduce");
  const int root = int(opts.rootRank);
  const ReduceOp op = opts.reduceOp;
  return enqueue("reduce", {t}, opts.timeout, [this, t, op, root](uint32_t tag, std::chrono::milliseconds timeout) {
    // Gloo uses a non-root's buffer as scratch: reduce a copy there.
    gloo_reduce_in_place(impl_->context, rank_ == root ? t : t.clone(), op, root, tag, timeout);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::gather(std::vector<std::vector<Tensor>>& outputs, std::vector<Tensor>& inputs,
                                               const GatherOptions& opts) {
  EMBER_CHECK(inputs.size() == 1, "ProcessGroupGloo::gather: expected one input tensor, got ", inputs.size());
  EMBER_CHECK(opts.rootRank >= 0 && opts.rootRank < size_, "ProcessGroupGloo::gather: root rank ", opts.rootRank,
              " is not in [0, ", size_, ")");
  const Tensor in = inputs[0];
  check_cpu_dense(in, "gather");
  const int root = int(opts.rootRank);
  std::vector<Tensor> outs;
  if (rank_ == root) {
    EMBER_CHECK(outputs.size() == 1 && int(outputs[0].size()) == size_, "ProcessGroupGloo::gather: the root expects ",
                size_, " output tensors (one per rank)");
    outs = outputs[0];
    for (const Tensor& o : outs) check_same_meta(o, in, "gather", "output");
  } else {
    EMBER_CHECK(outputs.empty() || (outputs.size() == 1 && outputs[0].empty()),
                "ProcessGroupGloo::gather: only the root rank takes output tensors");
  }
  return enqueue("gather", outs, opts.timeout, [this, in, outs, root](uint32_t tag, std::chrono::milliseconds timeout) {
    const size_t bytes = nbytes(in);
    ::gloo::GatherOptions o(impl_->context);
    Tensor flat;
    o.setInput(bytes_of(in), bytes);
    if (rank_ == root) {
      flat = empty({int64_t(bytes) * size_}, TensorOptions().dtype(kByte));
      o.setOutput(flat.data_ptr<uint8_t>(), bytes * size_t(size_));
    }
    o.setRoot(root);
    o.setTag(tag);
    o.setTimeout(timeout);
    if (bytes > 0) ::gloo::gather(o);
    if (rank_ == root)
      for (int r = 0; r < size_; ++r)
        outs[size_t(r)].copy_(from_blob(flat.data_ptr<uint8_t>() + size_t(r) * bytes, in.sizes(), in.options()));
  });
}

std::shared_ptr<Work> ProcessGroupGloo::scatter(std::vector<Tensor>& outputs, std::vector<std::vector<Tensor>>& inputs,
                                                const ScatterOptions& opts) {
  EMBER_CHECK(outputs.size() == 1, "ProcessGroupGloo::scatter: expected one output tensor, got ", outputs.size());
  EMBER_CHECK(opts.rootRank >= 0 && opts.rootRank < size_, "ProcessGroupGloo::scatter: root rank ", opts.rootRank,
              " is not in [0, ", size_, ")");
  const Tensor out = outputs[0];
  check_cpu_dense(out, "scatter");
  const int root = int(opts.rootRank);
  std::vector<Tensor> ins;
  if (rank_ == root) {
    EMBER_CHECK(inputs.size() == 1 && int(inputs[0].size()) == size_, "ProcessGroupGloo::scatter: the root expects ",
                size_, " input tensors (one per rank)");
    for (const Tensor& i : inputs[0]) {
      check_same_meta(i, out, "scatter", "input");
      ins.push_back(i.contiguous());
    }
  } else {
    EMBER_CHECK(inputs.empty() || (inputs.size() == 1 && inputs[0].empty()),
                "ProcessGroupGloo::scatter: only the root rank takes input tensors");
  }
  return enqueue("scatter", {out}, opts.timeout, [this, out, ins, root](uint32_t tag, std::chrono::milliseconds timeout) {
    const size_t bytes = nbytes(out);
    ::gloo::ScatterOptions o(impl_->context);
    std::vector<uint8_t*> ptrs;
    for (const Tensor& i : ins) ptrs.push_back(bytes_of(i));
    if (rank_ == root) o.setInputs(ptrs, bytes);
    o.setOutput(bytes_of(out), bytes);
    o.setRoot(root);
    o.setTag(tag);
    o.setTimeout(timeout);
    if (bytes > 0) ::gloo::scatter(o);
  });
}

// As PyTorch's Gloo backend: the inputs concatenated, all-reduced, and this rank's part kept.
std::shared_ptr<Work> ProcessGroupGloo::reduce_scatter(std::vector<Tensor>& outputs,
                                                       std::vector<std::vector<Tensor>>& inputs,
                                                       const ReduceScatterOptions& opts) {
  EMBER_CHECK(outputs.size() == 1 && inputs.size() == 1 && int(inputs[0].size()) == size_,
              "ProcessGroupGloo::reduce_scatter: expected one output and ", size_, " inputs (one per rank)");
  const Tensor out = outputs[0];
  check_cpu_dense(out, "reduce_scatter");
  check_reduce_op(out, opts.reduceOp, "reduce_scatter");
  for (const Tensor& i : inputs[0]) check_same_meta(i, out, "reduce_scatter", "input");
  const Tensor flat = cat(inputs[0]).contiguous();
  const ReduceOp op = opts.reduceOp;
  return enqueue("reduce_scatter", {out}, opts.timeout,
                 [this, out, flat, op](uint32_t tag, std::chrono::milliseconds timeout) {
                   gloo_reduce_in_place(impl_->context, flat, op, -1, tag, timeout);
                   out.copy_(flat.narrow(0, rank_ * out.size(0), out.size(0)).view(out.sizes()));
                 });
}

std::shared_ptr<Work> ProcessGroupGloo::_allgather_base(Tensor& output, Tensor& input, const AllgatherOptions& opts) {
  check_cpu_dense(input, "_allgather_base");
  check_cpu_dense(output, "_allgather_base");
  EMBER_CHECK(output.scalar_type() == input.scalar_type() && output.numel() == input.numel() * size_,
              "ProcessGroupGloo::_allgather_base: the output must hold ", size_, " times the input (",
              input.numel() * size_, " elements of ", input.scalar_type(), "), got ", output.sizes(), " of ",
              output.scalar_type());
  const Tensor in = input, out = output;
  return enqueue("_allgather_base", {out}, opts.timeout, [this, in, out](uint32_t tag, std::chrono::milliseconds timeout) {
    ::gloo::AllgatherOptions o(impl_->context);
    o.setInput(bytes_of(in), nbytes(in));
    o.setOutput(bytes_of(out), nbytes(out));
    o.setTag(tag);
    o.setTimeout(timeout);
    if (nbytes(in) > 0) ::gloo::allgather(o);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::_reduce_scatter_base(Tensor& output, Tensor& input,
                                                             const ReduceScatterOptions& opts) {
  check_cpu_dense(input, "_reduce_scatter_base");
  check_cpu_dense(output, "_reduce_scatter_base");
  check_reduce_op(output, opts.reduceOp, "_reduce_scatter_base");
  EMBER_CHECK(output.scalar_type() == input.scalar_type() && input.numel() == output.numel() * size_,
              "ProcessGroupGloo::_reduce_scatter_base: the input must hold ", size_, " times the output (",
              output.numel() * size_, " elements of ", output.scalar_type(), "), got ", input.sizes(), " of ",
              input.scalar_type());
  const Tensor flat = input.clone().reshape({-1}), out = output;
  const ReduceOp op = opts.reduceOp;
  return enqueue("_reduce_scatter_base", {out}, opts.timeout,
                 [this, out, flat, op](uint32_t tag, std::chrono::milliseconds timeout) {
                   gloo_reduce_in_place(impl_->context, flat, op, -1, tag, timeout);
                   out.copy_(flat.narrow(0, rank_ * out.numel(), out.numel()).view(out.sizes()));
                 });
}

std::shared_ptr<Work> ProcessGroupGloo::alltoall(std::vector<Tensor>& outputs, std::vector<Tensor>& inputs,
                                                 const AllToAllOptions& opts) {
  EMBER_CHECK(int(outputs.size()) == size_ && int(inputs.size()) == size_, "ProcessGroupGloo::alltoall: expected ",
              size_, " inputs and outputs (one per rank), got ", inputs.size(), " and ", outputs.size());
  std::vector<Tensor> ins, outs = outputs;
  for (const Tensor& i : inputs) {
    EMBER_CHECK(i.defined() && i.is_cpu() && i.scalar_type() == inputs[0].scalar_type(),
                "ProcessGroupGloo::alltoall: every input must be a CPU tensor of dtype ", inputs[0].scalar_type());
    ins.push_back(i.contiguous());
  }
  for (const Tensor& o : outs)
    EMBER_CHECK(o.defined() && o.is_cpu() && o.scalar_type() == inputs[0].scalar_type(),
                "ProcessGroupGloo::alltoall: every output must be a CPU tensor of dtype ", inputs[0].scalar_type());
  return enqueue("alltoall", outs, opts.timeout, [this, ins, outs](uint32_t tag, std::chrono::milliseconds timeout) {
    std::vector<int64_t> in_counts, out_counts;
    for (const Tensor& i : ins) in_counts.push_back(int64_t(nbytes(i)));
    for (const Tensor& o : outs) out_counts.push_back(int64_t(nbytes(o)));
    std::vector<Tensor> flat_in_parts;
    for (const Tensor& i : ins) flat_in_parts.push_back(from_blob(i.data_ptr(), {int64_t(nbytes(i))}, TensorOptions().dtype(kByte)));
    const Tensor flat_in = cat(flat_in_parts);
    int64_t total_out = 0;
    for (int64_t c : out_counts) total_out += c;
    Tensor flat_out = empty({total_out}, TensorOptions().dtype(kByte));
    ::gloo::AlltoallvOptions o(impl_->context);
    o.setInput(flat_in.data_ptr<uint8_t>(), in_counts);
    o.setOutput(flat_out.data_ptr<uint8_t>(), out_counts);
    o.setTag(tag);
    o.setTimeout(timeout);
    ::gloo::alltoallv(o);
    int64_t off = 0;
    for (size_t r = 0; r < outs.size(); ++r) {
      Tensor dst = outs[r];
      dst.copy_(from_blob(flat_out.data_ptr<uint8_t>() + off, dst.sizes(), dst.options()));
      off += out_counts[r];
    }
  });
}

std::shared_ptr<Work> ProcessGroupGloo::send(std::vector<Tensor>& tensors, int dstRank, int tag) {
  EMBER_CHECK(tensors.size() == 1, "ProcessGroupGloo::send: expected one tensor, got ", tensors.size());
  EMBER_CHECK(dstRank >= 0 && dstRank < size_ && dstRank != rank_, "ProcessGroupGloo::send: destination rank ",
              dstRank, " must be another rank of [0, ", size_, ")");
  const Tensor t = tensors[0];
  check_cpu_dense(t, "send");
  auto buf = impl_->context->createUnboundBuffer(t.data_ptr(), nbytes(t));
  buf->send(dstRank, p2p_slot(tag));
  return std::make_shared<P2PWork>("send", t, std::move(buf), true, options_.timeout, dstRank);
}

std::shared_ptr<Work> ProcessGroupGloo::recv(std::vector<Tensor>& tensors, int srcRank, int tag) {
  EMBER_CHECK(tensors.size() == 1, "ProcessGroupGloo::recv: expected one tensor, got ", tensors.size());
  EMBER_CHECK(srcRank >= 0 && srcRank < size_ && srcRank != rank_, "ProcessGroupGloo::recv: source rank ", srcRank,
              " must be another rank of [0, ", size_, ")");
  const Tensor t = tensors[0];
  check_cpu_dense(t, "recv");
  auto buf = impl_->context->createUnboundBuffer(t.data_ptr(), nbytes(t));
  buf->recv(srcRank, p2p_slot(tag));
  return std::make_shared<P2PWork>("recv", t, std::move(buf), false, options_.timeout, srcRank);
}

namespace detail {

// Note [Naming the missing rank]
// When a collective fails, the group asks which of its ranks are gone: at construction every
// rank records "<host> <pid>" in the store, and a failure checks the ranks on this host
// (/proc: no such process, or a zombie, is gone). The message then names them; ranks on other
// hosts, or a store that died with its rank 0, leave the message without that part.
std::string proc_id() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return std::string(host) + " " + std::to_string(::getpid());
}

bool process_gone(long pid) {
  std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (!f) return true;
  long read_pid = 0;
  char comm[256] = {}, state = '?';
  const int n = std::fscanf(f, "%ld (%255[^)]) %c", &read_pid, comm, &state);
  std::fclose(f);
  return n == 3 && (state == 'Z' || state == 'X');
}

// " (ranks no longer running: 2 (pid 123))" for the ranks of this host that are gone, or "".
std::string gone_ranks(Store& store, int rank, int size) {
  try {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    std::string gone;
    for (int r = 0; r < size; ++r) {
      const std::string key = "ember_pg_proc/" + std::to_string(r);
      if (r == rank || !store.check({key})) continue;
      const std::string id = store.get_to_str(key);
      const size_t sp = id.rfind(' ');
      if (sp == std::string::npos || id.substr(0, sp) != host) continue;
      const long pid = std::atol(id.c_str() + sp + 1);
      if (process_gone(pid)) gone += (gone.empty() ? "" : ", ") + std::to_string(r) + " (pid " + std::to_string(pid) + ")";
    }
    return gone.empty() ? "" : " (ranks no longer running: " + gone + ")";
  } catch (const std::exception&) {
    return "";  // the store went with its rank 0
  }
}

}  // namespace detail

}  // namespace ember::distributed
