// The torch::optim interface as LibTorch 1.13 programs use it: options built from a learning
// rate, parameter groups, per-parameter state objects keyed by the parameter's TensorImpl,
// optimizers defined by users, zero_grad's default. Compiles against ember and LibTorch alike.
#include <torch/optim.h>
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <c10/util/irange.h>

#include <string>
#include <vector>

using namespace torch::optim;

namespace {

std::string key_of(const torch::Tensor& p) { return c10::guts::to_string(p.unsafeGetTensorImpl()); }

// A quadratic bowl: the gradient of sum((p - 3)^2) is 2 (p - 3).
void fill_grad(torch::Tensor& p) {
  p.mutable_grad() = (2 * (p.detach() - 3)).clone();
}

struct CountingHandler : c10::WarningHandler {
  std::vector<std::string> messages;
  void process(const c10::SourceLocation&, const std::string& msg, const bool) override { messages.push_back(msg); }
};

}  // namespace

TEST(OptimApi, OptionsConvertFromALearningRate) {
  auto p = torch::zeros({3}, torch::requires_grad());
  SGD sgd({p}, 0.5);  // SGDOptions(double) is implicit
  EXPECT_DOUBLE_EQ(sgd.param_groups()[0].options().get_lr(), 0.5);
  fill_grad(p);
  sgd.step();
  EXPECT_TRUE(p.allclose(torch::full({3}, 3.0)));  // 0 - 0.5 * 2 * (0 - 3)
  Adam adam({torch::zeros({2}, torch::requires_grad())}, 0.01);
  EXPECT_DOUBLE_EQ(static_cast<AdamOptions&>(adam.defaults()).lr(), 0.01);
  AdamW adamw({torch::zeros({2}, torch::requires_grad())}, 0.02);
  auto& wo = static_cast<AdamWOptions&>(adamw.defaults());
  EXPECT_DOUBLE_EQ(wo.lr(), 0.02);
  EXPECT_DOUBLE_EQ(wo.weight_decay(), 1e-2);  // AdamW's own default survives the conversion
  AdamWOptions chained = AdamWOptions(1e-3).weight_decay(0.1).amsgrad(true);
  EXPECT_TRUE(chained.amsgrad());
  EXPECT_TRUE(AdagradOptions(1.0) == AdagradOptions(1.0));
  EXPECT_FALSE(AdagradOptions(1.0) == AdagradOptions(1.0).lr_decay(0.5));
}

TEST(OptimApi, StateIsKeyedByTheParameterAndTyped) {
  auto a = torch::zeros({2, 2}, torch::requires_grad());
  auto b = torch::ones({3}, torch::requires_grad());
  Adam adam({a, b}, AdamOptions(0.1));
  EXPECT_TRUE(adam.state().empty());
  fill_grad(a);
  fill_grad(b);
  adam.step();
  adam.step();
  ASSERT_EQ(adam.state().size(), 2u);
  auto& st = static_cast<AdamParamState&>(*adam.state().at(key_of(a)));
  EXPECT_EQ(st.step(), 2);
  EXPECT_EQ(st.exp_avg().sizes(), a.sizes());
  EXPECT_EQ(st.exp_avg_sq().sizes(), a.sizes());
  EXPECT_FALSE(st.max_exp_avg_sq().defined());  // amsgrad is off
  AdamParamState copy = st;
  EXPECT_TRUE(copy == st);
  copy.step(7);
  EXPECT_FALSE(copy == st);
  // The gradient stayed -6 (set once): m = 0.9 (0.1 g) + 0.1 g, v = 0.999 (0.001 g^2) + 0.001 g^2.
  EXPECT_TRUE(st.exp_avg().allclose(torch::full({2, 2}, -1.14)));
  EXPECT_TRUE(st.exp_avg_sq().allclose(torch::full({2, 2}, 0.071964)));

  SGD sgd({a}, SGDOptions(0.1).momentum(0.9));
  fill_grad(a);
  sgd.step();
  auto& s = static_cast<SGDParamState&>(*sgd.state()[key_of(a)]);
  EXPECT_TRUE(s.momentum_buffer().defined());
  EXPECT_TRUE(s.momentum_buffer().allclose(a.grad()));  // b = g on the first step
}

TEST(OptimApi, AdagradHoldsStateFromTheStart) {
  std::vector<torch::Tensor> params;
  for (const auto i : c10::irange(3)) {
    (void)i;
    params.push_back(torch::randn(10));
  }
  Adagrad adagrad(params, AdagradOptions(1.0).initial_accumulator_value(0.5));
  auto& st = static_cast<AdagradParamState&>(*adagrad.state()[key_of(params[0])]);
  EXPECT_EQ(st.step(), 0);
  EXPECT_TRUE(st.sum().allclose(torch::full({10}, 0.5)));
  st.step(st.step() + 1);
  EXPECT_EQ(static_cast<AdagradParamState&>(*adagrad.state()[key_of(params[0])]).step(), 1);
  const auto& const_ref = adagrad;
  EXPECT_EQ(const_ref.state().size(), 3u);
}

TEST(OptimApi, ParamGroupsAreReferencesAndRejectDuplicates) {
  std::vector<torch::Tensor> params = {torch::randn(4), torch::randn(4)};
  Adagrad opt(params, AdagradOptions(1.0));
  auto& groups = opt.param_groups();
  groups.push_back(OptimizerParamGroup(params));
  EXPECT_EQ(opt.param_groups().size(), 2u);
  try {
    opt.add_param_group(OptimizerParamGroup(params));
    FAIL() << "duplicate parameters were accepted";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("some parameters appear in more than one parameter group"),
              std::string::npos)
        << e.what();
  }
  auto extra = torch::randn(2, torch::requires_grad());
  opt.add_param_group(OptimizerParamGroup({extra}, std::make_unique<AdagradOptions>(0.25)));
  EXPECT_DOUBLE_EQ(opt.param_groups().back().options().get_lr(), 0.25);
}

TEST(OptimApi, ZeroGradZeroesByDefault) {
  auto p = torch::ones({2}, torch::requires_grad());
  SGD sgd({p}, 0.1);
  (p * p).sum().backward();
  ASSERT_TRUE(p.grad().defined());
  sgd.zero_grad();
  ASSERT_TRUE(p.grad().defined());  // LibTorch 1.13 zeroes instead of resetting
  EXPECT_EQ(p.grad().abs().sum().item<double>(), 0.0);
  torch::nn::Linear lin(2, 2);
  lin(torch::ones({1, 2})).sum().backward();
  lin->zero_grad();
  ASSERT_TRUE(lin->weight.grad().defined());
  EXPECT_EQ(lin->weight.grad().abs().sum().item<double>(), 0.0);
}

struct MyOptimizerOptions : public OptimizerCloneableOptions<MyOptimizerOptions> {
  MyOptimizerOptions(double lr = 1.0) : lr_(lr) {}
  TORCH_ARG(double, lr) = 1.0;
};

struct MyParamState : public OptimizerCloneableParamState<MyParamState> {
  TORCH_ARG(int64_t, calls) = 0;
};

// A user-defined optimizer: p -= lr * grad, counting its calls in its own state class.
struct MyOptimizer : Optimizer {
  explicit MyOptimizer(std::vector<torch::Tensor> params, MyOptimizerOptions defaults = {})
      : Optimizer({OptimizerParamGroup(params)}, std::make_unique<MyOptimizerOptions>(defaults)) {}
  torch::Tensor step(LossClosure closure = nullptr) override {
    torch::NoGradGuard no_grad;
    for (auto& group : param_groups_) {
      const double lr = static_cast<MyOptimizerOptions&>(group.options()).lr();
      for (auto& p : group.params()) {
        if (!p.grad().defined()) continue;
        p.add_(p.grad(), -lr);
        auto& slot = state_[c10::guts::to_string(p.unsafeGetTensorImpl())];
        if (!slot) slot = std::make_unique<MyParamState>();
        auto& st = static_cast<MyParamState&>(*slot);
        st.calls(st.calls() + 1);
      }
    }
    return {};
  }
};

TEST(OptimApi, UserDefinedOptimizersUseTheProtectedMembers) {
  auto p = torch::zeros({2}, torch::requires_grad());
  MyOptimizer opt({p}, MyOptimizerOptions(0.5));
  fill_grad(p);
  opt.step();
  opt.step();
  EXPECT_TRUE(p.allclose(torch::full({2}, 6.0)));  // two steps of +3
  EXPECT_EQ(static_cast<MyParamState&>(*opt.state()[key_of(p)]).calls(), 2);
  auto cloned = opt.state()[key_of(p)]->clone();
  EXPECT_EQ(static_cast<MyParamState&>(*cloned).calls(), 2);
}

TEST(OptimApi, OldInterfaceWarnsThatItWillBeRemoved) {
  std::vector<torch::Tensor> parameters = {torch::ones({2, 3}), torch::zeros({2, 3}), torch::rand({2, 3})};
  CountingHandler handler;
  c10::Warning::WarningHandlerGuard guard(&handler);
  MyOptimizer empty(std::vector<torch::Tensor>{});
  EXPECT_EQ(empty.size(), 0u);
  empty.add_parameters(parameters);
  EXPECT_EQ(empty.size(), parameters.size());
  std::vector<torch::Tensor> got = empty.parameters();
  ASSERT_EQ(got.size(), parameters.size());
  for (const auto i : c10::irange(got.size())) EXPECT_TRUE(got[i].allclose(parameters[i]));
  ASSERT_EQ(handler.messages.size(), 4u);
  for (const auto& m : handler.messages) EXPECT_NE(m.find("will be removed"), std::string::npos) << m;
}

TEST(OptimApi, RMSpropCountsSteps) {
  auto p = torch::zeros({3}, torch::requires_grad());
  RMSprop opt({p}, RMSpropOptions(0.01).momentum(0.9).centered(true));
  fill_grad(p);
  opt.step();
  opt.step();
  auto& st = static_cast<RMSpropParamState&>(*opt.state()[key_of(p)]);
  EXPECT_EQ(st.step(), 2);
  EXPECT_TRUE(st.square_avg().defined());
  EXPECT_TRUE(st.momentum_buffer().defined());
  EXPECT_TRUE(st.grad_avg().defined());
}
