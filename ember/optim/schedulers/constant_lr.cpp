#include "ember/optim/schedulers/constant_lr.h"

namespace ember::optim {

ConstantLR::ConstantLR(Optimizer& optimizer, double factor, int64_t total_iters)
    : LRScheduler(optimizer), factor_(factor), total_iters_(total_iters) {
  EMBER_CHECK(factor >= 0 && factor <= 1, "Constant multiplicative factor expected to be between 0 and 1.");
  epoch_ = -1, step();
}
double ConstantLR::lr_at(size_t, double base) const {
  // (total_iters 0: PyTorch's chained form keeps the factor.)
  return total_iters_ > 0 && epoch_ >= total_iters_ ? base : base * factor_;
}

}  // namespace ember::optim
