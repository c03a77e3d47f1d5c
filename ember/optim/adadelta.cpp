#include "ember/optim/adadelta.h"

#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/optim/detail/param_loop.h"

namespace ember::optim {

namespace {
std::unique_ptr<OptimizerOptions> checked(const AdadeltaOptions& o) {
  EMBER_CHECK(o.lr() >= 0, "Invalid learning rate: ", o.lr());
  EMBER_CHECK(o.rho() >= 0 && o.rho() <= 1, "Invalid rho value: ", o.rho());
  EMBER_CHECK(o.eps() >= 0, "Invalid epsilon value: ", o.eps());
  EMBER_CHECK(o.weight_decay() >= 0, "Invalid weight_decay value: ", o.weight_decay());
  return o.clone();
}
}  // namespace

using detail::as_real;
using detail::for_each_param;
using detail::gradient;

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

}  // namespace ember::optim
