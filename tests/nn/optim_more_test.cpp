// RMSprop, Adagrad and the LR schedulers against their reference formulas in double.
#include <torch/torch.h>

#include <cmath>

#include "test_util.h"

namespace {

TEST(Optim, RMSpropAndAdagradMatchTheReference) {
  for (int variant = 0; variant < 3; ++variant) {  // RMSprop plain, centered + momentum, Adagrad
    SCOPED_TRACE(variant);
    torch::Tensor p = torch::tensor({1.0, -2.0}, torch::dtype(torch::kDouble).requires_grad(true));
    std::unique_ptr<torch::optim::Optimizer> opt;
    if (variant == 0) opt = std::make_unique<torch::optim::RMSprop>(std::vector<torch::Tensor>{p}, torch::optim::RMSpropOptions(0.01).weight_decay(0.1));
    if (variant == 1) opt = std::make_unique<torch::optim::RMSprop>(std::vector<torch::Tensor>{p}, torch::optim::RMSpropOptions(0.01).centered(true).momentum(0.9));
    if (variant == 2) opt = std::make_unique<torch::optim::Adagrad>(std::vector<torch::Tensor>{p}, torch::optim::AdagradOptions(0.1).lr_decay(0.01).initial_accumulator_value(0.1));
    std::vector<double> x = {1.0, -2.0}, v(2, 0), m(2, 0), b(2, 0), s(2, 0.1);
    for (int t = 1; t <= 4; ++t) {
      opt->zero_grad();
      (p * p).sum().backward();
      opt->step();
      for (int i = 0; i < 2; ++i) {
        double g = 2 * x[i];
        if (variant == 0) {
          g += 0.1 * x[i];
          v[i] = 0.99 * v[i] + 0.01 * g * g;
          x[i] -= 0.01 * g / (std::sqrt(v[i]) + 1e-8);
        } else if (variant == 1) {
          v[i] = 0.99 * v[i] + 0.01 * g * g;
          m[i] = 0.99 * m[i] + 0.01 * g;
          double avg = std::sqrt(v[i] - m[i] * m[i]) + 1e-8;
          b[i] = 0.9 * b[i] + g / avg;
          x[i] -= 0.01 * b[i];
        } else {
          double clr = 0.1 / (1 + (t - 1) * 0.01);
          s[i] += g * g;
          x[i] -= clr * g / (std::sqrt(s[i]) + 1e-10);
        }
      }
    }
    for (int i = 0; i < 2; ++i) EXPECT_NEAR(p[i].item<double>(), x[i], 1e-12);
  }
}

TEST(Optim, SchedulersFollowTheirClosedForms) {
  torch::Tensor p = torch::ones({1}, torch::requires_grad());
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(1.0));
  torch::optim::StepLR step(opt, 2, 0.5);
  std::vector<double> seen;
  for (int e = 0; e < 5; ++e) {
    step.step();
    seen.push_back(step.get_last_lr()[0]);
  }
  // LibTorch's StepLR decays one step later than PyTorch's Python one ({1, .5, .5, .25, .25}).
  EXPECT_EQ(seen, (std::vector<double>{1.0, 1.0, 0.5, 0.5, 0.25}));
  torch::optim::SGD opt2({p}, torch::optim::SGDOptions(0.1));
  torch::optim::CosineAnnealingLR cos(opt2, 10, 0.01);
  for (int e = 0; e < 5; ++e) cos.step();
  EXPECT_NEAR(cos.get_last_lr()[0], 0.01 + 0.09 * (1 + std::cos(M_PI * 5 / 10)) / 2, 1e-15);
  torch::optim::SGD opt3({p}, torch::optim::SGDOptions(0.2));
  torch::optim::MultiStepLR ms(opt3, {2, 4}, 0.1);
  for (int e = 0; e < 4; ++e) ms.step();
  EXPECT_NEAR(ms.get_last_lr()[0], 0.2 * 0.01, 1e-15);
  torch::optim::SGD opt4({p}, torch::optim::SGDOptions(0.5));
  torch::optim::LambdaLR lam(opt4, [](int64_t e) { return 1.0 / double(e + 1); });
  EXPECT_NEAR(lam.get_last_lr()[0], 0.5, 1e-15);
  lam.step();
  lam.step();
  EXPECT_NEAR(lam.get_last_lr()[0], 0.5 / 3, 1e-15);
  torch::optim::SGD opt5({p}, torch::optim::SGDOptions(1.0));
  torch::optim::ExponentialLR ex(opt5, 0.9);
  ex.step();
  ex.step();
  EXPECT_NEAR(ex.get_last_lr()[0], 0.81, 1e-15);
}

}  // namespace

// A scheduler restored from its state_dict (through text and through an archive) continues
// exactly as the uninterrupted one: same lr at every later step.
TEST(Optim, SchedulerStateDictResumes) {
  using namespace torch::optim;
  auto run = [](auto make, int split, bool via_archive) {
    auto w = torch::zeros({2}).requires_grad_();
    SGD opt({w}, SGDOptions(0.1).momentum(0.9));
    auto sched = make(opt);
    std::vector<double> lrs;
    for (int i = 0; i < split; ++i) sched->step(), lrs.push_back(opt.param_groups()[0].options().get_lr());
    // "Restart": a new optimizer and scheduler, restored.
    SGD opt2({w}, SGDOptions(0.1).momentum(0.9));
    auto sched2 = make(opt2);
    opt2.param_groups()[0].options().set_lr(opt.param_groups()[0].options().get_lr());
    if (via_archive) {
      torch::serialize::OutputArchive out;
      sched->save(out);
      torch::serialize::InputArchive in;
      std::string bytes = out.to_bytes();
      in.load_from(bytes.data(), bytes.size());
      sched2->load(in);
    } else {
      sched2->load_state_dict(ember::json::parse(ember::json::dump(sched->state_dict())));
    }
    std::vector<double> a, b;
    for (int i = 0; i < 12; ++i) {
      sched->step(), a.push_back(opt.param_groups()[0].options().get_lr());
      sched2->step(), b.push_back(opt2.param_groups()[0].options().get_lr());
    }
    EXPECT_EQ(a, b);
    return sched2->last_epoch();
  };
  for (bool archive : {false, true}) {
    EXPECT_EQ(run([](SGD& o) { return std::make_unique<StepLR>(o, 3, 0.5); }, 5, archive), 17);
    run([](SGD& o) { return std::make_unique<CosineAnnealingWarmRestarts>(o, 4, 2, 0.001); }, 7, archive);
    run([](SGD& o) { return std::make_unique<OneCycleLR>(o, 1.0, OneCycleLROptions().total_steps(40)); }, 9, archive);
    run([](SGD& o) {
      return std::make_unique<SequentialLR>(
          o, std::vector<std::shared_ptr<LRScheduler>>{std::make_shared<LinearLR>(o, 0.1, 1.0, 4),
                                                       std::make_shared<ExponentialLR>(o, 0.9)},
          std::vector<int64_t>{4});
    }, 3, archive);
  }
  // Bad states are rejected clearly.
  auto w = torch::zeros({2}).requires_grad_();
  SGD opt({w}, SGDOptions(0.1));
  StepLR s(opt, 2);
  EXPECT_THROW(
      {
        try {
          s.load_state_dict(ember::json::parse(R"({"last_epoch": 3, "base_lrs": [0.1, 0.2]})"));
        } catch (const std::exception& e) {
          EXPECT_NE(std::string(e.what()).find("the state has 2 parameter groups, the optimizer 1"), std::string::npos);
          throw;
        }
      },
      std::exception);

  // ReduceLROnPlateau: best (possibly infinite), bad-epoch and cooldown counters survive.
  ReduceLROnPlateau p1(opt, ReduceLROnPlateau::min, 0.5, 1, 1e-4, ReduceLROnPlateau::rel, 2);
  ReduceLROnPlateau fresh(opt);
  auto inf_state = ember::json::parse(ember::json::dump(fresh.state_dict()));
  ReduceLROnPlateau p0(opt);
  p0.load_state_dict(inf_state);
  EXPECT_TRUE(std::isinf(p0.best()));
  for (double m : {5.0, 4.0, 4.5, 4.6}) p1.step(m);
  SGD opt2({w}, SGDOptions(opt.param_groups()[0].options().get_lr()));
  ReduceLROnPlateau p2(opt2, ReduceLROnPlateau::min, 0.5, 1, 1e-4, ReduceLROnPlateau::rel, 2);
  p2.load_state_dict(ember::json::parse(ember::json::dump(p1.state_dict())));
  for (double m : {4.7, 4.8, 4.9, 5.0, 3.0, 3.1, 3.2}) {
    p1.step(m), p2.step(m);
    EXPECT_EQ(p1.get_last_lr(), p2.get_last_lr());
    EXPECT_EQ(p1.num_bad_epochs(), p2.num_bad_epochs());
  }
}
