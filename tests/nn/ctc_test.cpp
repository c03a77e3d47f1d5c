// CTC loss against PyTorch (tests/golden/gen_nn_ctc.py): values and gradients (with respect to
// the logits, see the generator) for padded and
// concatenated targets, repeated labels, another blank, empty targets, inputs too short for
// their targets (zero_infinity), unbatched inputs; every reduction; errors.
#include "test_util.h"

namespace ember {
namespace {

struct CtcCase {
  const char* name;
  int64_t blank;
  bool zero_infinity;
};

TEST(CtcLoss, MatchesPyTorchValuesAndGradients) {
  const auto golden = serialize::load_file(std::string(EMBER_GOLDEN_DIR) + "/nn_ctc.safetensors").tensors;
  for (const CtcCase& c : {CtcCase{"padded", 0, false}, CtcCase{"concat", 0, false}, CtcCase{"blank_last", 3, false},
                           CtcCase{"empty_target", 0, false}, CtcCase{"too_short", 0, true},
                           CtcCase{"unbatched", 0, false}}) {
    auto get = [&](const std::string& k) { return golden.at(std::string(c.name) + "." + k); };
    for (auto [rname, r] : {std::pair<const char*, Reduction>{"none", kNone}, {"sum", kSum}, {"mean", kMean}}) {
      SCOPED_TRACE(std::string(c.name) + " " + rname);
      Tensor logits = get("logits").clone().requires_grad_();
      const Tensor loss = nn::functional::ctc_loss(logits.log_softmax(-1), get("targets"), get("input_lengths"), get("target_lengths"),
                                                   nn::functional::CTCLossFuncOptions().blank(c.blank).reduction(r).zero_infinity(c.zero_infinity));
      EXPECT_TENSOR_CLOSE(loss, get(std::string("loss_") + rname), 1e-10, 1e-10);
      const Tensor w = r == kNone ? linspace(0.5, 1.5, loss.numel(), kDouble).view(loss.sizes()) : ones({}, kDouble);
      loss.mul(w).sum().backward();
      EXPECT_TENSOR_CLOSE(logits.grad(), get(std::string("grad_") + rname), 1e-9, 1e-9);
    }
  }
}

TEST(CtcLoss, InfeasibleWithoutZeroInfinityAndModule) {
  const Tensor lp = randn({3, 1, 5}, kDouble).log_softmax(2);
  const Tensor loss = nn::functional::ctc_loss(lp, tensor({1, 2, 3, 4}).view({1, 4}), std::vector<int64_t>{3},
                                               std::vector<int64_t>{4}, 0, kNone);
  EXPECT_TRUE(std::isinf(loss.item<double>()));
  nn::CTCLoss module(nn::CTCLossOptions().reduction(kSum));
  const Tensor lp2 = randn({6, 2, 4}).log_softmax(2).requires_grad_();
  const Tensor l = module(lp2, tensor({1, 2, 3, 1}).view({2, 2}), tensor({6, 5}), tensor({2, 2}));
  EXPECT_EQ(l.scalar_type(), kFloat);
  l.backward();
  EXPECT_TRUE(lp2.grad().isfinite().all().item<bool>());
}

TEST(CtcLoss, Gradcheck) {
  const Tensor lp = randn({5, 2, 4}, kDouble).log_softmax(2).detach().requires_grad_();
  auto f = [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{nn::functional::ctc_loss(in[0], tensor({1, 2, 3, 3}).view({2, 2}),
                                                        std::vector<int64_t>{5, 4}, std::vector<int64_t>{2, 2})};
  };
  EXPECT_TRUE(autograd::gradcheck(f, {lp}));
}

TEST(CtcLoss, Errors) {
  const Tensor lp = randn({4, 2, 3}).log_softmax(2);
  const Tensor tg = tensor({1, 2, 1, 1}).view({2, 2});
  EXPECT_ERROR_WITH(nn::functional::ctc_loss(lp, tg, std::vector<int64_t>{4}, std::vector<int64_t>{2, 2}),
                    "expected input_lengths to have value for 2 batch entries, got 1");
  EXPECT_ERROR_WITH(nn::functional::ctc_loss(lp, tg, std::vector<int64_t>{5, 4}, std::vector<int64_t>{2, 2}),
                    "Expected input_lengths to have value at most 4, but got value 5");
  EXPECT_ERROR_WITH(nn::functional::ctc_loss(lp, tg, std::vector<int64_t>{4, 4}, std::vector<int64_t>{3, 2}),
                    "Expected tensor to have size at least 3 at dimension 1");
  EXPECT_ERROR_WITH(nn::functional::ctc_loss(lp, tensor({1, 0, 1, 1}).view({2, 2}), std::vector<int64_t>{4, 4},
                                             std::vector<int64_t>{2, 2}),
                    "target label 0 (batch entry 0) must be in [0, 3) and differ from the blank 0");
  EXPECT_ERROR_WITH(nn::functional::ctc_loss(lp, tg, std::vector<int64_t>{4, 4}, std::vector<int64_t>{2, 2}, 3),
                    "blank must be in label range [0, 3), got 3");
}

}  // namespace
}  // namespace ember
