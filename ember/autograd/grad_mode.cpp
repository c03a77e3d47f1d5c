#include "ember/autograd/grad_mode.h"

#include "ember/core/storage.h"

#include <atomic>

#include "ember/autograd/forward_ad.h"

namespace ember {
namespace autograd {

namespace {
thread_local bool t_grad_enabled = true;
thread_local bool t_fw_enabled = true;  // false below autograd
thread_local bool t_inference = false;
std::atomic<bool> g_anomaly{false};
}  // namespace

bool GradMode::is_enabled() { return t_grad_enabled; }
void GradMode::set_enabled(bool enabled) { t_grad_enabled = enabled; }
bool AnomalyMode::is_enabled() { return g_anomaly.load(std::memory_order_relaxed); }
void AnomalyMode::set_enabled(bool enabled) { g_anomaly.store(enabled, std::memory_order_relaxed); }

BelowAutogradGuard::BelowAutogradGuard() : prev_grad_(t_grad_enabled), prev_fw_(t_fw_enabled) {
  t_grad_enabled = false;
  t_fw_enabled = false;
}
BelowAutogradGuard::~BelowAutogradGuard() {
  t_grad_enabled = prev_grad_;
  t_fw_enabled = prev_fw_;
}

bool forward_ad_enabled() { return t_fw_enabled && forward_ad::detail::any_level_open(); }
bool autograd_active() { return t_grad_enabled || forward_ad_enabled(); }

namespace detail {
void set_forward_ad_enabled(bool e) { t_fw_enabled = e; }
bool forward_ad_flag() { return t_fw_enabled; }
}  // namespace detail

}  // namespace autograd

InferenceMode::InferenceMode(bool enabled)
    : prev_grad_(autograd::GradMode::is_enabled()), prev_inference_(autograd::t_inference) {
  autograd::t_inference = enabled;
  detail::set_inference_mode_enabled(enabled);
  autograd::GradMode::set_enabled(!enabled && prev_grad_);
  if (!enabled) autograd::GradMode::set_enabled(true);
}
InferenceMode::~InferenceMode() {
  autograd::t_inference = prev_inference_;
  detail::set_inference_mode_enabled(prev_inference_);
  autograd::GradMode::set_enabled(prev_grad_);
}
bool InferenceMode::is_enabled() { return autograd::t_inference; }

}  // namespace ember
