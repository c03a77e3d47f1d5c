// ProcessGroupNCCL: torch.distributed's "nccl" backend, collectives on CUDA tensors by NVIDIA's
// NCCL (the toolkit's libnccl.so.2, opened on first use: Note [CUDA libraries loaded on first
// use]). In a build without CUDA the constructor raises an error saying so.
//
// Note [NCCL streams and Work]
// As PyTorch's: a collective is enqueued on the group's own NCCL stream of the tensor's device
// (from the stream pool), which first waits for the caller's current stream, so the inputs
// are ready; the caching allocator is told the tensors are in use on that stream (their
// memory is not reused before NCCL is done with it, whatever the caller frees). The call
// returns at once. Work::wait() makes the caller's current stream wait for the collective
// (the CPU does not block, unless a timeout is given: then it waits for the GPU, up to that
// long); barrier's wait() blocks the CPU. isCompleted() asks the GPU.
//
// Failures: a watchdog thread checks every in-flight collective. One that has not finished
// within the group's timeout (a rank died, hung or called another collective), or an error
// NCCL reports (a peer gone), aborts the group's communicators; every in-flight and later
// Work then raises an ember::Error naming the collective, its sequence number, this rank and
// the ranks of this host that are no longer running (Note [Naming the missing rank]).
// PyTorch tears the process down at that point; ember raises, so the program can save state
// and exit.
//
// Communicators: one per CUDA device the group is used on, made at its first collective
// there (rank 0 draws NCCL's unique id and hands it over the store; every rank first checks
// in through the store, so a rank that never comes is named after the timeout, not a hang).
// Point-to-point send/recv use the same communicator: they are ordered with the collectives
// (NCCL ignores tags, as PyTorch's NCCL backend does).
//
// Dtypes: float32/64, float16, bfloat16, int8, uint8, int32, int64 for every collective; bool
// reduces as uint8 with SUM meaning "any" (MAX) and PRODUCT "all" (MIN), as PyTorch; complex
// reduces as pairs of reals for SUM and AVG. Collectives that move data without reducing
// (broadcast, all_gather, gather, scatter, all_to_all, send/recv) take every dtype (as bytes).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "ember/distributed/process_group.h"

namespace ember::distributed {

class ProcessGroupNCCL : public ProcessGroup {
 public:
  struct Options {
    std::chrono::milliseconds timeout = std::chrono::minutes(10);  // PyTorch's default for NCCL
    // The NCCL streams from the high-priority pool (c10d's is_high_priority_stream).
    bool is_high_priority_stream = false;
  };
  ProcessGroupNCCL(std::shared_ptr<Store> store, int rank, int size);
  ProcessGroupNCCL(std::shared_ptr<Store> store, int rank, int size, Options options);
  ~ProcessGroupNCCL() override;

  const std::string getBackendName() const override { return "nccl"; }
  std::chrono::milliseconds timeout() const;
  // The NCCL library's version as major.minor.patch ("2.28.9"); opens the library.
  static std::string nccl_version();

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

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;  // holds the options
};

}  // namespace ember::distributed
