// SequentialLR (torch.optim.lr_scheduler.SequentialLR): runs schedulers one after another.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "ember/optim/optimizer.h"
#include "ember/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

// Runs schedulers[i] from milestones[i-1] on, restarted at its epoch 0 there. As in PyTorch every
// scheduler starts from the optimizer's lrs before the first scheduler was built (whatever the
// later ones saw when they were built), and only the current one is stepped.
class SequentialLR : public LRScheduler {
 public:
  SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
               std::vector<int64_t> milestones);

 protected:
  // Moves the current scheduler to its own epoch and asks it.
  double lr_at(size_t group, double base_lr) const override;
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
  std::vector<int64_t> milestones_;
};

}  // namespace ember::optim
