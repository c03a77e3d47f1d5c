// The CUDA runtime through the public API: without a GPU (every CI machine) the answers and
// the errors a LibTorch program sees; with one, devices, streams, events, guards, the caching
// allocator and pinned memory.
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include "cuda_test_util.h"
#include "test_util.h"

namespace ember::test {
namespace {

TEST(CudaRuntime, AvailabilityIsConsistent) {
  EXPECT_EQ(torch::cuda::is_available(), torch::cuda::device_count() > 0);
  if (!cuda::is_built()) EXPECT_EQ(torch::cuda::device_count(), 0);
  // Convolutions on CUDA use cuDNN when it opens; without a GPU it is never available.
  if (!torch::cuda::is_available()) EXPECT_FALSE(torch::cuda::cudnn_is_available());
}

// c10::Stream <-> c10::cuda::CUDAStream, and Tensor::record_stream's errors (no GPU needed).
TEST(CudaRuntime, GenericStreamsAndRecordStream) {
  if (!cuda::is_built()) GTEST_SKIP() << "ember was built without CUDA";
  const c10::cuda::CUDAStream s(c10::cuda::CUDAStream::UNCHECKED, torch::Device(torch::kCUDA, 0), nullptr);
  const c10::Stream generic = s;  // implicit, as in c10
  EXPECT_EQ(generic.device_type(), torch::kCUDA);
  EXPECT_EQ(generic.device_index(), 0);
  EXPECT_EQ(generic.id(), 0);
  EXPECT_TRUE(c10::cuda::CUDAStream(generic) == s);
  EXPECT_EQ(generic, c10::Stream(c10::Stream::DEFAULT, torch::Device(torch::kCUDA, 0)));
  EXPECT_ERROR_WITH(c10::cuda::CUDAStream(c10::Stream(c10::Stream::DEFAULT, torch::Device(torch::kCPU))),
                    "expected a stream of a CUDA device");
  EXPECT_ERROR_WITH(torch::ones({2}).record_stream(generic), "record_stream: expected a CUDA tensor");
}

TEST(CudaRuntime, RecordStreamKeepsABlockFromEarlyReuse) {
  EMBER_REQUIRE_GPU();
  c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool();
  Tensor big = torch::randn({4096, 4096}, torch::kCUDA);
  torch::cuda::synchronize();
  Tensor t = torch::empty({1 << 20}, torch::kCUDA);
  const void* p = t.data_ptr();
  {
    c10::cuda::CUDAStreamGuard g(side);
    for (int i = 0; i < 20; ++i) big = big.mm(big).div_(4096);  // milliseconds of work queued on the side stream
    t.copy_(big.flatten().slice(0, 0, 1 << 20));  // ... which ends by writing t
  }
  t.record_stream(side);  // LibTorch's call: t's block waits for the side stream's work
  t = Tensor();
  Tensor u = torch::empty({1 << 20}, torch::kCUDA);  // the default stream, the same size
  EXPECT_NE(u.data_ptr(), p) << "the block was handed out while the side stream still used it";
  side.synchronize();
}

TEST(CudaRuntime, WithoutAGpuEveryDeviceUseIsAClearError) {
  if (cuda::is_available()) GTEST_SKIP() << "a GPU is present: the no-GPU errors cannot be seen";
  const char* why = cuda::is_built() ? "CUDA is not available" : "built without CUDA";
  EXPECT_ERROR_WITH(torch::zeros({2, 3}, torch::kCUDA), cuda::is_built() ? why : "allocator");
  EXPECT_ERROR_WITH(torch::ones({2}).to(torch::kCUDA), cuda::is_built() ? why : "allocator");
  EXPECT_ERROR_WITH(torch::ones({2}).cuda(), cuda::is_built() ? why : "allocator");
  EXPECT_ERROR_WITH(torch::empty({4}, torch::TensorOptions().device("cuda:1")), cuda::is_built() ? why : "allocator");
  EXPECT_ERROR_WITH(torch::ones({2}).pin_memory(), cuda::is_built() ? why : "built without CUDA");
  EXPECT_FALSE(torch::ones({2}).is_pinned());
  EXPECT_ERROR_WITH(torch::cuda::synchronize(), cuda::is_built() ? why : "built without CUDA");
  EXPECT_ERROR_WITH(c10::cuda::getCurrentCUDAStream(), cuda::is_built() ? why : "built without CUDA");
  EXPECT_ERROR_WITH(c10::cuda::CUDAGuard(0), cuda::is_built() ? why : "built without CUDA");
  EXPECT_ERROR_WITH(at::cuda::CUDAEvent().record(), cuda::is_built() ? why : "built without CUDA");
  // What has no device to touch answers quietly, as in PyTorch.
  EXPECT_NO_THROW(torch::cuda::manual_seed_all(1));
  EXPECT_NO_THROW(torch::cuda::manual_seed(1));
  EXPECT_EQ(torch::cuda::memory_allocated(0), 0);
  EXPECT_NO_THROW(torch::cuda::empty_cache());
  c10::DeviceGuard cpu_guard(torch::kCPU);  // a no-op on the CPU
  EXPECT_EQ(cpu_guard.current_device(), torch::Device(torch::kCPU));
}

TEST(CudaRuntime, DeviceNamesParse) {
  EXPECT_EQ(torch::Device("cuda:1").index(), 1);
  EXPECT_TRUE(torch::Device("cuda").is_cuda());
  EXPECT_FALSE(torch::Device("cuda").has_index());
  EXPECT_EQ(torch::Device(torch::kCUDA, 0).str(), "cuda:0");
}

// ---- with a GPU ----
TEST(CudaRuntime, TensorsMoveBetweenDevices) {
  EMBER_REQUIRE_GPU();
  Tensor a = random_tensor({3, 5}, kFloat);
  Tensor g = a.cuda();
  EXPECT_TRUE(g.is_cuda());
  EXPECT_EQ(g.device(), Device(kCUDA, 0));
  EXPECT_EQ(g.sizes(), a.sizes());
  EXPECT_TENSOR_EQ(g.cpu(), a);
  EXPECT_TENSOR_EQ(a.t().cuda().cpu(), a.t());                        // strided source
  EXPECT_TENSOR_EQ(a.to(torch::kCUDA, kDouble).cpu(), a.to(kDouble));  // dtype change on the way
  Tensor cl = random_tensor({2, 3, 4, 5}, kFloat).contiguous(MemoryFormat::ChannelsLast);
  Tensor gcl = cl.cuda();
  EXPECT_TRUE(gcl.is_contiguous(MemoryFormat::ChannelsLast)) << "the layout travels";
  EXPECT_TENSOR_EQ(gcl.cpu(), cl);
  Tensor dst = torch::zeros({5, 3}, torch::kCUDA);
  dst.copy_(a.t());
  EXPECT_TENSOR_EQ(dst.cpu(), a.t());
  Tensor host = torch::zeros({3, 5}, kDouble).t();  // a strided CPU destination
  host.copy_(g.t());
  EXPECT_TENSOR_EQ(host, a.t().to(kDouble));
  EXPECT_EQ(g.item<float>(), a.item<float>()) << "item reads the first element" ;
}

TEST(CudaRuntime, CrossDeviceOpsNameBothDevices) {
  EMBER_REQUIRE_GPU();
  Tensor g = torch::ones({3}, torch::kCUDA);
  EXPECT_ERROR_WITH(g + torch::ones({3}), "cuda:0");
  EXPECT_ERROR_WITH(g + torch::ones({3}), "cpu");
  // A 0-dim CPU tensor is a scalar any device takes.
  EXPECT_TENSOR_EQ((g + torch::tensor(2.f)).cpu(), torch::full({3}, 3.f));
}

TEST(CudaRuntime, StreamsEventsAndGuards) {
  EMBER_REQUIRE_GPU();
  auto def = c10::cuda::getDefaultCUDAStream();
  EXPECT_EQ(c10::cuda::getCurrentCUDAStream(), def);
  auto s = c10::cuda::getStreamFromPool();
  EXPECT_NE(s, def);
  {
    c10::cuda::CUDAStreamGuard g(s);
    EXPECT_EQ(c10::cuda::getCurrentCUDAStream(), s);
    Tensor x = torch::ones({1 << 20}, torch::kCUDA);
    // cudaEventDefault (0), spelled as ember's constant: this file also builds without CUDA headers.
    at::cuda::CUDAEvent start(cuda::kEventDefault), stop(cuda::kEventDefault);
    start.record();
    Tensor y = x * 2 + 1;
    stop.record();
    stop.synchronize();
    EXPECT_TRUE(stop.query());
    EXPECT_GE(start.elapsed_time(stop), 0.f);
    at::cuda::CUDAEvent done;
    done.record(s);
    done.block(def);  // the default stream waits for s
    EXPECT_TENSOR_EQ(y.cpu(), torch::full({1 << 20}, 3.f));
  }
  EXPECT_EQ(c10::cuda::getCurrentCUDAStream(), def) << "the guard restored the stream";
  at::cuda::CUDAEvent untimed;
  untimed.record();
  EXPECT_ERROR_WITH(untimed.elapsed_time(untimed), "timing");
  c10::cuda::CUDAGuard guard(0);
  EXPECT_EQ(guard.current_device(), Device(kCUDA, 0));
  EXPECT_ERROR_WITH(c10::cuda::CUDAGuard(DeviceIndex(torch::cuda::device_count())), "invalid device index");
}

TEST(CudaRuntime, CachingAllocatorReusesMemoryAndReportsIt) {
  EMBER_REQUIRE_GPU();
  torch::cuda::synchronize();
  const int64_t base = torch::cuda::memory_allocated(0);
  {
    Tensor x = torch::empty({1 << 20}, torch::kCUDA);  // 4 MiB
    EXPECT_EQ(torch::cuda::memory_allocated(0) - base, int64_t(4) << 20);
    EXPECT_GE(torch::cuda::memory_reserved(0), torch::cuda::memory_allocated(0));
  }
  EXPECT_EQ(torch::cuda::memory_allocated(0), base);
  const int64_t reserved = torch::cuda::memory_reserved(0);
  const int64_t device_allocs = torch::cuda::memory_stats(0).num_device_alloc;
  // 1,000 steps of elementwise work: no growth, and no new device allocation after the first.
  Tensor w = torch::ones({256, 256}, torch::kCUDA);
  for (int step = 0; step < 1000; ++step) {
    Tensor y = (w * 1.001f + 0.5f).sigmoid();
    w = y - 0.5f;
  }
  torch::cuda::synchronize();
  EXPECT_EQ(torch::cuda::memory_allocated(0), base + int64_t(256 * 256 * 4));
  EXPECT_LE(torch::cuda::memory_stats(0).num_device_alloc - device_allocs, 1);
  EXPECT_LE(torch::cuda::memory_reserved(0), reserved + (int64_t(2) << 20));
  w = Tensor();
  torch::cuda::empty_cache();
  EXPECT_LE(torch::cuda::memory_reserved(0), reserved);
}

TEST(CudaRuntime, OutOfMemoryNamesTheSizes) {
  EMBER_REQUIRE_GPU();
  const auto props = cuda::get_device_properties(0);
  try {
    torch::empty({props.total_memory}, torch::TensorOptions().dtype(kDouble).device(torch::kCUDA));
    FAIL() << "allocating 8x the device's memory succeeded";
  } catch (const c10::OutOfMemoryError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("Tried to allocate"), std::string::npos) << m;
    EXPECT_NE(m.find("reserved in total"), std::string::npos) << m;
  }
  EXPECT_GE(torch::cuda::memory_stats(0).num_ooms, 1);
  EXPECT_NO_THROW(torch::ones({16}, torch::kCUDA)) << "the allocator still works";
}

TEST(CudaRuntime, PinnedMemoryAndNonBlockingCopies) {
  EMBER_REQUIRE_GPU();
  Tensor a = random_tensor({1 << 16}, kFloat);
  Tensor p = a.pin_memory();
  EXPECT_TRUE(p.is_pinned());
  EXPECT_FALSE(a.is_pinned());
  EXPECT_TRUE(p.pin_memory().is_same(p));
  EXPECT_TENSOR_EQ(p, a);
  Tensor g = p.to(torch::kCUDA, /*non_blocking=*/true);
  Tensor back = torch::empty_like(p).pin_memory();
  back.copy_(g * 2, /*non_blocking=*/true);
  torch::cuda::synchronize();
  EXPECT_TENSOR_EQ(back, a * 2);
}

}  // namespace
}  // namespace ember::test
