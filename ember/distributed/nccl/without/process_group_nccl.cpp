// ProcessGroupNCCL in a build without CUDA: constructing one says so (process_group_nccl.h).
#include "ember/distributed/process_group_nccl.h"

#include "ember/core/error.h"

namespace ember::distributed {

struct ProcessGroupNCCL::Impl {};

namespace {
[[noreturn]] void no_nccl(const char* what) {
  EMBER_ERROR("ProcessGroupNCCL", what, ": ember was built without CUDA, so without NCCL (configure with "
              "-DEMBER_CUDA=ON on a machine with the CUDA toolkit); use the 'gloo' backend");
}
}  // namespace

ProcessGroupNCCL::ProcessGroupNCCL(std::shared_ptr<Store> store, int rank, int size)
    : ProcessGroupNCCL(std::move(store), rank, size, Options()) {}
ProcessGroupNCCL::ProcessGroupNCCL(std::shared_ptr<Store>, int rank, int size, Options)
    : ProcessGroup(rank, size) {
  no_nccl("");
}
ProcessGroupNCCL::~ProcessGroupNCCL() = default;
std::string ProcessGroupNCCL::nccl_version() { no_nccl("::nccl_version"); }
std::chrono::milliseconds ProcessGroupNCCL::timeout() const { no_nccl("::timeout"); }

// Unreachable (no group is ever made), but the class needs its virtual functions.
std::shared_ptr<Work> ProcessGroupNCCL::allreduce(std::vector<Tensor>&, const AllreduceOptions&) { no_nccl("::allreduce"); }
std::shared_ptr<Work> ProcessGroupNCCL::broadcast(std::vector<Tensor>&, const BroadcastOptions&) { no_nccl("::broadcast"); }
std::shared_ptr<Work> ProcessGroupNCCL::allgather(std::vector<std::vector<Tensor>>&, std::vector<Tensor>&,
                                                  const AllgatherOptions&) {
  no_nccl("::allgather");
}
std::shared_ptr<Work> ProcessGroupNCCL::barrier(const BarrierOptions&) { no_nccl("::barrier"); }
std::shared_ptr<Work> ProcessGroupNCCL::reduce(std::vector<Tensor>&, const ReduceOptions&) { no_nccl("::reduce"); }
std::shared_ptr<Work> ProcessGroupNCCL::gather(std::vector<std::vector<Tensor>>&, std::vector<Tensor>&,
                                               const GatherOptions&) {
  no_nccl("::gather");
}
std::shared_ptr<Work> ProcessGroupNCCL::scatter(std::vector<Tensor>&, std::vector<std::vector<Tensor>>&,
                                                const ScatterOptions&) {
  no_nccl("::scatter");
}
std::shared_ptr<Work> ProcessGroupNCCL::reduce_scatter(std::vector<Tensor>&, std::vector<std::vector<Tensor>>&,
                                                       const ReduceScatterOptions&) {
  no_nccl("::reduce_scatter");
}
std::shared_ptr<Work> ProcessGroupNCCL::_allgather_base(Tensor&, Tensor&, const AllgatherOptions&) {
  no_nccl("::_allgather_base");
}
std::shared_ptr<Work> ProcessGroupNCCL::_reduce_scatter_base(Tensor&, Tensor&, const ReduceScatterOptions&) {
  no_nccl("::_reduce_scatter_base");
}
std::shared_ptr<Work> ProcessGroupNCCL::alltoall(std::vector<Tensor>&, std::vector<Tensor>&, const AllToAllOptions&) {
  no_nccl("::alltoall");
}
std::shared_ptr<Work> ProcessGroupNCCL::send(std::vector<Tensor>&, int, int) { no_nccl("::send"); }
std::shared_ptr<Work> ProcessGroupNCCL::recv(std::vector<Tensor>&, int, int) { no_nccl("::recv"); }

}  // namespace ember::distributed
