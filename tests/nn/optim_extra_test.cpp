// Adadelta, Adamax, NAdam, RAdam, LBFGS and the schedulers of ember/optim/extra.h against
// PyTorch 1.13: tests/golden/optim_extra.json, written by tests/golden/gen_optim_extra.py (its
// docstring describes the cases). Also option checks and state_dict round trips.
#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

namespace optim = torch::optim;
using ember::test::Json;

const Json& golden() { return Json::golden("optim_extra.json"); }

std::vector<double> doubles(const Json& list) {
  std::vector<double> r;
  for (const Json& x : list.items()) r.push_back(x.as_double());
  return r;
}
torch::Tensor tensor_from(const Json& rows) {  // a list of numbers or a list of rows
  if (rows[0].type() != Json::Type::Array) return torch::tensor(doubles(rows), torch::kDouble);
  std::vector<torch::Tensor> r;
  for (const Json& row : rows.items()) r.push_back(torch::tensor(doubles(row), torch::kDouble));
  return torch::stack(r);
}

// The 1e-6 relative tolerance of the golden comparisons.
void expect_close(double actual, double expected, const std::string& what) {
  EXPECT_NEAR(actual, expected, 1e-6 * std::abs(expected) + 1e-12) << what;
}

// Sets options from a case's PyTorch keyword arguments through visit(), so a field visit()
// misses keeps its default and shows up as a mismatch.
struct FromJson : optim::OptionVisitor {
  using OptionVisitor::field;
  explicit FromJson(const Json& j) : json(j) {}
  const Json& json;
  const Json* find(const std::string& name) const {
    const size_t dot = name.find('.');  // "betas.0"
    const std::string key = name.substr(0, dot);
    if (!json.contains(key)) return nullptr;
    return dot == std::string::npos ? &json[key] : &json[key][std::stoul(name.substr(dot + 1))];
  }
  void field(const char* name, double& v) override {
    if (const Json* j = find(name)) v = j->as_double();
  }
  void field(const char* name, int64_t& v) override {
    if (const Json* j = find(name)) v = j->as_int();
  }
  void field(const char* name, bool& v) override {
    if (std::string(name) == "line_search_strong_wolfe") {
      if (json.contains("line_search_fn")) v = json["line_search_fn"].as_string() == "strong_wolfe";
    } else if (const Json* j = find(name)) {
      v = j->as_bool();
    }
  }
};

// The optimizer of a golden case over w, b, c; with "group_lrs", w is one group and b, c another.
template <class Opt, class Options>
std::unique_ptr<optim::Optimizer> build(const Json& c, const std::vector<torch::Tensor>& params) {
  Options o = [] {
    if constexpr (std::is_default_constructible_v<Options>) return Options();
    else return Options(0.0);  // SGDOptions has no default lr; the case sets it
  }();
  FromJson from(c["options"]);
  o.visit(from);
  if (!c.contains("group_lrs")) return std::make_unique<Opt>(params, o);
  std::vector<optim::OptimizerParamGroup> groups{optim::OptimizerParamGroup({params[0]}),
                                                 optim::OptimizerParamGroup({params[1], params[2]})};
  for (size_t i = 0; i < 2; ++i) {
    if (c["group_lrs"][i].is_null()) continue;
    auto own = o.clone();
    own->set_lr(c["group_lrs"][i].as_double());
    groups[i].set_options(std::move(own));
  }
  return std::make_unique<Opt>(groups, o);
}
std::unique_ptr<optim::Optimizer> make_optimizer(const Json& c, const std::vector<torch::Tensor>& params) {
  const std::string& kind = c["optimizer"].as_string();
  if (kind == "Adadelta") return build<optim::Adadelta, optim::AdadeltaOptions>(c, params);
  if (kind == "Adamax") return build<optim::Adamax, optim::AdamaxOptions>(c, params);
  if (kind == "NAdam") return build<optim::NAdam, optim::NAdamOptions>(c, params);
  if (kind == "RAdam") return build<optim::RAdam, optim::RAdamOptions>(c, params);
  if (kind == "LBFGS") return build<optim::LBFGS, optim::LBFGSOptions>(c, params);
  if (kind == "SGD") return build<optim::SGD, optim::SGDOptions>(c, params);
  if (kind == "Adam") return build<optim::Adam, optim::AdamOptions>(c, params);
  if (kind == "AdamW") return build<optim::AdamW, optim::AdamWOptions>(c, params);
  if (kind == "RMSprop") return build<optim::RMSprop, optim::RMSpropOptions>(c, params);
  if (kind == "Adagrad") return build<optim::Adagrad, optim::AdagradOptions>(c, params);
  ADD_FAILURE() << "unknown optimizer " << kind;
  return nullptr;
}

// w, b, c at the golden starting point, and the closure of the golden objective.
struct Problem {
  std::vector<torch::Tensor> params;
  torch::Tensor x = tensor_from(golden()["x"]), y = tensor_from(golden()["y"]);
  Problem() {
    for (const char* name : {"w0", "b0", "c0"}) params.push_back(tensor_from(golden()[name]).requires_grad_());
  }
  optim::Optimizer::LossClosure closure(optim::Optimizer& opt) {
    return [this, &opt] {
      opt.zero_grad();
      const torch::Tensor& w = params[0];
      torch::Tensor loss = (x.mm(w) + params[1] - y).pow(2).sum() + 0.25 * (w * w * w * w).sum();
      loss.backward();
      return loss;
    };
  }
  std::vector<double> flat() const {
    torch::Tensor v = torch::cat({params[0].reshape({-1}), params[1], params[2]});
    std::vector<double> r;
    for (int64_t i = 0; i < v.numel(); ++i) r.push_back(v[i].item<double>());
    return r;
  }
};

TEST(OptimExtra, TrajectoriesMatchPyTorch) {
  for (const Json& c : golden()["optimizers"].items()) {
    const std::string name = c["name"].as_string();
    SCOPED_TRACE(name);
    Problem problem;
    auto opt = make_optimizer(c, problem.params);
    auto closure = problem.closure(*opt);
    for (int64_t s = 0; s < c["steps"].as_int(); ++s) {
      const std::string at = name + " step " + std::to_string(s + 1);
      expect_close(opt->step(closure).item<double>(), c["losses"][size_t(s)].as_double(), at + " loss");
      const std::vector<double> got = problem.flat(), want = doubles(c["params"][size_t(s)]);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) expect_close(got[i], want[i], at + " param " + std::to_string(i));
    }
  }
}

// Runs 3 steps of A, then copies its state into B through state_dict()/load_state_dict() and
// into C through a checkpoint (torch::save/torch::load, which store the options via visit()),
// B and C over copies of A's parameters; all three must continue identically.
TEST(OptimExtra, StateDictRoundTripResumes) {
  for (const char* name : {"adadelta_options", "adamax_groups", "nadam_options", "radam_options", "lbfgs_short",
                           "lbfgs_wolfe_short"}) {
    SCOPED_TRACE(name);
    const Json* c = nullptr;
    for (const Json& k : golden()["optimizers"].items())
      if (k["name"].as_string() == name) c = &k;
    ASSERT_NE(c, nullptr);
    std::vector<Problem> runs(3);
    std::vector<std::unique_ptr<optim::Optimizer>> opts;
    for (Problem& run : runs) opts.push_back(make_optimizer(*c, run.params));
    for (int s = 0; s < 3; ++s) opts[0]->step(runs[0].closure(*opts[0]));
    {
      torch::NoGradGuard no_grad;
      for (size_t r = 1; r < 3; ++r)
        for (size_t i = 0; i < runs[0].params.size(); ++i) runs[r].params[i].copy_(runs[0].params[i]);
    }
    optim::OptimizerStateDict dict = opts[0]->state_dict();
    opts[1]->load_state_dict(dict);
    std::stringstream checkpoint;
    torch::save(*opts[0], checkpoint);
    opts[2]->param_groups()[0].options().set_lr(123);  // overwritten by the checkpoint's options
    torch::load(*opts[2], checkpoint);

    const auto& kept = dict.state.at(0).tensors;
    const std::string kind = (*c)["optimizer"].as_string();
    if (kind == "LBFGS") {
      for (const char* key : {"d", "t", "H_diag", "prev_loss", "n_iter", "func_evals", "old_dirs_0", "ro_0"})
        EXPECT_TRUE(kept.count(key)) << key;
      EXPECT_EQ(dict.state.at(2).tensors.at("d").sizes(), (std::vector<int64_t>{2}));  // c's piece
    } else {
      EXPECT_EQ(dict.state.at(0).step, 3);
      EXPECT_EQ(dict.state.count(2), 0u);  // c never has a gradient, so no state
    }
    if (kind == "NAdam") EXPECT_EQ(kept.at("mu_product").dim(), 0);
    if (kind == "Adadelta") EXPECT_TRUE(kept.count("square_avg") && kept.count("acc_delta"));
    if (kind == "Adamax") EXPECT_TRUE(kept.count("exp_avg") && kept.count("exp_inf"));
    for (int s = 0; s < 3; ++s) {
      const double loss = opts[0]->step(runs[0].closure(*opts[0])).item<double>();
      for (size_t r = 1; r < 3; ++r) {
        EXPECT_EQ(opts[r]->step(runs[r].closure(*opts[r])).item<double>(), loss) << "run " << r << " step " << s;
        EXPECT_EQ(runs[r].flat(), runs[0].flat()) << "run " << r << " step " << s;
      }
    }
  }
}

// Complex parameters step as their real views, as PyTorch's Adadelta and Adamax do.
TEST(OptimExtra, ComplexParametersStepAsTheirRealView) {
  const torch::Tensor start = torch::tensor({1.0, -2.0, 0.5, 3.0}, torch::kDouble).reshape({2, 2});
  const torch::Tensor grad = torch::tensor({0.5, -1.0, 2.0, 0.25}, torch::kDouble).reshape({2, 2});
  for (int which = 0; which < 2; ++which) {
    SCOPED_TRACE(which == 0 ? "Adadelta" : "Adamax");
    torch::Tensor z = torch::view_as_complex(start.clone()).requires_grad_(), r = start.clone().requires_grad_();
    auto make = [&](const torch::Tensor& p) -> std::unique_ptr<optim::Optimizer> {
      const std::vector<torch::Tensor> params{p};
      if (which == 0) return std::make_unique<optim::Adadelta>(params, optim::AdadeltaOptions().weight_decay(0.1));
      return std::make_unique<optim::Adamax>(params, optim::AdamaxOptions(0.1).weight_decay(0.1).maximize(true));
    };
    auto opt_z = make(z), opt_r = make(r);
    for (int s = 0; s < 3; ++s) {
      z.mutable_grad() = torch::view_as_complex(grad.clone());
      r.mutable_grad() = grad.clone();
      opt_z->step(), opt_r->step();
    }
    EXPECT_TRUE(torch::allclose(torch::view_as_real(z.detach()), r.detach(), 1e-14, 1e-14));
    EXPECT_FALSE(torch::allclose(r.detach(), start));
  }
}

TEST(OptimExtra, InvalidOptionsThrow) {
  std::vector<torch::Tensor> p{torch::zeros({2}, torch::requires_grad())};
  EXPECT_ERROR_WITH(optim::Adadelta(p, optim::AdadeltaOptions(-1)), "Invalid learning rate: -1");
  EXPECT_ERROR_WITH(optim::Adadelta(p, optim::AdadeltaOptions().rho(1.5)), "Invalid rho value: 1.5");
  EXPECT_ERROR_WITH(optim::Adadelta(p, optim::AdadeltaOptions().eps(-1)), "Invalid epsilon value: -1");
  EXPECT_ERROR_WITH(optim::Adadelta(p, optim::AdadeltaOptions().weight_decay(-1)), "Invalid weight_decay value: -1");
  EXPECT_ERROR_WITH(optim::Adamax(p, optim::AdamaxOptions().betas({1.0, 0.5})), "Invalid beta parameter at index 0: 1");
  EXPECT_ERROR_WITH(optim::Adamax(p, optim::AdamaxOptions().betas({0.9, -0.1})), "Invalid beta parameter at index 1");
  EXPECT_ERROR_WITH(optim::NAdam(p, optim::NAdamOptions().momentum_decay(-1)), "Invalid momentum_decay value: -1");
  EXPECT_ERROR_WITH(optim::NAdam(p, optim::NAdamOptions(-0.5)), "Invalid learning rate: -0.5");
  EXPECT_ERROR_WITH(optim::RAdam(p, optim::RAdamOptions().eps(-1e-8)), "Invalid epsilon value");
  EXPECT_ERROR_WITH(optim::LBFGS(p, optim::LBFGSOptions().line_search_fn("armijo")), "only 'strong_wolfe'");
  EXPECT_ERROR_WITH(optim::LBFGS(p, optim::LBFGSOptions().history_size(0)), "Invalid history_size value: 0");
  std::vector<optim::OptimizerParamGroup> two{optim::OptimizerParamGroup(p),
                                              optim::OptimizerParamGroup({torch::zeros({1}, torch::requires_grad())})};
  EXPECT_ERROR_WITH(optim::LBFGS(two, optim::LBFGSOptions()), "LBFGS doesn't support per-parameter options");
}

TEST(OptimExtra, LBFGSNeedsAClosureAndResolvesMaxEval) {
  std::vector<torch::Tensor> p{torch::ones({2}, torch::requires_grad())};
  optim::LBFGS lbfgs(p, optim::LBFGSOptions().max_iter(8));
  optim::Optimizer& base = lbfgs;
  EXPECT_ERROR_WITH(base.step(), "LBFGS::step requires a closure");
  EXPECT_EQ(static_cast<const optim::LBFGSOptions&>(lbfgs.defaults()).max_eval(), 10);
  // The options travel through visit(): unset max_eval and line_search_fn round-trip too.
  struct Copy : optim::OptionVisitor {
    using OptionVisitor::field;
    std::map<std::string, double> values;
    bool write = false;
    void put(const char* n, double& v) { write ? void(v = values.at(n)) : void(values[n] = v); }
    void field(const char* n, double& v) override { put(n, v); }
    void field(const char* n, int64_t& v) override {
      double d = double(v);
      put(n, d), v = int64_t(d);
    }
    void field(const char* n, bool& v) override {
      double d = v;
      put(n, d), v = d != 0;
    }
  } copy;
  optim::LBFGSOptions from = optim::LBFGSOptions(0.5).max_iter(3).line_search_fn("strong_wolfe"), to;
  from.visit(copy);
  copy.write = true;
  to.visit(copy);
  EXPECT_EQ(to.lr(), 0.5);
  EXPECT_EQ(to.max_iter(), 3);
  EXPECT_FALSE(to.max_eval().has_value());
  EXPECT_EQ(to.line_search_fn(), std::optional<std::string>("strong_wolfe"));
}

// ---- schedulers ------------------------------------------------------------------------------

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
