#include "ember/optim/nadam.h"

#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/type_promotion.h"
#include "ember/optim/detail/param_loop.h"

namespace ember::optim {

namespace {
std::unique_ptr<OptimizerOptions> checked(const NAdamOptions& o) {
  auto r = check_adam_options(o);
  EMBER_CHECK(o.momentum_decay() >= 0, "Invalid momentum_decay value: ", o.momentum_decay());
  return r;
}
}  // namespace

using detail::for_each_param;
using detail::gradient;

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

}  // namespace ember::optim
