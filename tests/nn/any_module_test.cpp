// AnyValue, AnyModule and Sequential with modules of any forward signature (LibTorch's
// semantics): argument checking, defaults, return types, and errors.
#include <torch/torch.h>

#include "test_util.h"

namespace {

// A user module with a multi-argument forward returning a pair.
struct PairImpl : torch::nn::Cloneable<PairImpl> {
  PairImpl() { reset(); }
  void reset() override {}
  std::pair<torch::Tensor, double> forward(const torch::Tensor& x, double scale, const torch::Tensor& bias = {}) {
    torch::Tensor y = x.mul(scale);
    return {bias.defined() ? y.add(bias) : y, scale};
  }

 protected:
  FORWARD_HAS_DEFAULT_ARGS({2, torch::nn::AnyValue(torch::Tensor())})
};
TORCH_MODULE(Pair);

// Consumes a pair (chained after Pair in a Sequential).
struct TakeFirstImpl : torch::nn::Cloneable<TakeFirstImpl> {
  TakeFirstImpl() { reset(); }
  void reset() override {}
  torch::Tensor forward(std::pair<torch::Tensor, double> p) { return p.first.add(p.second); }
};
TORCH_MODULE(TakeFirst);

TEST(AnyModule, ForwardsAnySignature) {
  torch::nn::AnyModule pair(Pair{});
  const torch::Tensor x = torch::ones({2});
  auto [y, s] = pair.forward<std::pair<torch::Tensor, double>>(x, 3.0);
  EXPECT_TRUE(y.equal(torch::full({2}, 3.0)));
  EXPECT_EQ(s, 3.0);
  auto v = pair.any_forward(x, 2.0, torch::ones({2}));  // the optional third argument
  using Result = std::pair<torch::Tensor, double>;
  EXPECT_TRUE(v.get<Result>().first.equal(torch::full({2}, 3.0)));
  EXPECT_ERROR_WITH(pair.forward<Result>(x, 3), "expected argument #1 to be of type double, "
                    "but received a value of type int");
  EXPECT_ERROR_WITH(pair.any_forward(x, 1.0, x, x), "forward() expects at most 3 argument(s), but received 4");
  EXPECT_ERROR_WITH(pair.forward(x, 1.0), "Attempted to cast AnyValue to ember::Tensor, but its actual type is std::pair");
  // Built-in modules, including one whose forward has extra arguments (LSTM).
  torch::nn::AnyModule lin(torch::nn::Linear(3, 2));
  EXPECT_EQ(lin.forward(torch::randn({4, 3})).sizes(), torch::IntArrayRef({4, 2}));
  torch::nn::AnyModule lstm(torch::nn::LSTM(torch::nn::LSTMOptions(3, 5)));
  using LstmOut = std::tuple<torch::Tensor, std::tuple<torch::Tensor, torch::Tensor>>;
  auto out = lstm.forward<LstmOut>(torch::randn({7, 2, 3}));
  EXPECT_EQ(std::get<0>(out).sizes(), torch::IntArrayRef({7, 2, 5}));
  EXPECT_ERROR_WITH(torch::nn::AnyModule().forward(x), "Cannot call forward() on an empty AnyModule");
}

TEST(AnyModule, SequentialChainsAnyTypes) {
  torch::nn::Sequential seq(Pair{}, TakeFirst{}, torch::nn::ReLU());
  EXPECT_TRUE(seq->forward(torch::full({3}, -1.0), 2.0).equal(torch::zeros({3})));  // relu(-2 + 2)
  EXPECT_TRUE(seq->forward(torch::full({3}, 1.0), 2.0).equal(torch::full({3}, 4.0)));
  torch::nn::Sequential plain(torch::nn::Linear(3, 3), torch::nn::Sequential(torch::nn::ReLU(), torch::nn::Identity()));
  EXPECT_EQ(plain->forward(torch::randn({2, 3})).min().item<float>() >= 0, true);  // nested Sequential
  auto any = plain->forward<torch::nn::AnyValue>(torch::randn({2, 3}));
  EXPECT_EQ(any.get<torch::Tensor>().sizes(), torch::IntArrayRef({2, 3}));
  EXPECT_ERROR_WITH(seq->forward(torch::ones({3})), "forward() requires at least 2 argument(s), but received 1");
}

}  // namespace
