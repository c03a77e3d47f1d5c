#include "ember/optim/radam.h"

#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/optim/detail/param_loop.h"

namespace ember::optim {

namespace {
std::unique_ptr<OptimizerOptions> checked(const RAdamOptions& o) { return check_adam_options(o); }
}  // namespace

using detail::for_each_param;
using detail::gradient;

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

}  // namespace ember::optim
