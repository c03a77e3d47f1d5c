// The layers a training loop uses, on CUDA against the CPU: pooling (max with indices,
// average, adaptive), convolutions, batch/layer/group norm, embedding, the losses, and a
// whole small CNN's forward and backward with the same weights on both devices. Skipped
// without a GPU.
#include <torch/torch.h>

#include "cuda_test_util.h"
#include "test_util.h"

namespace ember::test {
namespace {

namespace F = torch::nn::functional;

void expect_close_on_cuda(const std::string& what, const Tensor& got, const Tensor& want, double tol = 2e-4) {
  SCOPED_TRACE(what);
  ASSERT_TRUE(got.is_cuda());
  EXPECT_TENSOR_CLOSE(got.cpu(), want, tol, tol);
}

TEST(CudaNn, PoolingMatchesTheCpu) {
  EMBER_REQUIRE_GPU();
  for (ScalarType dt : {kFloat, kDouble, kHalf}) {
    SCOPED_TRACE(torch_name(dt));
    const double tol = cuda_rtol(dt);
    Tensor x = random_tensor({2, 3, 11, 9}, dt, -2, 2);
    Tensor xc = x.cuda();
    auto [v, i] = torch::max_pool2d_with_indices(x, {3, 2}, {2, 2}, {1, 0}, {1, 1}, true);
    auto [vc, ic] = torch::max_pool2d_with_indices(xc, {3, 2}, {2, 2}, {1, 0}, {1, 1}, true);
    expect_close_on_cuda("max_pool2d values", vc, v, 0);
    expect_close_on_cuda("max_pool2d indices", ic, i, 0);
    expect_close_on_cuda("max_pool2d dilated", torch::max_pool2d(xc, {2, 2}, {1, 1}, {0, 0}, {2, 2}),
                         torch::max_pool2d(x, {2, 2}, {1, 1}, {0, 0}, {2, 2}), 0);
    expect_close_on_cuda("max_pool2d channels-last", torch::max_pool2d(xc.contiguous(torch::MemoryFormat::ChannelsLast), 2),
                         torch::max_pool2d(x, 2), 0);
    expect_close_on_cuda("max_pool1d", torch::max_pool1d(xc.flatten(2), 4), torch::max_pool1d(x.flatten(2), 4), 0);
    expect_close_on_cuda("max_pool3d", torch::max_pool3d(xc.unsqueeze(2).expand({2, 3, 4, 11, 9}), 2),
                         torch::max_pool3d(x.unsqueeze(2).expand({2, 3, 4, 11, 9}), 2), 0);
    expect_close_on_cuda("adaptive_max_pool2d", std::get<0>(torch::adaptive_max_pool2d(xc, {4, 3})),
                         std::get<0>(torch::adaptive_max_pool2d(x, {4, 3})), 0);
    expect_close_on_cuda("avg_pool2d", torch::avg_pool2d(xc, {3, 3}, {2, 2}, {1, 1}, false, false),
                         torch::avg_pool2d(x, {3, 3}, {2, 2}, {1, 1}, false, false), tol);
    expect_close_on_cuda("adaptive_avg_pool2d", torch::adaptive_avg_pool2d(xc, {1, 1}),
                         torch::adaptive_avg_pool2d(x, {1, 1}), tol);
  }
  // Gradients through max pooling scatter at the maxima.
  Tensor x = torch::randn({2, 3, 8, 8}, kDouble).requires_grad_();
  Tensor xc = x.detach().cuda().requires_grad_();
  torch::max_pool2d(x, 2).pow(2).sum().backward();
  torch::max_pool2d(xc, 2).pow(2).sum().backward();
  expect_close_on_cuda("max_pool2d grad", xc.grad(), x.grad(), 1e-12);
}

TEST(CudaNn, ConvNormEmbeddingAndLosses) {
  EMBER_REQUIRE_GPU();
  Tensor x = torch::randn({4, 3, 10, 10}, kDouble), w = torch::randn({6, 3, 3, 3}, kDouble), b = torch::randn({6}, kDouble);
  expect_close_on_cuda("conv2d", torch::conv2d(x.cuda(), w.cuda(), b.cuda(), 1, 1),
                       torch::conv2d(x, w, b, 1, 1), 1e-10);
  expect_close_on_cuda("conv2d strided groups", torch::conv2d(x.cuda(), w.slice(1, 0, 1).cuda(), {}, 2, 0, 1, 3),
                       torch::conv2d(x, w.slice(1, 0, 1), {}, 2, 0, 1, 3), 1e-10);
  expect_close_on_cuda("conv_transpose2d", torch::conv_transpose2d(x.cuda(), w.transpose(0, 1).cuda()),
                       torch::conv_transpose2d(x, w.transpose(0, 1)), 1e-10);
  Tensor rm = torch::zeros({3}, kDouble), rv = torch::ones({3}, kDouble);
  Tensor rmc = rm.cuda(), rvc = rv.cuda();
  expect_close_on_cuda("batch_norm training", torch::batch_norm(x.cuda(), {}, {}, rmc, rvc, true, 0.1, 1e-5, false),
                       torch::batch_norm(x, {}, {}, rm, rv, true, 0.1, 1e-5, false), 1e-10);
  expect_close_on_cuda("batch_norm running stats", torch::cat({rmc, rvc}), torch::cat({rm, rv}), 1e-10);
  expect_close_on_cuda("layer_norm", torch::layer_norm(x.cuda(), {10}), torch::layer_norm(x, {10}), 1e-10);
  expect_close_on_cuda("group_norm", torch::group_norm(x.cuda(), 3), torch::group_norm(x, 3), 1e-10);
  Tensor table = torch::randn({20, 5}, kDouble), ids = torch::randint(0, 20, {4, 7}, kLong);
  expect_close_on_cuda("embedding", torch::embedding(table.cuda(), ids.cuda()), torch::embedding(table, ids), 0);
  Tensor logits = torch::randn({16, 10}, kDouble), target = torch::randint(0, 10, {16}, kLong);
  expect_close_on_cuda("cross_entropy", F::cross_entropy(logits.cuda(), target.cuda()), F::cross_entropy(logits, target),
                       1e-12);
  expect_close_on_cuda("nll_loss", F::nll_loss(logits.log_softmax(1).cuda(), target.cuda()),
                       F::nll_loss(logits.log_softmax(1), target), 1e-12);
  expect_close_on_cuda("mse_loss", F::mse_loss(logits.cuda(), logits.flip(0).cuda()), F::mse_loss(logits, logits.flip(0)),
                       1e-12);
}

TEST(CudaNn, SmallCnnForwardAndBackwardMatchTheCpu) {
  EMBER_REQUIRE_GPU();
  using namespace torch::nn;
  torch::manual_seed(3);
  Sequential cpu(Conv2d(Conv2dOptions(1, 8, 3).padding(1)), BatchNorm2d(8), ReLU(), MaxPool2d(2), Flatten(),
                 Linear(8 * 4 * 4, 10));
  Sequential gpu = std::dynamic_pointer_cast<SequentialImpl>(cpu->clone());
  gpu->to(torch::kCUDA);
  Tensor x = torch::rand({32, 1, 8, 8}), y = torch::randint(0, 10, {32}, kLong);
  Tensor loss = F::cross_entropy(cpu->forward(x), y);
  Tensor loss_c = F::cross_entropy(gpu->forward(x.cuda()), y.cuda());
  expect_close_on_cuda("loss", loss_c, loss, 1e-4);
  loss.backward();
  loss_c.backward();
  auto pc = cpu->parameters(), pg = gpu->parameters();
  ASSERT_EQ(pc.size(), pg.size());
  for (size_t k = 0; k < pc.size(); ++k) expect_close_on_cuda("grad " + std::to_string(k), pg[k].grad(), pc[k].grad(), 1e-3);
  // One Adam step on each: the parameters stay together.
  torch::optim::Adam oc(cpu->parameters(), 1e-2), og(gpu->parameters(), 1e-2);
  oc.step();
  og.step();
  for (size_t k = 0; k < pc.size(); ++k) expect_close_on_cuda("param " + std::to_string(k), pg[k], pc[k], 1e-3);
}

// Note [Fused optimizer steps]: the fused CUDA Adam/AdamW against the CPU's per-op update.
TEST(CudaNn, FusedAdamAndAdamWMatchTheCpu) {
  EMBER_REQUIRE_GPU();
  for (bool amsgrad : {false, true})
    for (bool maximize : {false, true})
      for (bool adamw : {false, true}) {
        SCOPED_TRACE(std::string(adamw ? "AdamW" : "Adam") + (amsgrad ? " amsgrad" : "") + (maximize ? " maximize" : ""));
        std::vector<Tensor> cpu = {torch::randn({1000}), torch::randn({70, 300}), torch::randn({3})};
        std::vector<Tensor> gpu;
        for (Tensor& t : cpu) gpu.push_back(t.cuda());
        gpu.push_back(torch::randn({4, 5}).cuda().t());  // strided: the per-op path beside the fused one
        cpu.push_back(gpu.back().cpu());
        for (auto* set : {&cpu, &gpu})
          for (Tensor& t : *set) t.requires_grad_();
        auto make = [&](std::vector<Tensor> ps) -> std::unique_ptr<torch::optim::Optimizer> {
          if (adamw)
            return std::make_unique<torch::optim::AdamW>(
                ps, torch::optim::AdamWOptions(1e-2).weight_decay(0.1).amsgrad(amsgrad).maximize(maximize));
          return std::make_unique<torch::optim::Adam>(
              ps, torch::optim::AdamOptions(1e-2).weight_decay(0.05).amsgrad(amsgrad).maximize(maximize));
        };
        auto oc = make(cpu), og = make(gpu);
        for (int step = 0; step < 5; ++step) {
          for (size_t k = 0; k < cpu.size(); ++k) {
            Tensor g = torch::randn(cpu[k].sizes());
            cpu[k].mutable_grad() = g;
            gpu[k].mutable_grad() = g.cuda();
          }
          oc->step();
          og->step();
        }
        for (size_t k = 0; k < cpu.size(); ++k)
          expect_close_on_cuda("param " + std::to_string(k), gpu[k].detach(), cpu[k].detach(), 1e-5);
      }
}

TEST(CudaNn, FusedSgdMatchesTheCpu) {
  EMBER_REQUIRE_GPU();
  for (double momentum : {0.0, 0.9})
    for (bool nesterov : {false, true}) {
      if (nesterov && momentum == 0) continue;
      for (bool maximize : {false, true}) {
        SCOPED_TRACE("momentum " + std::to_string(momentum) + (nesterov ? " nesterov" : "") + (maximize ? " maximize" : ""));
        std::vector<Tensor> cpu = {torch::randn({1000}), torch::randn({33, 7}), torch::randn({4, 5}).t()};
        std::vector<Tensor> gpu;
        for (Tensor& t : cpu) gpu.push_back(t.cuda().requires_grad_());
        for (Tensor& t : cpu) t.requires_grad_();
        auto o = torch::optim::SGDOptions(0.05).momentum(momentum).nesterov(nesterov).weight_decay(0.01)
                     .dampening(nesterov ? 0.0 : 0.1).maximize(maximize);
        torch::optim::SGD oc(cpu, o), og(gpu, o);
        for (int step = 0; step < 4; ++step) {
          for (size_t k = 0; k < cpu.size(); ++k) {
            Tensor g = torch::randn(cpu[k].sizes());
            cpu[k].mutable_grad() = g;
            gpu[k].mutable_grad() = g.cuda();
          }
          oc.step();
          og.step();
        }
        for (size_t k = 0; k < cpu.size(); ++k)
          expect_close_on_cuda("param " + std::to_string(k), gpu[k].detach(), cpu[k].detach(), 1e-5);
      }
    }
}

// No memory growth over 1,000 training steps: the caching allocator's statistics after
// step 10 and after step 1,000 agree.
TEST(CudaNn, NoMemoryGrowthOverAThousandSteps) {
  EMBER_REQUIRE_GPU();
  using namespace torch::nn;
  torch::manual_seed(5);
  Sequential model(Conv2d(Conv2dOptions(1, 8, 3).padding(1)), BatchNorm2d(8), ReLU(), MaxPool2d(2), Flatten(),
                   Dropout(0.25), Linear(8 * 4 * 4, 10));
  model->to(torch::kCUDA);
  torch::optim::Adam opt(model->parameters(), 1e-3);
  Tensor x = torch::rand({64, 1, 8, 8}, torch::kCUDA), y = torch::randint(0, 10, {64}, torch::TensorOptions(kLong).device(torch::kCUDA));
  int64_t allocated_at_10 = 0, reserved_at_10 = 0;
  for (int step = 1; step <= 1000; ++step) {
    opt.zero_grad();
    Tensor loss = F::cross_entropy(model->forward(x), y);
    loss.backward();
    opt.step();
    if (step == 10) {
      torch::cuda::synchronize();
      allocated_at_10 = torch::cuda::memory_allocated(0);
      reserved_at_10 = torch::cuda::memory_reserved(0);
    }
  }
  torch::cuda::synchronize();
  EXPECT_EQ(torch::cuda::memory_allocated(0), allocated_at_10);
  EXPECT_LE(torch::cuda::memory_reserved(0), reserved_at_10);
}

TEST(CudaNn, GradScalerUnscalesAndFindsInfOnTheDevice) {
  EMBER_REQUIRE_GPU();
  {
    // PyTorch: "Attempting to unscale FP16 gradients."
    Tensor h = torch::ones({4}, torch::TensorOptions().dtype(kHalf).device(torch::kCUDA)).requires_grad_();
    h.mutable_grad() = torch::ones({4}, h.options());
    torch::optim::SGD opt({h}, torch::optim::SGDOptions(0.1));
    torch::amp::GradScaler scaler;
    EXPECT_ERROR_WITH(scaler.unscale_(opt), "Attempting to unscale FP16 gradients.");
  }
  for (ScalarType dt : {kFloat, kBFloat16, kDouble}) {
    SCOPED_TRACE(torch_name(dt));
    Tensor p = torch::ones({1000}, torch::TensorOptions().dtype(dt).device(torch::kCUDA)).requires_grad_();
    Tensor q = torch::ones({3, 4}, torch::TensorOptions().dtype(dt).device(torch::kCUDA)).requires_grad_();
    torch::optim::SGD opt({p, q}, torch::optim::SGDOptions(0.1));
    torch::amp::GradScaler scaler(torch::amp::GradScalerOptions().init_scale(1024));
    p.mutable_grad() = torch::full({1000}, 2048.0, p.options());
    q.mutable_grad() = torch::full({4, 3}, 512.0, q.options()).t();  // non-contiguous: the composite path
    scaler.unscale_(opt);
    EXPECT_FALSE(scaler.found_inf(opt));
    EXPECT_TENSOR_CLOSE(p.grad().cpu(), torch::full({1000}, 2.0, dt), 0, 0);
    EXPECT_TENSOR_CLOSE(q.grad().cpu(), torch::full({3, 4}, 0.5, dt), 0, 0);
    scaler.step(opt);
    scaler.update();
    p.mutable_grad()[777] = std::numeric_limits<double>::infinity();
    scaler.unscale_(opt);
    EXPECT_TRUE(scaler.found_inf(opt)) << "an inf in one gradient";
    Tensor before = p.detach().clone();
    scaler.step(opt);  // skipped
    EXPECT_TENSOR_CLOSE(p.detach().cpu(), before.cpu(), 0, 0);
    scaler.update();
    EXPECT_EQ(scaler.get_scale(), 512.0) << "backed off after the inf";
  }
}

}  // namespace
}  // namespace ember::test
