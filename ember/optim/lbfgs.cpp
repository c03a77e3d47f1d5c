#include "ember/optim/lbfgs.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/functions.h"
#include "ember/ops/type_promotion.h"

namespace ember::optim {

namespace {
using State = std::map<std::string, Tensor>;

std::unique_ptr<OptimizerOptions> checked(const LBFGSOptions& o) {
  EMBER_CHECK(o.history_size() > 0, "Invalid history_size value: ", o.history_size());
  EMBER_CHECK(!o.line_search_fn() || *o.line_search_fn() == "strong_wolfe", "LBFGS: only 'strong_wolfe' is supported",
              " as line_search_fn, got '", *o.line_search_fn(), "'");
  auto r = std::make_unique<LBFGSOptions>(o);
  if (!r->max_eval()) r->max_eval(o.max_iter() * 5 / 4);
  return r;
}
}  // namespace

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

}  // namespace ember::optim
