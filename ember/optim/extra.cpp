#include "ember/optim/extra.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/functions.h"
#include "ember/ops/type_promotion.h"

namespace ember::optim {

namespace {
constexpr double kPi = 3.14159265358979323846;
using State = std::map<std::string, Tensor>;

// torch.optim's per-parameter loop: update(options, p, state) for every parameter with a
// gradient, the state's step count incremented first.
template <class Options, class S, class F>
void for_each_param(std::vector<OptimizerParamGroup>& groups, ParamStateMap& state, F&& update) {
  for (OptimizerParamGroup& group : groups) {
    const auto& o = static_cast<const Options&>(group.options());
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& slot = state[param_key(p)];
      if (!slot) slot = std::make_unique<S>();
      S& st = static_cast<S&>(*slot);
      st.step(st.step() + 1);
      update(o, p, st);
    }
  }
}

// The gradient with maximize and (L2) weight decay applied.
Tensor gradient(const Tensor& p, double weight_decay, bool maximize = false) {
  Tensor g = maximize ? p.grad().neg() : p.grad();
  return weight_decay != 0 ? g.add(p, weight_decay) : g;
}

// Complex tensors update as their real views (Adadelta, Adamax), as in PyTorch.
Tensor as_real(const Tensor& t) { return t.is_complex() ? view_as_real(t) : t; }

std::unique_ptr<OptimizerOptions> checked(const AdamaxOptions& o) { return check_adam_options(o); }
std::unique_ptr<OptimizerOptions> checked(const RAdamOptions& o) { return check_adam_options(o); }
std::unique_ptr<OptimizerOptions> checked(const NAdamOptions& o) {
  auto r = check_adam_options(o);
  EMBER_CHECK(o.momentum_decay() >= 0, "Invalid momentum_decay value: ", o.momentum_decay());
  return r;
}
std::unique_ptr<OptimizerOptions> checked(const AdadeltaOptions& o) {
  EMBER_CHECK(o.lr() >= 0, "Invalid learning rate: ", o.lr());
  EMBER_CHECK(o.rho() >= 0 && o.rho() <= 1, "Invalid rho value: ", o.rho());
  EMBER_CHECK(o.eps() >= 0, "Invalid epsilon value: ", o.eps());
  EMBER_CHECK(o.weight_decay() >= 0, "Invalid weight_decay value: ", o.weight_decay());
  return o.clone();
}
std::unique_ptr<OptimizerOptions> checked(const LBFGSOptions& o) {
  EMBER_CHECK(o.history_size() > 0, "Invalid history_size value: ", o.history_size());
  EMBER_CHECK(!o.line_search_fn() || *o.line_search_fn() == "strong_wolfe", "LBFGS: only 'strong_wolfe' is supported",
              " as line_search_fn, got '", *o.line_search_fn(), "'");
  auto r = std::make_unique<LBFGSOptions>(o);
  if (!r->max_eval()) r->max_eval(o.max_iter() * 5 / 4);
  return r;
}
}  // namespace

// ---- Adadelta, Adamax, NAdam, RAdam ------------------------------------------------------------
Adadelta::Adadelta(std::vector<Tensor> params, AdadeltaOptions o) : Adadelta(one_group(std::move(params)), o) {}
Adadelta::Adadelta(std::vector<OptimizerParamGroup> groups, AdadeltaOptions o)
    : Optimizer(std::move(groups), checked(o)) {}

std::optional<Optimizer::StateSchema> Adadelta::state_schema(const OptimizerOptions&) const {
  return StateSchema{.tensors = {"square_avg", "acc_delta"}, .step = true};
}

Tensor Adadelta::step(LossClosure closure) {
  Tensor loss = evaluate(closure);
  NoGradGuard no_grad;
  for_each_param<AdadeltaOptions, AdadeltaParamState>(param_groups_, state_, [](const auto& o, Tensor& p, auto& st) {
    Tensor g = as_real(gradient(p, o.weight_decay(), o.maximize()));
    Tensor v = as_real(state_slot(st.square_avg(), p)), u = as_real(state_slot(st.acc_delta(), p));
    v.mul_(o.rho()).addcmul_(g, g, 1 - o.rho());
    Tensor delta = u.add(o.eps()).sqrt_().div_(v.add(o.eps()).sqrt_()).mul_(g);
    u.mul_(o.rho()).addcmul_(delta, delta, 1 - o.rho());
    as_real(p).add_(delta, -o.lr());
  });
  return loss;
}

Adamax::Adamax(std::vector<Tensor> params, AdamaxOptions o) : Adamax(one_group(std::move(params)), o) {}
Adamax::Adamax(std::vector<OptimizerParamGroup> groups, AdamaxOptions o)
    : Optimizer(std::move(groups), checked(o)) {}

std::optional<Optimizer::StateSchema> Adamax::state_schema(const OptimizerOptions&) const {
  return StateSchema{.tensors = {"exp_avg", "exp_inf"}, .step = true};
}

Tensor Adamax::step(LossClosure closure) {
  Tensor loss = evaluate(closure);
  NoGradGuard no_grad;
  for_each_param<AdamaxOptions, AdamaxParamState>(param_groups_, state_, [](const auto& o, Tensor& p, auto& st) {
    const int64_t step = st.step();
    auto [b1, b2] = o.betas();
    Tensor g = as_real(gradient(p, o.weight_decay(), o.maximize()));
    Tensor m = as_real(state_slot(st.exp_avg(), p)), u = as_real(state_slot(st.exp_inf(), p));
    m.mul_(b1).add_(g, 1 - b1);
    u.copy_(maximum(u.mul_(b2), g.abs().add_(o.eps())));
    as_real(p).addcdiv_(m, u, -o.lr() / (1 - std::pow(b1, double(step))));
  });
  return loss;
}

NAdam::NAdam(std::vector<Tensor> params, NAdamOptions o) : NAdam(one_group(std::move(params)), o) {}
NAdam::NAdam(std::vector<OptimizerParamGroup> groups, NAdamOptions o)
    : Optimizer(std::move(groups), checked(o)) {}

std::optional<Optimizer::StateSchema> NAdam::state_schema(const OptimizerOptions&) const {
  return StateSchema{.tensors = {"exp_avg", "exp_avg_sq"}, .scalars = {"mu_product"}, .step = true};
}

Tensor NAdam::step(LossClosure closure) {
  Tensor loss = evaluate(closure);
  NoGradGuard no_grad;
  for_each_param<NAdamOptions, NAdamParamState>(param_groups_, state_, [](const auto& o, Tensor& p, auto& st) {
    const int64_t step = st.step();
    auto [b1, b2] = o.betas();
    const double t = double(step);
    const double mu = b1 * (1 - 0.5 * std::pow(0.96, t * o.momentum_decay()));
    const double mu_next = b1 * (1 - 0.5 * std::pow(0.96, (t + 1) * o.momentum_decay()));
    // The product of the mu's, kept in float32 like PyTorch's 0-dim float tensor (so its float
    // arithmetic with the mu's rounded to float too).
    if (!st.mu_product().defined()) st.mu_product(scalar_tensor(1.0, dtype(kFloat)));
    const float product32 = st.mu_product().template item<float>() * float(mu);
    const double product = product32, product_next = product32 * float(mu) * float(mu_next);
    st.mu_product().fill_(product);
    Tensor g = gradient(p, o.weight_decay());
    Tensor& m = state_slot(st.exp_avg(), p);
    Tensor& v = state_slot(st.exp_avg_sq(), p);
    m.mul_(b1).add_(g, 1 - b1);
    v.mul_(b2).addcmul_(g, g, 1 - b2);
    Tensor denom = v.div(1 - std::pow(b2, t)).sqrt().add_(o.eps());
    p.addcdiv_(g, denom, -o.lr() * (1 - mu) / (1 - product));
    p.addcdiv_(m, denom, -o.lr() * mu_next / (1 - product_next));
  });
  return loss;
}

RAdam::RAdam(std::vector<Tensor> params, RAdamOptions o) : RAdam(one_group(std::move(params)), o) {}
RAdam::RAdam(std::vector<OptimizerParamGroup> groups, RAdamOptions o)
    : Optimizer(std::move(groups), checked(o)) {}

std::optional<Optimizer::StateSchema> RAdam::state_schema(const OptimizerOptions&) const {
  return StateSchema{.tensors = {"exp_avg", "exp_avg_sq"}, .step = true};
}

Tensor RAdam::step(LossClosure closure) {
  Tensor loss = evaluate(closure);
  NoGradGuard no_grad;
  for_each_param<RAdamOptions, RAdamParamState>(param_groups_, state_, [](const auto& o, Tensor& p, auto& st) {
    auto [b1, b2] = o.betas();
    const double t = double(st.step()), bc1 = 1 - std::pow(b1, t), bc2 = 1 - std::pow(b2, t);
    Tensor g = gradient(p, o.weight_decay());
    Tensor& m = state_slot(st.exp_avg(), p);
    Tensor& v = state_slot(st.exp_avg_sq(), p);
    m.mul_(b1).add_(g, 1 - b1);
    v.mul_(b2).addcmul_(g, g, 1 - b2);
    Tensor update = m.div(bc1).mul_(o.lr());
    const double rho_inf = 2 / (1 - b2) - 1, rho_t = rho_inf - 2 * t * std::pow(b2, t) / bc2;
    if (rho_t > 5) {  // variance is tractable: rectify the adaptive step
      const double rect = std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
      update.mul_(v.sqrt().add_(o.eps()).reciprocal_().mul_(std::sqrt(bc2))).mul_(rect);
    }
    p.add_(update, -1);
  });
  return loss;
}

// ---- LBFGS -------------------------------------------------------------------------------------
void LBFGSOptions::visit(OptionVisitor& v) {
  int64_t max_eval = max_eval_.value_or(-1);
  bool strong_wolfe = line_search_fn_.has_value();
  v.field("lr", lr_), v.field("max_iter", max_iter_), v.field("max_eval", max_eval);
  v.field("tolerance_grad", tolerance_grad_), v.field("tolerance_change", tolerance_change_);
  v.field("history_size", history_size_), v.field("line_search_strong_wolfe", strong_wolfe);
  max_eval_ = max_eval < 0 ? std::nullopt : std::optional<int64_t>(max_eval);
  line_search_fn_ = strong_wolfe ? std::optional<std::string>("strong_wolfe") : std::nullopt;
}

namespace {
// The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, clamped to the
// bounds (default: between x1 and x2); their midpoint when the cubic has no minimum.
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds = std::nullopt) {
  const auto [lo, hi] = bounds.value_or(std::pair(std::min(x1, x2), std::max(x1, x2)));
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (!(d2_square >= 0)) return (lo + hi) / 2;  // (NaN too, as PyTorch)
  const double d2 = std::sqrt(d2_square);
  const double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                                  : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
  return std::min(std::max(min_pos, lo), hi);
}

struct Probe {
  double t, f, gtd;
  Tensor g;
};

// torch.optim.lbfgs._strong_wolfe: bracketing, then zooming with cubic interpolation, until
// f(t) <= f + c1 t gtd and |g(t).d| <= -c2 gtd. `eval(t)` is the loss and flat gradient at x + t d.
// Returns the accepted probe and the number of evaluations.
std::pair<Probe, int64_t> strong_wolfe(const std::function<std::pair<double, Tensor>(double)>& eval, double t,
                                       const Tensor& d, double f, const Tensor& g, double gtd,
                                       double tolerance_change, double c1 = 1e-4, double c2 = 0.9,
                                       int64_t max_ls = 25) {
  const double d_norm = d.abs().max().item<double>();
  auto probe = [&](double at) {
    auto [fv, gv] = eval(at);
    return Probe{at, fv, gv.dot(d).item<double>(), gv};
  };
  Probe prev{0, f, gtd, g}, cur = probe(t);
  int64_t evals = 1, ls_iter = 0;
  bool done = false;
  std::vector<Probe> bracket;
  while (ls_iter < max_ls) {
    const bool wolfe = std::abs(cur.gtd) <= -c2 * gtd;
    if (cur.f > f + c1 * cur.t * gtd || (ls_iter > 1 && cur.f >= prev.f) || (!wolfe && cur.gtd >= 0)) {
      bracket = {prev, cur};
      break;
    }
    if (wolfe) {
      bracket = {cur};
      done = true;
      break;
    }
    // Extrapolate.
    const double next = cubic_interpolate(prev.t, prev.f, prev.gtd, cur.t, cur.f, cur.gtd,
                                          std::pair(cur.t + 0.01 * (cur.t - prev.t), cur.t * 10));
    prev = cur;
    cur = probe(next);
    ++evals, ++ls_iter;
  }
  if (ls_iter == max_ls) bracket = {Probe{0, f, gtd, g}, cur};

  // Zoom into the bracket; `low` holds the lower loss.
  size_t low = bracket.front().f <= bracket.back().f ? 0 : 1;
  bool insuf_progress = false;
  while (!done && ls_iter < max_ls) {
    Probe& lo_p = bracket[low];
    Probe& hi_p = bracket[1 - low];
    if (std::abs(bracket[1].t - bracket[0].t) * d_norm < tolerance_change) break;
    double next = cubic_interpolate(bracket[0].t, bracket[0].f, bracket[0].gtd, bracket[1].t, bracket[1].f,
                                    bracket[1].gtd);
    const double bmin = std::min(bracket[0].t, bracket[1].t), bmax = std::max(bracket[0].t, bracket[1].t);
    const double eps = 0.1 * (bmax - bmin);
    if (std::min(bmax - next, next - bmin) < eps) {  // too close to an end: step away unless progressing
      if (insuf_progress || next >= bmax || next <= bmin) {
        next = std::abs(next - bmax) < std::abs(next - bmin) ? bmax - eps : bmin + eps;
        insuf_progress = false;
      } else {
        insuf_progress = true;
      }
    } else {
      insuf_progress = false;
    }
    Probe p = probe(next);
    ++evals, ++ls_iter;
    if (p.f > f + c1 * p.t * gtd || p.f >= lo_p.f) {
      hi_p = p;
      low = bracket[0].f <= bracket[1].f ? 0 : 1;
    } else {
      if (std::abs(p.gtd) <= -c2 * gtd) {
        done = true;
      } else if (p.gtd * (hi_p.t - lo_p.t) >= 0) {
        hi_p = lo_p;
      }
      lo_p = p;
    }
  }
  return {bracket[low], evals};
}
}  // namespace

struct LBFGS::History {
  Tensor d, prev_flat_grad;  // flat over all parameters; undefined before the first iteration
  std::deque<Tensor> old_dirs, old_stps;  // y and s pairs, oldest first
  std::deque<double> ro;  // 1 / y.s
  double t = 0, H_diag = 1, prev_loss = 0;
  int64_t func_evals = 0, n_iter = 0;
};

LBFGS::LBFGS(std::vector<Tensor> params, LBFGSOptions o) : LBFGS(one_group(std::move(params)), o) {}
LBFGS::LBFGS(std::vector<OptimizerParamGroup> groups, LBFGSOptions o)
    : Optimizer(std::move(groups), checked(o)) {
  EMBER_CHECK(param_groups_.size() == 1, "LBFGS doesn't support per-parameter options (parameter groups)");
}

// The layout of Note [LBFGS state]: every parameter holds the same pieces, shaped like it;
// the first also the scalars, with as many "ro_<i>" as there are history pairs.
void LBFGS::check_state(const OptimizerStateDict& dict, const std::vector<const Tensor*>& params,
                        const std::vector<const OptimizerOptions*>&) const {
  if (dict.state.empty()) return;
  const std::string op = "LBFGS::load_state_dict";
  auto first = dict.state.find(0);
  EMBER_CHECK(first != dict.state.end(), op, ": the state has entries but none for parameter 0, which holds the scalars");
  const auto& scalars = first->second.tensors;
  auto count_prefixed = [](const std::map<std::string, Tensor>& m, const std::string& prefix) {
    size_t n = 0;
    while (m.count(prefix + std::to_string(n))) ++n;
    return n;
  };
  const size_t history = count_prefixed(scalars, "ro_");
  const bool has_direction = scalars.count("t") > 0;
  std::vector<std::string> pieces;
  if (has_direction) pieces = {"d", "prev_flat_grad"};
  for (size_t i = 0; i < history; ++i) {
    pieces.push_back("old_dirs_" + std::to_string(i));
    pieces.push_back("old_stps_" + std::to_string(i));
  }
  std::vector<std::string> scalar_names = {"func_evals", "n_iter"};
  if (has_direction) scalar_names.insert(scalar_names.end(), {"t", "H_diag", "prev_loss"});
  for (size_t i = 0; i < history; ++i) scalar_names.push_back("ro_" + std::to_string(i));
  EMBER_CHECK(history == 0 || has_direction, op, ": parameter 0 has ", history, " history pairs but no 't'");
  for (size_t index = 0; index < params.size(); ++index) {
    const std::string where = op + ": state of parameter " + std::to_string(index);
    auto it = dict.state.find(int64_t(index));
    EMBER_CHECK(it != dict.state.end() || pieces.empty(), where, " is missing (parameter 0 has ", pieces.size(),
                " state tensors)");
    if (it == dict.state.end()) continue;
    const auto& st = it->second.tensors;
    EMBER_CHECK(it->second.step == 0, where, ": has a step count, which LBFGS does not keep");
    const Tensor& p = *params[index];
    for (const std::string& name : pieces) {
      auto t = st.find(name);
      EMBER_CHECK(t != st.end(), where, ": tensor '", name, "' is missing");
      EMBER_CHECK(t->second.defined() && t->second.sizes() == p.sizes() &&
                      (t->second.is_floating_point() || t->second.is_complex()),
                  where, ": tensor '", name, "' should be a floating tensor of the parameter's shape ", p.sizes());
    }
    const size_t expected = pieces.size() + (index == 0 ? scalar_names.size() : 0);
    if (index == 0)
      for (const std::string& name : scalar_names) {
        auto t = st.find(name);
        EMBER_CHECK(t != st.end(), where, ": scalar '", name, "' is missing");
        EMBER_CHECK(t->second.defined() && t->second.numel() == 1 && t->second.is_floating_point(), where,
                    ": '", name, "' should hold one floating-point number");
        if (name == "func_evals" || name == "n_iter") {  // counts, converted to int64 by step()
          const double v = t->second.item<double>();
          EMBER_CHECK(v >= 0 && v <= 9007199254740992.0 && v == std::floor(v), where, ": '", name, "' is ", v,
                      " (expected a count: a whole number from 0 to 2^53)");
        }
      }
    if (st.size() != expected) {
      for (const auto& [name, t] : st) {
        const bool known = std::find(pieces.begin(), pieces.end(), name) != pieces.end() ||
                           (index == 0 && std::find(scalar_names.begin(), scalar_names.end(), name) != scalar_names.end());
        EMBER_CHECK(known, where, ": unexpected tensor '", name, "'");
      }
    }
  }
}

// See Note [LBFGS state].
LBFGS::History LBFGS::load_history() {
  History h;
  const std::vector<Tensor>& params = param_groups_[0].params();
  auto named = [&](const Tensor& p) -> const State* {
    auto* st = dynamic_cast<NamedParamState*>(find_state(p));
    return st ? &st->tensors : nullptr;
  };
  const State* first = named(params[0]);
  if (!first) return h;
  auto scalar = [&](const std::string& name, double fallback) {
    auto it = first->find(name);
    return it == first->end() ? fallback : it->second.item<double>();
  };
  auto flat = [&](const std::string& name) {
    if (!first->count(name)) return Tensor();
    std::vector<Tensor> pieces;
    for (size_t i = 0; i < params.size(); ++i) {
      const State* st = named(params[i]);
      EMBER_CHECK(st && st->count(name), "LBFGS: state '", name, "' is missing for parameter ", i);
      pieces.push_back(st->at(name).reshape({-1}));
    }
    return cat(pieces);
  };
  h.func_evals = int64_t(scalar("func_evals", 0));
  h.n_iter = int64_t(scalar("n_iter", 0));
  h.t = scalar("t", 0), h.H_diag = scalar("H_diag", 1), h.prev_loss = scalar("prev_loss", 0);
  h.d = flat("d"), h.prev_flat_grad = flat("prev_flat_grad");
  for (size_t i = 0; first->count("ro_" + std::to_string(i)); ++i) {
    const std::string n = std::to_string(i);
    h.ro.push_back(scalar("ro_" + n, 0));
    h.old_dirs.push_back(flat("old_dirs_" + n));
    h.old_stps.push_back(flat("old_stps_" + n));
  }
  return h;
}

void LBFGS::save_history(const History& h) {
  const std::vector<Tensor>& params = param_groups_[0].params();
  int64_t offset = 0;
  for (const Tensor& p : params) {
    State& st = state_of<NamedParamState>(p).tensors;
    st.clear();
    auto piece = [&](const Tensor& flat) { return flat.narrow(0, offset, p.numel()).view(p.sizes()); };
    if (h.d.defined()) st["d"] = piece(h.d), st["prev_flat_grad"] = piece(h.prev_flat_grad);
    for (size_t i = 0; i < h.ro.size(); ++i) {
      st["old_dirs_" + std::to_string(i)] = piece(h.old_dirs[i]);
      st["old_stps_" + std::to_string(i)] = piece(h.old_stps[i]);
    }
    offset += p.numel();
  }
  State& first = state_of<NamedParamState>(params[0]).tensors;
  auto scalar = [&](const std::string& name, double v) { first[name] = scalar_tensor(v, dtype(kDouble)); };
  scalar("func_evals", double(h.func_evals));
  scalar("n_iter", double(h.n_iter));
  if (!h.d.defined()) return;
  scalar("t", h.t), scalar("H_diag", h.H_diag), scalar("prev_loss", h.prev_loss);
  for (size_t i = 0; i < h.ro.size(); ++i) scalar("ro_" + std::to_string(i), h.ro[i]);
}

Tensor LBFGS::gather_flat_grad() const {
  std::vector<Tensor> views;
  for (const Tensor& p : param_groups_[0].params())
    views.push_back(p.grad().defined() ? p.grad().reshape({-1}) : zeros_like(p).reshape({-1}));
  return cat(views);
}

void LBFGS::add_to_params(double t, const Tensor& d) {
  int64_t offset = 0;
  for (Tensor& p : param_groups_[0].params()) {
    p.add_(d.narrow(0, offset, p.numel()).view_as(p), t);
    offset += p.numel();
  }
}

Tensor LBFGS::step(LossClosure closure) {
  EMBER_CHECK(closure != nullptr, "LBFGS::step requires a closure that reevaluates the model and returns the loss");
  EMBER_CHECK(param_groups_.size() == 1, "LBFGS doesn't support per-parameter options (parameter groups)");
  NoGradGuard no_grad;
  const auto& o = static_cast<const LBFGSOptions&>(param_groups_[0].options());
  const int64_t max_eval = o.max_eval().value_or(o.max_iter() * 5 / 4);
  auto max_abs = [](const Tensor& t) { return t.abs().max().item<double>(); };
  History h = load_history();

  Tensor orig_loss = evaluate(closure);
  double loss = orig_loss.item<double>();
  int64_t current_evals = 1;
  ++h.func_evals;
  Tensor flat_grad = gather_flat_grad();
  bool opt_cond = max_abs(flat_grad) <= o.tolerance_grad();
  for (int64_t n_iter = 1; !opt_cond && n_iter <= o.max_iter(); ++n_iter) {
    ++h.n_iter;
    if (h.n_iter == 1) {
      h.d = flat_grad.neg();
      h.old_dirs.clear(), h.old_stps.clear(), h.ro.clear();
      h.H_diag = 1;
    } else {
      // Update the curvature pairs, then d = -H g by the two-loop recursion.
      Tensor y = flat_grad.sub(h.prev_flat_grad), s = h.d.mul(h.t);
      const double ys = y.dot(s).item<double>();
      if (ys > 1e-10) {
        if (int64_t(h.old_dirs.size()) == o.history_size()) {
          h.old_dirs.pop_front(), h.old_stps.pop_front(), h.ro.pop_front();
        }
        h.old_dirs.push_back(y), h.old_stps.push_back(s), h.ro.push_back(1. / ys);
        h.H_diag = ys / y.dot(y).item<double>();
      }
      const size_t num_old = h.old_dirs.size();
      std::vector<double> al(num_old);
      Tensor q = flat_grad.neg();
      for (size_t i = num_old; i-- > 0;) {
        al[i] = h.old_stps[i].dot(q).item<double>() * h.ro[i];
        q.add_(h.old_dirs[i], -al[i]);
      }
      h.d = q.mul(h.H_diag);
      for (size_t i = 0; i < num_old; ++i) {
        const double be_i = h.old_dirs[i].dot(h.d).item<double>() * h.ro[i];
        h.d.add_(h.old_stps[i], al[i] - be_i);
      }
    }
    h.prev_flat_grad = flat_grad;
    h.prev_loss = loss;
    h.t = h.n_iter == 1 ? std::min(1., 1. / flat_grad.abs().sum().item<double>()) * o.lr() : o.lr();
    const double gtd = flat_grad.dot(h.d).item<double>();
    if (gtd > -o.tolerance_change()) break;  // not a descent direction

    int64_t ls_func_evals = 0;
    if (o.line_search_fn()) {
      std::vector<Tensor> x_init;
      for (const Tensor& p : param_groups_[0].params()) x_init.push_back(p.clone());
      auto eval = [&](double t) {
        add_to_params(t, h.d);
        const double f = evaluate(closure).item<double>();
        Tensor g = gather_flat_grad();
        for (size_t i = 0; i < x_init.size(); ++i) param_groups_[0].params()[i].copy_(x_init[i]);
        return std::pair(f, g);
      };
      auto [accepted, evals] = strong_wolfe(eval, h.t, h.d, loss, flat_grad, gtd, o.tolerance_change());
      loss = accepted.f, flat_grad = accepted.g, h.t = accepted.t, ls_func_evals = evals;
      add_to_params(h.t, h.d);
      opt_cond = max_abs(flat_grad) <= o.tolerance_grad();
    } else {
      add_to_params(h.t, h.d);
      if (n_iter != o.max_iter()) {  // re-evaluate unless this is the last iteration
        loss = evaluate(closure).item<double>();
        flat_grad = gather_flat_grad();
        opt_cond = max_abs(flat_grad) <= o.tolerance_grad();
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    h.func_evals += ls_func_evals;
    if (current_evals >= max_eval || max_abs(h.d.mul(h.t)) <= o.tolerance_change() ||
        std::abs(loss - h.prev_loss) < o.tolerance_change())
      break;
  }
  save_history(h);
  return orig_loss;
}

// ---- schedulers --------------------------------------------------------------------------------
CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult,
                                                         double eta_min)
    : LRScheduler(optimizer), t_0_(T_0), t_mult_(T_mult), eta_min_(eta_min) {
  EMBER_CHECK(T_0 > 0, "Expected positive integer T_0, but got ", T_0);
  EMBER_CHECK(T_mult >= 1, "Expected integer T_mult >= 1, but got ", T_mult);
}
double CosineAnnealingWarmRestarts::lr_at(size_t, double base) const {
  int64_t t_cur = epoch_, t_i = t_0_;
  if (t_mult_ == 1) {
    t_cur %= t_0_;
  } else {
    for (; t_cur >= t_i; t_i *= t_mult_) t_cur -= t_i;
  }
  return eta_min_ + (base - eta_min_) * (1 + std::cos(kPi * double(t_cur) / double(t_i))) / 2;
}

namespace {
// Sets the momentum that OneCycleLR cycles: the options' "betas.0" when they have betas (as
// torch's use_beta1), else "momentum". False when they have neither.
bool set_momentum(OptimizerOptions& options, double value) {
  struct Setter : OptionVisitor {
    using OptionVisitor::field;
    const char* name;
    double value;
    bool found = false;
    void field(const char* n, double& v) override {
      if (std::strcmp(n, name) == 0) v = value, found = true;
    }
    void field(const char*, int64_t&) override {}
    void field(const char*, bool&) override {}
  };
  for (const char* name : {"betas.0", "momentum"}) {
    Setter s;
    s.name = name, s.value = value;
    options.visit(s);
    if (s.found) return true;
  }
  return false;
}

int64_t one_cycle_total_steps(const OneCycleLROptions& o) {
  if (o.total_steps()) {
    EMBER_CHECK(*o.total_steps() > 0, "Expected positive integer total_steps, but got ", *o.total_steps());
    return *o.total_steps();
  }
  EMBER_CHECK(o.epochs() && o.steps_per_epoch(), "You must define either total_steps OR (epochs AND steps_per_epoch)");
  EMBER_CHECK(*o.epochs() > 0, "Expected positive integer epochs, but got ", *o.epochs());
  EMBER_CHECK(*o.steps_per_epoch() > 0, "Expected positive integer steps_per_epoch, but got ", *o.steps_per_epoch());
  return *o.epochs() * *o.steps_per_epoch();
}
}  // namespace

OneCycleLR::OneCycleLR(Optimizer& optimizer, double max_lr, const OneCycleLROptions& options)
    : OneCycleLR(optimizer, std::vector<double>(optimizer.param_groups().size(), max_lr), options) {}

OneCycleLR::OneCycleLR(Optimizer& optimizer, std::vector<double> max_lrs, const OneCycleLROptions& o)
    : LRScheduler(optimizer), options_(o), total_steps_(one_cycle_total_steps(o)), max_lrs_(std::move(max_lrs)) {
  const double total = double(total_steps_), pct = o.pct_start();
  if (o.three_phase()) {
    phases_ = {{pct * total - 1, 0, 1, 0, 1}, {2 * pct * total - 2, 1, 0, 1, 0}, {total - 1, 0, 2, 0, 0}};
  } else {
    phases_ = {{pct * total - 1, 0, 1, 0, 1}, {total - 1, 1, 2, 1, 0}};
  }
  EMBER_CHECK(pct >= 0 && pct <= 1, "Expected float between 0 and 1 pct_start, but got ", pct);
  EMBER_CHECK(o.anneal_strategy() == "cos" || o.anneal_strategy() == "linear",
              "anneal_strategy must by one of 'cos' or 'linear', instead got ", o.anneal_strategy());
  EMBER_CHECK(max_lrs_.size() == base_lrs_.size(), "expected ", base_lrs_.size(), " values for max_lr, got ",
              max_lrs_.size());
  EMBER_CHECK(!o.cycle_momentum() || set_momentum(*optimizer.defaults().clone(), 0),
              "optimizer must support momentum with `cycle_momentum` option enabled");
  epoch_ = -1, step();  // PyTorch's initial step: the lr (and momentum) of step 0
}

double OneCycleLR::lr_at(size_t group, double) const {
  EMBER_CHECK(epoch_ <= total_steps_, "Tried to step ", epoch_ + 1, " times. The specified number of total steps is ",
              total_steps_);
  const OneCycleLROptions& o = options_;
  const double initial = max_lrs_[group] / o.div_factor();
  const double lrs[3] = {initial, max_lrs_[group], initial / o.final_div_factor()};
  const double momenta[2] = {o.max_momentum(), o.base_momentum()};
  auto anneal = [cos = o.anneal_strategy() == "cos"](double start, double end, double pct) {
    return cos ? end + (start - end) / 2.0 * (std::cos(kPi * pct) + 1) : (end - start) * pct + start;
  };
  double start_step = 0;
  for (size_t i = 0;; ++i) {
    const Phase& ph = phases_[i];
    if (double(epoch_) <= ph.end_step || i + 1 == phases_.size()) {
      const double pct = (double(epoch_) - start_step) / (ph.end_step - start_step);
      if (o.cycle_momentum())
        set_momentum(optimizer_.param_groups()[group].options(),
                     anneal(momenta[ph.start_momentum], momenta[ph.end_momentum], pct));
      return anneal(lrs[ph.start_lr], lrs[ph.end_lr], pct);
    }
    start_step = ph.end_step;
  }
}

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor, int64_t total_iters)
    : LRScheduler(optimizer), start_(start_factor), end_(end_factor), total_iters_(total_iters) {
  // (1.13 accepts start_factor 0 and then divides by zero on the second step.)
  EMBER_CHECK(start_factor > 0 && start_factor <= 1,
              "Starting multiplicative factor expected to be greater than 0 and less or equal to 1.");
  EMBER_CHECK(end_factor >= 0 && end_factor <= 1, "Ending multiplicative factor expected to be between 0 and 1.");
  epoch_ = -1, step();  // PyTorch's initial step: start_factor applies at epoch 0
}
double LinearLR::lr_at(size_t, double base) const {
  // (total_iters 0: PyTorch's chained form keeps start_factor.)
  const double done = total_iters_ > 0 ? double(std::min(total_iters_, epoch_)) / double(total_iters_) : 0;
  return base * (start_ + (end_ - start_) * done);
}

ConstantLR::ConstantLR(Optimizer& optimizer, double factor, int64_t total_iters)
    : LRScheduler(optimizer), factor_(factor), total_iters_(total_iters) {
  EMBER_CHECK(factor >= 0 && factor <= 1, "Constant multiplicative factor expected to be between 0 and 1.");
  epoch_ = -1, step();
}
double ConstantLR::lr_at(size_t, double base) const {
  // (total_iters 0: PyTorch's chained form keeps the factor.)
  return total_iters_ > 0 && epoch_ >= total_iters_ ? base : base * factor_;
}

SequentialLR::SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<int64_t> milestones)
    : LRScheduler(optimizer), schedulers_(std::move(schedulers)), milestones_(std::move(milestones)) {
  EMBER_CHECK(!schedulers_.empty(), "SequentialLR: expects at least one scheduler");
  for (size_t i = 0; i < schedulers_.size(); ++i)
    EMBER_CHECK(schedulers_[i] && &schedulers_[i]->optimizer_ == &optimizer_,
                "Sequential Schedulers expects all schedulers to belong to the same optimizer, but got schedulers at "
                "index ", i, " to be different than the optimizer passed in.");
  EMBER_CHECK(milestones_.size() + 1 == schedulers_.size(),
              "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
              "milestone points, but got number of schedulers ", schedulers_.size(),
              " and the number of milestones to be equal to ", milestones_.size());
  EMBER_CHECK(std::is_sorted(milestones_.begin(), milestones_.end()), "SequentialLR: milestones must be increasing");
  // The first scheduler saw the lrs before any scheduler changed them: they are every scheduler's base.
  base_lrs_ = schedulers_[0]->base_lrs_;
  epoch_ = -1, step();
}
double SequentialLR::lr_at(size_t group, double base) const {
  const size_t i = std::upper_bound(milestones_.begin(), milestones_.end(), epoch_) - milestones_.begin();
  LRScheduler& s = *schedulers_[i];
  s.epoch_ = epoch_ - (i > 0 ? milestones_[i - 1] : 0);
  return s.lr_at(group, base);
}

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, SchedulerMode mode, double factor, int64_t patience,
                                     double threshold, ThresholdMode threshold_mode, int64_t cooldown,
                                     std::vector<double> min_lr, double eps)
    : optimizer_(optimizer), mode_(mode), factor_(factor), patience_(patience), threshold_(threshold),
      threshold_mode_(threshold_mode), cooldown_(cooldown), min_lrs_(std::move(min_lr)), eps_(eps),
      best_(mode == min ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity()) {
  EMBER_CHECK(factor < 1.0, "Factor should be < 1.0.");
  const size_t groups = optimizer.param_groups().size();
  if (min_lrs_.size() <= 1) min_lrs_.assign(groups, min_lrs_.empty() ? 0.0 : min_lrs_[0]);
  EMBER_CHECK(min_lrs_.size() == groups, "expected ", groups, " min_lrs, got ", min_lrs_.size());
}

bool ReduceLROnPlateau::is_better(double a) const {
  if (mode_ == min) return threshold_mode_ == rel ? a < best_ * (1 - threshold_) : a < best_ - threshold_;
  return threshold_mode_ == rel ? a > best_ * (threshold_ + 1) : a > best_ + threshold_;
}

void ReduceLROnPlateau::step(double metric) {
  ++epoch_;
  if (is_better(metric)) {
    best_ = metric, num_bad_epochs_ = 0;
  } else {
    ++num_bad_epochs_;
  }
  if (cooldown_counter_ > 0) --cooldown_counter_, num_bad_epochs_ = 0;  // bad epochs in cooldown don't count
  if (num_bad_epochs_ <= patience_) return;
  auto& groups = optimizer_.param_groups();
  for (size_t i = 0; i < groups.size(); ++i) {
    const double old_lr = groups[i].options().get_lr(), new_lr = std::max(old_lr * factor_, min_lrs_.at(i));
    if (old_lr - new_lr > eps_) groups[i].options().set_lr(new_lr);
  }
  cooldown_counter_ = cooldown_, num_bad_epochs_ = 0;
}

json::Value ReduceLROnPlateau::state_dict() const {
  json::Value best = std::isfinite(best_) ? json::Value(best_) : json::Value(best_ > 0 ? "inf" : best_ < 0 ? "-inf" : "nan");
  return json::Object{{"last_epoch", epoch_}, {"best", best}, {"num_bad_epochs", num_bad_epochs_},
                      {"cooldown_counter", cooldown_counter_}};
}

void ReduceLROnPlateau::load_state_dict(const json::Value& state) {
  for (const char* k : {"last_epoch", "best", "num_bad_epochs", "cooldown_counter"})
    EMBER_CHECK(state.is_object() && state.find(k), "ReduceLROnPlateau::load_state_dict: missing '", k, "' in ",
                json::dump(state));
  const json::Value& best = *state.find("best");
  if (best.is_string()) {
    const std::string& b = best.as_string();
    EMBER_CHECK(b == "inf" || b == "-inf" || b == "nan", "ReduceLROnPlateau::load_state_dict: bad best '", b, "'");
    best_ = b == "inf" ? std::numeric_limits<double>::infinity()
            : b == "-inf" ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else {
    best_ = best.as_double("best");
  }
  epoch_ = state.find("last_epoch")->as_int("last_epoch");
  num_bad_epochs_ = state.find("num_bad_epochs")->as_int("num_bad_epochs");
  cooldown_counter_ = state.find("cooldown_counter")->as_int("cooldown_counter");
}

std::vector<double> ReduceLROnPlateau::get_last_lr() const {
  std::vector<double> r;
  for (const auto& g : optimizer_.param_groups()) r.push_back(g.options().get_lr());
  return r;
}

}  // namespace ember::optim
