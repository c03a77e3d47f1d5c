// torch.distributed's module-level API (ember/distributed/distributed.h) as forked processes
// on loopback: init_process_group through tcp://, file:// and env://, the collectives with
// global src/dst ranks, synchronous and async_op, new_group subgroups (members and not),
// point to point, destroy_process_group, and the errors before initialization and for
// unavailable backends.
#include <cstdlib>

#include "ember/cuda/cuda.h"
#include "ember/distributed/distributed.h"
#include "store_test_util.h"
#include "temp_files.h"
#include "test_util.h"

namespace ember::test {
namespace dist_api {  // named: the tests build as one unity file

namespace dist = ember::distributed;
using namespace std::chrono_literals;
using dist::store_testing::require;

// The checks every rank of a 3-rank world runs once the default group exists.
void exercise_world(int rank) {
  require(dist::is_initialized(), "initialized");
  require(dist::get_rank() == rank && dist::get_world_size() == 3 && dist::get_backend() == "gloo", "rank/size");
  Tensor t = full({4}, double(rank + 1), TensorOptions().dtype(kDouble));
  dist::all_reduce(t);
  require(t.eq(6.0).all().item<bool>(), "all_reduce sum");
  Tensor b = full({2}, double(rank), TensorOptions().dtype(kFloat));
  dist::broadcast(b, 2);
  require(b.eq(2.0).all().item<bool>(), "broadcast from global rank 2");
  Tensor r = full({3}, double(rank + 1), TensorOptions().dtype(kLong));
  dist::reduce(r, 1, dist::ReduceOp::PRODUCT);
  require(rank != 1 || r.eq(6).all().item<bool>(), "reduce product to rank 1");
  std::vector<Tensor> parts;
  for (int i = 0; i < 3; ++i) parts.push_back(empty({2}, TensorOptions().dtype(kFloat)));
  auto work = dist::all_gather(parts, full({2}, double(10 * rank), TensorOptions().dtype(kFloat)), nullptr, true);
  work->wait();
  for (int i = 0; i < 3; ++i) require(parts[size_t(i)].eq(10.0 * i).all().item<bool>(), "all_gather async");
  Tensor flat = empty({6}, TensorOptions().dtype(kFloat));
  dist::all_gather_into_tensor(flat, full({2}, double(rank), TensorOptions().dtype(kFloat)));
  require(flat.equal(tensor({0.f, 0.f, 1.f, 1.f, 2.f, 2.f})), "all_gather_into_tensor");
  Tensor mine = empty({2}, TensorOptions().dtype(kFloat));
  dist::reduce_scatter_tensor(mine, arange(6, TensorOptions().dtype(kFloat)), dist::ReduceOp::SUM);
  require(mine.equal(arange(2 * rank, 2 * rank + 2, TensorOptions().dtype(kFloat)).mul(3)), "reduce_scatter_tensor");
  std::vector<Tensor> gl;
  if (rank == 0)
    for (int i = 0; i < 3; ++i) gl.push_back(empty({1}, TensorOptions().dtype(kInt)));
  dist::gather(full({1}, rank * 7, TensorOptions().dtype(kInt)), gl, 0);
  require(rank != 0 || (gl[1].item<int>() == 7 && gl[2].item<int>() == 14), "gather to rank 0");
  // A subgroup of global ranks {0, 2}: rank 1 is not a member.
  dist::Group sub = dist::new_group({0, 2});
  require(dist::is_non_group_member(sub) == (rank == 1), "new_group membership");
  if (rank == 1) {
    require(dist::get_rank(sub) == -1 && dist::get_world_size(sub) == -1, "a non-member's rank and size");
    Tensor s = full({1}, 5.0, TensorOptions().dtype(kDouble));
    dist::all_reduce(s, dist::ReduceOp::SUM, sub);  // does nothing: not a member
    require(s.item<double>() == 5.0, "a collective on a non-member is a no-op");
  } else {
    require(dist::get_world_size(sub) == 2 && dist::get_global_rank(sub, 1) == 2, "subgroup size / global rank");
    Tensor s = full({1}, double(rank), TensorOptions().dtype(kDouble));
    dist::all_reduce(s, dist::ReduceOp::MAX, sub);
    require(s.item<double>() == 2.0, "subgroup all_reduce");
    Tensor from = full({1}, double(rank), TensorOptions().dtype(kDouble));
    dist::broadcast(from, 2, sub);  // src is a global rank
    require(from.item<double>() == 2.0, "subgroup broadcast from global rank 2");
  }
  // Point to point: 0 -> 1 -> 2.
  Tensor msg = full({3}, 42.0, TensorOptions().dtype(kFloat));
  if (rank == 0) dist::send(msg, 1);
  if (rank == 1) {
    Tensor in = empty({3}, TensorOptions().dtype(kFloat));
    dist::recv(in, 0);
    dist::isend(in.add(1), 2, nullptr, 5)->wait();
  }
  if (rank == 2) {
    Tensor in = empty({3}, TensorOptions().dtype(kFloat));
    dist::irecv(in, 1, nullptr, 5)->wait();
    require(in.eq(43.0).all().item<bool>(), "send/recv chain");
  }
  dist::barrier();
  dist::destroy_process_group();
  require(!dist::is_initialized(), "destroyed");
}

TEST(DistributedApi, TcpInitAndEveryCollective) {
  uint16_t port = 0;
  const int fd = dist::store_testing::bound_socket(port);
  ::close(fd);  // the port is free again for rank 0's store to bind
  std::vector<pid_t> kids;
  for (int rank = 0; rank < 3; ++rank)
    kids.push_back(dist::store_testing::fork_child([rank, port] {
      dist::init_process_group("gloo", "tcp://127.0.0.1:" + std::to_string(port), 3, rank, 20s);
      exercise_world(rank);
    }));
  dist::store_testing::expect_children_succeed(kids);
}

TEST(DistributedApi, FileAndEnvInit) {
  TempDir dir;
  const std::string file = (dir.path / "pg_store").string();
  std::vector<pid_t> kids;
  for (int rank = 0; rank < 3; ++rank)
    kids.push_back(dist::store_testing::fork_child([rank, file] {
      dist::init_process_group("gloo", "file://" + file, 3, rank, 20s);
      Tensor t = ones({2});
      dist::all_reduce(t);
      require(t.eq(3.0).all().item<bool>(), "file:// all_reduce");
      dist::destroy_process_group();
    }));
  dist::store_testing::expect_children_succeed(kids);
  uint16_t port = 0;
  ::close(dist::store_testing::bound_socket(port));
  kids.clear();
  for (int rank = 0; rank < 2; ++rank)
    kids.push_back(dist::store_testing::fork_child([rank, port] {
      ::setenv("MASTER_ADDR", "127.0.0.1", 1);
      ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
      ::setenv("RANK", std::to_string(rank).c_str(), 1);
      ::setenv("WORLD_SIZE", "2", 1);
      dist::init_process_group("gloo");
      Tensor t = full({2}, double(rank));
      dist::all_reduce(t, dist::ReduceOp::AVG);
      require(t.eq(0.5).all().item<bool>(), "env:// all_reduce avg");
      dist::destroy_process_group();
    }));
  dist::store_testing::expect_children_succeed(kids);
  // env:// with world_size and rank given: RANK and WORLD_SIZE are not needed, and the
  // environment is left as it was (PyTorch does not write it either).
  ::close(dist::store_testing::bound_socket(port));
  kids.clear();
  for (int rank = 0; rank < 2; ++rank)
    kids.push_back(dist::store_testing::fork_child([rank, port] {
      ::setenv("MASTER_ADDR", "127.0.0.1", 1);
      ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
      ::unsetenv("RANK");
      ::unsetenv("WORLD_SIZE");
      dist::init_process_group("gloo", "env://", 2, rank);
      require(dist::get_rank() == rank && dist::get_world_size() == 2, "rank and world size from the arguments");
      require(std::getenv("RANK") == nullptr && std::getenv("WORLD_SIZE") == nullptr, "the environment untouched");
      Tensor t = full({2}, double(rank));
      dist::all_reduce(t);
      require(t.eq(1.0).all().item<bool>(), "env:// with arguments all_reduce");
      dist::destroy_process_group();
    }));
  dist::store_testing::expect_children_succeed(kids);
}

TEST(DistributedApi, AStoreKeptAcrossWorldsServesANewInit) {
  // destroy_process_group, then init again on the same (user-held) store: the second world
  // must not read the first one's keys (Gloo's addresses), for the default group and new_group.
  uint16_t port = 0;
  ::close(dist::store_testing::bound_socket(port));
  std::vector<pid_t> kids;
  for (int rank = 0; rank < 2; ++rank)
    kids.push_back(dist::store_testing::fork_child([rank, port] {
      auto store = std::make_shared<dist::TCPStore>("127.0.0.1", port, 2, rank == 0);
      // A world of one in between (rank 0 alone): worlds of another size are counted apart.
      if (rank == 0) {
        dist::init_process_group("gloo", "", 1, 0, 20s, store);
        dist::destroy_process_group();
      }
      for (int world = 0; world < 3; ++world) {
        dist::init_process_group("gloo", "", 2, rank, 20s, store);
        Tensor t = full({2}, double(rank + world));
        dist::all_reduce(t);
        require(t.eq(double(1 + 2 * world)).all().item<bool>(), "all_reduce in world " + std::to_string(world));
        dist::Group g = dist::new_group({0, 1});
        Tensor u = ones({1});
        dist::all_reduce(u, dist::ReduceOp::SUM, g);
        require(u.item<double>() == 2.0, "new_group all_reduce in world " + std::to_string(world));
        dist::destroy_process_group();
      }
    }));
  dist::store_testing::expect_children_succeed(kids);
}

TEST(DistributedApi, DebugDetailNamesMismatchedCollectives) {
  // Under TORCH_DISTRIBUTED_DEBUG=DETAIL, ranks calling different collectives, or the same one
  // on different shapes, all get an error naming each rank's call (Note [Collective
  // fingerprints]); matching calls work as before. (Without it, Gloo ends the process from its
  // I/O thread on a size mismatch, as in PyTorch.)
  uint16_t port = 0;
  ::close(dist::store_testing::bound_socket(port));
  std::vector<pid_t> kids;
  for (int rank = 0; rank < 2; ++rank)
    kids.push_back(dist::store_testing::fork_child([rank, port] {
      ::setenv("TORCH_DISTRIBUTED_DEBUG", "DETAIL", 1);
      auto store = std::make_shared<dist::TCPStore>("127.0.0.1", port, 2, rank == 0);
      dist::init_process_group("gloo", "", 2, rank, 20s, store);
      Tensor same = ones({3});
      dist::all_reduce(same);
      require(same.eq(2.0).all().item<bool>(), "a matching all_reduce");
      Tensor t = ones({rank == 0 ? 4 : 4096});
      std::string shapes;
      try {
        dist::all_reduce(t);
      } catch (const Error& e) {
        shapes = e.what();
      }
      require(shapes.find("Detected mismatch between collectives") != std::string::npos &&
                  shapes.find("rank 0: #3 allreduce op=SUM Float[4]@cpu") != std::string::npos &&
                  shapes.find("rank 1: #3 allreduce op=SUM Float[4096]@cpu") != std::string::npos,
              "shapes named: " + shapes);
      std::string ops;
      Tensor u = ones({2});
      try {
        if (rank == 0) dist::all_reduce(u);
        else dist::broadcast(u, 0);
      } catch (const Error& e) {
        ops = e.what();
      }
      require(ops.find("allreduce") != std::string::npos && ops.find("broadcast root=0") != std::string::npos,
              "ops named: " + ops);
      // A difference past the 200 bytes shown (a shape of 80 dimensions, the last one differing)
      // is caught by the digest of the whole fingerprint.
      std::vector<int64_t> dims(80, 1);
      dims.back() = rank == 0 ? 1 : 2;
      Tensor deep = ones(dims);
      std::string far;
      try {
        dist::all_reduce(deep);
      } catch (const Error& e) {
        far = e.what();
      }
      require(far.find("Detected mismatch between collectives") != std::string::npos && far.find("...") != std::string::npos,
              "a difference past the shown bytes: " + far);
      dist::destroy_process_group();
    }));
  dist::store_testing::expect_children_succeed(kids);
}

TEST(DistributedApi, ErrorsBeforeInitAndForUnknownBackends) {
  ASSERT_FALSE(dist::is_initialized());
  Tensor t = ones({2});
  EXPECT_ERROR_WITH(dist::all_reduce(t), "Default process group has not been initialized");
  EXPECT_ERROR_WITH(dist::get_rank(), "has not been initialized");
  EXPECT_ERROR_WITH(dist::new_group({0}), "has not been initialized");
  auto store = std::make_shared<dist::HashStore>();
  if (!cuda::is_available())  // NCCL needs a GPU (tests/cuda/nccl_test.cpp runs it where there is one)
    EXPECT_ERROR_WITH(dist::init_process_group("nccl", "", 1, 0, 5s, store),
                      cuda::is_built() ? "NCCL needs a CUDA device" : "built without CUDA");
  EXPECT_ERROR_WITH(dist::init_process_group("mpi", "", 1, 0, 5s, store), "'mpi' backend is not available");
  EXPECT_ERROR_WITH(dist::init_process_group("gloo", "udp://x", 1, 0), "unknown init_method 'udp://x'");
  EXPECT_ERROR_WITH(dist::init_process_group("gloo", "tcp://127.0.0.1:1"), "tcp:// needs world_size and rank");
  // A world of one, on a HashStore: every collective is the identity.
  dist::init_process_group("gloo", "", 1, 0, 5s, store);
  EXPECT_ERROR_WITH(dist::init_process_group("gloo", "", 1, 0, 5s, store), "initialize the default process group twice");
  dist::all_reduce(t);
  EXPECT_TENSOR_EQ(t, ones({2}));
  EXPECT_ERROR_WITH(dist::broadcast(t, 3), "global rank 3 is not part of the group");
  dist::destroy_process_group();
  EXPECT_FALSE(dist::is_initialized());
}

}  // namespace dist_api
}  // namespace ember::test
