#include "ember/optim/schedulers/multi_step_lr.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace ember::optim {

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {
  std::sort(milestones_.begin(), milestones_.end());
}
double MultiStepLR::lr_at(size_t, double base) const {
  const auto passed = std::upper_bound(milestones_.begin(), milestones_.end(), epoch_) - milestones_.begin();
  return base * std::pow(gamma_, double(passed));
}

}  // namespace ember::optim
