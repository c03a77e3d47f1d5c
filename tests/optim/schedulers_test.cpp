// The learning-rate schedulers of ember/optim/schedulers/: StepLR, MultiStepLR, ExponentialLR,
// CosineAnnealingLR and LambdaLR against their reference formulas in double, state_dict round
// trips, and every scheduler (CosineAnnealingWarmRestarts, OneCycleLR, LinearLR, ConstantLR,
// SequentialLR, ReduceLROnPlateau, ...) against PyTorch 1.13: tests/golden/optim_extra.json,
// written by tests/golden/gen_optim_extra.py (its docstring describes the cases).
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

#include "optim/optim_golden.h"
#include "test_util.h"

namespace {

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

// ---- against PyTorch 1.13 ----------------------------------------------------------------------

namespace {

namespace optim = torch::optim;
using ember::test::Json;

using namespace ember::test::optim_golden;


// Two groups of one parameter each, with the case's lrs: SGD (with momentum 0.9 for
// "SGD_momentum") or Adam.
std::unique_ptr<optim::Optimizer> scheduler_optimizer(const Json& c) {
  const std::string kind = c.contains("optimizer") ? c["optimizer"].as_string() : "SGD";
  std::vector<optim::OptimizerParamGroup> groups;
  for (const Json& lr : c["lrs"].items()) {
    std::vector<torch::Tensor> p{torch::zeros({1}, torch::requires_grad())};
    if (kind == "Adam") {
      groups.emplace_back(p, std::make_unique<optim::AdamOptions>(lr.as_double()));
    } else {
      auto o = optim::SGDOptions(lr.as_double()).momentum(kind == "SGD_momentum" ? 0.9 : 0);
      groups.emplace_back(p, std::make_unique<optim::SGDOptions>(o));
    }
  }
  if (kind == "Adam") return std::make_unique<optim::Adam>(groups, optim::AdamOptions(1.0));
  return std::make_unique<optim::SGD>(groups, optim::SGDOptions(1.0));
}

// A scheduler from its golden spec ({"kind", "args"} with PyTorch's argument names); absent
// arguments take ember's defaults.
std::shared_ptr<optim::LRScheduler> make_scheduler(optim::Optimizer& opt, const Json& spec) {
  const std::string& kind = spec["kind"].as_string();
  const Json& a = spec["args"];
  auto num = [&](const char* k, double fallback) { return a.contains(k) ? a[k].as_double() : fallback; };
  auto integer = [&](const char* k, int64_t fallback) { return a.contains(k) ? a[k].as_int() : fallback; };
  if (kind == "CosineAnnealingWarmRestarts")
    return std::make_shared<optim::CosineAnnealingWarmRestarts>(opt, a["T_0"].as_int(), integer("T_mult", 1),
                                                                num("eta_min", 0));
  if (kind == "OneCycleLR") {
    optim::OneCycleLROptions o;
    if (a.contains("total_steps")) o.total_steps(a["total_steps"].as_int());
    if (a.contains("epochs")) o.epochs(a["epochs"].as_int()).steps_per_epoch(a["steps_per_epoch"].as_int());
    if (a.contains("anneal_strategy")) o.anneal_strategy(a["anneal_strategy"].as_string());
    if (a.contains("cycle_momentum")) o.cycle_momentum(a["cycle_momentum"].as_bool());
    if (a.contains("three_phase")) o.three_phase(a["three_phase"].as_bool());
    o.pct_start(num("pct_start", o.pct_start())).div_factor(num("div_factor", o.div_factor()));
    o.final_div_factor(num("final_div_factor", o.final_div_factor()));
    o.base_momentum(num("base_momentum", o.base_momentum())).max_momentum(num("max_momentum", o.max_momentum()));
    if (a["max_lr"].type() == Json::Type::Array)
      return std::make_shared<optim::OneCycleLR>(opt, doubles(a["max_lr"]), o);
    return std::make_shared<optim::OneCycleLR>(opt, a["max_lr"].as_double(), o);
  }
  if (kind == "LinearLR") {
    if (a.size() == 0) return std::make_shared<optim::LinearLR>(opt);
    return std::make_shared<optim::LinearLR>(opt, num("start_factor", 1.0 / 3), num("end_factor", 1.0),
                                             integer("total_iters", 5));
  }
  if (kind == "ConstantLR") {
    if (a.size() == 0) return std::make_shared<optim::ConstantLR>(opt);
    return std::make_shared<optim::ConstantLR>(opt, num("factor", 1.0 / 3), integer("total_iters", 5));
  }
  if (kind == "SequentialLR") {
    std::vector<std::shared_ptr<optim::LRScheduler>> subs;
    for (const Json& s : a["schedulers"].items()) subs.push_back(make_scheduler(opt, s));
    std::vector<int64_t> milestones;
    for (const Json& m : a["milestones"].items()) milestones.push_back(m.as_int());
    return std::make_shared<optim::SequentialLR>(opt, subs, milestones);
  }
  if (kind == "ExponentialLR") return std::make_shared<optim::ExponentialLR>(opt, a["gamma"].as_double());
  if (kind == "CosineAnnealingLR")
    return std::make_shared<optim::CosineAnnealingLR>(opt, a["T_max"].as_int(), num("eta_min", 0));
  if (kind == "StepLR") return std::make_shared<optim::StepLR>(opt, a["step_size"].as_int(), num("gamma", 0.1));
  if (kind == "MultiStepLR") {
    std::vector<int64_t> milestones;
    for (const Json& m : a["milestones"].items()) milestones.push_back(m.as_int());
    return std::make_shared<optim::MultiStepLR>(opt, milestones, num("gamma", 0.1));
  }
  if (kind == "LambdaLR") return std::make_shared<optim::LambdaLR>(opt, [](int64_t e) { return 1.0 / double(e + 1); });
  ADD_FAILURE() << "unknown scheduler " << kind;
  return nullptr;
}

double momentum_of(const optim::OptimizerOptions& o) {
  if (auto* adam = dynamic_cast<const optim::AdamOptions*>(&o)) return std::get<0>(adam->betas());
  return static_cast<const optim::SGDOptions&>(o).momentum();
}

TEST(OptimExtraSchedulers, LrSequencesMatchPyTorch) {
  for (const Json& c : golden()["schedulers"].items()) {
    const std::string name = c["name"].as_string();
    SCOPED_TRACE(name);
    auto opt = scheduler_optimizer(c);
    auto sched = make_scheduler(*opt, c["scheduler"]);
    for (int64_t e = 0; e <= c["steps"].as_int(); ++e) {
      if (e > 0) sched->step();
      EXPECT_EQ(sched->last_epoch(), e);
      // LibTorch's own StepLR decays one step later than PyTorch's Python StepLR (which the
      // golden file records): its lrs after step e are Python's after step e - 1.
      const bool libtorch_step = c["scheduler"]["kind"].as_string() == "StepLR";
      const int64_t from = libtorch_step ? std::max<int64_t>(e - 1, 0) : e;
      const std::vector<double> lrs = sched->get_last_lr(), want = doubles(c["expect"][size_t(from)]);
      ASSERT_EQ(lrs.size(), want.size());
      for (size_t g = 0; g < lrs.size(); ++g) {
        const std::string at = name + " epoch " + std::to_string(e) + " group " + std::to_string(g);
        expect_close(lrs[g], want[g], at);
        if (c.contains("momentum"))
          expect_close(momentum_of(opt->param_groups()[g].options()), c["momentum"][size_t(e)][g].as_double(),
                       at + " momentum");
      }
    }
  }
}

TEST(OptimExtraSchedulers, ReduceLROnPlateauMatchesPyTorch) {
  using Plateau = optim::ReduceLROnPlateau;
  for (const Json& c : golden()["plateau"].items()) {
    const std::string name = c["name"].as_string();
    SCOPED_TRACE(name);
    const Json& a = c["args"];
    auto opt = scheduler_optimizer(c);
    std::vector<double> min_lr;
    if (a.contains("min_lr"))
      min_lr = a["min_lr"].type() == Json::Type::Array ? doubles(a["min_lr"]) : std::vector{a["min_lr"].as_double()};
    auto num = [&](const char* k, double fallback) { return a.contains(k) ? a[k].as_double() : fallback; };
    std::unique_ptr<Plateau> sched;
    if (a.size() == 0) {
      sched = std::make_unique<Plateau>(*opt);
    } else {
      sched = std::make_unique<Plateau>(
          *opt, a.contains("mode") && a["mode"].as_string() == "max" ? Plateau::max : Plateau::min,
          num("factor", 0.1), int64_t(num("patience", 10)), num("threshold", 1e-4),
          a.contains("threshold_mode") && a["threshold_mode"].as_string() == "abs" ? Plateau::abs : Plateau::rel,
          int64_t(num("cooldown", 0)), min_lr, num("eps", 1e-8));
    }
    for (size_t e = 0; e < c["metrics"].size(); ++e) {
      sched->step(c["metrics"][e].as_double());
      const std::vector<double> lrs = sched->get_last_lr(), want = doubles(c["expect"][e]);
      for (size_t g = 0; g < lrs.size(); ++g) expect_close(lrs[g], want[g], name + " epoch " + std::to_string(e + 1));
    }
    EXPECT_EQ(sched->last_epoch(), int64_t(c["metrics"].size()));
  }
}

TEST(OptimExtraSchedulers, InvalidArgumentsThrow) {
  std::vector<torch::Tensor> p{torch::zeros({1}, torch::requires_grad())};
  optim::SGD sgd(p, optim::SGDOptions(0.1).momentum(0.9));
  EXPECT_ERROR_WITH(optim::CosineAnnealingWarmRestarts(sgd, 0), "Expected positive integer T_0, but got 0");
  EXPECT_ERROR_WITH(optim::CosineAnnealingWarmRestarts(sgd, 2, 0), "Expected integer T_mult >= 1, but got 0");
  EXPECT_ERROR_WITH(optim::OneCycleLR(sgd, 1.0, optim::OneCycleLROptions()), "You must define either total_steps");
  EXPECT_ERROR_WITH(optim::OneCycleLR(sgd, 1.0, optim::OneCycleLROptions().total_steps(0)),
                    "Expected positive integer total_steps, but got 0");
  EXPECT_ERROR_WITH(optim::OneCycleLR(sgd, 1.0, optim::OneCycleLROptions().total_steps(5).pct_start(1.5)),
                    "Expected float between 0 and 1 pct_start, but got 1.5");
  EXPECT_ERROR_WITH(optim::OneCycleLR(sgd, 1.0, optim::OneCycleLROptions().total_steps(5).anneal_strategy("exp")),
                    "anneal_strategy must by one of 'cos' or 'linear', instead got exp");
  EXPECT_ERROR_WITH(optim::OneCycleLR(sgd, std::vector<double>{1.0, 2.0}, optim::OneCycleLROptions().total_steps(5)),
                    "expected 1 values for max_lr, got 2");
  optim::Adagrad adagrad(p);
  EXPECT_ERROR_WITH(optim::OneCycleLR(adagrad, 1.0, optim::OneCycleLROptions().total_steps(5)),
                    "optimizer must support momentum with `cycle_momentum` option enabled");
  optim::OneCycleLR one_cycle(sgd, 1.0, optim::OneCycleLROptions().total_steps(2));
  one_cycle.step(), one_cycle.step();
  EXPECT_ERROR_WITH(one_cycle.step(), "Tried to step 4 times. The specified number of total steps is 2");
  EXPECT_ERROR_WITH(optim::LinearLR(sgd, 0.0), "Starting multiplicative factor expected to be greater than 0");
  EXPECT_ERROR_WITH(optim::LinearLR(sgd, 0.5, 1.5), "Ending multiplicative factor expected to be between 0 and 1.");
  EXPECT_ERROR_WITH(optim::ConstantLR(sgd, 2.0), "Constant multiplicative factor expected to be between 0 and 1.");
  auto step_lr = std::make_shared<optim::StepLR>(sgd, 2);
  EXPECT_ERROR_WITH(optim::SequentialLR(sgd, {step_lr}, {3}),
                    "but got number of schedulers 1 and the number of milestones to be equal to 1");
  optim::SGD other(p, optim::SGDOptions(0.1));
  EXPECT_ERROR_WITH(optim::SequentialLR(other, {step_lr}, {}),
                    "got schedulers at index 0 to be different than the optimizer passed in");
  EXPECT_ERROR_WITH(optim::ReduceLROnPlateau(sgd, optim::ReduceLROnPlateau::min, 1.0), "Factor should be < 1.0.");
  EXPECT_ERROR_WITH(optim::ReduceLROnPlateau(sgd, optim::ReduceLROnPlateau::min, 0.1, 10, 1e-4,
                                             optim::ReduceLROnPlateau::rel, 0, {0.1, 0.2}),
                    "expected 1 min_lrs, got 2");
}

}  // namespace
