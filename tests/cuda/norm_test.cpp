// Fused layer_norm / group_norm on CUDA (Note [Fused normalization on devices],
// ops/cuda/norm_kernels.cu) against the CPU: every floating dtype, rows shorter and longer than
// a block, with and without affine parameters, gradients of input, weight and bias, and the
// LayerNorm / GroupNorm modules; batch norm on cuDNN (Note [Batch norm on devices]) in
// training and eval mode, NCHW and channels-last, with the running statistics. The op-level
// code also runs without a GPU in
// tests/nn/fused_norm_glue_test. Skipped without a GPU.
#include <torch/torch.h>

#include "cuda_test_util.h"
#include "test_util.h"

namespace ember::test {
namespace {

void expect_norm_matches(const char* what, const std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)>& f,
                         const Tensor& x, const Tensor& w, const Tensor& b) {
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    SCOPED_TRACE(std::string(what) + " " + torch_name(dt));
    auto leaf = [&](const Tensor& t, torch::Device d, ScalarType s) {
      return t.defined() ? t.to(d, s).detach().requires_grad_() : Tensor();
    };
    Tensor gx = leaf(x, torch::kCUDA, dt), gw = leaf(w, torch::kCUDA, dt), gb = leaf(b, torch::kCUDA, dt);
    Tensor cx = leaf(x, torch::kCPU, kDouble), cw = leaf(w, torch::kCPU, kDouble), cb = leaf(b, torch::kCPU, kDouble);
    Tensor gy = f(gx, gw, gb), cy = f(cx, cw, cb);
    const double tol = dt == kDouble ? 1e-9 : dt == kFloat ? 1e-4 : 3e-2;
    EXPECT_TENSOR_CLOSE(gy.cpu().to(kDouble), cy.detach(), tol, tol);
    Tensor seed = random_tensor(x.sizes(), kDouble);
    gy.backward(seed.to(torch::kCUDA, dt));
    cy.backward(seed);
    EXPECT_TENSOR_CLOSE(gx.grad().cpu().to(kDouble), cx.grad(), tol, tol * 10);
    if (w.defined()) EXPECT_TENSOR_CLOSE(gw.grad().cpu().to(kDouble), cw.grad(), tol * 10, tol * 100);
    if (b.defined()) EXPECT_TENSOR_CLOSE(gb.grad().cpu().to(kDouble), cb.grad(), tol * 10, tol * 100);
  }
}

TEST(CudaNorm, LayerNormMatchesTheCpu) {
  EMBER_REQUIRE_GPU();
  for (int64_t n : {7, 256, 1000, 4099}) {
    Tensor x = random_tensor({6, n}, kDouble), w = random_tensor({n}, kDouble), b = random_tensor({n}, kDouble);
    expect_norm_matches("layer_norm", [n](const Tensor& a, const Tensor& ww, const Tensor& bb) {
      return torch::nn::functional::layer_norm(a, torch::nn::functional::LayerNormFuncOptions({n}).weight(ww).bias(bb));
    }, x, w, b);
  }
  Tensor x = random_tensor({3, 4, 5, 6}, kDouble);
  expect_norm_matches("layer_norm 2 dims, no affine", [](const Tensor& a, const Tensor&, const Tensor&) {
    return torch::nn::functional::layer_norm(a, torch::nn::functional::LayerNormFuncOptions({5, 6}));
  }, x, Tensor(), Tensor());
}

TEST(CudaNorm, GroupNormMatchesTheCpu) {
  EMBER_REQUIRE_GPU();
  Tensor x = random_tensor({4, 12, 9, 7}, kDouble), w = random_tensor({12}, kDouble), b = random_tensor({12}, kDouble);
  for (int64_t G : {1, 3, 12})
    expect_norm_matches("group_norm", [G](const Tensor& a, const Tensor& ww, const Tensor& bb) {
      return torch::group_norm(a, G, ww, bb);
    }, x, w, b);
}

TEST(CudaNorm, ModulesTrainOnTheDevice) {
  EMBER_REQUIRE_GPU();
  torch::nn::LayerNorm ln(torch::nn::LayerNormOptions({32}));
  torch::nn::GroupNorm gn(torch::nn::GroupNormOptions(4, 16));
  ln->to(torch::kCUDA), gn->to(torch::kCUDA);
  Tensor a = torch::randn({8, 32}, torch::kCUDA), c = torch::randn({2, 16, 5, 5}, torch::kCUDA);
  (ln(a).pow(2).sum() + gn(c).pow(2).sum()).backward();
  EXPECT_TRUE(ln->weight.grad().is_cuda());
  EXPECT_TRUE(gn->bias.grad().is_cuda());
  EXPECT_TENSOR_CLOSE(ln(a).mean(-1).cpu(), torch::zeros({8}), 1e-5, 1e-5);
}

TEST(CudaNorm, CudnnBatchNormMatchesTheCpu) {
  EMBER_REQUIRE_GPU();
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    for (bool cl : {false, true}) {
      if (dt == kDouble && cl) continue;
      SCOPED_TRACE(std::string(torch_name(dt)) + (cl ? " channels-last" : ""));
      const ScalarType pt = dt == kDouble ? kDouble : kFloat;
      Tensor x = random_tensor({8, 6, 7, 5}, kDouble), w = random_tensor({6}, kDouble), b = random_tensor({6}, kDouble);
      Tensor seed = random_tensor(x.sizes(), kDouble);
      auto run = [&](torch::Device d, ScalarType data, ScalarType params) {
        Tensor xl = x.to(d, data);
        if (cl) xl = xl.contiguous(torch::MemoryFormat::ChannelsLast);
        xl = xl.detach().requires_grad_();
        Tensor wl = w.to(d, params).requires_grad_(), bl = b.to(d, params).requires_grad_();
        Tensor rm = torch::zeros({6}, torch::TensorOptions().dtype(params).device(d)), rv = torch::ones_like(rm);
        Tensor y = torch::nn::functional::batch_norm(
            xl, rm, rv, torch::nn::functional::BatchNormFuncOptions().weight(wl).bias(bl).training(true));
        y.backward(seed.to(d, data));
        if (cl) EXPECT_TRUE(y.is_contiguous(torch::MemoryFormat::ChannelsLast));
        Tensor ev = torch::nn::functional::batch_norm(xl.detach(), rm, rv,
                                                      torch::nn::functional::BatchNormFuncOptions().weight(wl.detach()).bias(bl.detach()));
        std::vector<Tensor> r = {y, xl.grad(), wl.grad(), bl.grad(), rm, rv, ev};
        for (Tensor& t : r) t = t.detach().cpu().to(kDouble);
        return r;
      };
      const auto gpu = run(torch::kCUDA, dt, pt), cpu = run(torch::kCPU, kDouble, kDouble);
      const double tol = dt == kDouble ? 1e-9 : dt == kFloat ? 1e-4 : 5e-2;
      const char* names[] = {"y", "dx", "dw", "db", "running_mean", "running_var", "eval y"};
      for (size_t i = 0; i < gpu.size(); ++i) {
        SCOPED_TRACE(names[i]);
        EXPECT_TENSOR_CLOSE(gpu[i], cpu[i], tol, tol * 10);
      }
    }
  }
}

}  // namespace
}  // namespace ember::test
