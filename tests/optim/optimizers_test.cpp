// The optimizers of ember/optim/ (sgd.h, adam.h, adamw.h, rmsprop.h, adagrad.h, adadelta.h,
// adamax.h, nadam.h, radam.h, lbfgs.h). Adadelta, Adamax, NAdam, RAdam, LBFGS and the first
// optimizers against PyTorch 1.13: tests/golden/optim_extra.json, written by
// tests/golden/gen_optim_extra.py (its docstring describes the cases). Also option checks and
// state_dict round trips, and RMSprop, Adagrad, Adam and AdamW against their reference formulas
// in double.
#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "optim/optim_golden.h"
#include "test_util.h"

namespace {

namespace optim = torch::optim;
using ember::test::Json;

using namespace ember::test::optim_golden;
torch::Tensor tensor_from(const Json& rows) {  // a list of numbers or a list of rows
  if (rows[0].type() != Json::Type::Array) return torch::tensor(doubles(rows), torch::kDouble);
  std::vector<torch::Tensor> r;
  for (const Json& row : rows.items()) r.push_back(torch::tensor(doubles(row), torch::kDouble));
  return torch::stack(r);
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

TEST(Optim, AdamAndAdamWMatchTheReferenceUpdate) {
  for (int variant = 0; variant < 3; ++variant) {  // Adam, Adam+amsgrad, AdamW
    SCOPED_TRACE(variant);
    torch::Tensor p = torch::tensor({1.0, -2.0, 0.5}, torch::dtype(torch::kDouble).requires_grad(true));
    std::unique_ptr<torch::optim::Optimizer> opt;
    if (variant == 2) opt = std::make_unique<torch::optim::AdamW>(std::vector<torch::Tensor>{p}, torch::optim::AdamWOptions(0.1).weight_decay(0.05));
    else opt = std::make_unique<torch::optim::Adam>(std::vector<torch::Tensor>{p}, torch::optim::AdamOptions(0.1).weight_decay(0.05).amsgrad(variant == 1));
    std::vector<double> x = {1.0, -2.0, 0.5}, m(3, 0), v(3, 0), vmax(3, 0);
    const double b1 = 0.9, b2 = 0.999, eps = 1e-8, lr = 0.1, wd = 0.05;
    for (int step = 1; step <= 4; ++step) {
      opt->zero_grad();
      (p * p * p).sum().backward();  // grad = 3 p^2
      opt->step();
      for (int i = 0; i < 3; ++i) {
        double g = 3 * x[i] * x[i];
        if (variant == 2) x[i] *= 1 - lr * wd;
        else g += wd * x[i];
        m[i] = b1 * m[i] + (1 - b1) * g;
        v[i] = b2 * v[i] + (1 - b2) * g * g;
        vmax[i] = std::max(vmax[i], v[i]);
        double bc1 = 1 - std::pow(b1, step), bc2 = 1 - std::pow(b2, step);
        double denom = std::sqrt(variant == 1 ? vmax[i] : v[i]) / std::sqrt(bc2) + eps;
        x[i] -= lr / bc1 * m[i] / denom;
      }
    }
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(p[i].item<double>(), x[i], 1e-12);
  }
  torch::Tensor q = torch::ones({1}, torch::requires_grad());
  EXPECT_ERROR_WITH(torch::optim::Adam({q}, torch::optim::AdamOptions(0.1).betas({1.0, 0.9})), "Invalid beta");
}

}  // namespace
