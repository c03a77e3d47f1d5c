// Training pieces on CUDA beyond single ops: autocast with PyTorch's CUDA lists (float16 and
// bfloat16), a GradScaler loop under autocast, checkpoints of CUDA modules and optimizers
// (saved from the device, loaded into a device model), and modules moved between devices.
// Skipped without a GPU.
#include <torch/torch.h>

#include "cuda_test_util.h"
#include "ember/autograd/checkpoint.h"
#include "temp_files.h"
#include "test_util.h"

namespace ember::test {
namespace {

TEST(CudaTraining, AutocastFollowsPyTorchsCudaLists) {
  EMBER_REQUIRE_GPU();
  for (ScalarType low : {kHalf, kBFloat16}) {
    SCOPED_TRACE(torch_name(low));
    torch::nn::Linear lin(8, 4);
    lin->to(torch::kCUDA);
    Tensor x = torch::randn({16, 8}, torch::kCUDA);
    torch::amp::autocast region(torch::kCUDA, low);
    Tensor y = lin->forward(x);
    EXPECT_EQ(y.scalar_type(), low) << "linear: lower precision";
    EXPECT_EQ(torch::softmax(y, 1).scalar_type(), kFloat) << "softmax: float32";
    EXPECT_EQ(torch::matmul(x, x.t()).scalar_type(), low) << "matmul: lower precision";
    EXPECT_EQ(y.add(x.slice(1, 0, 4)).scalar_type(), kFloat) << "add: widest input";
    EXPECT_EQ(lin->weight.scalar_type(), kFloat) << "weights stay float32";
  }
}

TEST(CudaTraining, GradScalerLoopUnderAutocastLearns) {
  EMBER_REQUIRE_GPU();
  torch::manual_seed(1);
  torch::nn::Sequential model(torch::nn::Linear(16, 32), torch::nn::ReLU(), torch::nn::Linear(32, 2));
  model->to(torch::kCUDA);
  torch::optim::Adam opt(model->parameters(), 1e-2);
  torch::amp::GradScaler scaler;
  Tensor x = torch::randn({256, 16}, torch::kCUDA);
  Tensor y = x.sum(1).gt(0).to(kLong);
  double first = 0, last = 0;
  for (int step = 0; step < 200; ++step) {
    opt.zero_grad();
    Tensor loss;
    {
      torch::amp::autocast region(torch::kCUDA, kHalf);
      loss = torch::nn::functional::cross_entropy(model->forward(x), y);
    }
    scaler.scale(loss).backward();
    scaler.step(opt);
    scaler.update();
    (step == 0 ? first : last) = loss.item<double>();
  }
  EXPECT_LT(last, first * 0.5) << "the loss falls under float16 autocast with loss scaling";
}

TEST(CudaTraining, ActivationCheckpointingReplaysCudaDropout) {
  EMBER_REQUIRE_GPU();
  // The recomputation draws the same dropout masks on the GPU (the CUDA generator's state of
  // the inputs' device is preserved), and leaves the generator where backward found it.
  auto f = [](const torch::Tensor& x) { return torch::dropout(x.mul(2.0), 0.5, /*train=*/true).sum(1); };
  const torch::Tensor x0 = torch::randn({64, 256}, torch::kCUDA);
  torch::Tensor x1 = x0.clone().requires_grad_(), x2 = x0.clone().requires_grad_();
  torch::manual_seed(7);
  f(x1).pow(2).sum().backward();
  torch::manual_seed(7);
  torch::Tensor y = ember::utils::checkpoint([&](const torch::Tensor& x) { return f(x); }, x2);
  torch::manual_seed(99);
  const torch::Tensor before = torch::rand({4}, torch::kCUDA);
  torch::manual_seed(99);
  y.pow(2).sum().backward();
  EXPECT_TRUE(torch::rand({4}, torch::kCUDA).equal(before)) << "the generator is back where it was";
  ASSERT_TRUE(x2.grad().defined());
  EXPECT_TRUE(x2.grad().allclose(x1.grad(), 1e-5, 1e-6)) << "the same masks in the recomputation";
}

TEST(CudaTraining, CheckpointsOfCudaModulesAndOptimizers) {
  EMBER_REQUIRE_GPU();
  TempDir dir;
  torch::manual_seed(2);
  torch::nn::Linear a(5, 3), b(5, 3);
  a->to(torch::kCUDA);
  b->to(torch::kCUDA);
  torch::optim::Adam opt_a(a->parameters(), 1e-2);
  a->forward(torch::randn({4, 5}, torch::kCUDA)).sum().backward();
  opt_a.step();
  torch::save(a, dir / "model.pt");
  torch::save(opt_a, dir / "opt.pt");
  torch::load(b, dir / "model.pt");
  ASSERT_TRUE(b->weight.is_cuda()) << "loading into a CUDA module keeps it there";
  EXPECT_TENSOR_CLOSE(b->weight.cpu(), a->weight.cpu(), 0, 0);
  EXPECT_TENSOR_CLOSE(b->bias.cpu(), a->bias.cpu(), 0, 0);
  // The same update from the restored state as from the original.
  torch::optim::Adam opt_b(b->parameters(), 1e-2);
  torch::load(opt_b, dir / "opt.pt");
  for (auto& [key, state] : opt_b.state()) {
    auto& s = static_cast<torch::optim::AdamParamState&>(*state);
    s.exp_avg(s.exp_avg().to(torch::kCUDA));
    s.exp_avg_sq(s.exp_avg_sq().to(torch::kCUDA));
  }
  Tensor in = torch::randn({4, 5}, torch::kCUDA);
  a->forward(in).sum().backward();
  b->forward(in).sum().backward();
  opt_a.step();
  opt_b.step();
  EXPECT_TENSOR_CLOSE(b->weight.cpu(), a->weight.cpu(), 1e-6, 1e-7);
  // Modules move back and forth.
  b->to(torch::kCPU);
  EXPECT_TRUE(b->weight.is_cpu());
  EXPECT_TRUE(b->weight.grad().is_cpu() || !b->weight.grad().defined());
}

}  // namespace
}  // namespace ember::test
