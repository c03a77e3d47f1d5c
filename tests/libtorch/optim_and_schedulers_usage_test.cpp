// Optimizers and learning-rate schedules in LibTorch 1.13 training-loop style: constructing
// SGD/Adam/AdamW/RMSprop/Adagrad/LBFGS from options, parameter groups with their own options,
// per-parameter state, LBFGS closures, StepLR and a user-written LRScheduler, gradient clipping
// and the parameters<->vector helpers. Expected numbers are what LibTorch 1.13 computes.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

namespace {

// Minimizes f(w) = sum((w - target)^2) for `steps` steps and returns the final w.
template <typename Optimizer, typename Options>
torch::Tensor run_quadratic(Options options, int steps) {
  auto w = torch::zeros({3}, torch::dtype(torch::kDouble).requires_grad(true));
  auto target = torch::tensor({1.0, -2.0, 3.0}, torch::kDouble);
  Optimizer opt({w}, options);
  for (int i = 0; i < steps; ++i) {
    opt.zero_grad();
    auto loss = (w - target).pow(2).sum();
    loss.backward();
    opt.step();
  }
  return w.detach();
}

void expect_values(const torch::Tensor& t, const std::vector<double>& expected, double tol = 1e-6) {
  auto flat = t.detach().flatten().to(torch::kDouble);
  ASSERT_EQ(flat.numel(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(flat[i].item<double>(), expected[i], tol) << "element " << i;
}

// Halves the learning rate every `period` steps, written against LRScheduler's protected API.
class HalvingScheduler : public torch::optim::LRScheduler {
 public:
  HalvingScheduler(torch::optim::Optimizer& optimizer, unsigned period)
      : torch::optim::LRScheduler(optimizer), period_(period) {}

 private:
  std::vector<double> get_lrs() override {
    auto lrs = get_current_lrs();
    if (step_count_ != 0 && step_count_ % period_ == 0)
      for (auto& lr : lrs) lr *= 0.5;
    return lrs;
  }
  unsigned period_;
};

// Linear warm-up to the base rates over `warmup` steps.
class WarmupScheduler : public torch::optim::LRScheduler {
 public:
  WarmupScheduler(torch::optim::Optimizer& optimizer, std::vector<double> base, unsigned warmup)
      : LRScheduler(optimizer), base_(std::move(base)), warmup_(warmup) {}

 private:
  std::vector<double> get_lrs() override {
    std::vector<double> out;
    const double factor = std::min(1.0, static_cast<double>(step_count_ + 1) / warmup_);
    for (double b : base_) out.push_back(b * factor);
    return out;
  }
  std::vector<double> base_;
  unsigned warmup_;
};

double lr_of(torch::optim::Optimizer& opt, size_t group = 0) {
  return opt.param_groups()[group].options().get_lr();
}

}  // namespace

TEST(OptimUsage, SgdVariants) {
  expect_values(run_quadratic<torch::optim::SGD>(torch::optim::SGDOptions(0.1), 5), {0.67232, -1.34464, 2.01696});
  expect_values(run_quadratic<torch::optim::SGD>(torch::optim::SGDOptions(0.1).momentum(0.9), 5), {1.58042, -3.16084, 4.74126});
  expect_values(run_quadratic<torch::optim::SGD>(torch::optim::SGDOptions(0.1).momentum(0.9).nesterov(true), 5), {1.4157175808, -2.8314351616, 4.2471527424});
  expect_values(run_quadratic<torch::optim::SGD>(torch::optim::SGDOptions(0.1).weight_decay(0.5).momentum(0.5).dampening(0.1), 5), {0.846537265625, -1.69307453125, 2.53961179688});
  auto opts = torch::optim::SGDOptions(0.01).momentum(0.9).nesterov(true);
  EXPECT_DOUBLE_EQ(opts.lr(), 0.01);
  EXPECT_TRUE(opts.nesterov());
  EXPECT_DOUBLE_EQ(opts.dampening(), 0.0);
  auto w = torch::zeros({1}, torch::requires_grad());
  // nesterov needs momentum and zero dampening
  EXPECT_THROW(torch::optim::SGD({w}, torch::optim::SGDOptions(0.1).nesterov(true)), c10::Error);
}

TEST(OptimUsage, AdaptiveOptimizers) {
  expect_values(run_quadratic<torch::optim::Adam>(torch::optim::AdamOptions(0.1), 5), {0.492036340736, -0.497044218705, 0.498220543773});
  expect_values(run_quadratic<torch::optim::Adam>(torch::optim::AdamOptions(0.1).betas({0.5, 0.9}).amsgrad(true), 5), {0.472929790944, -0.488151152213, 0.492435087404});
  expect_values(run_quadratic<torch::optim::AdamW>(torch::optim::AdamWOptions(0.1).weight_decay(0.1), 5), {0.482331950733, -0.487208805545, 0.4883575765});
  expect_values(run_quadratic<torch::optim::RMSprop>(torch::optim::RMSpropOptions(0.01).alpha(0.9), 5), {0.10449328899, -0.105491222471, 0.105815752376});
  expect_values(run_quadratic<torch::optim::RMSprop>(torch::optim::RMSpropOptions(0.01).momentum(0.5).centered(true), 5), {0.506016909766, -0.532564669724, 0.540593389573});
  expect_values(run_quadratic<torch::optim::Adagrad>(torch::optim::AdagradOptions(0.5).lr_decay(0.01), 5), {0.945148854676, -1.30276252862, 1.41194934005});
  auto adam = torch::optim::AdamOptions(1e-3);
  EXPECT_DOUBLE_EQ(std::get<0>(adam.betas()), 0.9);
  EXPECT_DOUBLE_EQ(std::get<1>(adam.betas()), 0.999);
  EXPECT_DOUBLE_EQ(adam.eps(), 1e-8);
  EXPECT_DOUBLE_EQ(adam.weight_decay(), 0.0);
  EXPECT_DOUBLE_EQ(torch::optim::RMSpropOptions().lr(), 0.01);
  EXPECT_DOUBLE_EQ(torch::optim::AdagradOptions().lr(), 0.01);
}

TEST(OptimUsage, LbfgsWithClosure) {
  auto w = torch::zeros({2}, torch::dtype(torch::kDouble).requires_grad(true));
  torch::optim::LBFGS lbfgs({w}, torch::optim::LBFGSOptions(1).max_iter(20).line_search_fn("strong_wolfe"));
  int calls = 0;
  auto closure = [&]() {
    ++calls;
    lbfgs.zero_grad();
    // Rosenbrock-like bowl with minimum at (1, 1)
    auto loss = (1 - w[0]).pow(2) + 10 * (w[1] - w[0].pow(2)).pow(2);
    loss.backward();
    return loss;
  };
  auto first = lbfgs.step(closure);
  EXPECT_NEAR(first.item<double>(), 1.0, 1e-12);  // step returns the initial loss
  for (int i = 0; i < 4; ++i) lbfgs.step(closure);
  EXPECT_TRUE(w.allclose(torch::tensor({1.0, 1.0}, torch::kDouble), 1e-5, 1e-5)) << w;
  EXPECT_GT(calls, 5);
  auto& o = static_cast<torch::optim::LBFGSOptions&>(lbfgs.defaults());
  EXPECT_EQ(o.max_iter(), 20);
  EXPECT_EQ(o.history_size(), 100);
  EXPECT_EQ(o.line_search_fn().value(), "strong_wolfe");
  EXPECT_THROW(lbfgs.step(nullptr), c10::Error);  // LBFGS needs a closure
}

TEST(OptimUsage, ParamGroupsWithTheirOwnOptions) {
  torch::nn::Linear backbone(4, 4), head(4, 2);
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(backbone->parameters(), std::make_unique<torch::optim::AdamOptions>(1e-4));
  groups.emplace_back(head->parameters());  // uses the defaults
  torch::optim::Adam opt(groups, torch::optim::AdamOptions(1e-2).weight_decay(1e-4));
  ASSERT_EQ(opt.param_groups().size(), 2u);
  EXPECT_DOUBLE_EQ(lr_of(opt, 0), 1e-4);
  EXPECT_DOUBLE_EQ(lr_of(opt, 1), 1e-2);
  auto& g1 = static_cast<torch::optim::AdamOptions&>(opt.param_groups()[1].options());
  EXPECT_DOUBLE_EQ(g1.weight_decay(), 1e-4);
  auto& g0 = static_cast<torch::optim::AdamOptions&>(opt.param_groups()[0].options());
  EXPECT_DOUBLE_EQ(g0.weight_decay(), 0.0);  // a group's own options are kept whole
  EXPECT_EQ(opt.param_groups()[0].params().size(), 2u);

  // changing every group's learning rate, the usual manual schedule
  for (auto& group : opt.param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(0.5);
  EXPECT_DOUBLE_EQ(lr_of(opt, 0), 0.5);
  for (auto& group : opt.param_groups()) group.options().set_lr(0.25);
  EXPECT_DOUBLE_EQ(lr_of(opt, 1), 0.25);

  torch::nn::Linear extra(2, 1);
  opt.add_param_group(torch::optim::OptimizerParamGroup(extra->parameters()));
  EXPECT_EQ(opt.param_groups().size(), 3u);
  EXPECT_DOUBLE_EQ(lr_of(opt, 2), 1e-2);
  EXPECT_EQ(opt.parameters().size(), 2u);  // the deprecated parameters() lists the first group only
  size_t total = 0;
  for (const auto& group : opt.param_groups()) total += group.params().size();
  EXPECT_EQ(total, 6u);
  // A parameter already in a group is rejected. (LibTorch 1.13 checks only parameters that
  // already have state, i.e. after a step; ember, like PyTorch, always checks. Only the case
  // both agree on is tested here.)
  extra(torch::ones({1, 2})).sum().backward();
  opt.step();
  EXPECT_THROW(opt.add_param_group(torch::optim::OptimizerParamGroup(extra->parameters())), c10::Error);
}

TEST(OptimUsage, StateAfterSteps) {
  auto w = torch::ones({2}, torch::requires_grad());
  torch::optim::Adam opt({w}, torch::optim::AdamOptions(0.1));
  for (int i = 0; i < 3; ++i) {
    opt.zero_grad();
    (w * w).sum().backward();
    opt.step();
  }
  auto& state = opt.state();
  ASSERT_EQ(state.size(), 1u);
  auto key = c10::guts::to_string(w.unsafeGetTensorImpl());
  auto& s = static_cast<torch::optim::AdamParamState&>(*state.at(key));
  EXPECT_EQ(s.step(), 3);
  expect_values(s.exp_avg(), {0.484082460403, 0.484082460403});
  expect_values(w, {0.701586306095, 0.701586306095});

  torch::optim::SGD sgd({w}, torch::optim::SGDOptions(0.1).momentum(0.9));
  EXPECT_TRUE(sgd.state().empty());
  sgd.zero_grad();
  (w * w).sum().backward();
  sgd.step();
  auto& ms = static_cast<torch::optim::SGDParamState&>(*sgd.state().at(key));
  EXPECT_TRUE(ms.momentum_buffer().allclose(2 * (w.detach() + 0.1 * ms.momentum_buffer())));
}

TEST(OptimUsage, StepLRSchedule) {
  auto w = torch::zeros({1}, torch::requires_grad());
  torch::optim::SGD opt({w}, torch::optim::SGDOptions(1.0));
  torch::optim::StepLR scheduler(opt, /*step_size=*/3, /*gamma=*/0.1);
  std::vector<double> lrs;
  for (int epoch = 0; epoch < 8; ++epoch) {
    lrs.push_back(lr_of(opt));
    opt.step();
    scheduler.step();
  }
  // LRScheduler::step() consults step_count_ before incrementing it, so the first decay lands
  // one step later than in Python's StepLR
  const std::vector<double> expected{1.0, 1.0, 1.0, 1.0, 0.1, 0.1, 0.1, 0.01};
  ASSERT_EQ(lrs.size(), expected.size());
  for (size_t i = 0; i < lrs.size(); ++i) EXPECT_NEAR(lrs[i], expected[i], 1e-12) << "epoch " << i;
}

TEST(OptimUsage, UserDefinedSchedulers) {
  auto a = torch::zeros({1}, torch::requires_grad());
  auto b = torch::zeros({1}, torch::requires_grad());
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<torch::Tensor>{a}, std::make_unique<torch::optim::SGDOptions>(0.8));
  groups.emplace_back(std::vector<torch::Tensor>{b}, std::make_unique<torch::optim::SGDOptions>(0.4));
  torch::optim::SGD opt(groups, torch::optim::SGDOptions(0.1));
  HalvingScheduler halving(opt, 2);
  std::vector<double> seen;
  for (int i = 0; i < 5; ++i) {
    halving.step();
    seen.push_back(lr_of(opt, 0));
  }
  EXPECT_EQ(seen, (std::vector<double>{0.8, 0.8, 0.4, 0.4, 0.2}));
  EXPECT_DOUBLE_EQ(lr_of(opt, 1), 0.1);

  torch::optim::Adam adam({a}, torch::optim::AdamOptions(1.0));
  WarmupScheduler warm(adam, {1.0}, 4);
  std::vector<double> ramp;
  for (int i = 0; i < 5; ++i) {
    warm.step();
    ramp.push_back(lr_of(adam));
  }
  EXPECT_EQ(ramp, (std::vector<double>{0.25, 0.5, 0.75, 1.0, 1.0}));
}

TEST(OptimUsage, GradientClipping) {
  auto a = torch::zeros({2}, torch::requires_grad());
  auto b = torch::zeros({2}, torch::requires_grad());
  a.mutable_grad() = torch::tensor({3.0f, 0.0f});
  b.mutable_grad() = torch::tensor({0.0f, 4.0f});
  auto total = torch::nn::utils::clip_grad_norm_({a, b}, /*max_norm=*/1.0);
  EXPECT_NEAR(total, 5.0, 1e-6);
  EXPECT_TRUE(a.grad().allclose(torch::tensor({0.6f, 0.0f}), 1e-4, 1e-5));
  EXPECT_TRUE(b.grad().allclose(torch::tensor({0.0f, 0.8f}), 1e-4, 1e-5));
  // below the threshold nothing changes
  auto again = torch::nn::utils::clip_grad_norm_({a, b}, 10.0);
  EXPECT_NEAR(again, 1.0, 1e-5);
  EXPECT_TRUE(a.grad().allclose(torch::tensor({0.6f, 0.0f}), 1e-4, 1e-5));
  // infinity norm
  a.mutable_grad() = torch::tensor({-3.0f, 1.0f});
  auto inf = torch::nn::utils::clip_grad_norm_(a, 1.5, std::numeric_limits<double>::infinity());
  EXPECT_NEAR(inf, 3.0, 1e-6);
  EXPECT_TRUE(a.grad().allclose(torch::tensor({-1.5f, 0.5f}), 1e-4, 1e-5));

  torch::nn::Linear lin(3, 3);
  lin(torch::ones({2, 3}) * 100).sum().backward();
  torch::nn::utils::clip_grad_value_(lin->parameters(), 0.5);
  for (const auto& p : lin->parameters()) EXPECT_LE(p.grad().abs().max().item<float>(), 0.5f);
  EXPECT_FLOAT_EQ(lin->weight.grad().max().item<float>(), 0.5f);
}

TEST(OptimUsage, ParametersToVectorAndBack) {
  torch::nn::Linear lin(2, 3);
  auto vec = torch::nn::utils::parameters_to_vector(lin->parameters());
  EXPECT_EQ(vec.dim(), 1);
  EXPECT_EQ(vec.numel(), 2 * 3 + 3);
  EXPECT_TRUE(vec.slice(0, 0, 6).equal(lin->weight.flatten()));
  EXPECT_TRUE(vec.slice(0, 6).equal(lin->bias));
  torch::nn::utils::vector_to_parameters(torch::arange(9, torch::kFloat), lin->parameters());
  EXPECT_TRUE(lin->weight.equal(torch::arange(6, torch::kFloat).view({3, 2})));
  EXPECT_TRUE(lin->bias.equal(torch::tensor({6.0f, 7.0f, 8.0f})));
  EXPECT_TRUE(lin(torch::ones({1, 2})).equal(torch::tensor({{7.0f, 12.0f, 17.0f}})));
}

TEST(OptimUsage, TrainingLoopConverges) {
  torch::manual_seed(42);
  auto x = torch::linspace(-1, 1, 32).unsqueeze(1);
  auto y = 3 * x - 0.5;
  torch::nn::Linear model(1, 1);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.5));
  torch::optim::StepLR sched(opt, 50, 0.5);
  double last = 0;
  for (int epoch = 0; epoch < 200; ++epoch) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    opt.step();
    sched.step();
    last = loss.item<double>();
  }
  EXPECT_LT(last, 1e-8);
  EXPECT_NEAR(model->weight.item<float>(), 3.0f, 1e-4);
  EXPECT_NEAR(model->bias.item<float>(), -0.5f, 1e-4);
  EXPECT_NEAR(lr_of(opt), 0.5 / 8, 1e-12);  // decayed when step_count_ was 50, 100 and 150
}
