// ProcessGroup, Work and ProcessGroupGloo (process_group.h).
#include "ember/distributed/process_group.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/types.h>

#include <unistd.h>

#include <deque>
#include <thread>

#include "ember/core/error.h"
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
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_;
}
bool Work::isSuccess() {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ && !error_;
}
std::exception_ptr Work::exception() {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}
bool Work::wait(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout > std::chrono::milliseconds::zero()) {
    EMBER_CHECK(cv_.wait_for(lock, timeout, [&] { return completed_; }), "ProcessGroup: ", op_,
                " did not complete within ", timeout.count(), " ms (Work::wait's timeout)");
  } else {
    cv_.wait(lock, [&] { return completed_; });
  }
  if (error_) std::rethrow_exception(error_);
  return true;
}
std::vector<Tensor> Work::result() {
  wait();
  return outputs_;
}
void Work::finish(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    completed_ = true;
    error_ = std::move(error);
  }
  cv_.notify_all();
}

ProcessGroup::ProcessGroup(int rank, int size) : rank_(rank), size_(size) {
  EMBER_CHECK(size >= 1 && rank >= 0 && rank < size, "ProcessGroup: rank ", rank, " is not in [0, ", size,
              ") for a group of size ", size);
}
ProcessGroup::~ProcessGroup() = default;

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

}  // namespace

struct ProcessGroupGloo::Impl {
  std::shared_ptr<::gloo::rendezvous::Context> context;
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue;
  bool stop = false;
  uint32_t next_tag = 0;
  std::thread worker;
};

ProcessGroupGloo::ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size)
    : ProcessGroupGloo(std::move(store), rank, size, Options()) {}

ProcessGroupGloo::ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size, Options options)
    : ProcessGroup(rank, size), options_(std::move(options)), impl_(std::make_unique<Impl>()) {
  EMBER_CHECK(store != nullptr, "ProcessGroupGloo: expected a store");
  ::gloo::transport::tcp::attr attr;
  attr.hostname = options_.hostname;
  if (attr.hostname.empty()) {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    attr.hostname = host;
  }
  try {
    std::shared_ptr<::gloo::transport::Device> device = ::gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<::gloo::rendezvous::Context>(rank, size);
    context->setTimeout(options_.timeout);
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
    impl_->queue.push_back([this, work, op, t, tag, run = std::move(run)] {
      try {
        run(tag, t);
        work->finish();
      } catch (const ::gloo::Exception& e) {
        // A rank that died closes its connections; one that hangs runs the clock out.
        work->finish(std::make_exception_ptr(Error(::ember::detail::str_cat(
            "ProcessGroupGloo: ", op, " failed on rank ", rank_, " of ", size_, " (timeout ", t.count(),
            " ms): another rank died, hung or disagrees on the collective: ", e.what()))));
      } catch (...) {
        work->finish(std::current_exception());
      }
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
  const int size = size_;
  return enqueue("allreduce", {t}, opts.timeout, [this, t, op, size](uint32_t tag, std::chrono::milliseconds timeout) {
    Tensor buf = travels_as_float(t.scalar_type()) ? t.to(kFloat) : t;
    visit_gloo_type(buf.scalar_type(), "allreduce", [&](auto tag_type) {
      using T = decltype(tag_type);
      ::gloo::AllreduceOptions o(impl_->context);
      T* p = static_cast<T*>(buf.data_ptr());
      o.setOutput(p, size_t(buf.numel()));
      o.setReduceFunction(reduce_fn<T>(op));
      o.setTag(tag);
      o.setTimeout(timeout);
      if (buf.numel() > 0) ::gloo::allreduce(o);
    });
    if (op == ReduceOp::AVG) buf.div_(double(size));
    if (!buf.is_same(t)) t.copy_(buf);
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

}  // namespace ember::distributed
