// GradScaler (torch.cuda.amp.GradScaler, usable on every device): multiplies the loss by a
// scale so that small float16/bfloat16 gradients do not flush to zero, unscales the
// gradients before the optimizer step, skips steps whose gradients hold inf/NaN, and
// adapts the scale (back off on overflow, grow after `growth_interval` clean steps).
//
//   amp::GradScaler scaler;
//   scaler.scale(loss).backward();
//   scaler.step(optimizer);       // unscales (unless unscale_ was called), steps if finite
//   scaler.update();
#pragma once
#include <map>
#include <optional>
#include <string>

#include "ember/core/tensor.h"
#include "ember/optim/optimizer.h"

namespace ember::amp {

struct GradScalerOptions {
  GradScalerOptions& init_scale(double v) { init_scale_ = v; return *this; }
  GradScalerOptions& growth_factor(double v) { growth_factor_ = v; return *this; }
  GradScalerOptions& backoff_factor(double v) { backoff_factor_ = v; return *this; }
  GradScalerOptions& growth_interval(int64_t v) { growth_interval_ = v; return *this; }
  GradScalerOptions& enabled(bool v) { enabled_ = v; return *this; }
  double init_scale_ = 65536.0, growth_factor_ = 2.0, backoff_factor_ = 0.5;
  int64_t growth_interval_ = 2000;
  bool enabled_ = true;
};

struct GradScalerState {
  double scale = 65536.0, growth_factor = 2.0, backoff_factor = 0.5;
  int64_t growth_interval = 2000, growth_tracker = 0;
};

class GradScaler {
 public:
  explicit GradScaler(const GradScalerOptions& options = {});

  // outputs * scale (unchanged when disabled).
  Tensor scale(const Tensor& outputs);
  // Divides the optimizer's gradients by the scale in place and records whether any is
  // inf/NaN. At most once per optimizer between update() calls.
  void unscale_(optim::Optimizer& optimizer);
  // Unscales if needed, then runs optimizer.step() unless the gradients were non-finite.
  // Returns the step's loss (undefined when skipped).
  Tensor step(optim::Optimizer& optimizer, const optim::Optimizer::LossClosure& closure = nullptr);
  // Adjusts the scale from the steps since the last update; `new_scale` sets it instead.
  void update(std::optional<double> new_scale = std::nullopt);

  double get_scale() const { return enabled_ ? state_.scale : 1.0; }
  double get_growth_factor() const { return state_.growth_factor; }
  double get_backoff_factor() const { return state_.backoff_factor; }
  int64_t get_growth_interval() const { return state_.growth_interval; }
  bool is_enabled() const { return enabled_; }
  // Whether the last step() of `optimizer` was skipped for non-finite gradients.
  bool found_inf(const optim::Optimizer& optimizer) const;

  GradScalerState state_dict() const { return state_; }
  void load_state_dict(const GradScalerState& state);

 private:
  enum class Stage { Ready, Unscaled, Stepped };
  struct PerOptimizer {
    Stage stage = Stage::Ready;
    bool found_inf = false;
  };
  GradScalerState state_;
  bool enabled_;
  std::map<const optim::Optimizer*, PerOptimizer> per_optimizer_;
};

}  // namespace ember::amp
