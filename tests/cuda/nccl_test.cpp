// ProcessGroupNCCL (ember/distributed/process_group_nccl.h). Without a GPU only the library
// checks and the construction error run; the collectives need a GPU and skip, saying so. A
// machine with one GPU runs a world of one (NCCL's kernels run, and every out-of-place result
// is checked against the CPU), the failure paths of a world of two with one rank missing, and
// DDP over NCCL against local training, and the watchdog aborting a collective held past the
// timeout. Two ranks on two GPUs are not tested here (a world of one moves no data between
// ranks: in-place reductions are the identity, so the out-of-place forms check the counts).
#if defined(EMBER_WITH_CUDA)
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nccl.h>

#include <cstdio>
#include <thread>

#include <torch/torch.h>

#include "cuda_test_util.h"
#include "ember/cuda/guard.h"
#include "ember/cuda/lazy_library.h"
#include "ember/distributed/ddp.h"
#include "ember/distributed/distributed.h"
#include "test_util.h"

namespace ember::test {
namespace nccl_tests {  // named: the tests build as one unity file

namespace dist = ember::distributed;
using namespace std::chrono_literals;

const bool nccl_loaded_at_start = ::dlopen(EMBER_CUDA_SONAME("libnccl", NCCL_MAJOR), RTLD_NOW | RTLD_NOLOAD) != nullptr;

TEST(ProcessGroupNCCL, TheLibraryOpensOnFirstUseWithItsEntryPoints) {
  EXPECT_FALSE(nccl_loaded_at_start) << "libember.so should open NCCL on first use, not at start";
  cuda::detail::LazyLibrary lib(EMBER_CUDA_SONAME("libnccl", NCCL_MAJOR), "NCCL");
  for (const char* name : {"ncclGetUniqueId", "ncclCommInitRank", "ncclCommAbort", "ncclCommGetAsyncError",
                           "ncclAllReduce", "ncclBroadcast", "ncclReduce", "ncclAllGather", "ncclReduceScatter",
                           "ncclSend", "ncclRecv", "ncclGroupStart", "ncclGroupEnd", "ncclGetLastError"})
    EXPECT_NE(lib.symbol(name), nullptr) << name;
  const std::string v = dist::ProcessGroupNCCL::nccl_version();
  EXPECT_EQ(v.substr(0, v.find('.')), std::to_string(NCCL_MAJOR)) << v;
}

TEST(ProcessGroupNCCL, WithoutAGpuConstructionSaysWhy) {
  if (cuda::is_available()) GTEST_SKIP() << "this machine has a GPU: the error path does not apply";
  auto store = std::make_shared<dist::HashStore>();
  EXPECT_ERROR_WITH(dist::ProcessGroupNCCL(store, 0, 1), "NCCL needs a CUDA device");
}

dist::ProcessGroupNCCL::Options quick(std::chrono::milliseconds timeout = 60s) {
  dist::ProcessGroupNCCL::Options o;
  o.timeout = timeout;
  return o;
}

// Values of `dt` that are exact in every dtype, on the GPU.
Tensor values(ScalarType dt, int64_t n, int seed) {
  Tensor v = torch::arange(n, TensorOptions().dtype(kDouble)).add(seed).remainder(7);
  if (dt == kBool) return v.gt(3).to(kCUDA);
  return v.to(dt).to(kCUDA);
}

TEST(ProcessGroupNCCL, EveryCollectiveInAWorldOfOne) {
  EMBER_REQUIRE_GPU();
  auto store = std::make_shared<dist::HashStore>();
  dist::ProcessGroupNCCL pg(store, 0, 1, quick());
  EXPECT_EQ(pg.getBackendName(), "nccl");
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kChar, kByte, kShort, kInt, kLong, kBool, kComplexFloat}) {
    SCOPED_TRACE(torch_name(dt));
    const Tensor x = values(dt, 1000, 3);
    // In place: a world of one reduces to the tensor itself, for every op the dtype has.
    for (dist::ReduceOp op : {dist::ReduceOp::SUM, dist::ReduceOp::AVG, dist::ReduceOp::MIN, dist::ReduceOp::MAX,
                              dist::ReduceOp::PRODUCT}) {
      const bool defined = isComplexType(dt) ? (op == dist::ReduceOp::SUM || op == dist::ReduceOp::AVG)
                                             : (op != dist::ReduceOp::AVG || isFloatingType(dt));
      std::vector<Tensor> t{x.clone()};
      dist::AllreduceOptions o;
      o.reduceOp = op;
      if (!defined) {
        EXPECT_ERROR_WITH(pg.allreduce(t, o), "ProcessGroupNCCL::allreduce");
        continue;
      }
      pg.allreduce(t, o)->wait();
      EXPECT_TRUE(t[0].cpu().equal(x.cpu())) << dist::to_string(op);
    }
    // Out of place: the outputs start as something else, so a wrong count or offset shows.
    const Tensor junk = values(dt, 1000, 5);
    std::vector<std::vector<Tensor>> gathered{{junk.clone()}};
    std::vector<Tensor> in{x};
    pg.allgather(gathered, in)->wait();
    EXPECT_TRUE(gathered[0][0].cpu().equal(x.cpu())) << "allgather";
    Tensor flat = junk.clone();
    pg._allgather_base(flat, in[0])->wait();
    EXPECT_TRUE(flat.cpu().equal(x.cpu())) << "_allgather_base";
    std::vector<Tensor> out{junk.clone()};
    std::vector<std::vector<Tensor>> ins{{x}};
    pg.reduce_scatter(out, ins)->wait();
    EXPECT_TRUE(out[0].cpu().equal(x.cpu())) << "reduce_scatter";
    Tensor rs = junk.clone();
    pg._reduce_scatter_base(rs, in[0])->wait();
    EXPECT_TRUE(rs.cpu().equal(x.cpu())) << "_reduce_scatter_base";
    std::vector<Tensor> a2a_out{junk.clone()};
    pg.alltoall(a2a_out, in)->wait();
    EXPECT_TRUE(a2a_out[0].cpu().equal(x.cpu())) << "alltoall";
    std::vector<std::vector<Tensor>> g_out{{junk.clone()}};
    pg.gather(g_out, in)->wait();
    EXPECT_TRUE(g_out[0][0].cpu().equal(x.cpu())) << "gather";
    std::vector<Tensor> s_out{junk.clone()};
    std::vector<std::vector<Tensor>> s_in{{x}};
    pg.scatter(s_out, s_in)->wait();
    EXPECT_TRUE(s_out[0].cpu().equal(x.cpu())) << "scatter";
    std::vector<Tensor> b{x.clone()};
    pg.broadcast(b)->wait();
    EXPECT_TRUE(b[0].cpu().equal(x.cpu())) << "broadcast";
    std::vector<Tensor> r{x.clone()};
    pg.reduce(r)->wait();
    EXPECT_TRUE(r[0].cpu().equal(x.cpu())) << "reduce";
  }
  pg.barrier()->wait();
}

TEST(ProcessGroupNCCL, WorkOrdersTheCallersStreamAndFinishes) {
  EMBER_REQUIRE_GPU();
  auto store = std::make_shared<dist::HashStore>();
  dist::ProcessGroupNCCL pg(store, 0, 1, quick());
  // The input is written by a long chain of kernels on a side stream made current: the
  // collective must see the final values (its stream waits for the caller's current one), and
  // the caller's later kernels the collective's result (wait() orders them after it).
  Tensor out = torch::empty({1 << 24}, torch::kCUDA);
  Tensor x = torch::zeros({1 << 24}, torch::kCUDA);
  std::shared_ptr<dist::Work> work;
  {
    cuda::CUDAStreamGuard side(cuda::getStreamFromPool());
    for (int i = 0; i < 100; ++i) x.mul_(1.0).add_(0.02);
    work = pg._allgather_base(out, x);
    work->wait();
    EXPECT_NEAR(out.sum().item<double>(), 2.0 * (1 << 24), 1e-3 * (1 << 24));
  }
  for (int i = 0; i < 200 && !work->isCompleted(); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(work->isCompleted());
  EXPECT_TRUE(work->isSuccess());
  // A wait with a timeout blocks the CPU until the GPU is done.
  Tensor y = torch::ones({1 << 20}, torch::kCUDA);
  std::vector<Tensor> t{y};
  auto w2 = pg.allreduce(t);
  EXPECT_TRUE(w2->wait(30000ms));
  EXPECT_TRUE(w2->isCompleted());
  EXPECT_EQ(w2->result().size(), 1u);
  // Errors name the op and what was expected.
  std::vector<Tensor> cpu{torch::ones({4})};
  EXPECT_ERROR_WITH(pg.allreduce(cpu), "NCCL takes CUDA tensors");
  std::vector<Tensor> strided{torch::ones({4, 4}, torch::kCUDA).t()};
  EXPECT_ERROR_WITH(pg.allreduce(strided), "expected a contiguous tensor");
  Tensor small = torch::empty({3}, torch::kCUDA);
  EXPECT_ERROR_WITH(pg._allgather_base(small, y), "1 times the input's");
}

TEST(ProcessGroupNCCL, AMissingRankIsNamedWithinTheTimeout) {
  EMBER_REQUIRE_GPU();
  // A world of two where rank 1 never comes: the first collective fails, naming it, after the
  // group's timeout, instead of hanging in NCCL's bootstrap.
  auto store = std::make_shared<dist::HashStore>();
  dist::ProcessGroupNCCL pg(store, 0, 2, quick(1500ms));
  std::vector<Tensor> t{torch::ones({8}, torch::kCUDA)};
  const auto start = std::chrono::steady_clock::now();
  EXPECT_ERROR_WITH(pg.allreduce(t), "for ranks 1 to make the group's NCCL communicator");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s);
}

// A host function that holds the stream it is queued on for 4 s.
void CUDART_CB hold_stream(void*) { std::this_thread::sleep_for(4s); }

// Runs in the death test's child: exits 0 when the held collective failed by the watchdog's
// timeout and a later one was refused.
[[noreturn]] void watchdog_scenario() {
  auto store = std::make_shared<dist::HashStore>();
  dist::ProcessGroupNCCL pg(store, 0, 1, quick(1000ms));
  std::vector<Tensor> t{torch::ones({8}, torch::kCUDA)};
  pg.allreduce(t)->wait();  // the communicator exists
  (void)cudaLaunchHostFunc(cuda::getCurrentCUDAStream().stream(), hold_stream, nullptr);
  auto work = pg.allreduce(t);  // waits behind the held stream, past the timeout
  std::string first, later;
  try {
    work->wait(10000ms);  // the CPU waits (a plain wait() only orders the current stream)
  } catch (const std::exception& e) {
    first = e.what();
  }
  try {
    pg.allreduce(t);
  } catch (const std::exception& e) {
    later = e.what();
  }
  const bool ok =
      first.find("allreduce (collective #2) on rank 0 of 1 did not finish within 1000 ms") != std::string::npos &&
      later.find("communicators were aborted") != std::string::npos;
  std::fprintf(stderr, "first: %s\nlater: %s\n", first.c_str(), later.c_str());
  std::_Exit(ok ? 0 : 1);
}

TEST(ProcessGroupNCCL, TheWatchdogAbortsACollectivePastTheTimeout) {
  EMBER_REQUIRE_GPU();
  // In a child process of its own (gtest's threadsafe death test re-runs the binary): the
  // aborted communicator must not share a CUDA context with the other tests.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(watchdog_scenario(), ::testing::ExitedWithCode(0), "");
}

TEST(ProcessGroupNCCL, DdpOverNcclTrainsLikeLocalTraining) {
  EMBER_REQUIRE_GPU();
  auto store = std::make_shared<dist::HashStore>();
  dist::init_process_group("nccl", "", 1, 0, 60s, store);
  struct Destroy {
    ~Destroy() { dist::destroy_process_group(); }
  } destroy;
  EXPECT_EQ(dist::get_backend(), "nccl");
  torch::manual_seed(3);
  torch::nn::Sequential local(torch::nn::Linear(16, 32), torch::nn::ReLU(), torch::nn::Linear(32, 4));
  torch::nn::Sequential wrapped(torch::nn::Linear(16, 32), torch::nn::ReLU(), torch::nn::Linear(32, 4));
  {
    torch::NoGradGuard g;
    for (size_t i = 0; i < local->parameters().size(); ++i) wrapped->parameters()[i].copy_(local->parameters()[i]);
  }
  local->to(torch::kCUDA);
  wrapped->to(torch::kCUDA);
  nn::parallel::DistributedDataParallelOptions o;
  o.find_unused_parameters = true;  // one more all-reduce per step, of flags on the parameters' device
  nn::parallel::DistributedDataParallel<torch::nn::Sequential> ddp(wrapped, nullptr, o);
  torch::optim::SGD a(local->parameters(), 0.05), b(ddp.parameters(), 0.05);
  for (int step = 0; step < 10; ++step) {
    Tensor x = torch::randn({32, 16}, torch::kCUDA);
    a.zero_grad(), b.zero_grad();
    Tensor la = local->forward(x).pow(2).mean();
    la.backward();
    a.step();
    Tensor lb = ddp(x).pow(2).mean();
    lb.backward();
    b.step();
    EXPECT_NEAR(la.item<double>(), lb.item<double>(), 1e-5) << "step " << step;
  }
}

}  // namespace nccl_tests
}  // namespace ember::test
#endif
