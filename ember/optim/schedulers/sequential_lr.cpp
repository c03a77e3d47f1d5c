#include "ember/optim/schedulers/sequential_lr.h"

#include <algorithm>

namespace ember::optim {

SequentialLR::SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<int64_t> milestones)
    : LRScheduler(optimizer), schedulers_(std::move(schedulers)), milestones_(std::move(milestones)) {
  EMBER_CHECK(!schedulers_.empty(), "SequentialLR: expects at least one scheduler");
  for (size_t i = 0; i < schedulers_.size(); ++i)
    EMBER_CHECK(schedulers_[i] && &schedulers_[i]->optimizer_ == &optimizer_,
                "Sequential Schedulers expects all schedulers to belong to the same optimizer, but got schedulers at "
                "index ", i, " to be different than the optimizer passed in.");
  EMBER_CHECK(milestones_.size() + 1 == schedulers_.size(),
              "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
              "milestone points, but got number of schedulers ", schedulers_.size(),
              " and the number of milestones to be equal to ", milestones_.size());
  EMBER_CHECK(std::is_sorted(milestones_.begin(), milestones_.end()), "SequentialLR: milestones must be increasing");
  // The first scheduler saw the lrs before any scheduler changed them: they are every scheduler's base.
  base_lrs_ = schedulers_[0]->base_lrs_;
  epoch_ = -1, step();
}
double SequentialLR::lr_at(size_t group, double base) const {
  const size_t i = std::upper_bound(milestones_.begin(), milestones_.end(), epoch_) - milestones_.begin();
  LRScheduler& s = *schedulers_[i];
  s.epoch_ = epoch_ - (i > 0 ? milestones_[i - 1] : 0);
  return s.lr_at(group, base);
}

}  // namespace ember::optim
