#include "ember/optim/adamax.h"

#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/optim/detail/param_loop.h"

namespace ember::optim {

namespace {
std::unique_ptr<OptimizerOptions> checked(const AdamaxOptions& o) { return check_adam_options(o); }
}  // namespace

using detail::as_real;
using detail::for_each_param;
using detail::gradient;

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

}  // namespace ember::optim
