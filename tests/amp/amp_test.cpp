// Mixed precision: autocast regions (which ops run in bfloat16 / float32, nesting, state
// restored, gradients reaching float32 weights) and GradScaler (scaling, unscaling, step
// skipping on inf/NaN, scale growth and backoff, misuse errors).
#include <limits>

#include "test_util.h"

namespace ember {
namespace {

TEST(Autocast, MatmulLikeOpsRunInBfloat16AndLossesInFloat32) {
  manual_seed(0);
  nn::Linear lin(8, 4);
  nn::Conv2d conv(nn::Conv2dOptions(2, 3, 3).padding(1));
  const Tensor x = randn({5, 8}), img = randn({1, 2, 6, 6});
  const Tensor target = tensor({int64_t(0), int64_t(1), int64_t(2), int64_t(3), int64_t(0)});
  EXPECT_FALSE(autocast::is_cpu_enabled());
  {
    amp::autocast region(kCPU);
    EXPECT_TRUE(autocast::is_cpu_enabled());
    EXPECT_EQ(autocast::get_autocast_cpu_dtype(), kBFloat16);
    const Tensor y = lin(x);
    EXPECT_EQ(y.scalar_type(), kBFloat16);
    EXPECT_EQ(conv(img).scalar_type(), kBFloat16);
    EXPECT_EQ(mm(x, x.t()).scalar_type(), kBFloat16);
    EXPECT_EQ(matmul(x, x.t()).scalar_type(), kBFloat16);
    EXPECT_EQ(bmm(x.unsqueeze(0), x.t().unsqueeze(0)).scalar_type(), kBFloat16);
    EXPECT_EQ(addmm(zeros({5, 5}), x, x.t()).scalar_type(), kBFloat16);
    EXPECT_EQ(mm(x.to(kDouble), x.t().to(kDouble)).scalar_type(), kDouble);  // float64 is left alone
    EXPECT_EQ(x.add(1).scalar_type(), kFloat);                               // not on the lists
    EXPECT_EQ(nn::functional::cross_entropy(y, target).scalar_type(), kFloat);
    EXPECT_EQ(nn::functional::mse_loss(y, y.detach()).scalar_type(), kFloat);
    // Values: a bfloat16 matmul with float32 accumulation.
    const Tensor ref = x.to(kBFloat16).to(kFloat).matmul(lin->weight.to(kBFloat16).to(kFloat).t()).add(
        lin->bias.to(kBFloat16).to(kFloat));
    EXPECT_TENSOR_CLOSE(y.to(kFloat), ref, 1e-2, 1e-2);
    {
      amp::autocast off(kCPU, std::nullopt, /*enabled=*/false);
      EXPECT_EQ(lin(x).scalar_type(), kFloat);
    }
    EXPECT_EQ(lin(x).scalar_type(), kBFloat16);  // the outer region again
  }
  EXPECT_FALSE(autocast::is_cpu_enabled());
  EXPECT_EQ(lin(x).scalar_type(), kFloat);
  EXPECT_ERROR_WITH(amp::autocast(kCPU, kHalf), "CPU autocast supports only bfloat16");
  EXPECT_FALSE(autocast::is_cpu_enabled());  // a failed region leaves no state behind
}

TEST(Autocast, GradientsReachFloat32WeightsAndMatchFloat32Training) {
  manual_seed(1);
  nn::Linear lin(16, 3);
  const Tensor x = randn({32, 16});
  const Tensor target = randint(0, 3, {32});
  {
    amp::autocast region(kCPU);
    nn::functional::cross_entropy(lin(x), target).backward();
  }
  const Tensor g_bf16 = lin->weight.grad().clone();
  EXPECT_EQ(g_bf16.scalar_type(), kFloat);
  lin->zero_grad();
  nn::functional::cross_entropy(lin(x), target).backward();
  EXPECT_TENSOR_CLOSE(g_bf16, lin->weight.grad(), 5e-2, 1e-2);
}

TEST(Autocast, WeightCastsAreCachedWithinARegion) {
  nn::Linear lin(4, 4);
  const Tensor x = randn({2, 4});
  Tensor a, b;
  {
    amp::autocast region(kCPU);
    a = lin(x);
    // The cache holds the bfloat16 copy made by the first use: a weight changed in place
    // inside the region is not seen again until the region ends (PyTorch's semantics).
    {
      NoGradGuard ng;
      lin->weight.add_(1);
    }
    b = lin(x);
    EXPECT_TENSOR_EQ(a, b);
    // The cached cast is part of the graph: both uses accumulate into the float32 weight.
    a.sum().add(b.sum()).backward();
    EXPECT_EQ(lin->weight.grad().scalar_type(), kFloat);
    // Each use's weight gradient is ones^T x in bfloat16 (x rounded to bfloat16, the batch sum
    // rounded again); the two arrive in float32 through the cast's backward.
    const Tensor per_use = x.to(kBFloat16).to(kFloat).sum(0).to(kBFloat16).to(kFloat);
    EXPECT_TENSOR_CLOSE(lin->weight.grad(), per_use.mul(2).expand({4, 4}), 1e-2, 1e-3);
  }
  amp::autocast fresh(kCPU);  // a new region casts the updated weight
  EXPECT_FALSE(lin(x).equal(a));
}

// The tiny model and loss the scaler tests train.
struct Rig {
  nn::Linear lin{3, 1};
  optim::SGD opt{lin->parameters(), optim::SGDOptions(0.1)};
  Tensor loss() { return lin(ones({2, 3})).sum(); }
};

TEST(GradScaler, RefusesFp16GradientsAsPyTorch) {
  Tensor h = ones({4}, dtype(kHalf)).requires_grad_();
  h.mutable_grad() = ones({4}, dtype(kHalf));
  optim::SGD opt({h}, optim::SGDOptions(0.1));
  amp::GradScaler scaler;
  EXPECT_ERROR_WITH(scaler.unscale_(opt), "Attempting to unscale FP16 gradients.");
}

TEST(GradScaler, ScalesUnscalesAndSteps) {
  Rig s;
  amp::GradScaler scaler(amp::GradScalerOptions().init_scale(1024.0));
  const Tensor w0 = s.lin->weight.detach().clone();
  EXPECT_TENSOR_EQ(scaler.scale(tensor(2.0f)), tensor(2048.0f));
  scaler.scale(s.loss()).backward();
  EXPECT_TENSOR_EQ(s.lin->weight.grad(), full({1, 3}, 2048.0f));
  scaler.unscale_(s.opt);
  EXPECT_TENSOR_EQ(s.lin->weight.grad(), full({1, 3}, 2.0f));
  EXPECT_ERROR_WITH(scaler.unscale_(s.opt), "unscale_() has already been called on this optimizer");
  scaler.step(s.opt);
  EXPECT_TENSOR_CLOSE(s.lin->weight.detach(), w0.sub(0.2));
  EXPECT_ERROR_WITH(scaler.step(s.opt), "step() has already been called since the last update()");
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 1024.0);  // one clean step of 2000 before growing
}

TEST(GradScaler, SkipsNonFiniteStepsAndAdaptsTheScale) {
  Rig s;
  amp::GradScaler scaler(amp::GradScalerOptions().init_scale(8.0).growth_interval(2));
  const Tensor w0 = s.lin->weight.detach().clone();
  s.opt.zero_grad();
  scaler.scale(s.loss().mul(std::numeric_limits<float>::infinity())).backward();
  EXPECT_FALSE(scaler.step(s.opt).defined());
  EXPECT_TRUE(scaler.found_inf(s.opt));
  EXPECT_TENSOR_EQ(s.lin->weight.detach(), w0);  // skipped
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 4.0);  // backoff 0.5
  for (int i = 0; i < 2; ++i) {
    s.opt.zero_grad();
    scaler.scale(s.loss()).backward();
    scaler.step(s.opt);
    scaler.update();
  }
  EXPECT_EQ(scaler.get_scale(), 8.0);  // grown after 2 clean steps
  EXPECT_EQ(scaler.state_dict().growth_tracker, 0);
  scaler.update(3.0);
  EXPECT_EQ(scaler.get_scale(), 3.0);
  EXPECT_ERROR_WITH(scaler.update(), "No inf checks were recorded prior to update.");
  amp::GradScaler restored;
  restored.load_state_dict(scaler.state_dict());
  EXPECT_EQ(restored.get_scale(), 3.0);
  EXPECT_EQ(restored.get_growth_interval(), 2);
  EXPECT_ERROR_WITH(amp::GradScaler(amp::GradScalerOptions().growth_factor(0.5)), "The growth factor must be > 1.0");
  amp::GradScaler off(amp::GradScalerOptions().enabled(false));
  EXPECT_EQ(off.get_scale(), 1.0);
  EXPECT_TENSOR_EQ(off.scale(tensor(2.0f)), tensor(2.0f));
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

TEST(Autocast, LinearAlgebraRunsInFloat32) {
  // PyTorch's CPU float32 list: a bfloat16 matmul result feeding a decomposition works and
  // gives float32 (LAPACK has no bfloat16).
  manual_seed(6);
  const Tensor a = randn({4, 4}), b = randn({4, 4});
  amp::autocast region(kCPU);
  const Tensor m = mm(a, b).add(eye(4).mul(8.0).to(kBFloat16));  // bfloat16, well conditioned
  EXPECT_EQ(m.scalar_type(), kBFloat16);
  const Tensor inv = linalg::inv(m);
  EXPECT_EQ(inv.scalar_type(), kFloat);
  EXPECT_TENSOR_CLOSE(mm(m.to(kFloat), inv).to(kFloat), eye(4), 5e-2, 5e-2);
  const Tensor spd = mm(m, m.t()).to(kBFloat16);
  EXPECT_EQ(linalg::cholesky(spd).scalar_type(), kFloat);
  EXPECT_EQ(std::get<0>(linalg::eigh(spd)).scalar_type(), kFloat);
  EXPECT_EQ(std::get<1>(linalg::qr(m)).scalar_type(), kFloat);
  EXPECT_EQ(linalg::svdvals(m).scalar_type(), kFloat);
  EXPECT_EQ(linalg::solve(m, b.to(kBFloat16)).scalar_type(), kFloat);
}

}  // namespace
}  // namespace ember
