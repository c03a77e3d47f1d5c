// Ops without a CUDA kernel must refuse CUDA tensors with an error, never run their CPU code
// on device memory (which crashes, or silently reads garbage). Checked here without a GPU:
// a fake CUDA allocator hands out host memory labelled cuda:0, so an op that wrongly runs CPU
// code on it returns normally instead of crashing, and the sweep names it. Ops that reach a
// real CUDA kernel fail at the launch (no GPU), which is an error too.
#include <torch/torch.h>

#include <cstdlib>
#include <functional>

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
  // One optimizer step over a CUDA parameter with a CUDA gradient.
  template <class Opt, class Options>
  static void step(const Options& o) {
    Tensor p = fake_cuda(torch::ones({3}));
    p.mutable_grad() = fake_cuda(torch::full({3}, 0.5));
    Opt opt({p}, o);
    opt.step();
  }
  HostMemoryAsCuda fake_;
  Allocator* saved_ = nullptr;
};

TEST_F(UnportedOps, RefuseCudaTensorsInsteadOfRunningCpuCode) {
  Tensor m = fake_cuda(random_tensor({4, 4}, kFloat) + torch::eye(4) * 4);
  Tensor v = fake_cuda(random_tensor({4}, kFloat));
  Tensor img = fake_cuda(random_tensor({2, 3, 8, 8}, kFloat));
  Tensor w = fake_cuda(random_tensor({4, 3, 3, 3}, kFloat));
  Tensor idx = fake_cuda(torch::tensor({0, 2, 1}, kLong));
  Tensor mask = fake_cuda(torch::tensor({true, false, true, false}));
  Tensor cm = fake_cuda(random_tensor({4, 4}, kComplexFloat));
  std::vector<std::pair<std::string, std::function<void()>>> ops = {
      {"sum", [&] { torch::sum(m); }},
      {"mean dim", [&] { torch::mean(m, 1); }},
      {"max dim", [&] { torch::max(m, 1); }},
      {"argmax", [&] { torch::argmax(m); }},
      {"var", [&] { torch::var(m); }},
      {"norm", [&] { torch::norm(m); }},
      {"logsumexp", [&] { torch::logsumexp(m, 1); }},
      {"softmax", [&] { torch::softmax(m, 1); }},
      {"log_softmax", [&] { torch::log_softmax(m, 1); }},
      {"cumsum", [&] { torch::cumsum(m, 1); }},
      {"cumprod", [&] { torch::cumprod(m, 1); }},
      {"sort", [&] { torch::sort(v); }},
      {"topk", [&] { torch::topk(v, 2); }},
      {"unique", [&] { torch::_unique(v); }},
      {"nonzero", [&] { torch::nonzero(v); }},
      {"index_select", [&] { torch::index_select(m, 0, idx); }},
      {"gather", [&] { torch::gather(m, 1, fake_cuda(torch::zeros({4, 2}, kLong))); }},
      {"scatter_add", [&] { m.clone().scatter_add_(1, fake_cuda(torch::zeros({4, 2}, kLong)), m.slice(1, 0, 2)); }},
      {"index_put accumulate", [&] { m.clone().index_put_({idx}, v.slice(0, 0, 3).unsqueeze(1), true); }},
      {"masked_fill", [&] { v.masked_fill(mask, 1.0); }},
      {"masked_select", [&] { torch::masked_select(v, mask); }},
      {"where", [&] { torch::where(mask, v, v); }},
      {"indexing", [&] { m.index({idx}); }},
      {"embedding", [&] { torch::embedding(m, idx); }},
      {"mm", [&] { torch::mm(m, m); }},
      {"matmul", [&] { torch::matmul(m, v); }},
      {"bmm", [&] { torch::bmm(m.unsqueeze(0), m.unsqueeze(0)); }},
      {"addmm", [&] { torch::addmm(m, m, m); }},
      {"linear", [&] { torch::nn::functional::linear(m, m); }},
      {"inverse", [&] { torch::inverse(m); }},
      {"linalg_solve", [&] { torch::linalg::solve(m, v); }},
      {"cholesky", [&] { torch::linalg::cholesky(torch::mm(m, m.t())); }},
      {"qr", [&] { torch::linalg::qr(m); }},
      {"svd", [&] { torch::linalg::svd(m); }},
      {"eigh", [&] { torch::linalg::eigh(m); }},
      {"det", [&] { torch::linalg::det(m); }},
      {"fft", [&] { torch::fft::fft(v); }},
      {"rfft", [&] { torch::fft::rfft(v); }},
      {"complex fft2", [&] { torch::fft::fft2(cm); }},
      {"conv2d", [&] { torch::conv2d(img, w); }},
      {"conv_transpose2d", [&] { torch::conv_transpose2d(img, w.transpose(0, 1).contiguous()); }},
      {"max_pool2d", [&] { torch::max_pool2d(img, 2); }},
      {"avg_pool2d", [&] { torch::avg_pool2d(img, 2); }},
      {"adaptive_avg_pool2d", [&] { torch::adaptive_avg_pool2d(img, {1, 1}); }},
      {"batch_norm", [&] {
         torch::batch_norm(img, fake_cuda(torch::ones({3})), fake_cuda(torch::zeros({3})), fake_cuda(torch::zeros({3})),
                           fake_cuda(torch::ones({3})), true, 0.1, 1e-5, false);
       }},
      {"layer_norm", [&] { torch::layer_norm(img, {8}); }},
      {"group_norm", [&] { torch::group_norm(img, 3); }},
      {"dropout", [&] { torch::dropout(m, 0.5, true); }},
      {"rand_like", [&] { torch::rand_like(m); }},
      {"randn on cuda", [&] { torch::randn({3}, torch::kCUDA); }},
      {"normal_", [&] { m.clone().normal_(); }},
      {"bernoulli", [&] { torch::bernoulli(fake_cuda(torch::full({4}, 0.5))); }},
      {"multinomial", [&] { torch::multinomial(fake_cuda(torch::ones({4})), 2); }},
      {"randperm on cuda", [&] { torch::randperm(5, torch::TensorOptions().device(torch::kCUDA)); }},
      {"arange on cuda", [&] { torch::arange(5, torch::TensorOptions().device(torch::kCUDA)); }},
      {"linspace on cuda", [&] { torch::linspace(0, 1, 5, torch::TensorOptions().device(torch::kCUDA)); }},
      {"eye on cuda", [&] { torch::eye(3, torch::TensorOptions().device(torch::kCUDA)); }},
      {"zeros on cuda", [&] { torch::zeros({3}, torch::kCUDA); }},
      {"cross_entropy", [&] { torch::nn::functional::cross_entropy(m, idx.slice(0, 0, 3).repeat({2}).slice(0, 0, 4)); }},
      {"mse_loss", [&] { torch::mse_loss(m, m); }},
      {"nll_loss", [&] { torch::nll_loss(m, fake_cuda(torch::tensor({0, 1, 2, 3}, kLong))); }},
      {"cat", [&] { torch::cat({m, m}); }},
      {"stack", [&] { torch::stack({m, m}); }},
      {"flip", [&] { torch::flip(m, {0}); }},
      {"roll", [&] { torch::roll(m, 1, 0); }},
      {"tril", [&] { torch::tril(m); }},
      {"pad", [&] { torch::constant_pad_nd(m, {1, 1}); }},
      {"interpolate", [&] {
         torch::nn::functional::interpolate(img, torch::nn::functional::InterpolateFuncOptions().size(
                                                     std::vector<int64_t>{4, 4}).mode(torch::kBilinear).align_corners(false));
       }},
      {"equal", [&] { torch::equal(m, m); }},
      {"allclose", [&] { torch::allclose(m, m); }},
      {"clone", [&] { m.clone(); }},
      {"contiguous of a transpose", [&] { m.t().contiguous(); }},
      {"fill_", [&] { m.clone().fill_(2); }},
      {"item", [&] { v[0].item(); }},
      {"print", [&] { std::ostringstream os; os << m; }},
      {"einsum", [&] { torch::einsum("ij,jk->ik", {m, m}); }},
      {"kthvalue", [&] { torch::kthvalue(v, 2); }},
      {"median", [&] { torch::median(v); }},
      {"histc", [&] { torch::histc(v); }},
      {"bincount", [&] { torch::bincount(idx); }},
      {"searchsorted", [&] { torch::searchsorted(v, v); }},
      {"cdist", [&] { torch::cdist(m, m); }},
      {"sgd step", [&] { step<torch::optim::SGD>(torch::optim::SGDOptions(0.1).momentum(0.9)); }},
      {"adam step", [&] { step<torch::optim::Adam>(torch::optim::AdamOptions(0.1)); }},
      {"adamw step", [&] { step<torch::optim::AdamW>(torch::optim::AdamWOptions(0.1)); }},
      {"rmsprop step", [&] { step<torch::optim::RMSprop>(torch::optim::RMSpropOptions(0.1)); }},
      {"adagrad step", [&] { step<torch::optim::Adagrad>(torch::optim::AdagradOptions(0.1)); }},
      {"clip_grad_norm_", [&] {
         Tensor p = fake_cuda(torch::ones({3}));
         p.mutable_grad() = fake_cuda(torch::ones({3}));
         torch::nn::utils::clip_grad_norm_({p}, 1.0);
       }},
      {"grad scaler unscale", [&] {
         Tensor p = fake_cuda(torch::ones({3}));
         p.mutable_grad() = fake_cuda(torch::ones({3}));
         torch::optim::SGD opt({p}, torch::optim::SGDOptions(0.1));
         torch::amp::GradScaler scaler;
         scaler.unscale_(opt);
       }},
      {"stft", [&] { torch::stft(fake_cuda(random_tensor({64}, kFloat)), 16, std::nullopt, std::nullopt,
                                 std::nullopt, false, std::nullopt, true); }},
  };
  std::vector<std::string> ran_on_host, other_errors;
  for (auto& [name, fn] : ops) {
    try {
      fn();
      ran_on_host.push_back(name);
    } catch (const Error& e) {
      // Refused ("no kernel for device cuda:0", "... on cuda:0"), or reached a CUDA kernel,
      // which cannot launch without a GPU ("CUDA is not available"). Any other error means
      // this sweep called the op wrongly and checks nothing.
      const std::string m = e.what();
      if (m.find("cuda") == std::string::npos && m.find("CUDA") == std::string::npos)
        other_errors.push_back(name + ": " + m.substr(0, 160));
    }
  }
  EXPECT_TRUE(ran_on_host.empty()) << "these ops ran CPU code on CUDA memory: " << ::testing::PrintToString(ran_on_host);
  EXPECT_TRUE(other_errors.empty()) << "calls that failed for another reason: " << ::testing::PrintToString(other_errors);
}

}  // namespace
}  // namespace ember::test
