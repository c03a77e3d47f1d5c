#include "ember/amp/grad_scaler.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/functions.h"
#include "ember/ops/op_def.h"

namespace ember::amp {

GradScaler::GradScaler(const GradScalerOptions& o) : enabled_(o.enabled_) {
  EMBER_CHECK(o.init_scale_ > 0, "GradScaler: init_scale must be positive, got ", o.init_scale_);
  EMBER_CHECK(o.growth_factor_ > 1.0, "The growth factor must be > 1.0, got ", o.growth_factor_);
  EMBER_CHECK(o.backoff_factor_ < 1.0 && o.backoff_factor_ > 0, "The backoff factor must be < 1.0, got ",
              o.backoff_factor_);
  EMBER_CHECK(o.growth_interval_ > 0, "GradScaler: growth_interval must be positive, got ", o.growth_interval_);
  state_ = {o.init_scale_, o.growth_factor_, o.backoff_factor_, o.growth_interval_, 0};
}

Tensor GradScaler::scale(const Tensor& outputs) {
  if (!enabled_) return outputs;
  EMBER_CHECK(outputs.defined(), "GradScaler.scale: the outputs are undefined");
  // The scale is a float32 value, as PyTorch keeps it in a float tensor.
  return outputs.mul(double(float(state_.scale)));
}

// Note [Unscaling without a sync per parameter]
// unscale_ keeps one float32 flag per device, raised by any inf or NaN in that device's
// gradients, and reads the flags once at the end: one synchronization per device and step,
// not one per parameter (which a GPU would pay as a stall each). On a device with a fused
// kernel ("amp_unscale": ember/ops/cuda/amp_kernels.cu) a dense floating gradient (any
// layout: the kernel walks its memory) is
// checked and scaled in one pass; other gradients take the composite (isfinite, any, mul_).
namespace {
using AmpUnscaleFn = void (*)(const Tensor& grad, const Tensor& found_inf, double inv_scale);

void unscale_one(const Tensor& g, const Tensor& found_inf, double inv_scale) {
  if (!g.is_cpu() && g.is_non_overlapping_and_dense() && isFloatingType(g.scalar_type())) {
    if (const auto fused = reinterpret_cast<AmpUnscaleFn>(lookup_kernel("amp_unscale", g.device().type())))
      return fused(g, found_inf, inv_scale);
  }
  found_inf.add_(g.isfinite().logical_not().any().to(kFloat));
  g.mul_(inv_scale);
}
}  // namespace

void GradScaler::unscale_(optim::Optimizer& optimizer) {
  if (!enabled_) return;
  PerOptimizer& st = per_optimizer_[&optimizer];
  EMBER_CHECK(st.stage != Stage::Unscaled, "unscale_() has already been called on this optimizer since the last update().");
  EMBER_CHECK(st.stage != Stage::Stepped, "unscale_() is being called after step().");
  // 1 / scale computed in double and rounded to float, as PyTorch does.
  const double inv_scale = double(float(1.0 / double(float(state_.scale))));
  NoGradGuard no_grad;
  std::vector<std::pair<Device, Tensor>> flags;  // found_inf per device
  for (const auto& group : optimizer.param_groups())
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      Tensor g = p.grad();
      EMBER_CHECK(g.scalar_type() != kHalf, "Attempting to unscale FP16 gradients.");
      auto it = std::find_if(flags.begin(), flags.end(), [&](const auto& f) { return f.first == g.device(); });
      if (it == flags.end()) {
        flags.emplace_back(g.device(), zeros({1}, TensorOptions().dtype(kFloat).device(g.device())));
        it = flags.end() - 1;
      }
      unscale_one(g, it->second, inv_scale);
    }
  bool found = false;
  for (const auto& [device, flag] : flags) found = found || flag.item<float>() != 0.0f;
  st.found_inf = found;
  st.stage = Stage::Unscaled;
}

Tensor GradScaler::step(optim::Optimizer& optimizer, const optim::Optimizer::LossClosure& closure) {
  if (!enabled_) return optimizer.step(closure);
  PerOptimizer& st = per_optimizer_[&optimizer];
  EMBER_CHECK(st.stage != Stage::Stepped, "step() has already been called since the last update().");
  if (st.stage == Stage::Ready) unscale_(optimizer);
  Tensor loss;
  if (!st.found_inf) loss = optimizer.step(closure);
  st.stage = Stage::Stepped;
  return loss;
}

void GradScaler::update(std::optional<double> new_scale) {
  if (!enabled_) return;
  if (new_scale) {
    EMBER_CHECK(*new_scale > 0, "GradScaler.update: new_scale must be positive, got ", *new_scale);
    state_.scale = double(float(*new_scale));
  } else {
    bool found = false;
    bool any = false;
    for (const auto& [opt, st] : per_optimizer_) {
      if (st.stage == Stage::Ready) continue;
      any = true;
      found = found || st.found_inf;
    }
    EMBER_CHECK(any, "No inf checks were recorded prior to update.");
    if (found) {
      state_.scale = double(float(state_.scale * state_.backoff_factor));
      state_.growth_tracker = 0;
    } else if (++state_.growth_tracker == state_.growth_interval) {
      const double grown = double(float(state_.scale * state_.growth_factor));
      if (std::isfinite(grown)) state_.scale = grown;
      state_.growth_tracker = 0;
    }
  }
  per_optimizer_.clear();
}

bool GradScaler::found_inf(const optim::Optimizer& optimizer) const {
  auto it = per_optimizer_.find(&optimizer);
  return it != per_optimizer_.end() && it->second.found_inf;
}

void GradScaler::load_state_dict(const GradScalerState& state) {
  EMBER_CHECK(state.scale > 0 && state.growth_factor > 1 && state.backoff_factor > 0 && state.backoff_factor < 1 &&
                  state.growth_interval > 0 && state.growth_tracker >= 0,
              "GradScaler.load_state_dict: invalid state (scale ", state.scale, ", growth_factor ", state.growth_factor,
              ", backoff_factor ", state.backoff_factor, ", growth_interval ", state.growth_interval, ")");
  state_ = state;
}

}  // namespace ember::amp
