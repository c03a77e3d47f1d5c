// Process groups (PyTorch's c10d, spelled as LibTorch's c10d::ProcessGroup): the ranks of a
// job, met through a Store, run collectives on tensors through a backend (ProcessGroupGloo on
// CPUs; NCCL for CUDA tensors is issue 17's next part). Every collective is asynchronous: it
// returns a Work at once and runs on the group's worker thread in the order it was issued
// (every rank must issue the same collectives in the same order, as with c10d); Work::wait
// blocks until it is done and rethrows its error. A collective that cannot finish within the
// group's timeout (a rank died or hangs) fails with an ember::Error naming the collective, the
// group's rank and size, and the timeout, instead of hanging.
//
//   auto store = std::make_shared<ember::distributed::TCPStore>("127.0.0.1", 29500, world, rank == 0);
//   auto pg = std::make_shared<ember::distributed::ProcessGroupGloo>(store, rank, world);
//   std::vector<torch::Tensor> t{grad};
//   pg->allreduce(t)->wait();  // grad now holds the sum over the ranks
#pragma once
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/distributed/store.h"

namespace ember::distributed {

// c10d::ReduceOp: how allreduce / reduce combine the ranks' values. AVG is the sum divided
// by the group's size, for floating tensors (an integer AVG is an error naming the dtype;
// PyTorch's Gloo backend has no AVG at all).
struct ReduceOp {
  enum RedOpType : uint8_t { SUM = 0, AVG = 1, PRODUCT = 2, MIN = 3, MAX = 4 };
  ReduceOp(RedOpType op = SUM) : op_(op) {}  // NOLINT: implicit, as c10d's
  operator RedOpType() const { return op_; }  // NOLINT
  RedOpType op_;
};
const char* to_string(ReduceOp op);

inline constexpr std::chrono::milliseconds kUnsetTimeout{-1};

struct AllreduceOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  std::chrono::milliseconds timeout = kUnsetTimeout;  // unset: the group's
};
struct BroadcastOptions {
  int64_t rootRank = 0;
  int64_t rootTensor = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};
struct AllgatherOptions {
  std::chrono::milliseconds timeout = kUnsetTimeout;
};
struct BarrierOptions {
  std::chrono::milliseconds timeout = kUnsetTimeout;
};
struct ReduceOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  int64_t rootRank = 0;
  int64_t rootTensor = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};
struct GatherOptions {
  int64_t rootRank = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};
struct ScatterOptions {
  int64_t rootRank = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};
struct ReduceScatterOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};
struct AllToAllOptions {
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

// A collective's handle (c10d::Work).
class Work {
 public:
  explicit Work(std::string op, std::vector<Tensor> outputs = {});
  virtual ~Work();
  Work(const Work&) = delete;
  Work& operator=(const Work&) = delete;

  virtual bool isCompleted();
  // True once completed without an error.
  bool isSuccess();
  // The error of a failed collective (null while running or when it succeeded).
  std::exception_ptr exception();
  // Waits for completion and rethrows the collective's error. With a timeout (> 0), raises
  // an ember::Error naming the collective when it has not completed by then. Returns true.
  virtual bool wait(std::chrono::milliseconds timeout = std::chrono::milliseconds::zero());
  // The tensors the collective wrote (allgather's outputs flattened; allreduce's inputs).
  std::vector<Tensor> result();
  const std::string& op() const { return op_; }

  // Called once by the backend.
  void finish(std::exception_ptr error = nullptr);

  // How a backend's worker thread completes the Work without holding the Work itself (and so
  // the caller's tensors in outputs_): once a waiter wakes, the only references left to the
  // collective's tensors are the caller's, so memory is freed when the caller lets go, not
  // whenever the worker thread gets round to dropping its copies.
  struct Completion {
    std::mutex mutex;
    std::condition_variable cv;
    bool completed = false;
    std::exception_ptr error;
    void finish(std::exception_ptr error = nullptr);
  };
  std::shared_ptr<Completion> completion() const { return state_; }

 private:
  std::string op_;
  std::vector<Tensor> outputs_;
  std::shared_ptr<Completion> state_ = std::make_shared<Completion>();
};

class ProcessGroup {
 public:
  ProcessGroup(int rank, int size);
  virtual ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int getRank() const { return rank_; }
  int getSize() const { return size_; }
  virtual const std::string getBackendName() const = 0;

  // Every rank's `tensors` (one tensor per call on CPU backends) become their reduction.
  virtual std::shared_ptr<Work> allreduce(std::vector<Tensor>& tensors,
                                          const AllreduceOptions& opts = AllreduceOptions()) = 0;
  // Every rank's tensors become opts.rootRank's.
  virtual std::shared_ptr<Work> broadcast(std::vector<Tensor>& tensors,
                                          const BroadcastOptions& opts = BroadcastOptions()) = 0;
  // outputs[0][r] receives rank r's inputs[0] (same shape and dtype on every rank).
  virtual std::shared_ptr<Work> allgather(std::vector<std::vector<Tensor>>& outputs, std::vector<Tensor>& inputs,
                                          const AllgatherOptions& opts = AllgatherOptions()) = 0;
  virtual std::shared_ptr<Work> barrier(const BarrierOptions& opts = BarrierOptions()) = 0;
  // The root's tensors[0] becomes the reduction of every rank's (the others' are left as they were).
  virtual std::shared_ptr<Work> reduce(std::vector<Tensor>& tensors, const ReduceOptions& opts = ReduceOptions());
  // On the root, outputs[0][r] receives rank r's inputs[0]; the other ranks pass empty outputs.
  virtual std::shared_ptr<Work> gather(std::vector<std::vector<Tensor>>& outputs, std::vector<Tensor>& inputs,
                                       const GatherOptions& opts = GatherOptions());
  // outputs[0] on rank r receives the root's inputs[0][r]; the other ranks pass empty inputs.
  virtual std::shared_ptr<Work> scatter(std::vector<Tensor>& outputs, std::vector<std::vector<Tensor>>& inputs,
                                        const ScatterOptions& opts = ScatterOptions());
  // outputs[0] on rank r receives the reduction over the ranks of their inputs[0][r].
  virtual std::shared_ptr<Work> reduce_scatter(std::vector<Tensor>& outputs, std::vector<std::vector<Tensor>>& inputs,
                                               const ReduceScatterOptions& opts = ReduceScatterOptions());
  // The flat forms (c10d's _allgather_base / _reduce_scatter_base): `output` is size() times
  // `input` (all_gather_into_tensor), or `input` size() times `output` (reduce_scatter_tensor),
  // concatenated along dim 0.
  virtual std::shared_ptr<Work> _allgather_base(Tensor& output, Tensor& input,
                                                const AllgatherOptions& opts = AllgatherOptions());
  virtual std::shared_ptr<Work> _reduce_scatter_base(Tensor& output, Tensor& input,
                                                     const ReduceScatterOptions& opts = ReduceScatterOptions());
  // Rank r's inputs[j] arrives in rank j's outputs[r] (any shapes, one dtype).
  virtual std::shared_ptr<Work> alltoall(std::vector<Tensor>& outputs, std::vector<Tensor>& inputs,
                                         const AllToAllOptions& opts = AllToAllOptions());
  // Point to point: tensors[0] to / from one rank, matched by `tag`. Posted at once; the
  // Work's wait() waits for the transfer.
  virtual std::shared_ptr<Work> send(std::vector<Tensor>& tensors, int dstRank, int tag);
  virtual std::shared_ptr<Work> recv(std::vector<Tensor>& tensors, int srcRank, int tag);

 protected:
  [[noreturn]] void unsupported(const char* op) const;
  const int rank_, size_;
};

// Gloo over TCP (PyTorch's CPU engine): the ranks exchange addresses through `store` (under
// their own prefix), connect as a full mesh, and run Gloo's collective algorithms.
// Dtypes: float32/64, float16 (Gloo's own half), bfloat16 (converted to float32 for the
// transfer and reduction, then rounded back: Note [bfloat16 over Gloo]), int8, uint8, int32,
// int64; bool for broadcast and allgather.
class ProcessGroupGloo : public ProcessGroup {
 public:
  struct Options {
    std::chrono::milliseconds timeout = std::chrono::seconds(300);
    // The address each rank listens on and advertises: a host name or address ("127.0.0.1",
    // the default, for ranks on one machine; empty: the machine's host name), or a network
    // interface (`iface`, e.g. "eth0"; PyTorch's GLOO_SOCKET_IFNAME), which takes precedence.
    std::string hostname = "127.0.0.1";
    std::string iface;
  };

  ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size);
  ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size, Options options);
  ~ProcessGroupGloo() override;

  const std::string getBackendName() const override { return "gloo"; }
  std::chrono::milliseconds timeout() const { return options_.timeout; }

  std::shared_ptr<Work> allreduce(std::vector<Tensor>& tensors,
                                  const AllreduceOptions& opts = AllreduceOptions()) override;
  std::shared_ptr<Work> broadcast(std::vector<Tensor>& tensors,
                                  const BroadcastOptions& opts = BroadcastOptions()) override;
  std::shared_ptr<Work> allgather(std::vector<std::vector<Tensor>>& outputs, std::vector<Tensor>& inputs,
                                  const AllgatherOptions& opts = AllgatherOptions()) override;
  std::shared_ptr<Work> barrier(const BarrierOptions& opts = BarrierOptions()) override;
  std::shared_ptr<Work> reduce(std::vector<Tensor>& tensors, const ReduceOptions& opts = ReduceOptions()) override;
  std::shared_ptr<Work> gather(std::vector<std::vector<Tensor>>& outputs, std::vector<Tensor>& inputs,
                               const GatherOptions& opts = GatherOptions()) override;
  std::shared_ptr<Work> scatter(std::vector<Tensor>& outputs, std::vector<std::vector<Tensor>>& inputs,
                                const ScatterOptions& opts = ScatterOptions()) override;
  std::shared_ptr<Work> reduce_scatter(std::vector<Tensor>& outputs, std::vector<std::vector<Tensor>>& inputs,
                                       const ReduceScatterOptions& opts = ReduceScatterOptions()) override;
  std::shared_ptr<Work> _allgather_base(Tensor& output, Tensor& input,
                                        const AllgatherOptions& opts = AllgatherOptions()) override;
  std::shared_ptr<Work> _reduce_scatter_base(Tensor& output, Tensor& input,
                                             const ReduceScatterOptions& opts = ReduceScatterOptions()) override;
  std::shared_ptr<Work> alltoall(std::vector<Tensor>& outputs, std::vector<Tensor>& inputs,
                                 const AllToAllOptions& opts = AllToAllOptions()) override;
  std::shared_ptr<Work> send(std::vector<Tensor>& tensors, int dstRank, int tag) override;
  std::shared_ptr<Work> recv(std::vector<Tensor>& tensors, int srcRank, int tag) override;

 private:
  struct Impl;
  // Queues `run(tag, timeout)` for the worker thread; its Work finishes with run's error.
  std::shared_ptr<Work> enqueue(std::string op, std::vector<Tensor> outputs, std::chrono::milliseconds timeout,
                                std::function<void(uint32_t tag, std::chrono::milliseconds timeout)> run);

  Options options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ember::distributed
