// RMSprop, Adagrad and the LR schedulers against their reference formulas in double.
#include <torch/torch.h>

#include <cmath>

#include "test_util.h"

namespace {

TEST(Optim, RMSpropAndAdagradMatchTheReference) {
  for (int variant = 0; variant < 3; ++variant) {  // RMSprop plain, centered + momentum, Adagrad
    SCOPED_TRACE(variant);
    torch::Tensor p = torch::tensor({1.0, -2.0}, torch::dtype(torch::kDouble).requires_grad(true));
    std::unique_ptr<torch::optim::Optimizer> opt;
    if (variant == 0) opt = std::make_unique<torch::optim::RMSprop>(std::vector<torch::Tensor>{p}, torch::optim::RMSpropOptions(0.01).weight_decay(0.1));
    if (variant == 1) opt = std::make_unique<torch::optim::RMSprop>(std::vector<torch::Tensor>{p}, torch::optim::RMSpropOptions(0.01).centered(true).momentum(0.9));
    if (variant == 2) opt = std::make_unique<torch::optim::Adagrad>(std::vector<torch::Tensor>{p}, torch::optim::AdagradOptions(0.1).lr_decay(0.01).initial_accumulator_value(0.1));
    std::vector<double> x = {1.0, -2.0}, v(2, 0), m(2, 0), b(2, 0), s(2, 0.1);
    for (int t = 1; t <= 4; ++t) {
      opt->zero_grad();
      (p * p).sum().backward();
      opt->step();
      for (int i = 0; i < 2; ++i) {
        double g = 2 * x[i];
        if (variant == 0) {
          g += 0.1 * x[i];
          v[i] = 0.99 * v[i] + 0.01 * g * g;
          x[i] -= 0.01 * g / (std::sqrt(v[i]) + 1e-8);
        } else if (variant == 1) {
          v[i] = 0.99 * v[i] + 0.01 * g * g;
          m[i] = 0.99 * m[i] + 0.01 * g;
          double avg = std::sqrt(v[i] - m[i] * m[i]) + 1e-8;
          b[i] = 0.9 * b[i] + g / avg;
          x[i] -= 0.01 * b[i];
        } else {
          double clr = 0.1 / (1 + (t - 1) * 0.01);
          s[i] += g * g;
          x[i] -= clr * g / (std::sqrt(s[i]) + 1e-10);
        }
      }
    }
    for (int i = 0; i < 2; ++i) EXPECT_NEAR(p[i].item<double>(), x[i], 1e-12);
  }
}

TEST(Optim, SchedulersFollowTheirClosedForms) {
  torch::Tensor p = torch::ones({1}, torch::requires_grad());
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(1.0));
  torch::optim::StepLR step(opt, 2, 0.5);
  std::vector<double> seen;
  for (int e = 0; e < 5; ++e) {
    step.step();
    seen.push_back(step.get_last_lr()[0]);
  }
  EXPECT_EQ(seen, (std::vector<double>{1.0, 0.5, 0.5, 0.25, 0.25}));
  torch::optim::SGD opt2({p}, torch::optim::SGDOptions(0.1));
  torch::optim::CosineAnnealingLR cos(opt2, 10, 0.01);
  for (int e = 0; e < 5; ++e) cos.step();
  EXPECT_NEAR(cos.get_last_lr()[0], 0.01 + 0.09 * (1 + std::cos(M_PI * 5 / 10)) / 2, 1e-15);
  torch::optim::SGD opt3({p}, torch::optim::SGDOptions(0.2));
  torch::optim::MultiStepLR ms(opt3, {2, 4}, 0.1);
  for (int e = 0; e < 4; ++e) ms.step();
  EXPECT_NEAR(ms.get_last_lr()[0], 0.2 * 0.01, 1e-15);
  torch::optim::SGD opt4({p}, torch::optim::SGDOptions(0.5));
  torch::optim::LambdaLR lam(opt4, [](int64_t e) { return 1.0 / double(e + 1); });
  EXPECT_NEAR(lam.get_last_lr()[0], 0.5, 1e-15);
  lam.step();
  lam.step();
  EXPECT_NEAR(lam.get_last_lr()[0], 0.5 / 3, 1e-15);
  torch::optim::SGD opt5({p}, torch::optim::SGDOptions(1.0));
  torch::optim::ExponentialLR ex(opt5, 0.9);
  ex.step();
  ex.step();
  EXPECT_NEAR(ex.get_last_lr()[0], 0.81, 1e-15);
}

}  // namespace
