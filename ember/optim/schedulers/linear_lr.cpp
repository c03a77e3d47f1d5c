#include "ember/optim/schedulers/linear_lr.h"

#include <algorithm>

namespace ember::optim {

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor, int64_t total_iters)
    : LRScheduler(optimizer), start_(start_factor), end_(end_factor), total_iters_(total_iters) {
  // (1.13 accepts start_factor 0 and then divides by zero on the second step.)
  EMBER_CHECK(start_factor > 0 && start_factor <= 1,
              "Starting multiplicative factor expected to be greater than 0 and less or equal to 1.");
  EMBER_CHECK(end_factor >= 0 && end_factor <= 1, "Ending multiplicative factor expected to be between 0 and 1.");
  epoch_ = -1, step();  // PyTorch's initial step: start_factor applies at epoch 0
}
double LinearLR::lr_at(size_t, double base) const {
  // (total_iters 0: PyTorch's chained form keeps start_factor.)
  const double done = total_iters_ > 0 ? double(std::min(total_iters_, epoch_)) / double(total_iters_) : 0;
  return base * (start_ + (end_ - start_) * done);
}

}  // namespace ember::optim
