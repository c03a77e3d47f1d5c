#include "ember/optim/schedulers/lambda_lr.h"

#include <utility>

namespace ember::optim {

LambdaLR::LambdaLR(Optimizer& optimizer, std::function<double(int64_t)> lr_lambda)
    : LRScheduler(optimizer), lambda_(std::move(lr_lambda)) {
  auto& groups = optimizer_.param_groups();
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(base_lrs_[i] * lambda_(0));
}
double LambdaLR::lr_at(size_t, double base) const { return base * lambda_(epoch_); }

}  // namespace ember::optim
