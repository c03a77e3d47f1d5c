#include "ember/optim/optimizer.h"

#include "ember/autograd/grad_mode.h"
#include "ember/ops/functions.h"

namespace ember::optim {

Optimizer::Optimizer(std::vector<OptimizerParamGroup> groups, std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  for (const OptimizerParamGroup& g : groups) add_param_group(g);
}

void Optimizer::add_param_group(const OptimizerParamGroup& group) {
  OptimizerParamGroup g(group);
  if (!g.has_options()) g.set_options(defaults_->clone());
  for (size_t i = 0; i < g.params().size(); ++i) {
    const Tensor& p = g.params()[i];
    EMBER_CHECK(p.defined(), "optimizer: a parameter is undefined");
    for (size_t j = 0; j < i; ++j)
      EMBER_CHECK(!g.params()[j].is_same(p), "optimizer got duplicate parameters in one parameter group");
    EMBER_CHECK(p.is_leaf(), "optimizer: can't optimize a non-leaf Tensor");
    for (const OptimizerParamGroup& other : groups_)
      for (const Tensor& q : other.params())
        EMBER_CHECK(!q.is_same(p), "some parameters appear in more than one parameter group");
  }
  groups_.push_back(std::move(g));
}

void Optimizer::zero_grad(bool set_to_none) {
  for (OptimizerParamGroup& g : groups_)
    for (Tensor& p : g.params()) {
      if (!p.grad().defined()) continue;
      if (set_to_none) {
        p.mutable_grad().reset();
      } else {
        NoGradGuard ng;
        p.mutable_grad().zero_();
      }
    }
}

std::vector<Tensor> Optimizer::parameters() const {
  std::vector<Tensor> r;
  for (const OptimizerParamGroup& g : groups_) r.insert(r.end(), g.params().begin(), g.params().end());
  return r;
}

SGD::SGD(std::vector<Tensor> params, const SGDOptions& options)
    : SGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, options) {}

SGD::SGD(std::vector<OptimizerParamGroup> groups, const SGDOptions& options)
    : Optimizer({}, std::make_unique<SGDOptions>(options)) {
  EMBER_CHECK(options.lr() >= 0, "Invalid learning rate: ", options.lr());
  EMBER_CHECK(options.momentum() >= 0, "Invalid momentum value: ", options.momentum());
  EMBER_CHECK(options.weight_decay() >= 0, "Invalid weight_decay value: ", options.weight_decay());
  EMBER_CHECK(!options.nesterov() || (options.momentum() > 0 && options.dampening() == 0),
              "Nesterov momentum requires a momentum and zero dampening");
  for (const OptimizerParamGroup& g : groups) add_param_group(g);
}

Tensor SGD::step(LossClosure closure) {
  Tensor loss;
  if (closure) {
    AutoGradMode enable(true);
    loss = closure();
  }
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : groups_) {
    const auto& o = static_cast<const SGDOptions&>(group.options());
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      Tensor g = p.grad();
      if (o.weight_decay() != 0) g = g.add(p, o.weight_decay());
      if (o.momentum() != 0) {
        auto& st = state_[p.unsafeGetTensorImpl()];
        auto it = st.find("momentum_buffer");
        if (it == st.end()) {
          it = st.emplace("momentum_buffer", g.clone()).first;
        } else {
          it->second.mul_(o.momentum()).add_(g, 1 - o.dampening());
        }
        g = o.nesterov() ? g.add(it->second, o.momentum()) : it->second;
      }
      p.add_(g, o.maximize() ? o.lr() : -o.lr());
    }
  }
  return loss;
}

}  // namespace ember::optim
