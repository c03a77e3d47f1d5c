// Ops without a CUDA kernel must refuse CUDA tensors with an error, never run their CPU code
// on device memory (which crashes, or silently reads garbage). Checked here without a GPU:
// a fake CUDA allocator hands out host memory labelled cuda:0, so an op that wrongly runs CPU
// code on it returns normally instead of crashing, and the sweep names it. Ops that reach a
// real CUDA kernel fail at the launch (no GPU), which is an error too.
#include <torch/torch.h>

#include <cstdlib>
#include <functional>
#include <iostream>

#include "test_util.h"

namespace ember::test {
namespace {

class HostMemoryAsCuda final : public Allocator {
 public:
  DataPtr allocate(size_t n) override { return allocate_on(n, Device(kCUDA, 0)); }
  DataPtr allocate_on(size_t n, Device) override {
    void* p = n ? std::aligned_alloc(64, (n + 63) / 64 * 64) : nullptr;
    if (p) std::memset(p, 0, n);
    return DataPtr(p, nullptr, [](void*, void* q) { std::free(q); }, Device(kCUDA, 0));
  }
};

class UnportedOps : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::is_available()) GTEST_SKIP() << "a GPU is present: the fake device would shadow it";
    saved_ = has_cuda_allocator() ? get_allocator(kCUDA) : nullptr;
    set_allocator(kCUDA, &fake_);
  }
  void TearDown() override {
    if (!cuda::is_available()) set_allocator(kCUDA, saved_);
  }
  static bool has_cuda_allocator() {
    try {
      get_allocator(kCUDA);
      return true;
    } catch (const Error&) {
      return false;
    }
  }
  // A CUDA-labelled tensor with the values of `cpu` (written through host memory).
  static Tensor fake_cuda(const Tensor& cpu) {
    Tensor c = cpu.contiguous();
    Tensor t = torch::empty(c.sizes(), torch::TensorOptions().dtype(c.scalar_type()).device(torch::kCUDA));
    std::memcpy(t.data_ptr(), c.data_ptr(), size_t(c.numel()) * c.element_size());
    return t;
  }
  HostMemoryAsCuda fake_;
  Allocator* saved_ = nullptr;
};

// The tensors the sweep feeds the ops, made on the device under test by `dev`.
struct SweepInputs {
  std::function<Tensor(const Tensor&)> dev;
  Tensor m, v, img, w, idx, mask, cm;
  explicit SweepInputs(std::function<Tensor(const Tensor&)> to_device) : dev(std::move(to_device)) {
    m = dev(random_tensor({4, 4}, kFloat) + torch::eye(4) * 4);
    v = dev(random_tensor({4}, kFloat));
    img = dev(random_tensor({2, 3, 8, 8}, kFloat));
    w = dev(random_tensor({4, 3, 3, 3}, kFloat));
    idx = dev(torch::tensor({0, 2, 1}, kLong));
    mask = dev(torch::tensor({true, false, true, false}));
    cm = dev(random_tensor({4, 4}, kComplexFloat));
  }
};

// One optimizer step over a device parameter with a device gradient.
template <class Opt, class Options>
void step(const SweepInputs& in, const Options& o) {
  Tensor p = in.dev(torch::ones({3}));
  p.mutable_grad() = in.dev(torch::full({3}, 0.5));
  Opt opt({p}, o);
  opt.step();
}

using NamedOps = std::vector<std::pair<std::string, std::function<void()>>>;
NamedOps sweep_ops(const SweepInputs& in) {
  return {
      {"sum", [&in] { torch::sum(in.m); }},
      {"mean dim", [&in] { torch::mean(in.m, 1); }},
      {"max dim", [&in] { torch::max(in.m, 1); }},
      {"argmax", [&in] { torch::argmax(in.m); }},
      {"var", [&in] { torch::var(in.m); }},
      {"norm", [&in] { torch::norm(in.m); }},
      {"logsumexp", [&in] { torch::logsumexp(in.m, 1); }},
      {"softmax", [&in] { torch::softmax(in.m, 1); }},
      {"log_softmax", [&in] { torch::log_softmax(in.m, 1); }},
      {"cumsum", [&in] { torch::cumsum(in.m, 1); }},
      {"cumprod", [&in] { torch::cumprod(in.m, 1); }},
      {"sort", [&in] { torch::sort(in.v); }},
      {"topk", [&in] { torch::topk(in.v, 2); }},
      {"unique", [&in] { torch::_unique(in.v); }},
      {"unique with inverse and counts", [&in] { torch::_unique2(in.v, true, true, true); }},
      {"unique_consecutive", [&in] { torch::unique_consecutive(in.v, true, true); }},
      {"unique_dim", [&in] { torch::unique_dim(in.m, 0); }},
      {"repeat_interleave", [&in] { torch::repeat_interleave(in.idx); }},
      {"repeat_interleave dim", [&in] { in.m.repeat_interleave(in.dev(torch::tensor({1, 0, 2, 1}, kLong)), 0); }},
      {"searchsorted with sorter", [&in] {
         torch::searchsorted(in.v, in.v, false, false, std::nullopt, in.dev(torch::tensor({0, 1, 2, 3}, kLong)));
       }},
      {"take", [&in] { in.m.take(in.idx); }},
      {"index_add", [&in] { in.m.index_add(0, in.idx, in.m.slice(0, 0, 3)); }},
      {"scatter_reduce amax", [&in] {
         in.m.scatter_reduce(1, in.dev(torch::zeros({4, 2}, kLong)), in.m.slice(1, 0, 2), "amax");
       }},
      {"aminmax", [&in] { torch::aminmax(in.m); }},
      {"uniform_", [&in] { in.m.clone().uniform_(); }},
      {"bernoulli_ p tensor", [&in] { in.m.clone().bernoulli_(in.dev(torch::full({4, 4}, 0.5))); }},
      {"random_", [&in] { in.m.clone().random_(0, 10); }},
      {"randint on cuda", [&in] { torch::randint(0, 5, {3}, torch::TensorOptions().device(torch::kCUDA)); }},
      {"nonzero", [&in] { torch::nonzero(in.v); }},
      {"index_select", [&in] { torch::index_select(in.m, 0, in.idx); }},
      {"gather", [&in] { torch::gather(in.m, 1, in.dev(torch::zeros({4, 2}, kLong))); }},
      {"scatter_add", [&in] { in.m.clone().scatter_add_(1, in.dev(torch::zeros({4, 2}, kLong)), in.m.slice(1, 0, 2)); }},
      {"index_put accumulate", [&in] { in.m.clone().index_put_({in.idx}, in.v.slice(0, 0, 3).unsqueeze(1), true); }},
      {"masked_fill", [&in] { in.v.masked_fill(in.mask, 1.0); }},
      {"masked_select", [&in] { torch::masked_select(in.v, in.mask); }},
      {"where", [&in] { torch::where(in.mask, in.v, in.v); }},
      {"indexing", [&in] { in.m.index({in.idx}); }},
      {"embedding", [&in] { torch::embedding(in.m, in.idx); }},
      {"mm", [&in] { torch::mm(in.m, in.m); }},
      {"matmul", [&in] { torch::matmul(in.m, in.v); }},
      {"bmm", [&in] { torch::bmm(in.m.unsqueeze(0), in.m.unsqueeze(0)); }},
      {"addmm", [&in] { torch::addmm(in.m, in.m, in.m); }},
      {"linear", [&in] { torch::nn::functional::linear(in.m, in.m); }},
      {"inverse", [&in] { torch::inverse(in.m); }},
      {"linalg_solve", [&in] { torch::linalg::solve(in.m, in.v); }},
      {"cholesky", [&in] { torch::linalg::cholesky(torch::mm(in.m, in.m.t())); }},
      {"qr", [&in] { torch::linalg::qr(in.m); }},
      {"svd", [&in] { torch::linalg::svd(in.m); }},
      {"eigh", [&in] { torch::linalg::eigh(in.m); }},
      {"det", [&in] { torch::linalg::det(in.m); }},
      {"fft", [&in] { torch::fft::fft(in.v); }},
      {"rfft", [&in] { torch::fft::rfft(in.v); }},
      {"complex fft2", [&in] { torch::fft::fft2(in.cm); }},
      {"conv2d", [&in] { torch::conv2d(in.img, in.w); }},
      {"conv_transpose2d", [&in] { torch::conv_transpose2d(in.img, in.w.transpose(0, 1).contiguous()); }},
      {"max_pool2d", [&in] { torch::max_pool2d(in.img, 2); }},
      {"avg_pool2d", [&in] { torch::avg_pool2d(in.img, 2); }},
      {"adaptive_avg_pool2d", [&in] { torch::adaptive_avg_pool2d(in.img, {1, 1}); }},
      {"batch_norm", [&in] {
         torch::batch_norm(in.img, in.dev(torch::ones({3})), in.dev(torch::zeros({3})), in.dev(torch::zeros({3})),
                           in.dev(torch::ones({3})), true, 0.1, 1e-5, false);
       }},
      {"layer_norm", [&in] { torch::layer_norm(in.img, {8}); }},
      {"group_norm", [&in] { torch::group_norm(in.img, 3); }},
      {"dropout", [&in] { torch::dropout(in.m, 0.5, true); }},
      {"rand_like", [&in] { torch::rand_like(in.m); }},
      {"randn on cuda", [&in] { torch::randn({3}, torch::kCUDA); }},
      {"normal_", [&in] { in.m.clone().normal_(); }},
      {"bernoulli", [&in] { torch::bernoulli(in.dev(torch::full({4}, 0.5))); }},
      {"multinomial", [&in] { torch::multinomial(in.dev(torch::ones({4})), 2); }},
      {"randperm on cuda", [&in] { torch::randperm(5, torch::TensorOptions().device(torch::kCUDA)); }},
      {"arange on cuda", [&in] { torch::arange(5, torch::TensorOptions().device(torch::kCUDA)); }},
      {"linspace on cuda", [&in] { torch::linspace(0, 1, 5, torch::TensorOptions().device(torch::kCUDA)); }},
      {"eye on cuda", [&in] { torch::eye(3, torch::TensorOptions().device(torch::kCUDA)); }},
      {"zeros on cuda", [&in] { torch::zeros({3}, torch::kCUDA); }},
      {"cross_entropy", [&in] { torch::nn::functional::cross_entropy(in.m, in.idx.slice(0, 0, 3).repeat({2}).slice(0, 0, 4)); }},
      {"mse_loss", [&in] { torch::mse_loss(in.m, in.m); }},
      {"nll_loss", [&in] { torch::nll_loss(in.m, in.dev(torch::tensor({0, 1, 2, 3}, kLong))); }},
      {"cat", [&in] { torch::cat({in.m, in.m}); }},
      {"stack", [&in] { torch::stack({in.m, in.m}); }},
      {"flip", [&in] { torch::flip(in.m, {0}); }},
      {"roll", [&in] { torch::roll(in.m, 1, 0); }},
      {"tril", [&in] { torch::tril(in.m); }},
      {"pad", [&in] { torch::constant_pad_nd(in.m, {1, 1}); }},
      {"interpolate", [&in] {
         torch::nn::functional::interpolate(in.img, torch::nn::functional::InterpolateFuncOptions().size(
                                                     std::vector<int64_t>{4, 4}).mode(torch::kBilinear).align_corners(false));
       }},
      {"equal", [&in] { torch::equal(in.m, in.m); }},
      {"allclose", [&in] { torch::allclose(in.m, in.m); }},
      {"clone", [&in] { in.m.clone(); }},
      {"contiguous of a transpose", [&in] { in.m.t().contiguous(); }},
      {"fill_", [&in] { in.m.clone().fill_(2); }},
      {"item", [&in] { in.v[0].item(); }},
      {"print", [&in] { std::ostringstream os; os << in.m; }},
      {"einsum", [&in] { torch::einsum("ij,jk->ik", {in.m, in.m}); }},
      {"kthvalue", [&in] { torch::kthvalue(in.v, 2); }},
      {"median", [&in] { torch::median(in.v); }},
      {"histc", [&in] { torch::histc(in.v); }},
      {"bincount", [&in] { torch::bincount(in.idx); }},
      {"searchsorted", [&in] { torch::searchsorted(in.v, in.v); }},
      {"cdist", [&in] { torch::cdist(in.m, in.m); }},
      {"sgd step", [&in] { step<torch::optim::SGD>(in, torch::optim::SGDOptions(0.1).momentum(0.9)); }},
      {"adam step", [&in] { step<torch::optim::Adam>(in, torch::optim::AdamOptions(0.1)); }},
      {"adamw step", [&in] { step<torch::optim::AdamW>(in, torch::optim::AdamWOptions(0.1)); }},
      {"rmsprop step", [&in] { step<torch::optim::RMSprop>(in, torch::optim::RMSpropOptions(0.1)); }},
      {"adagrad step", [&in] { step<torch::optim::Adagrad>(in, torch::optim::AdagradOptions(0.1)); }},
      {"clip_grad_norm_", [&in] {
         Tensor p = in.dev(torch::ones({3}));
         p.mutable_grad() = in.dev(torch::ones({3}));
         torch::nn::utils::clip_grad_norm_({p}, 1.0);
       }},
      {"grad scaler unscale", [&in] {
         Tensor p = in.dev(torch::ones({3}));
         p.mutable_grad() = in.dev(torch::ones({3}));
         torch::optim::SGD opt({p}, torch::optim::SGDOptions(0.1));
         torch::amp::GradScaler scaler;
         scaler.unscale_(opt);
       }},
      {"stft", [&in] { torch::stft(in.dev(random_tensor({64}, kFloat)), 16, std::nullopt, std::nullopt,
                                 std::nullopt, false, std::nullopt, true); }},
  };
}

// Runs every op; returns those that returned normally and, separately, the errors that do
// not mention CUDA (a call this sweep got wrong, which would check nothing).
std::pair<std::vector<std::string>, std::vector<std::string>> run_sweep(const NamedOps& ops,
                                                                        std::vector<std::string>* refused = nullptr) {
  std::vector<std::string> ran, other_errors;
  for (auto& [name, fn] : ops) {
    try {
      fn();
      ran.push_back(name);
    } catch (const Error& e) {
      const std::string m = e.what();
      if (m.find("cuda") == std::string::npos && m.find("CUDA") == std::string::npos)
        other_errors.push_back(name + ": " + m.substr(0, 160));
      else if (refused)
        refused->push_back(name);
      // EMBER_SWEEP_VERBOSE=1: why each op stopped (no kernel, or a CUDA call that failed).
      if (std::getenv("EMBER_SWEEP_VERBOSE")) std::cout << "  " << name << ": " << m.substr(0, 110) << "\n";
    }
  }
  return {ran, other_errors};
}

TEST_F(UnportedOps, RefuseCudaTensorsInsteadOfRunningCpuCode) {
  SweepInputs in(&UnportedOps::fake_cuda);
  auto [ran_on_host, other_errors] = run_sweep(sweep_ops(in));
  EXPECT_TRUE(ran_on_host.empty()) << "these ops ran CPU code on CUDA memory: " << ::testing::PrintToString(ran_on_host);
  EXPECT_TRUE(other_errors.empty()) << "calls that failed for another reason: " << ::testing::PrintToString(other_errors);
}

// A CPU tensor indexed by a device's index tensor is PyTorch's error, before any CPU code
// reads the index's memory.
TEST_F(UnportedOps, DeviceIndicesOfACpuTensorAreRefused) {
  Tensor x = torch::arange(12, kFloat).reshape({4, 3});
  Tensor idx = fake_cuda(torch::tensor({1, 0}, kLong));
  const char* msg = "indices should be either on cpu or on the same device as the indexed tensor (cpu)";
  EXPECT_ERROR_WITH(x.index({idx}), msg);
  EXPECT_ERROR_WITH(x.index_select(1, idx), msg);
  EXPECT_ERROR_WITH(x.index_put_({idx}, torch::zeros({2, 3})), msg);
  EXPECT_ERROR_WITH(x.take(idx), msg);
}

// On a GPU, the same sweep: every op either runs or raises an error that names CUDA (no
// crash); the ops without a CUDA kernel yet are listed in the output.
TEST(CudaOps, SweepRunsOrRefusesOnTheGpu) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  SweepInputs in([](const Tensor& t) { return t.cuda(); });
  std::vector<std::string> refused;
  auto [ran, other_errors] = run_sweep(sweep_ops(in), &refused);
  EXPECT_TRUE(other_errors.empty()) << "errors that do not name CUDA: " << ::testing::PrintToString(other_errors);
  std::cout << "ops without a CUDA kernel yet (" << refused.size() << "): " << ::testing::PrintToString(refused)
            << "\nops that ran on CUDA (" << ran.size() << ")" << std::endl;
}

}  // namespace
}  // namespace ember::test
