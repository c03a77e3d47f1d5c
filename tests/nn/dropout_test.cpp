// Dropout (ember/nn/modules/dropout.h): Dropout against its definition; AlphaDropout /
// FeatureAlphaDropout against their definition.
#include <torch/torch.h>

#include <cmath>
#include <sstream>

#include "test_util.h"

namespace {

namespace F = torch::nn::functional;

TEST(Layers, DropoutScalesAndIsIdentityInEval) {
  torch::manual_seed(0);
  torch::nn::Dropout drop(0.25);
  torch::Tensor x = torch::ones({200000});
  torch::Tensor y = drop(x);
  const double kept = y.ne(0).to(torch::kDouble).mean().item<double>();
  EXPECT_NEAR(kept, 0.75, 0.005);
  EXPECT_TRUE(y.masked_select(y.ne(0)).eq(1 / 0.75f).all().item<bool>());  // inverted dropout
  drop->eval();
  EXPECT_TRUE(drop(x).equal(x));
  EXPECT_ERROR_WITH(torch::nn::Dropout(1.5), "between 0 and 1");
  torch::Tensor c = F::dropout2d(torch::ones({4, 64, 3, 3}), 0.5, true);
  // whole channels are zero or all kept
  torch::Tensor per = c.sum({2, 3});
  EXPECT_TRUE(per.eq(0).logical_or(per.eq(18)).all().item<bool>());
  // gradient flows through the mask
  torch::Tensor w = torch::ones({1000}, torch::requires_grad());
  F::dropout(w, 0.5, true).sum().backward();
  EXPECT_TRUE(w.grad().eq(0).logical_or(w.grad().eq(2)).all().item<bool>());
}

}  // namespace

namespace ember {
namespace {

namespace F = nn::functional;

TEST(AlphaDropout, MatchesItsDefinition) {
  manual_seed(2);
  const double p = 0.3, alpha = 1.7580993408473766, a = 1 / std::sqrt((alpha * alpha * p + 1) * (1 - p));
  const Tensor x = randn({200, 500});
  nn::AlphaDropout drop(p);
  const Tensor y = drop(x);
  // kept: a * x + alpha * a * p; dropped: alpha * a * (p - 1)
  const Tensor kept = y.sub(x.mul(a).add(alpha * a * p)).abs().lt(1e-5);
  const Tensor dropped = y.sub(alpha * a * (p - 1)).abs().lt(1e-6);
  EXPECT_TRUE(kept.logical_or(dropped).all().item<bool>());
  EXPECT_NEAR(dropped.to(kDouble).mean().item<double>(), p, 0.01);
  EXPECT_NEAR(y.mean().item<double>(), 0, 0.02);  // mean and variance kept for N(0, 1) input
  EXPECT_NEAR(y.std().item<double>(), 1, 0.02);
  drop->eval();
  EXPECT_TENSOR_EQ(drop(x), x);
  EXPECT_TENSOR_EQ(F::alpha_dropout(x, F::AlphaDropoutFuncOptions().p(0.5)), x);  // training defaults to false
  EXPECT_TENSOR_EQ(F::alpha_dropout(x, 1.0, true), zeros_like(x));
  // the gradient is a on kept elements, 0 on dropped ones
  const Tensor xg = x.narrow(0, 0, 10).clone().requires_grad_();
  const Tensor yg = alpha_dropout(xg, p, true);
  const Tensor gx = autograd::grad({yg.sum()}, {xg})[0];
  EXPECT_TRUE(gx.sub(a).abs().lt(1e-6).logical_or(gx.eq(0)).all().item<bool>());
  // feature version: whole channels
  nn::FeatureAlphaDropout fdrop(nn::FeatureAlphaDropoutOptions(0.5));
  const Tensor z = fdrop(randn({8, 16, 5, 5}));
  const Tensor channel_dropped = z.sub(alpha * (1 / std::sqrt((alpha * alpha * 0.5 + 1) * 0.5)) * (0.5 - 1)).abs().lt(1e-6);
  EXPECT_TENSOR_EQ(channel_dropped.all(3).all(2), channel_dropped.any(3).any(2));
  EXPECT_ERROR_WITH(feature_alpha_dropout(randn({5}), 0.5, true), "Feature dropout requires at least 2 dimensions");
  EXPECT_ERROR_WITH(nn::AlphaDropout(1.5), "dropout probability has to be between 0 and 1, but got 1.5");
  Tensor inplace = x.clone();
  (void)F::alpha_dropout(inplace, 0.2, true, true);
  EXPECT_FALSE(inplace.equal(x));
  std::ostringstream s;
  s << *drop << " " << *fdrop;
  EXPECT_EQ(s.str(), "torch::nn::AlphaDropout(p=0.3, inplace=false) torch::nn::FeatureAlphaDropout(p=0.5, inplace=false)");
}

}  // namespace
}  // namespace ember
