// nn::Module semantics (registration, traversal order, train/eval, zero_grad, to, clone,
// printing), the basic layers and their PyTorch default initialization, init functions,
// and SGD's update rule against a double-precision reference.
#include <torch/torch.h>

#include <cmath>
#include <sstream>

#include "test_util.h"

namespace {

using ember::test::tensors_close;

struct NetImpl : torch::nn::Module {
  NetImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(4, 3));
    fc2 = register_module("fc2", torch::nn::Linear(torch::nn::LinearOptions(3, 2).bias(false)));
    scale = register_parameter("scale", torch::ones({1}));
    count = register_buffer("count", torch::zeros({1}, torch::kLong));
  }
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::relu(fc1(x))) * scale; }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::Tensor scale, count;
};
TORCH_MODULE(Net);

TEST(Module, RegistrationAndTraversalOrder) {
  Net net;
  auto names = net->named_parameters().keys();
  EXPECT_EQ(names, (std::vector<std::string>{"scale", "fc1.weight", "fc1.bias", "fc2.weight"}));
  EXPECT_EQ(net->parameters(/*recurse=*/false).size(), 1u);
  EXPECT_EQ(net->named_buffers().keys(), (std::vector<std::string>{"count"}));
  EXPECT_EQ(net->named_children().keys(), (std::vector<std::string>{"fc1", "fc2"}));
  auto mods = net->named_modules();
  EXPECT_EQ(mods.keys(), (std::vector<std::string>{"", "fc1", "fc2"}));
  for (auto& p : net->parameters()) EXPECT_TRUE(p.requires_grad());
  EXPECT_FALSE(net->count.requires_grad());
  EXPECT_ERROR_WITH(net->register_parameter("scale", torch::ones({1})), "Parameter 'scale' already defined");
  EXPECT_ERROR_WITH(net->register_module("a.b", torch::nn::Linear(1, 1)), "must not contain a dot");
  EXPECT_EQ(net->fc1->weight.sizes(), torch::IntArrayRef({3, 4}));
  EXPECT_EQ(net->forward(torch::randn({5, 4})).sizes(), torch::IntArrayRef({5, 2}));
}

TEST(Module, TrainEvalZeroGradAndTo) {
  Net net;
  EXPECT_TRUE(net->is_training());
  net->eval();
  EXPECT_FALSE(net->fc1->is_training());
  net->train();
  EXPECT_TRUE(net->fc2->is_training());
  net->forward(torch::randn({2, 4})).sum().backward();
  EXPECT_TRUE(net->fc1->weight.grad().defined());
  net->zero_grad();  // zeroes by default, as LibTorch 1.13's
  EXPECT_TRUE(net->fc1->weight.grad().defined());
  EXPECT_EQ(net->fc1->weight.grad().abs().sum().item<float>(), 0.f);
  net->zero_grad(/*set_to_none=*/true);
  EXPECT_FALSE(net->fc1->weight.grad().defined());
  // to(dtype) changes the parameters in place (the handles stay valid), not the integer buffer
  torch::Tensor w = net->fc1->weight;
  net->to(torch::kDouble);
  EXPECT_EQ(w.scalar_type(), torch::kDouble);
  EXPECT_EQ(net->count.scalar_type(), torch::kLong);
  EXPECT_TRUE(w.requires_grad());
  EXPECT_EQ(net->forward(torch::randn({2, 4}, torch::kDouble)).scalar_type(), torch::kDouble);
}

TEST(Module, CloneIsDeep) {
  torch::nn::Sequential seq(torch::nn::Linear(3, 4), torch::nn::ReLU(), torch::nn::Linear(4, 1));
  auto copy = std::dynamic_pointer_cast<torch::nn::SequentialImpl>(seq->clone());
  ASSERT_TRUE(copy);
  auto a = seq->named_parameters(), b = copy->named_parameters();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a.items()[i].key(), b.items()[i].key());
    EXPECT_TRUE(a.items()[i].value().equal(b.items()[i].value()));
    EXPECT_FALSE(a.items()[i].value().is_same(b.items()[i].value()));
  }
  torch::Tensor x = torch::randn({2, 3});
  EXPECT_TRUE(seq->forward(x).equal(copy->forward(x)));
  { torch::NoGradGuard g; copy->parameters()[0].add_(1); }
  EXPECT_FALSE(seq->forward(x).equal(copy->forward(x)));  // independent storage
  EXPECT_ERROR_WITH(Net()->clone(), "clone() has not been implemented");
}

// A Cloneable module that keeps its submodules as members, as LibTorch user code does.
struct TwoLayerImpl : torch::nn::Cloneable<TwoLayerImpl> {
  TwoLayerImpl() { reset(); }
  void reset() override {
    fc1 = register_module("fc1", torch::nn::Linear(3, 4));
    fc2 = register_module("fc2", torch::nn::Linear(4, 2));
  }
  torch::Tensor forward(const torch::Tensor& x) { return fc2(torch::relu(fc1(x))); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(TwoLayer);

TEST(Module, CloneKeepsMemberSubmodulesAndChildrenTheSame) {
  TwoLayer net;
  auto copy = std::dynamic_pointer_cast<TwoLayerImpl>(net->clone());
  ASSERT_TRUE(copy);
  // The member handle and the registered child are one module, holding the cloned weights.
  EXPECT_EQ(copy->fc1.ptr().get(), copy->named_children()["fc1"].get());
  EXPECT_TRUE(copy->fc1->weight.equal(net->fc1->weight));
  EXPECT_FALSE(copy->fc1->weight.is_same(net->fc1->weight));
  torch::Tensor x = torch::randn({5, 3});
  EXPECT_TRUE(copy->forward(x).equal(net->forward(x)));
}

TEST(Module, PrettyPrint) {
  torch::nn::Sequential seq(torch::nn::Linear(3, 4), torch::nn::ReLU());
  std::ostringstream s;
  s << *seq;
  EXPECT_EQ(s.str(), "torch::nn::Sequential(\n  (0): torch::nn::Linear(in_features=3, out_features=4, bias=true)\n"
                     "  (1): torch::nn::ReLU()\n)");
}

TEST(Layers, LinearMatchesItsFormulaAndPyTorchInit) {
  torch::manual_seed(0);
  torch::nn::Linear lin(64, 32);
  const double bound = 1.0 / std::sqrt(64.0);  // kaiming_uniform_(a=sqrt(5)) gives 1/sqrt(fan_in)
  EXPECT_LE(lin->weight.abs().max().item<float>(), bound + 1e-6);
  EXPECT_GT(lin->weight.abs().max().item<float>(), 0.9 * bound);
  EXPECT_LE(lin->bias.abs().max().item<float>(), bound + 1e-6);
  torch::Tensor x = torch::randn({5, 64});
  EXPECT_TRUE(tensors_close(lin(x), x.mm(lin->weight.t()) + lin->bias));
  torch::Tensor x3 = torch::randn({2, 5, 64});
  EXPECT_TRUE(tensors_close(lin(x3), torch::matmul(x3, lin->weight.t()) + lin->bias));
  EXPECT_ERROR_WITH(lin(torch::randn({5, 63})), "does not match weight");
  torch::nn::Sequential mlp(torch::nn::Linear(4, 8), torch::nn::Tanh(), torch::nn::Linear(8, 2), torch::nn::Sigmoid());
  EXPECT_EQ(mlp->size(), 4u);
  torch::Tensor y = mlp->forward(torch::randn({3, 4}));
  EXPECT_TRUE(y.gt(0).logical_and(y.lt(1)).all().item<bool>());
  torch::nn::Functional f(torch::leaky_relu, 0.2);
  EXPECT_TRUE(tensors_close(f(torch::tensor({-1.0f, 2.0f})), torch::tensor({-0.2f, 2.0f})));
  torch::nn::Flatten flat;
  EXPECT_EQ(flat(torch::zeros({2, 3, 4})).sizes(), torch::IntArrayRef({2, 12}));
}

TEST(Init, FunctionsFollowPyTorch) {
  torch::manual_seed(1);
  torch::Tensor w = torch::empty({256, 512});
  torch::nn::init::kaiming_normal_(w, 0, torch::kFanIn, torch::kReLU);
  EXPECT_NEAR(w.std().item<float>(), std::sqrt(2.0 / 512), 0.002);
  torch::nn::init::xavier_uniform_(w);
  EXPECT_LE(w.abs().max().item<float>(), std::sqrt(6.0 / (256 + 512)) + 1e-6);
  torch::nn::init::orthogonal_(w);
  EXPECT_TRUE(tensors_close(w.mm(w.t()), torch::eye(256), 1e-4, 1e-4));
  torch::nn::init::trunc_normal_(w, 0, 1, -0.5, 0.5);
  EXPECT_TRUE(w.abs().le(0.5).all().item<bool>());
  torch::Tensor conv = torch::empty({4, 4, 3, 3});
  torch::nn::init::dirac_(conv);
  EXPECT_EQ(conv.sum().item<float>(), 4.f);
  EXPECT_EQ(conv[2][2][1][1].item<float>(), 1.f);
  EXPECT_NEAR(torch::nn::init::calculate_gain(torch::kLeakyReLU, 0.2), std::sqrt(2.0 / 1.04), 1e-12);
  EXPECT_ERROR_WITH(torch::nn::init::xavier_uniform_(torch::empty({3})), "fewer than 2 dimensions");
  torch::Tensor p = torch::ones({2}, torch::requires_grad());
  torch::nn::init::zeros_(p);  // no-grad initializers work on leaves that require grad
  EXPECT_EQ(p.sum().item<float>(), 0.f);
}

TEST(Optim, SGDMatchesTheReferenceUpdate) {
  // p, and a fixed gradient per step; reference computed in double by hand.
  for (bool nesterov : {false, true}) {
    SCOPED_TRACE(nesterov ? "nesterov" : "plain");
    torch::Tensor p = torch::tensor({1.0, -2.0, 3.0}, torch::dtype(torch::kDouble).requires_grad(true));
    auto opt = torch::optim::SGD({p}, torch::optim::SGDOptions(0.1).momentum(0.9).weight_decay(0.01)
                                           .dampening(nesterov ? 0.0 : 0.1).nesterov(nesterov));
    std::vector<double> ref = {1.0, -2.0, 3.0}, buf(3, 0.0);
    for (int step = 0; step < 3; ++step) {
      opt.zero_grad();
      (p * p).sum().backward();  // grad = 2 p
      opt.step();
      for (int i = 0; i < 3; ++i) {
        double g = 2 * ref[i] + 0.01 * ref[i];
        buf[i] = step == 0 ? g : 0.9 * buf[i] + (1 - (nesterov ? 0.0 : 0.1)) * g;
        double d = nesterov ? g + 0.9 * buf[i] : buf[i];
        ref[i] -= 0.1 * d;
      }
    }
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(p[i].item<double>(), ref[i], 1e-12);
  }
  torch::Tensor q = torch::ones({1}, torch::requires_grad());
  EXPECT_ERROR_WITH(torch::optim::SGD({q}, torch::optim::SGDOptions(-1)), "Invalid learning rate");
  EXPECT_ERROR_WITH(torch::optim::SGD({q, q}, torch::optim::SGDOptions(0.1)), "duplicate parameters");
}

}  // namespace
