#include "ember/optim/schedulers/step_lr.h"

#include <cmath>

namespace ember::optim {

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK(step_size > 0, "StepLR: step_size must be positive, got ", step_size);
}
double StepLR::lr_at(size_t, double base) const { return base * std::pow(gamma_, double(epoch_ / step_size_)); }
std::vector<double> StepLR::get_lrs() {
  ++epoch_;
  std::vector<double> lrs = get_current_lrs();
  if (step_count_ != 0 && step_count_ % uint64_t(step_size_) == 0)
    for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

}  // namespace ember::optim
