// Activation checkpointing (ember/autograd/checkpoint.h): the same gradients as without it
// (inputs and parameters, dropout masks replayed), fewer tensors kept between forward and
// backward, parameters' gradients even when no input requires grad, the error for a second
// backward, and modules checkpointed through Module::set_call_wrapper (as apply_activation_checkpointing does).
#include <torch/torch.h>

#include "ember/autograd/checkpoint.h"
#include "ember/core/allocator.h"
#include "test_util.h"

namespace ember::test {
namespace checkpoint_test {  // named: the tests build as one unity file

struct MlpImpl : torch::nn::Module {
  torch::nn::Linear a{nullptr}, b{nullptr};
  torch::nn::Dropout drop{nullptr};
  MlpImpl() {
    a = register_module("a", torch::nn::Linear(32, 64));
    b = register_module("b", torch::nn::Linear(64, 32));
    drop = register_module("drop", torch::nn::Dropout(0.3));
  }
  torch::Tensor forward(const torch::Tensor& x) { return b(drop(torch::tanh(a(x)))); }
};
TORCH_MODULE(Mlp);

std::vector<torch::Tensor> grads_of(torch::nn::Module& m) {
  std::vector<torch::Tensor> r;
  for (auto& p : m.parameters()) r.push_back(p.grad().clone());
  return r;
}

TEST(Checkpoint, SameGradientsWithDropoutReplayed) {
  torch::manual_seed(3);
  Mlp plain;
  torch::manual_seed(3);
  Mlp ckpt;  // the same initial values
  const torch::Tensor x0 = torch::randn({8, 32});
  torch::Tensor x1 = x0.clone().requires_grad_(), x2 = x0.clone().requires_grad_();
  torch::manual_seed(11);
  (plain(x1).pow(2).sum()).backward();
  torch::manual_seed(11);
  torch::Tensor y = ember::utils::checkpoint([&](const torch::Tensor& x) { return ckpt(x); }, x2);
  torch::manual_seed(99);  // the recomputation must not depend on the generator's state now
  y.pow(2).sum().backward();
  ASSERT_TRUE(x2.grad().defined());
  EXPECT_TRUE(x2.grad().allclose(x1.grad(), 1e-6, 1e-7));
  const auto g1 = grads_of(*plain), g2 = grads_of(*ckpt);
  for (size_t i = 0; i < g1.size(); ++i) EXPECT_TRUE(g2[i].allclose(g1[i], 1e-6, 1e-7)) << i;
  // Without preserving the random state the masks differ (the option matters).
  ckpt->zero_grad();
  torch::manual_seed(11);
  torch::Tensor z = ember::utils::checkpoint(
      [&](const std::vector<torch::Tensor>& in) { return std::vector<torch::Tensor>{ckpt(in[0])}; },
      {x0.clone().requires_grad_()}, /*preserve_rng_state=*/false)[0];
  z.pow(2).sum().backward();
  EXPECT_FALSE(grads_of(*ckpt)[0].allclose(g1[0], 1e-6, 1e-7));
}

TEST(Checkpoint, ParametersGetGradientsWhenNoInputRequiresGrad) {
  torch::manual_seed(4);
  torch::nn::Linear lin(4, 3);
  const torch::Tensor x = torch::randn({2, 4});
  torch::Tensor y = ember::utils::checkpoint([&](const torch::Tensor& in) { return lin(in); }, x);
  ASSERT_TRUE(y.requires_grad());
  y.sum().backward();
  ASSERT_TRUE(lin->weight.grad().defined());
  EXPECT_TRUE(lin->weight.grad().allclose(x.sum(0).expand({3, 4})));
}

TEST(Checkpoint, KeepsFewerTensorsUntilBackward) {
  torch::manual_seed(5);
  const torch::Tensor x = torch::randn({256, 1024}).requires_grad_();
  auto chain = [](const torch::Tensor& t) { return torch::tanh(torch::sin(torch::exp(t * 0.01) + 1) * 2); };
  ember::cpu::empty_cache();
  const int64_t base = ember::cpu::allocator_stats().allocated_bytes;
  torch::Tensor plain = chain(x);
  const int64_t kept_plain = ember::cpu::allocator_stats().allocated_bytes - base;
  plain = torch::Tensor();
  const int64_t base2 = ember::cpu::allocator_stats().allocated_bytes;
  torch::Tensor ck = ember::utils::checkpoint(chain, x);
  const int64_t kept_ckpt = ember::cpu::allocator_stats().allocated_bytes - base2;
  EXPECT_LE(kept_ckpt * 2, kept_plain) << kept_ckpt << " vs " << kept_plain;  // the output alone vs every step
  ck.sum().backward();
  EXPECT_TRUE(x.grad().defined());
}

TEST(Checkpoint, SecondBackwardIsAnErrorUnlessRetained) {
  torch::nn::Linear lin(3, 3);
  const torch::Tensor x = torch::randn({2, 3}).requires_grad_();
  torch::Tensor y = ember::utils::checkpoint([&](const torch::Tensor& in) { return lin(in); }, x).sum();
  y.backward(/*gradient=*/{}, /*retain_graph=*/true);
  const torch::Tensor once = x.grad().clone();
  y.backward();
  EXPECT_TRUE(x.grad().allclose(once * 2));
  EXPECT_THROW(y.backward(), ember::Error);
}

TEST(Checkpoint, ModulesCheckpointedThroughTheirCalls) {
  torch::manual_seed(6);
  Mlp plain;
  torch::manual_seed(6);
  Mlp ckpt;  // the same initial values
  torch::nn::Sequential seq_plain(plain), seq_ckpt(ckpt);
  ckpt->set_call_wrapper([](const std::function<std::vector<torch::Tensor>(const std::vector<torch::Tensor>&)>& run,
                            const std::vector<torch::Tensor>& inputs) { return ember::utils::checkpoint(run, inputs); });
  EXPECT_TRUE(ckpt->_call_wrapper() != nullptr);
  const torch::Tensor x = torch::randn({4, 32});
  torch::manual_seed(21);
  seq_plain->forward(x).sum().backward();
  torch::manual_seed(21);
  torch::Tensor y = seq_ckpt->forward(x);  // through AnyModule
  torch::manual_seed(0);
  y.sum().backward();
  const auto g1 = grads_of(*plain), g2 = grads_of(*ckpt);
  for (size_t i = 0; i < g1.size(); ++i) EXPECT_TRUE(g2[i].allclose(g1[i], 1e-6, 1e-7)) << i;
  // And through the holder.
  ckpt->zero_grad();
  torch::manual_seed(21);
  torch::Tensor z = ckpt(x);
  ASSERT_NE(z.grad_fn(), nullptr);
  EXPECT_EQ(z.grad_fn()->name(), "CheckpointFunctionBackward");
  z.sum().backward();
  const auto g3 = grads_of(*ckpt);
  for (size_t i = 0; i < g1.size(); ++i) EXPECT_TRUE(g3[i].allclose(g1[i], 1e-6, 1e-7)) << i;
  // A module whose forward returns no Tensor is called as is in a Sequential, wrapper or not.
  torch::nn::LSTM lstm(4, 3);
  lstm->set_call_wrapper([](const std::function<std::vector<torch::Tensor>(const std::vector<torch::Tensor>&)>& run,
                            const std::vector<torch::Tensor>& inputs) { return ember::utils::checkpoint(run, inputs); });
  torch::nn::Sequential with_lstm(lstm);
  auto out = with_lstm->forward<std::tuple<torch::Tensor, std::tuple<torch::Tensor, torch::Tensor>>>(torch::randn({2, 1, 4}));
  EXPECT_EQ(std::get<0>(out).sizes(), IntArrayRef({2, 1, 3}));
}

}  // namespace checkpoint_test
}  // namespace ember::test
