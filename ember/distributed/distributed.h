// torch.distributed's module-level API (init_process_group, new_group, all_reduce, ...) over
// ember's process groups, with PyTorch's names and semantics: a default group for the
// process (group::WORLD), ranks given as global ranks (src, dst), collectives synchronous
// unless async_op (then the returned Work is waited on by the caller), and every rank of the
// world calling new_group with the same ranks in the same order (non-members get
// non_group_member(), PyTorch's GroupMember.NON_GROUP_MEMBER: collectives on it do nothing).
//
//   namespace dist = ember::distributed;
//   dist::init_process_group("gloo");             // env://: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE
//   dist::all_reduce(grad);                        // the sum over the ranks
//   dist::destroy_process_group();
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "ember/distributed/process_group.h"
#include "ember/distributed/process_group_nccl.h"
#include "ember/distributed/store.h"

namespace ember::distributed {

using Group = std::shared_ptr<ProcessGroup>;  // nullptr: the default group

inline constexpr std::chrono::milliseconds kDefaultPgTimeout = std::chrono::minutes(30);  // PyTorch's

// Creates the default group. init_method: "env://" (MASTER_ADDR, MASTER_PORT, RANK,
// WORLD_SIZE; world_size / rank given here override the variables), "tcp://host:port" or
// "file:///path" (world_size and rank required); or an explicit `store` (then init_method is
// ignored). backend: "gloo" (CPU tensors) or "nccl" (CUDA tensors, ProcessGroupNCCL); "mpi" is
// not available and says so.
void init_process_group(const std::string& backend, const std::string& init_method = "env://", int world_size = -1,
                        int rank = -1, std::chrono::milliseconds timeout = kDefaultPgTimeout,
                        std::shared_ptr<Store> store = nullptr);
bool is_initialized();
// Destroys `group`, or the default group and every group made from it (nullptr).
void destroy_process_group(const Group& group = nullptr);

// A subgroup of the given global ranks (sorted, distinct; empty: the whole world). Every
// rank of the world must call it, in the same order; ranks outside get non_group_member().
Group new_group(std::vector<int> ranks = {}, std::chrono::milliseconds timeout = kDefaultPgTimeout,
                const std::string& backend = "");

Group non_group_member();
bool is_non_group_member(const Group& group);

// This process's rank in `group` and the group's size (-1 for both when not a member).
int get_rank(const Group& group = nullptr);
int get_world_size(const Group& group = nullptr);
std::string get_backend(const Group& group = nullptr);
// The global rank of `group`'s rank `group_rank`.
int get_global_rank(const Group& group, int group_rank);

// The collectives. Synchronous by default (the returned Work is complete); with async_op the
// caller waits. `src` / `dst` are global ranks.
std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op = ReduceOp::SUM, const Group& group = nullptr,
                                 bool async_op = false);
std::shared_ptr<Work> broadcast(Tensor& tensor, int src, const Group& group = nullptr, bool async_op = false);
std::shared_ptr<Work> reduce(Tensor& tensor, int dst, ReduceOp op = ReduceOp::SUM, const Group& group = nullptr,
                             bool async_op = false);
std::shared_ptr<Work> all_gather(std::vector<Tensor>& tensor_list, const Tensor& tensor, const Group& group = nullptr,
                                 bool async_op = false);
std::shared_ptr<Work> all_gather_into_tensor(Tensor& output, const Tensor& input, const Group& group = nullptr,
                                             bool async_op = false);
// gather_list: on dst, one tensor per rank; elsewhere empty.
std::shared_ptr<Work> gather(const Tensor& tensor, std::vector<Tensor>& gather_list, int dst = 0,
                             const Group& group = nullptr, bool async_op = false);
// scatter_list: on src, one tensor per rank; elsewhere empty.
std::shared_ptr<Work> scatter(Tensor& tensor, std::vector<Tensor>& scatter_list, int src = 0,
                              const Group& group = nullptr, bool async_op = false);
std::shared_ptr<Work> reduce_scatter(Tensor& output, std::vector<Tensor>& input_list, ReduceOp op = ReduceOp::SUM,
                                     const Group& group = nullptr, bool async_op = false);
std::shared_ptr<Work> reduce_scatter_tensor(Tensor& output, const Tensor& input, ReduceOp op = ReduceOp::SUM,
                                            const Group& group = nullptr, bool async_op = false);
std::shared_ptr<Work> all_to_all(std::vector<Tensor>& output_tensor_list, std::vector<Tensor>& input_tensor_list,
                                 const Group& group = nullptr, bool async_op = false);
std::shared_ptr<Work> barrier(const Group& group = nullptr, bool async_op = false);
// Point to point (global ranks): send / recv block, isend / irecv return the Work.
void send(const Tensor& tensor, int dst, const Group& group = nullptr, int tag = 0);
void recv(Tensor& tensor, int src, const Group& group = nullptr, int tag = 0);
std::shared_ptr<Work> isend(const Tensor& tensor, int dst, const Group& group = nullptr, int tag = 0);
std::shared_ptr<Work> irecv(Tensor& tensor, int src, const Group& group = nullptr, int tag = 0);

}  // namespace ember::distributed
