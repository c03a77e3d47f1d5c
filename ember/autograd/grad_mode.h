// Thread-local autograd switches: GradMode (reverse-mode recording), InferenceMode, and
// the guard ops use to run their implementation below the autograd layer.
#pragma once

namespace ember {
namespace autograd {

struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// Anomaly detection (DetectAnomalyGuard): backward checks each node's results for NaN.
struct AnomalyMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// Set while an op runs its implementation after deciding what to record: inner ops
// record nothing and propagate no tangents (Note [Below autograd]).
struct BelowAutogradGuard {
  BelowAutogradGuard();
  ~BelowAutogradGuard();
  BelowAutogradGuard(const BelowAutogradGuard&) = delete;
  BelowAutogradGuard& operator=(const BelowAutogradGuard&) = delete;

 private:
  bool prev_grad_, prev_fw_;
};

// True when forward-mode AD may apply (a dual level is open and not disabled here).
bool forward_ad_enabled();

}  // namespace autograd

using autograd::GradMode;  // torch::GradMode / c10::GradMode

// RAII guards with LibTorch's names (torch::NoGradGuard, torch::AutoGradMode, c10::InferenceMode).
struct AutoGradMode {
  explicit AutoGradMode(bool enabled) : prev_(autograd::GradMode::is_enabled()) {
    autograd::GradMode::set_enabled(enabled);
  }
  ~AutoGradMode() { autograd::GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};

// Inference mode: no recording, as NoGradGuard; `InferenceMode::is_enabled()` reports it.
// Tensors allocated inside are inference tensors (Tensor::is_inference(), views of them too;
// views of ordinary tensors stay ordinary). LibTorch's restrictions on using inference tensors
// outside the mode (in-place updates, saving for backward) are not enforced yet.
class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true);
  ~InferenceMode();
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  static bool is_enabled();

 private:
  bool prev_grad_, prev_inference_;
};

namespace autograd {
using ::ember::InferenceMode;  // torch::autograd::InferenceMode, as LibTorch's
// torch::autograd::DetectAnomalyGuard
struct DetectAnomalyGuard {
  explicit DetectAnomalyGuard(bool enabled = true) : prev_(AnomalyMode::is_enabled()) {
    AnomalyMode::set_enabled(enabled);
  }
  ~DetectAnomalyGuard() { AnomalyMode::set_enabled(prev_); }
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool prev_;
};
}  // namespace autograd

}  // namespace ember
