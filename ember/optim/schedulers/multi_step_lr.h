// MultiStepLR (torch.optim.lr_scheduler.MultiStepLR): the lrs are multiplied by gamma at
// each milestone.
#pragma once
#include <cstdint>
#include <vector>

#include "ember/optim/optimizer.h"
#include "ember/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1);

 protected:
  double lr_at(size_t, double base_lr) const override;
  std::vector<int64_t> milestones_;
  double gamma_;
};

}  // namespace ember::optim
