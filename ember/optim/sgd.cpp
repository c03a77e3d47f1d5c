#include "ember/optim/sgd.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/functions.h"
#include "ember/ops/op_def.h"
#include "ember/ops/optim_fused.h"

namespace ember::optim {

SGD::SGD(std::vector<Tensor> params, SGDOptions options) : SGD(one_group(std::move(params)), options) {}

SGD::SGD(std::vector<OptimizerParamGroup> groups, SGDOptions options)
    : Optimizer(std::vector<OptimizerParamGroup>{}, std::make_unique<SGDOptions>(options)) {
  EMBER_CHECK(options.lr() >= 0, "Invalid learning rate: ", options.lr());
  EMBER_CHECK(options.momentum() >= 0, "Invalid momentum value: ", options.momentum());
  EMBER_CHECK(options.weight_decay() >= 0, "Invalid weight_decay value: ", options.weight_decay());
  EMBER_CHECK(!options.nesterov() || (options.momentum() > 0 && options.dampening() == 0),
              "Nesterov momentum requires a momentum and zero dampening");
  for (const OptimizerParamGroup& g : groups) add_param_group(g);
}

Tensor SGD::step(LossClosure closure) {
  Tensor loss = evaluate(closure);
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : param_groups_) {
    const auto& o = static_cast<const SGDOptions&>(group.options());
    // Parameters for a device's fused kernel (Note [Fused optimizer steps]), per device and dtype.
    FusedBatches<FusedSgdFn, FusedSgdArgs, FusedSgdTensor> fused("sgd_fused");
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      if (!p.is_cpu() && isFloatingType(p.scalar_type()) && p.is_non_overlapping_and_dense() &&
          p.grad().strides() == p.strides() &&
          p.grad().scalar_type() == p.scalar_type() && p.grad().device() == p.device() &&
          lookup_kernel("sgd_fused", p.device().type())) {
        Tensor* buf = o.momentum() != 0 ? &state_of<SGDParamState>(p).momentum_buffer() : nullptr;
        const bool first = buf && !buf->defined();
        if (first) *buf = empty_like(p, {}, MemoryFormat::Preserve);
        if (!buf || (buf->strides() == p.strides() && buf->scalar_type() == p.scalar_type() && buf->device() == p.device())) {
          const FusedSgdArgs args{p.scalar_type(), o.lr(), o.momentum(), o.dampening(), o.weight_decay(), o.nesterov(),
                                  o.maximize()};
          fused.add(p.device(), args,
                    {p.data_ptr(), p.grad().data_ptr(), buf ? buf->data_ptr() : nullptr, p.numel(), first});
          p.bump_version();
          if (buf) buf->bump_version();
          continue;
        }
        if (first) buf->reset();  // the per-op path below clones the gradient into it
      }
      Tensor g = p.grad();
      if (o.weight_decay() != 0) g = g.add(p, o.weight_decay());
      if (o.momentum() != 0) {
        Tensor& buf = state_of<SGDParamState>(p).momentum_buffer();
        if (!buf.defined()) {
          buf = g.clone();
        } else {
          buf.mul_(o.momentum()).add_(g, 1 - o.dampening());
        }
        g = o.nesterov() ? g.add(buf, o.momentum()) : buf;
      }
      p.add_(g, o.maximize() ? o.lr() : -o.lr());
    }
    fused.run();
  }
  return loss;
}

std::optional<Optimizer::StateSchema> SGD::state_schema(const OptimizerOptions& group_options) const {
  const auto& o = static_cast<const SGDOptions&>(group_options);
  if (o.momentum() == 0) return StateSchema{};
  return StateSchema{.tensors = {"momentum_buffer"}};
}

}  // namespace ember::optim
