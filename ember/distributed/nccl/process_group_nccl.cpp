// ProcessGroupNCCL (process_group_nccl.h): Note [NCCL streams and Work].
#include "ember/distributed/process_group_nccl.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "ember/core/error.h"
#include "ember/cuda/caching_allocator.h"
#include "ember/cuda/cuda.h"
#include "ember/cuda/event.h"
#include "ember/cuda/guard.h"
#include "ember/cuda/lazy_library.h"
#include "ember/distributed/process_group_util.h"
#include "ember/ops/functions.h"

namespace ember::distributed {

namespace {

// The NCCL entry points ember calls, typed from nccl.h.
struct NcclApi {
  decltype(&ncclGetVersion) get_version;
  decltype(&ncclGetUniqueId) get_unique_id;
  decltype(&ncclCommInitRank) comm_init_rank;
  decltype(&ncclCommDestroy) comm_destroy;
  decltype(&ncclCommAbort) comm_abort;
  decltype(&ncclCommGetAsyncError) comm_get_async_error;
  decltype(&ncclGetErrorString) get_error_string;
  decltype(&ncclGetLastError) get_last_error;
  decltype(&ncclAllReduce) all_reduce;
  decltype(&ncclBroadcast) broadcast;
  decltype(&ncclReduce) reduce;
  decltype(&ncclAllGather) all_gather;
  decltype(&ncclReduceScatter) reduce_scatter;
  decltype(&ncclSend) send;
  decltype(&ncclRecv) recv;
  decltype(&ncclGroupStart) group_start;
  decltype(&ncclGroupEnd) group_end;
};

const NcclApi& nccl() {
  static const NcclApi api = [] {
    static cuda::detail::LazyLibrary lib(EMBER_CUDA_SONAME("libnccl", NCCL_MAJOR), "NCCL");
#define EMBER_NCCL_RESOLVE(name) lib.resolve(&name, #name)
    return NcclApi{EMBER_NCCL_RESOLVE(ncclGetVersion),      EMBER_NCCL_RESOLVE(ncclGetUniqueId),
                   EMBER_NCCL_RESOLVE(ncclCommInitRank),    EMBER_NCCL_RESOLVE(ncclCommDestroy),
                   EMBER_NCCL_RESOLVE(ncclCommAbort),       EMBER_NCCL_RESOLVE(ncclCommGetAsyncError),
                   EMBER_NCCL_RESOLVE(ncclGetErrorString),  EMBER_NCCL_RESOLVE(ncclGetLastError),
                   EMBER_NCCL_RESOLVE(ncclAllReduce),       EMBER_NCCL_RESOLVE(ncclBroadcast),
                   EMBER_NCCL_RESOLVE(ncclReduce),          EMBER_NCCL_RESOLVE(ncclAllGather),
                   EMBER_NCCL_RESOLVE(ncclReduceScatter),   EMBER_NCCL_RESOLVE(ncclSend),
                   EMBER_NCCL_RESOLVE(ncclRecv),            EMBER_NCCL_RESOLVE(ncclGroupStart),
                   EMBER_NCCL_RESOLVE(ncclGroupEnd)};
#undef EMBER_NCCL_RESOLVE
  }();
  return api;
}

std::string nccl_error(ncclResult_t r, ncclComm_t comm) {
  std::string s = nccl().get_error_string(r);
  const char* last = nccl().get_last_error(comm);
  if (last && *last) s += std::string(" (") + last + ")";
  return s;
}

#define EMBER_NCCL_CHECK(expr, comm, op)                                                              \
  do {                                                                                                \
    const ncclResult_t ember_nccl_r_ = (expr);                                                        \
    EMBER_CHECK(ember_nccl_r_ == ncclSuccess, "ProcessGroupNCCL::", op, ": NCCL error in ", #expr,   \
                ": ", nccl_error(ember_nccl_r_, comm));                                               \
  } while (0)

using Clock = std::chrono::steady_clock;

// ncclGroupStart .. ncclGroupEnd; a throw in between still ends the group (NCCL's group depth
// is per thread: left open, every later NCCL call of the thread would be deferred forever).
class NcclGroup {
 public:
  NcclGroup(ncclComm_t comm, const char* op) : comm_(comm), op_(op) {
    EMBER_NCCL_CHECK(nccl().group_start(), comm_, op_);
  }
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;
  void end() {
    open_ = false;
    EMBER_NCCL_CHECK(nccl().group_end(), comm_, op_);
  }
  ~NcclGroup() {
    if (open_) (void)nccl().group_end();
  }

 private:
  ncclComm_t comm_;
  const char* op_;
  bool open_ = true;
};

// ---- dtypes and reductions ----

// How a tensor travels in a reduction: NCCL's type and the element count per tensor element
// (2 for complex, as pairs of reals). int16 has no NCCL type: reduced through int32
// (`staged`), exactly, then narrowed back.
struct ReduceType {
  ncclDataType_t type;
  int64_t per_element = 1;
  bool staged = false;
};

ReduceType reduce_type(ScalarType t, ReduceOp op, const char* what) {
  const bool complex = isComplexType(t);
  EMBER_CHECK_TYPE(!complex || op == ReduceOp::SUM || op == ReduceOp::AVG, "ProcessGroupNCCL::", what, ": ReduceOp.",
                   to_string(op), " is not defined for complex tensors (", t, "); SUM and AVG are");
  EMBER_CHECK_TYPE(op != ReduceOp::AVG || isFloatingType(t) || complex, "ProcessGroupNCCL::", what,
                   ": ReduceOp.AVG needs a floating tensor, got ", t);
  switch (t) {
    case kFloat: return {ncclFloat32};
    case kDouble: return {ncclFloat64};
    case kHalf: return {ncclFloat16};
    case kBFloat16: return {ncclBfloat16};
    case kChar: return {ncclInt8};
    case kByte:
    case kBool: return {ncclUint8};
    case kInt: return {ncclInt32};
    case kLong: return {ncclInt64};
    case kShort: return {ncclInt32, 1, true};
    case kComplexFloat: return {ncclFloat32, 2};
    case kComplexDouble: return {ncclFloat64, 2};
    case kComplexHalf: return {ncclFloat16, 2};
    default: break;
  }
  EMBER_CHECK_TYPE(false, "ProcessGroupNCCL::", what, ": cannot reduce tensors of dtype ", t);
  return {};
}

// bool: SUM is "any" and PRODUCT "all" (PyTorch's mapping), MIN / MAX as for uint8.
ncclRedOp_t reduce_op(ReduceOp op, ScalarType t) {
  if (t == kBool) {
    if (op == ReduceOp::SUM) return ncclMax;
    if (op == ReduceOp::PRODUCT) return ncclMin;
  }
  switch (op) {
    case ReduceOp::SUM: return ncclSum;
    case ReduceOp::AVG: return ncclAvg;
    case ReduceOp::PRODUCT: return ncclProd;
    case ReduceOp::MIN: return ncclMin;
    case ReduceOp::MAX: return ncclMax;
  }
  return ncclSum;
}

size_t byte_count(const Tensor& t) { return size_t(t.numel()) * t.element_size(); }

void check_cuda_dense(const Tensor& t, const char* op) {
  EMBER_CHECK(t.defined(), "ProcessGroupNCCL::", op, ": expected a defined tensor");
  EMBER_CHECK(t.is_cuda(), "ProcessGroupNCCL::", op, ": NCCL takes CUDA tensors, got one on ", t.device(),
              " (CPU tensors are Gloo's)");
  EMBER_CHECK(t.is_contiguous(), "ProcessGroupNCCL::", op, ": expected a contiguous tensor, got strides ",
              t.strides());
}

void check_like(const Tensor& t, const Tensor& like, const char* op, const char* what) {
  check_cuda_dense(t, op);
  EMBER_CHECK(t.device() == like.device(), "ProcessGroupNCCL::", op, ": every ", what, " must be on ", like.device(),
              ", got one on ", t.device());
  EMBER_CHECK_TYPE(t.scalar_type() == like.scalar_type(), "ProcessGroupNCCL::", op, ": every ", what,
                   " must have dtype ", like.scalar_type(), ", got ", t.scalar_type());
}

// ---- in-flight collectives ----

// What the watchdog and the Work share about one enqueued collective.
struct Flight {
  std::string op;
  uint64_t seq = 0;
  DeviceIndex device = 0;
  cuda::CUDAEvent end;  // recorded on the NCCL stream after the collective
  Clock::time_point start;
  std::shared_ptr<Work::Completion> done;
  // Tensors whose memory the caching allocator does not own (from_blob on device memory):
  // kept until the collective is done, since recordStream cannot protect them.
  std::vector<Tensor> foreign;

  // True once the GPU passed `end`; finishes the completion then. An error of the query (a
  // sticky CUDA error) is the collective's.
  bool poll() {
    {
      std::lock_guard<std::mutex> lock(done->mutex);
      if (done->completed) return true;
    }
    bool finished = false;
    try {
      finished = end.query();
    } catch (...) {
      done->finish(std::current_exception());
      return true;
    }
    if (finished) done->finish();
    if (finished) foreign.clear();
    return finished;
  }
};

class WorkNCCL : public Work {
 public:
  WorkNCCL(std::string op, std::vector<Tensor> outputs, std::shared_ptr<Flight> flight, bool blocking)
      : Work(std::move(op), std::move(outputs)), flight_(std::move(flight)), blocking_(blocking) {
    flight_->done = completion();
  }

  bool isCompleted() override { return flight_->poll(); }

  bool wait(std::chrono::milliseconds timeout) override {
    rethrow_error();
    {
      cuda::CUDAGuard guard(flight_->device);
      flight_->end.block(cuda::getCurrentCUDAStream(flight_->device));
    }
    if (timeout > std::chrono::milliseconds::zero() || blocking_) {
      const Clock::time_point until = Clock::now() + timeout;
      while (!flight_->poll()) {
        EMBER_CHECK(timeout <= std::chrono::milliseconds::zero() || Clock::now() < until, "ProcessGroupNCCL: ",
                    op(), " (collective #", flight_->seq, ") did not complete within ", timeout.count(),
                    " ms (Work::wait's timeout)");
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    }
    rethrow_error();
    return true;
  }

 private:
  void rethrow_error() {
    std::exception_ptr e = exception();
    if (e) std::rethrow_exception(e);
  }
  std::shared_ptr<Flight> flight_;
  bool blocking_;
};

}  // namespace

// ---- the group ----

struct ProcessGroupNCCL::Impl {
  struct Comm {
    ncclComm_t comm = nullptr;
    DeviceIndex device = 0;
    cudaStream_t stream = nullptr;
  };

  std::shared_ptr<Store> store;
  int rank = 0, size = 1;
  Options options;

  std::mutex comm_mutex;  // comms, comms_made; held while a communicator is made
  std::map<DeviceIndex, Comm> comms;
  int comms_made = 0;
  // NCCL calls on the communicators come from one thread at a time; an abort takes it too
  // (waiting a bounded time: a launch stuck in NCCL is ended by the abort itself).
  std::timed_mutex launch_mutex;
  DeviceIndex last_device = -1;

  std::mutex mutex;  // everything below
  std::condition_variable cv;
  std::vector<std::shared_ptr<Flight>> flights;
  std::vector<ncclComm_t> live;  // the communicators the watchdog checks and aborts
  std::string aborted;           // why the communicators were aborted ("" while healthy)
  uint64_t seq = 0;
  bool stop = false;
  std::thread watchdog;

  const Comm& comm_for(DeviceIndex device, const char* op);
  void check_healthy(const char* op) {
    std::lock_guard<std::mutex> lock(mutex);
    EMBER_CHECK(aborted.empty(), "ProcessGroupNCCL::", op, ": the group's NCCL communicators were aborted after an "
                "earlier failure: ", aborted);
  }
  void abort_all(const std::string& why);
  void watch();

  // Enqueues `launch(comm, stream)` on device's NCCL stream after the caller's current stream,
  // with `tensors` marked as used there. `launch` runs with the NCCL stream current (what it
  // allocates or copies is ordered on that stream).
  template <class Launch>
  std::shared_ptr<Work> run(const char* op, DeviceIndex device, const std::vector<Tensor>& tensors,
                            std::vector<Tensor> outputs, Launch&& launch, bool blocking = false) {
    check_healthy(op);
    const Comm& c = comm_for(device, op);
    const cuda::CUDAStream nccl_stream(cuda::CUDAStream::UNCHECKED, Device(kCUDA, device), c.stream);
    auto flight = std::make_shared<Flight>();
    flight->op = op;
    flight->device = device;
    cuda::CUDAGuard guard(device);
    cuda::CUDAEvent ready;
    ready.record(cuda::getCurrentCUDAStream(device));
    ready.block(nccl_stream);
    for (const Tensor& t : tensors) {
      if (!t.defined() || t.numel() == 0) continue;
      const DataPtr& data = t.storage().unsafeGetStorageImpl()->data_ptr;
      if (cuda::CUDACachingAllocator::owns(data)) cuda::CUDACachingAllocator::recordStream(data, nccl_stream);
      else flight->foreign.push_back(t);
    }
    std::shared_ptr<WorkNCCL> work;
    {
      cuda::CUDAStreamGuard on_nccl(nccl_stream);
      std::lock_guard<std::timed_mutex> launching(launch_mutex);
      check_healthy(op);  // an abort may have come since: its communicators are gone
      launch(c.comm, c.stream);
      flight->end.record(nccl_stream);
      flight->start = Clock::now();
      work = std::make_shared<WorkNCCL>(op, std::move(outputs), flight, blocking);  // sets flight->done
      std::lock_guard<std::mutex> lock(mutex);
      flight->seq = ++seq;
      last_device = device;
      flights.push_back(std::move(flight));
    }
    return work;
  }
};

const ProcessGroupNCCL::Impl::Comm& ProcessGroupNCCL::Impl::comm_for(DeviceIndex device, const char* op) {
  std::lock_guard<std::mutex> lock(comm_mutex);
  auto it = comms.find(device);
  if (it != comms.end()) return it->second;
  // Every rank checks in, so that a missing one is named rather than waited for forever by
  // NCCL's own bootstrap; then rank 0's unique id goes round.
  const std::string base = "ember_nccl/" + std::to_string(comms_made++) + "/";
  store->set(base + "in/" + std::to_string(rank), std::to_string(int(device)));
  std::vector<std::string> keys;
  for (int r = 0; r < size; ++r) keys.push_back(base + "in/" + std::to_string(r));
  try {
    store->wait(keys, options.timeout);
  } catch (const Error& e) {
    std::string missing;
    try {
      for (int r = 0; r < size; ++r)
        if (!store->check({keys[size_t(r)]})) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    } catch (const Error&) {
      missing.clear();  // the store itself is gone: its own error says so
    }
    if (missing.empty()) throw;
    EMBER_CHECK(false, "ProcessGroupNCCL::", op, ": rank ", rank, " of ", size, " waited ", options.timeout.count(),
                " ms for ranks ", missing, " to make the group's NCCL communicator (their first collective on a "
                "CUDA device)", detail::gone_ranks(*store, rank, size), " [", e.what(), "]");
  }
  ncclUniqueId id;
  if (rank == 0) {
    EMBER_NCCL_CHECK(nccl().get_unique_id(&id), nullptr, op);
    store->set(base + "id", std::vector<uint8_t>(reinterpret_cast<uint8_t*>(&id), reinterpret_cast<uint8_t*>(&id) + sizeof id));
  } else {
    store->wait({base + "id"}, options.timeout);
    const std::vector<uint8_t> bytes = store->get(base + "id");
    EMBER_CHECK(bytes.size() == sizeof id, "ProcessGroupNCCL::", op, ": rank 0's NCCL unique id has ", bytes.size(),
                " bytes, expected ", sizeof id);
    std::memcpy(&id, bytes.data(), sizeof id);
  }
  Comm c;
  c.device = device;
  {
    cuda::CUDAGuard guard(device);
    EMBER_NCCL_CHECK(nccl().comm_init_rank(&c.comm, size, id, rank), nullptr, op);
    c.stream = cuda::getStreamFromPool(options.is_high_priority_stream, device).stream();
  }
  {
    std::lock_guard<std::mutex> flights_lock(mutex);
    live.push_back(c.comm);
  }
  return comms.emplace(device, c).first->second;
}

void ProcessGroupNCCL::Impl::abort_all(const std::string& why) {
  std::vector<std::shared_ptr<Flight>> failed;
  std::vector<ncclComm_t> to_abort;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!aborted.empty()) return;
    aborted = why;
    failed.swap(flights);
    to_abort.swap(live);
  }
  // The Works fail first: aborting ends the NCCL kernels, whose end events would then look
  // like success to a poll.
  for (auto& f : failed) f->done->finish(std::make_exception_ptr(Error(why)));
  // No launch runs past this point (a launch checks `aborted` under launch_mutex), unless one
  // is stuck inside NCCL: the abort is what ends that.
  const bool quiet = launch_mutex.try_lock_for(std::chrono::seconds(2));
  for (ncclComm_t comm : to_abort) (void)nccl().comm_abort(comm);
  if (quiet) launch_mutex.unlock();
}

void ProcessGroupNCCL::Impl::watch() {
  std::unique_lock<std::mutex> lock(mutex);
  while (!stop) {
    cv.wait_for(lock, std::chrono::milliseconds(100));
    if (stop) break;
    std::vector<std::shared_ptr<Flight>> pending = flights;
    std::vector<ncclComm_t> comms_now = live;
    lock.unlock();
    std::string failure;
    for (ncclComm_t comm : comms_now) {
      ncclResult_t r = ncclSuccess;
      if (nccl().comm_get_async_error(comm, &r) == ncclSuccess && r != ncclSuccess && r != ncclInProgress) {
        failure = ember::detail::str_cat("ProcessGroupNCCL: NCCL reported an error on rank ", rank, " of ", size,
                                         ": ", nccl_error(r, comm), detail::gone_ranks(*store, rank, size),
                                         "; the group's NCCL communicators were aborted");
        break;
      }
    }
    std::vector<const Flight*> finished;
    for (const auto& f : pending) {
      if (!failure.empty()) break;
      // The flight's device current on this thread (the event's guards then switch nothing:
      // no context is made on another device, cuda:0 say, by a rank that never uses it).
      int current = -1;
      if (cudaGetDevice(&current) == cudaSuccess && current != f->device) (void)cudaSetDevice(f->device);
      if (f->poll()) {
        finished.push_back(f.get());
      } else if (Clock::now() - f->start > options.timeout) {
        failure = ember::detail::str_cat(
            "ProcessGroupNCCL: ", f->op, " (collective #", f->seq, ") on rank ", rank, " of ", size,
            " did not finish within ", options.timeout.count(), " ms: another rank died, hung or called a different "
            "collective", detail::gone_ranks(*store, rank, size), "; the group's NCCL communicators were aborted");
      }
    }
    if (!failure.empty()) abort_all(failure);
    lock.lock();
    std::erase_if(flights, [&](const std::shared_ptr<Flight>& f) {
      return std::find(finished.begin(), finished.end(), f.get()) != finished.end();
    });
  }
}

ProcessGroupNCCL::ProcessGroupNCCL(std::shared_ptr<Store> store, int rank, int size)
    : ProcessGroupNCCL(std::move(store), rank, size, Options()) {}

ProcessGroupNCCL::ProcessGroupNCCL(std::shared_ptr<Store> store, int rank, int size, Options options)
    : ProcessGroup(rank, size), impl_(std::make_unique<Impl>()) {
  EMBER_CHECK(store != nullptr, "ProcessGroupNCCL: expected a store");
  EMBER_CHECK(cuda::is_available(), "ProcessGroupNCCL: NCCL needs a CUDA device and this process sees none "
              "(torch::cuda::is_available() is false); use the 'gloo' backend for CPU tensors");
  (void)nccl();  // the library, now: a missing libnccl is named at construction
  EMBER_CHECK(options.timeout > std::chrono::milliseconds::zero(), "ProcessGroupNCCL: the timeout must be positive, got ",
              options.timeout.count(), " ms");
  store->set("ember_pg_proc/" + std::to_string(rank), detail::proc_id());
  impl_->store = std::move(store);
  impl_->rank = rank;
  impl_->size = size;
  impl_->options = options;
  impl_->watchdog = std::thread([impl = impl_.get()] { impl->watch(); });
}

ProcessGroupNCCL::~ProcessGroupNCCL() {
  // Collectives still running finish first, within the group's timeout (the watchdog keeps
  // watching meanwhile); past it the communicators are aborted instead of waited for.
  const Clock::time_point until = Clock::now() + impl_->options.timeout;
  bool timed_out = false;
  for (;;) {
    std::vector<std::shared_ptr<Flight>> pending;
    {
      std::lock_guard<std::mutex> lock(impl_->mutex);
      if (!impl_->aborted.empty()) break;
      pending = impl_->flights;
    }
    bool all_done = true;
    for (const auto& f : pending) all_done = f->poll() && all_done;
    if (all_done) break;
    if (Clock::now() > until) {
      timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stop = true;
  }
  impl_->cv.notify_all();
  if (impl_->watchdog.joinable()) impl_->watchdog.join();  // it no longer touches the communicators
  if (timed_out)
    impl_->abort_all(ember::detail::str_cat("ProcessGroupNCCL: the group was destroyed with collectives still "
                                            "running after ", impl_->options.timeout.count(), " ms"));
  std::vector<ncclComm_t> live;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    live.swap(impl_->live);  // the aborted ones are gone already
    impl_->flights.clear();
  }
  for (ncclComm_t comm : live) (void)nccl().comm_destroy(comm);  // no device switch needed
}

std::chrono::milliseconds ProcessGroupNCCL::timeout() const { return impl_->options.timeout; }

std::string ProcessGroupNCCL::nccl_version() {
  int v = 0;
  EMBER_NCCL_CHECK(nccl().get_version(&v), nullptr, "nccl_version");
  // NCCL_VERSION(X,Y,Z): X*10000 + Y*100 + Z from 2.9 on (X*1000 + Y*100 + Z before).
  const int major = v >= 10000 ? v / 10000 : v / 1000;
  const int minor = v >= 10000 ? (v % 10000) / 100 : (v % 1000) / 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(v % 100);
}

// ---- collectives ----

namespace {

// A reduction's buffer: the tensor itself, or an int32 copy for int16 (ReduceType::staged).
Tensor reduce_buffer(const Tensor& t, const ReduceType& rt) { return rt.staged ? t.to(kInt) : t; }
size_t count_of(const Tensor& t, const ReduceType& rt) { return size_t(t.numel() * rt.per_element); }

}  // namespace

std::shared_ptr<Work> ProcessGroupNCCL::allreduce(std::vector<Tensor>& tensors, const AllreduceOptions& opts) {
  EMBER_CHECK(tensors.size() == 1, "ProcessGroupNCCL::allreduce: expected one tensor, got ", tensors.size());
  Tensor t = tensors[0];
  check_cuda_dense(t, "allreduce");
  const ReduceType rt = reduce_type(t.scalar_type(), opts.reduceOp, "allreduce");
  const ncclRedOp_t op = reduce_op(opts.reduceOp, t.scalar_type());
  return impl_->run("allreduce", t.device().index(), {t}, {t}, [&](ncclComm_t comm, cudaStream_t stream) {
    Tensor buf = reduce_buffer(t, rt);
    EMBER_NCCL_CHECK(nccl().all_reduce(buf.data_ptr(), buf.data_ptr(), count_of(buf, rt), rt.type, op, comm, stream),
                     comm, "allreduce");
    if (rt.staged) t.copy_(buf);
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::broadcast(std::vector<Tensor>& tensors, const BroadcastOptions& opts) {
  EMBER_CHECK(tensors.size() == 1 && opts.rootTensor == 0, "ProcessGroupNCCL::broadcast: expected one tensor, got ",
              tensors.size());
  EMBER_CHECK(opts.rootRank >= 0 && opts.rootRank < size_, "ProcessGroupNCCL::broadcast: root rank ", opts.rootRank,
              " is not in [0, ", size_, ")");
  Tensor t = tensors[0];
  check_cuda_dense(t, "broadcast");
  const int root = int(opts.rootRank);
  return impl_->run("broadcast", t.device().index(), {t}, {t}, [&](ncclComm_t comm, cudaStream_t stream) {
    EMBER_NCCL_CHECK(nccl().broadcast(t.data_ptr(), t.data_ptr(), byte_count(t), ncclUint8, root, comm, stream), comm,
                     "broadcast");
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::reduce(std::vector<Tensor>& tensors, const ReduceOptions& opts) {
  EMBER_CHECK(tensors.size() == 1 && opts.rootTensor == 0, "ProcessGroupNCCL::reduce: expected one tensor");
  EMBER_CHECK(opts.rootRank >= 0 && opts.rootRank < size_, "ProcessGroupNCCL::reduce: root rank ", opts.rootRank,
              " is not in [0, ", size_, ")");
  Tensor t = tensors[0];
  check_cuda_dense(t, "reduce");
  const ReduceType rt = reduce_type(t.scalar_type(), opts.reduceOp, "reduce");
  const ncclRedOp_t op = reduce_op(opts.reduceOp, t.scalar_type());
  const int root = int(opts.rootRank);
  return impl_->run("reduce", t.device().index(), {t}, {t}, [&](ncclComm_t comm, cudaStream_t stream) {
    Tensor buf = reduce_buffer(t, rt);
    EMBER_NCCL_CHECK(nccl().reduce(buf.data_ptr(), buf.data_ptr(), count_of(buf, rt), rt.type, op, root, comm, stream),
                     comm, "reduce");
    if (rt.staged && rank_ == root) t.copy_(buf);
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::allgather(std::vector<std::vector<Tensor>>& outputs,
                                                  std::vector<Tensor>& inputs, const AllgatherOptions&) {
  EMBER_CHECK(inputs.size() == 1 && outputs.size() == 1 && int(outputs[0].size()) == size_,
              "ProcessGroupNCCL::allgather: expected one input and a list of ", size_, " outputs");
  Tensor in = inputs[0];
  check_cuda_dense(in, "allgather");
  std::vector<Tensor> outs = outputs[0];
  for (const Tensor& o : outs) {
    check_like(o, in, "allgather", "output");
    EMBER_CHECK(o.sizes() == in.sizes(), "ProcessGroupNCCL::allgather: every output must have the input's shape ",
                in.sizes(), ", got ", o.sizes());
  }
  std::vector<Tensor> used = outs;
  used.push_back(in);
  return impl_->run("allgather", in.device().index(), used, outs, [&](ncclComm_t comm, cudaStream_t stream) {
    // Into one flat buffer (NCCL's form), then out to the ranks' tensors, on the NCCL stream.
    Tensor flat = empty({int64_t(size_) * in.numel()}, in.options());
    EMBER_NCCL_CHECK(nccl().all_gather(in.data_ptr(), flat.data_ptr(), byte_count(in), ncclUint8, comm, stream), comm,
                     "allgather");
    for (int r = 0; r < size_; ++r) outs[size_t(r)].view({-1}).copy_(flat.narrow(0, r * in.numel(), in.numel()));
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::_allgather_base(Tensor& output, Tensor& input, const AllgatherOptions&) {
  check_cuda_dense(input, "_allgather_base");
  check_like(output, input, "_allgather_base", "output");
  EMBER_CHECK(output.numel() == input.numel() * size_, "ProcessGroupNCCL::_allgather_base: the output must have ",
              size_, " times the input's ", input.numel(), " elements, got ", output.numel());
  Tensor in = input, out = output;
  return impl_->run("_allgather_base", in.device().index(), {in, out}, {out}, [&](ncclComm_t comm, cudaStream_t stream) {
    EMBER_NCCL_CHECK(nccl().all_gather(in.data_ptr(), out.data_ptr(), byte_count(in), ncclUint8, comm, stream), comm,
                     "_allgather_base");
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::reduce_scatter(std::vector<Tensor>& outputs,
                                                       std::vector<std::vector<Tensor>>& inputs,
                                                       const ReduceScatterOptions& opts) {
  EMBER_CHECK(outputs.size() == 1 && inputs.size() == 1 && int(inputs[0].size()) == size_,
              "ProcessGroupNCCL::reduce_scatter: expected one output and a list of ", size_, " inputs");
  Tensor out = outputs[0];
  check_cuda_dense(out, "reduce_scatter");
  std::vector<Tensor> ins = inputs[0];
  for (const Tensor& i : ins) {
    check_like(i, out, "reduce_scatter", "input");
    EMBER_CHECK(i.sizes() == out.sizes(), "ProcessGroupNCCL::reduce_scatter: every input must have the output's shape ",
                out.sizes(), ", got ", i.sizes());
  }
  const ReduceType rt = reduce_type(out.scalar_type(), opts.reduceOp, "reduce_scatter");
  const ncclRedOp_t op = reduce_op(opts.reduceOp, out.scalar_type());
  std::vector<Tensor> used = ins;
  used.push_back(out);
  return impl_->run("reduce_scatter", out.device().index(), used, {out}, [&](ncclComm_t comm, cudaStream_t stream) {
    std::vector<Tensor> flat_parts;
    for (const Tensor& i : ins) flat_parts.push_back(i.reshape({-1}));
    Tensor flat = reduce_buffer(cat(flat_parts), rt);
    Tensor buf = rt.staged ? empty({out.numel()}, out.options().dtype(kInt)) : out;
    EMBER_NCCL_CHECK(nccl().reduce_scatter(flat.data_ptr(), buf.data_ptr(), count_of(buf, rt), rt.type, op, comm,
                                           stream),
                     comm, "reduce_scatter");
    if (rt.staged) out.view({-1}).copy_(buf);
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::_reduce_scatter_base(Tensor& output, Tensor& input,
                                                             const ReduceScatterOptions& opts) {
  check_cuda_dense(output, "_reduce_scatter_base");
  check_like(input, output, "_reduce_scatter_base", "input");
  EMBER_CHECK(input.numel() == output.numel() * size_, "ProcessGroupNCCL::_reduce_scatter_base: the input must have ",
              size_, " times the output's ", output.numel(), " elements, got ", input.numel());
  const ReduceType rt = reduce_type(output.scalar_type(), opts.reduceOp, "_reduce_scatter_base");
  const ncclRedOp_t op = reduce_op(opts.reduceOp, output.scalar_type());
  Tensor in = input, out = output;
  return impl_->run("_reduce_scatter_base", out.device().index(), {in, out}, {out},
                    [&](ncclComm_t comm, cudaStream_t stream) {
                      Tensor src = reduce_buffer(in, rt);
                      Tensor buf = rt.staged ? empty({out.numel()}, out.options().dtype(kInt)) : out;
                      EMBER_NCCL_CHECK(nccl().reduce_scatter(src.data_ptr(), buf.data_ptr(), count_of(buf, rt),
                                                             rt.type, op, comm, stream),
                                       comm, "_reduce_scatter_base");
                      if (rt.staged) out.view({-1}).copy_(buf);
                    });
}

std::shared_ptr<Work> ProcessGroupNCCL::alltoall(std::vector<Tensor>& outputs, std::vector<Tensor>& inputs,
                                                 const AllToAllOptions&) {
  EMBER_CHECK(int(outputs.size()) == size_ && int(inputs.size()) == size_, "ProcessGroupNCCL::alltoall: expected ",
              size_, " inputs and ", size_, " outputs, got ", inputs.size(), " and ", outputs.size());
  check_cuda_dense(inputs[0], "alltoall");
  for (const Tensor& i : inputs) check_like(i, inputs[0], "alltoall", "input");
  for (const Tensor& o : outputs) check_like(o, inputs[0], "alltoall", "output");
  std::vector<Tensor> ins = inputs, outs = outputs, used = inputs;
  used.insert(used.end(), outputs.begin(), outputs.end());
  EMBER_CHECK(outs[size_t(rank_)].numel() == ins[size_t(rank_)].numel(), "ProcessGroupNCCL::alltoall: this rank's "
              "own piece has ", ins[size_t(rank_)].numel(), " elements in and ", outs[size_t(rank_)].numel(), " out");
  return impl_->run("alltoall", inputs[0].device().index(), used, outs, [&](ncclComm_t comm, cudaStream_t stream) {
    NcclGroup group(comm, "alltoall");
    for (int r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      const Tensor& i = ins[size_t(r)];
      const Tensor& o = outs[size_t(r)];
      EMBER_NCCL_CHECK(nccl().send(i.data_ptr(), byte_count(i), ncclUint8, r, comm, stream), comm, "alltoall");
      EMBER_NCCL_CHECK(nccl().recv(o.data_ptr(), byte_count(o), ncclUint8, r, comm, stream), comm, "alltoall");
    }
    group.end();
    outs[size_t(rank_)].view({-1}).copy_(ins[size_t(rank_)].reshape({-1}));
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::gather(std::vector<std::vector<Tensor>>& outputs, std::vector<Tensor>& inputs,
                                               const GatherOptions& opts) {
  EMBER_CHECK(inputs.size() == 1, "ProcessGroupNCCL::gather: expected one input tensor, got ", inputs.size());
  EMBER_CHECK(opts.rootRank >= 0 && opts.rootRank < size_, "ProcessGroupNCCL::gather: root rank ", opts.rootRank,
              " is not in [0, ", size_, ")");
  Tensor in = inputs[0];
  check_cuda_dense(in, "gather");
  const int root = int(opts.rootRank);
  std::vector<Tensor> outs;
  if (rank_ == root) {
    EMBER_CHECK(outputs.size() == 1 && int(outputs[0].size()) == size_, "ProcessGroupNCCL::gather: the root expects ",
                "a list of ", size_, " output tensors");
    outs = outputs[0];
    for (const Tensor& o : outs) {
      check_like(o, in, "gather", "output");
      EMBER_CHECK(o.sizes() == in.sizes(), "ProcessGroupNCCL::gather: every output must have the input's shape ",
                  in.sizes(), ", got ", o.sizes());
    }
  } else {
    EMBER_CHECK(outputs.empty() || (outputs.size() == 1 && outputs[0].empty()),
                "ProcessGroupNCCL::gather: only the root (rank ", root, ") passes output tensors");
  }
  std::vector<Tensor> used = outs;
  used.push_back(in);
  return impl_->run("gather", in.device().index(), used, outs, [&](ncclComm_t comm, cudaStream_t stream) {
    NcclGroup group(comm, "gather");
    if (rank_ == root) {
      for (int r = 0; r < size_; ++r)
        if (r != root)
          EMBER_NCCL_CHECK(nccl().recv(outs[size_t(r)].data_ptr(), byte_count(in), ncclUint8, r, comm, stream), comm,
                           "gather");
    } else {
      EMBER_NCCL_CHECK(nccl().send(in.data_ptr(), byte_count(in), ncclUint8, root, comm, stream), comm, "gather");
    }
    group.end();
    if (rank_ == root) outs[size_t(root)].copy_(in);
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::scatter(std::vector<Tensor>& outputs, std::vector<std::vector<Tensor>>& inputs,
                                                const ScatterOptions& opts) {
  EMBER_CHECK(outputs.size() == 1, "ProcessGroupNCCL::scatter: expected one output tensor, got ", outputs.size());
  EMBER_CHECK(opts.rootRank >= 0 && opts.rootRank < size_, "ProcessGroupNCCL::scatter: root rank ", opts.rootRank,
              " is not in [0, ", size_, ")");
  Tensor out = outputs[0];
  check_cuda_dense(out, "scatter");
  const int root = int(opts.rootRank);
  std::vector<Tensor> ins;
  if (rank_ == root) {
    EMBER_CHECK(inputs.size() == 1 && int(inputs[0].size()) == size_, "ProcessGroupNCCL::scatter: the root expects ",
                "a list of ", size_, " input tensors");
    ins = inputs[0];
    for (const Tensor& i : ins) {
      check_like(i, out, "scatter", "input");
      EMBER_CHECK(i.sizes() == out.sizes(), "ProcessGroupNCCL::scatter: every input must have the output's shape ",
                  out.sizes(), ", got ", i.sizes());
    }
  } else {
    EMBER_CHECK(inputs.empty() || (inputs.size() == 1 && inputs[0].empty()),
                "ProcessGroupNCCL::scatter: only the root (rank ", root, ") passes input tensors");
  }
  std::vector<Tensor> used = ins;
  used.push_back(out);
  return impl_->run("scatter", out.device().index(), used, {out}, [&](ncclComm_t comm, cudaStream_t stream) {
    NcclGroup group(comm, "scatter");
    if (rank_ == root) {
      for (int r = 0; r < size_; ++r)
        if (r != root)
          EMBER_NCCL_CHECK(nccl().send(ins[size_t(r)].data_ptr(), byte_count(out), ncclUint8, r, comm, stream), comm,
                           "scatter");
    } else {
      EMBER_NCCL_CHECK(nccl().recv(out.data_ptr(), byte_count(out), ncclUint8, root, comm, stream), comm, "scatter");
    }
    group.end();
    if (rank_ == root) out.copy_(ins[size_t(root)]);
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::barrier(const BarrierOptions&) {
  // A one-element all-reduce on the device the group last used (else rank % device count, as
  // PyTorch), waited for by the CPU.
  DeviceIndex device;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    device = impl_->last_device;
  }
  if (device < 0) device = DeviceIndex(rank_ % std::max<int64_t>(1, cuda::device_count()));
  Tensor one = zeros({1}, TensorOptions().dtype(kFloat).device(Device(kCUDA, device)));
  return impl_->run(
      "barrier", device, {one}, {},
      [&](ncclComm_t comm, cudaStream_t stream) {
        EMBER_NCCL_CHECK(nccl().all_reduce(one.data_ptr(), one.data_ptr(), 1, ncclFloat32, ncclSum, comm, stream),
                         comm, "barrier");
      },
      /*blocking=*/true);
}

std::shared_ptr<Work> ProcessGroupNCCL::send(std::vector<Tensor>& tensors, int dstRank, int) {
  EMBER_CHECK(tensors.size() == 1, "ProcessGroupNCCL::send: expected one tensor, got ", tensors.size());
  EMBER_CHECK(dstRank >= 0 && dstRank < size_ && dstRank != rank_, "ProcessGroupNCCL::send: destination rank ",
              dstRank, " must be another rank of [0, ", size_, ")");
  Tensor t = tensors[0];
  check_cuda_dense(t, "send");
  return impl_->run("send", t.device().index(), {t}, {}, [&](ncclComm_t comm, cudaStream_t stream) {
    EMBER_NCCL_CHECK(nccl().send(t.data_ptr(), byte_count(t), ncclUint8, dstRank, comm, stream), comm, "send");
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::recv(std::vector<Tensor>& tensors, int srcRank, int) {
  EMBER_CHECK(tensors.size() == 1, "ProcessGroupNCCL::recv: expected one tensor, got ", tensors.size());
  EMBER_CHECK(srcRank >= 0 && srcRank < size_ && srcRank != rank_, "ProcessGroupNCCL::recv: source rank ", srcRank,
              " must be another rank of [0, ", size_, ")");
  Tensor t = tensors[0];
  check_cuda_dense(t, "recv");
  return impl_->run("recv", t.device().index(), {t}, {t}, [&](ncclComm_t comm, cudaStream_t stream) {
    EMBER_NCCL_CHECK(nccl().recv(t.data_ptr(), byte_count(t), ncclUint8, srcRank, comm, stream), comm, "recv");
  });
}

}  // namespace ember::distributed
