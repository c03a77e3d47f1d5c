// LibTorch's call forms of torch::nn::functional: F::f(x, F::FFuncOptions()...) for the
// activations, dropout, layer_norm, embedding, normalize, distances and losses, each against
// the positional call with the same arguments (and a few against values computed here), the
// inplace options, the options types LibTorch shares with the modules, and snippets written
// as in LibTorch's documentation.
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "test_util.h"

namespace {

namespace F = torch::nn::functional;
using ember::test::tensors_close;

torch::Tensor sample(std::vector<int64_t> shape, uint64_t seed = 0) {
  torch::manual_seed(seed);
  return torch::randn(shape, torch::kDouble);
}

// ---- the options types LibTorch shares between modules and functionals ----------------------
static_assert(std::is_same_v<F::ReLUFuncOptions, torch::nn::ReLUOptions>);
static_assert(std::is_same_v<F::ReLU6FuncOptions, torch::nn::ReLU6Options>);
static_assert(std::is_same_v<F::SELUFuncOptions, torch::nn::SELUOptions>);
static_assert(std::is_same_v<F::ELUFuncOptions, torch::nn::ELUOptions>);
static_assert(std::is_same_v<F::CELUFuncOptions, torch::nn::CELUOptions>);
static_assert(std::is_same_v<F::LeakyReLUFuncOptions, torch::nn::LeakyReLUOptions>);
static_assert(std::is_same_v<F::GELUFuncOptions, torch::nn::GELUOptions>);
static_assert(std::is_same_v<F::GLUFuncOptions, torch::nn::GLUOptions>);
static_assert(std::is_same_v<F::HardshrinkFuncOptions, torch::nn::HardshrinkOptions>);
static_assert(std::is_same_v<F::SoftshrinkFuncOptions, torch::nn::SoftshrinkOptions>);
static_assert(std::is_same_v<F::HardtanhFuncOptions, torch::nn::HardtanhOptions>);
static_assert(std::is_same_v<F::SoftplusFuncOptions, torch::nn::SoftplusOptions>);
static_assert(std::is_same_v<F::ThresholdFuncOptions, torch::nn::ThresholdOptions>);
static_assert(std::is_same_v<F::CosineSimilarityFuncOptions, torch::nn::CosineSimilarityOptions>);
static_assert(std::is_same_v<F::PairwiseDistanceFuncOptions, torch::nn::PairwiseDistanceOptions>);
static_assert(std::is_same_v<F::L1LossFuncOptions, torch::nn::L1LossOptions>);
static_assert(std::is_same_v<F::MSELossFuncOptions, torch::nn::MSELossOptions>);
static_assert(std::is_same_v<F::KLDivFuncOptions, torch::nn::KLDivLossOptions>);
static_assert(std::is_same_v<F::BinaryCrossEntropyFuncOptions, torch::nn::BCELossOptions>);
static_assert(std::is_same_v<F::BinaryCrossEntropyWithLogitsFuncOptions, torch::nn::BCEWithLogitsLossOptions>);
static_assert(std::is_same_v<F::HingeEmbeddingLossFuncOptions, torch::nn::HingeEmbeddingLossOptions>);
static_assert(std::is_same_v<F::MultiMarginLossFuncOptions, torch::nn::MultiMarginLossOptions>);
static_assert(std::is_same_v<F::CosineEmbeddingLossFuncOptions, torch::nn::CosineEmbeddingLossOptions>);
static_assert(std::is_same_v<F::MultilabelMarginLossFuncOptions, torch::nn::MultiLabelMarginLossOptions>);
static_assert(std::is_same_v<F::SoftMarginLossFuncOptions, torch::nn::SoftMarginLossOptions>);
static_assert(std::is_same_v<F::MultilabelSoftMarginLossFuncOptions, torch::nn::MultiLabelSoftMarginLossOptions>);
static_assert(std::is_same_v<F::TripletMarginLossFuncOptions, torch::nn::TripletMarginLossOptions>);
static_assert(std::is_same_v<F::TripletMarginWithDistanceLossFuncOptions,
                             torch::nn::TripletMarginWithDistanceLossOptions>);
static_assert(std::is_same_v<F::SmoothL1LossFuncOptions, torch::nn::SmoothL1LossOptions>);
static_assert(std::is_same_v<F::HuberLossFuncOptions, torch::nn::HuberLossOptions>);
static_assert(std::is_same_v<F::PoissonNLLLossFuncOptions, torch::nn::PoissonNLLLossOptions>);
static_assert(std::is_same_v<F::MarginRankingLossFuncOptions, torch::nn::MarginRankingLossOptions>);
static_assert(std::is_same_v<F::NLLLossFuncOptions, torch::nn::NLLLossOptions>);
static_assert(std::is_same_v<F::CrossEntropyFuncOptions, torch::nn::CrossEntropyLossOptions>);
static_assert(std::is_same_v<F::Dropout2dFuncOptions, F::DropoutFuncOptions>);
static_assert(std::is_same_v<F::Dropout3dFuncOptions, F::DropoutFuncOptions>);
static_assert(std::is_same_v<torch::nn::Dropout2dOptions, torch::nn::DropoutOptions>);
static_assert(std::is_same_v<torch::nn::Dropout3dOptions, torch::nn::DropoutOptions>);
// ... and the ones it keeps apart (the functional's has more fields).
static_assert(!std::is_same_v<F::SoftmaxFuncOptions, torch::nn::SoftmaxOptions>);
static_assert(!std::is_same_v<F::LogSoftmaxFuncOptions, torch::nn::LogSoftmaxOptions>);
static_assert(!std::is_same_v<F::SoftminFuncOptions, torch::nn::SoftminOptions>);
static_assert(!std::is_same_v<F::LayerNormFuncOptions, torch::nn::LayerNormOptions>);
static_assert(!std::is_same_v<F::DropoutFuncOptions, torch::nn::DropoutOptions>);
static_assert(!std::is_same_v<F::RReLUFuncOptions, torch::nn::RReLUOptions>);
// The implicit conversions LibTorch's options have.
static_assert(std::is_convertible_v<bool, F::ReLUFuncOptions>);
static_assert(std::is_convertible_v<double, F::HardshrinkFuncOptions>);
static_assert(std::is_convertible_v<int64_t, F::SoftmaxFuncOptions>);
static_assert(std::is_convertible_v<std::vector<int64_t>, F::LayerNormFuncOptions>);
static_assert(std::is_convertible_v<torch::Reduction, F::MSELossFuncOptions>);
static_assert(std::is_convertible_v<torch::Reduction, F::KLDivFuncOptions>);
static_assert(!std::is_convertible_v<double, F::LeakyReLUFuncOptions>);

TEST(FuncOptionsTypes, Defaults) {
  EXPECT_FALSE(F::ReLUFuncOptions().inplace());
  EXPECT_EQ(F::LeakyReLUFuncOptions().negative_slope(), 1e-2);
  EXPECT_EQ(F::ELUFuncOptions().alpha(), 1.0);
  EXPECT_EQ(F::RReLUFuncOptions().lower(), 1.0 / 8.0);
  EXPECT_EQ(F::RReLUFuncOptions().upper(), 1.0 / 3.0);
  EXPECT_FALSE(F::RReLUFuncOptions().training());
  EXPECT_EQ(F::GLUFuncOptions().dim(), -1);
  EXPECT_EQ(F::GELUFuncOptions().approximate(), "none");
  EXPECT_EQ(F::SoftplusFuncOptions().threshold(), 20.0);
  EXPECT_FALSE(F::SoftmaxFuncOptions(1).dtype().has_value());
  EXPECT_EQ(F::GumbelSoftmaxFuncOptions().tau(), 1.0);
  EXPECT_EQ(F::GumbelSoftmaxFuncOptions().dim(), -1);
  EXPECT_EQ(F::DropoutFuncOptions().p(), 0.5);
  EXPECT_TRUE(F::DropoutFuncOptions().training());
  EXPECT_EQ(F::LayerNormFuncOptions({3}).eps(), 1e-5);
  EXPECT_FALSE(F::LayerNormFuncOptions({3}).weight().defined());
  EXPECT_EQ(F::EmbeddingFuncOptions().norm_type(), 2.0);
  EXPECT_FALSE(F::EmbeddingFuncOptions().padding_idx().has_value());
  EXPECT_EQ(F::NormalizeFuncOptions().dim(), 1);
  EXPECT_EQ(F::NormalizeFuncOptions().eps(), 1e-12);
  EXPECT_EQ(F::CosineSimilarityFuncOptions().eps(), 1e-8);
  EXPECT_EQ(F::PairwiseDistanceFuncOptions().eps(), 1e-6);
  EXPECT_EQ(F::CrossEntropyFuncOptions().ignore_index(), -100);
  EXPECT_EQ(F::CrossEntropyFuncOptions().reduction(), torch::kMean);
  EXPECT_EQ(F::KLDivFuncOptions(torch::kBatchMean).reduction(), torch::kBatchMean);
  EXPECT_EQ(F::MSELossFuncOptions(torch::kSum).reduction(), torch::kSum);
  EXPECT_EQ(F::PoissonNLLLossFuncOptions().eps(), 1e-8);
  EXPECT_EQ(F::TripletMarginWithDistanceLossFuncOptions().margin(), 1.0);
  EXPECT_FALSE(F::TripletMarginWithDistanceLossFuncOptions().distance_function().has_value());
}

// ---- activations ------------------------------------------------------------------------------
TEST(FuncOptionsActivations, AgainstPositional) {
  const torch::Tensor x = sample({4, 6});
  EXPECT_TENSOR_EQ(F::relu(x), torch::relu(x));
  EXPECT_TENSOR_EQ(F::relu(x, F::ReLUFuncOptions()), torch::relu(x));
  EXPECT_TENSOR_EQ(F::relu6(x, F::ReLU6FuncOptions()), torch::relu6(x));
  EXPECT_TENSOR_EQ(F::selu(x, F::SELUFuncOptions()), torch::selu(x));
  EXPECT_TENSOR_EQ(F::elu(x, F::ELUFuncOptions().alpha(0.5)), F::elu(x, 0.5));
  EXPECT_TENSOR_EQ(F::elu(x), torch::elu(x));
  EXPECT_TENSOR_EQ(F::celu(x, F::CELUFuncOptions().alpha(2.0)), F::celu(x, 2.0));
  EXPECT_TENSOR_EQ(F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2)), F::leaky_relu(x, 0.2));
  EXPECT_TENSOR_EQ(F::leaky_relu(x), torch::leaky_relu(x, 0.01));
  EXPECT_TENSOR_EQ(F::hardtanh(x, F::HardtanhFuncOptions().min_val(-0.5).max_val(2.0)), F::hardtanh(x, -0.5, 2.0));
  EXPECT_TENSOR_EQ(F::hardshrink(x, F::HardshrinkFuncOptions().lambda(0.3)), F::hardshrink(x, 0.3));
  EXPECT_TENSOR_EQ(F::hardshrink(x), torch::hardshrink(x, 0.5));
  EXPECT_TENSOR_EQ(F::softshrink(x, F::SoftshrinkFuncOptions(0.3)), F::softshrink(x, 0.3));
  EXPECT_TENSOR_EQ(F::softplus(x, F::SoftplusFuncOptions().beta(2.0).threshold(1.5)), F::softplus(x, 2.0, 1.5));
  EXPECT_TENSOR_EQ(F::threshold(x, F::ThresholdFuncOptions(0.25, -3.0)), F::threshold(x, 0.25, -3.0));
  EXPECT_TENSOR_EQ(F::gelu(x, F::GELUFuncOptions().approximate("tanh")), F::gelu(x, "tanh"));
  EXPECT_TENSOR_EQ(F::gelu(x), torch::gelu(x));
  EXPECT_TENSOR_EQ(F::glu(x, F::GLUFuncOptions(0)), F::glu(x, 0));
  EXPECT_TENSOR_EQ(F::glu(x), F::glu(x, -1));
  EXPECT_TENSOR_EQ(F::softmax(x, F::SoftmaxFuncOptions(0)), F::softmax(x, 0));
  EXPECT_TENSOR_EQ(F::log_softmax(x, F::LogSoftmaxFuncOptions(1)), F::log_softmax(x, 1));
  EXPECT_TENSOR_EQ(F::softmin(x, F::SoftminFuncOptions(1)), F::softmin(x, 1));
  // the options without a LibTorch struct keep their one form
  EXPECT_TENSOR_EQ(F::silu(x), torch::silu(x));
  EXPECT_TENSOR_EQ(F::mish(x), torch::mish(x));
  EXPECT_TENSOR_CLOSE(F::logsigmoid(x), torch::softplus(x.neg()).neg());  // log sigmoid(x) = -softplus(-x)
}

TEST(FuncOptionsActivations, Values) {
  const torch::Tensor x = torch::linspace(-3, 3, 13, torch::kDouble);
  const torch::Tensor zero = torch::zeros_like(x);
  EXPECT_TENSOR_CLOSE(F::elu(x, F::ELUFuncOptions().alpha(0.5)), torch::where(x > 0, x, (x.exp() - 1) * 0.5));
  EXPECT_TENSOR_CLOSE(F::celu(x, F::CELUFuncOptions().alpha(2.0)),
                      torch::maximum(x, zero) + torch::minimum(zero, ((x / 2).exp() - 1) * 2));
  EXPECT_TENSOR_CLOSE(F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2)), torch::where(x > 0, x, x * 0.2));
  EXPECT_TENSOR_CLOSE(F::hardtanh(x, F::HardtanhFuncOptions().min_val(-0.5).max_val(2.0)), x.clamp(-0.5, 2.0));
  EXPECT_TENSOR_CLOSE(F::threshold(x, F::ThresholdFuncOptions(0.5, -2.0)),
                      torch::where(x > 0.5, x, torch::full_like(x, -2.0)));
  EXPECT_TENSOR_CLOSE(F::hardshrink(x, F::HardshrinkFuncOptions(1.5)), torch::where(x.abs() > 1.5, x, zero));
  EXPECT_TENSOR_CLOSE(F::softplus(x, F::SoftplusFuncOptions().beta(2.0)), ((x * 2).exp() + 1).log() / 2);
  const torch::Tensor m = sample({3, 5});
  EXPECT_TENSOR_CLOSE(F::softmin(m, F::SoftminFuncOptions(1)), (-m).exp() / (-m).exp().sum(1, true));
  const torch::Tensor g = sample({3, 4});
  EXPECT_TENSOR_CLOSE(F::glu(g, F::GLUFuncOptions(1)), g.slice(1, 0, 2) * g.slice(1, 2, 4).sigmoid());
}

TEST(FuncOptionsActivations, SoftmaxDtype) {
  const torch::Tensor x = sample({3, 4}).to(torch::kFloat);
  const torch::Tensor s = F::softmax(x, F::SoftmaxFuncOptions(1).dtype(torch::kDouble));
  EXPECT_EQ(s.scalar_type(), torch::kDouble);
  EXPECT_TENSOR_EQ(s, F::softmax(x, 1, torch::kDouble));
  EXPECT_TENSOR_EQ(F::log_softmax(x, F::LogSoftmaxFuncOptions(0).dtype(torch::kDouble)),
                   torch::log_softmax(x, 0, torch::kDouble));
  EXPECT_TENSOR_EQ(F::softmin(x, F::SoftminFuncOptions(1).dtype(torch::kDouble)),
                   torch::softmax(-x, 1, torch::kDouble));
}

// Each inplace option writes the result into its input (the same tensor comes back), with the
// values and input gradients of the out-of-place call.
TEST(FuncOptionsActivations, Inplace) {
  using Fn = std::function<torch::Tensor(torch::Tensor, bool)>;
  const std::vector<std::pair<std::string, Fn>> fns = {
      {"relu", [](torch::Tensor t, bool ip) { return F::relu(t, F::ReLUFuncOptions().inplace(ip)); }},
      {"relu6", [](torch::Tensor t, bool ip) { return F::relu6(t * 4, F::ReLU6FuncOptions().inplace(ip)); }},
      {"selu", [](torch::Tensor t, bool ip) { return F::selu(t, F::SELUFuncOptions(ip)); }},
      {"elu", [](torch::Tensor t, bool ip) { return F::elu(t, F::ELUFuncOptions().alpha(0.5).inplace(ip)); }},
      {"celu", [](torch::Tensor t, bool ip) { return F::celu(t, F::CELUFuncOptions().alpha(2.0).inplace(ip)); }},
      {"leaky_relu",
       [](torch::Tensor t, bool ip) {
         return F::leaky_relu(t, F::LeakyReLUFuncOptions().negative_slope(0.2).inplace(ip));
       }},
      {"hardtanh",
       [](torch::Tensor t, bool ip) {
         return F::hardtanh(t, F::HardtanhFuncOptions().min_val(-0.5).max_val(0.7).inplace(ip));
       }},
      {"threshold",
       [](torch::Tensor t, bool ip) { return F::threshold(t, F::ThresholdFuncOptions(0.1, -2.0).inplace(ip)); }},
      {"rrelu_eval",
       [](torch::Tensor t, bool ip) { return F::rrelu(t, F::RReLUFuncOptions().lower(0.1).upper(0.3).inplace(ip)); }},
  };
  for (const auto& [name, fn] : fns) {
    SCOPED_TRACE(name);
    const torch::Tensor x = sample({5, 4}, 3);
    // values: the input is the result afterwards
    torch::Tensor y = x.clone() * 1;
    torch::Tensor expect = fn(x.clone(), false);
    torch::Tensor got = fn(y, true);
    EXPECT_TENSOR_EQ(got, expect);
    if (name != "relu6") {  // relu6's input here is the temporary t * 4
      EXPECT_EQ(got.data_ptr(), y.data_ptr());
      EXPECT_TENSOR_EQ(y, expect);
    }
    // gradients through the in-place op on a non-leaf
    torch::Tensor a = x.clone().requires_grad_(), b = x.clone().requires_grad_();
    fn(a.mul(1.5), true).mul(torch::arange(20, torch::kDouble).view({5, 4})).sum().backward();
    fn(b.mul(1.5), false).mul(torch::arange(20, torch::kDouble).view({5, 4})).sum().backward();
    EXPECT_TENSOR_CLOSE(a.grad(), b.grad());
  }
}

TEST(FuncOptionsActivations, RReLU) {
  const torch::Tensor x = sample({200});
  // evaluation: the mean slope
  EXPECT_TENSOR_CLOSE(F::rrelu(x, F::RReLUFuncOptions().lower(0.1).upper(0.3)), F::leaky_relu(x, 0.2));
  EXPECT_TENSOR_CLOSE(F::rrelu(x), F::leaky_relu(x, (1.0 / 8 + 1.0 / 3) / 2));
  // training: positives kept, each negative scaled by its own slope in [lower, upper]
  const torch::Tensor y = F::rrelu(x, F::RReLUFuncOptions().lower(0.1).upper(0.3).training(true));
  EXPECT_TENSOR_EQ(torch::where(x > 0, y, zeros_like(y)), torch::where(x > 0, x, zeros_like(x)));
  const torch::Tensor ratio = y.masked_select(x < 0) / x.masked_select(x < 0);
  EXPECT_GE(ratio.min().item<double>(), 0.1);
  EXPECT_LE(ratio.max().item<double>(), 0.3);
  EXPECT_GT(ratio.std().item<double>(), 0.01);  // not one slope
  // its gradient is the slope drawn
  torch::Tensor a = x.clone().requires_grad_();
  torch::Tensor out = F::rrelu(a, F::RReLUFuncOptions().training(true));
  out.sum().backward();
  EXPECT_TENSOR_CLOSE(a.grad(), torch::where(x > 0, torch::ones_like(x), out.detach() / x));
  EXPECT_ERROR_WITH(F::rrelu(x, F::RReLUFuncOptions().lower(0.5).upper(0.1)), "lower bound");
}

TEST(FuncOptionsActivations, GumbelSoftmax) {
  const torch::Tensor logits = sample({4, 5});
  torch::manual_seed(7);
  const torch::Tensor e = torch::empty_like(logits).exponential_();
  const torch::Tensor expect = torch::softmax((logits - e.log()) / 0.5, 1);
  torch::manual_seed(7);
  const torch::Tensor soft = F::gumbel_softmax(logits, F::GumbelSoftmaxFuncOptions().tau(0.5).dim(1));
  EXPECT_TENSOR_CLOSE(soft, expect);
  torch::manual_seed(7);
  torch::Tensor l = logits.clone().requires_grad_();
  const torch::Tensor hard = F::gumbel_softmax(l, F::GumbelSoftmaxFuncOptions().tau(0.5).hard(true));
  const torch::Tensor one_hot =
      torch::zeros_like(expect).scatter(1, std::get<1>(expect.max(1, true)), 1.0);
  EXPECT_TENSOR_CLOSE(hard, one_hot);
  // straight-through: the gradient is the soft sample's
  hard.mul(torch::arange(20, torch::kDouble).view({4, 5})).sum().backward();
  torch::Tensor l2 = logits.clone().requires_grad_();
  torch::softmax((l2 - e.log()) / 0.5, 1).mul(torch::arange(20, torch::kDouble).view({4, 5})).sum().backward();
  EXPECT_TENSOR_CLOSE(l.grad(), l2.grad());
}

// ---- dropout, layer_norm, embedding, normalize ---------------------------------------------
TEST(FuncOptionsLayers, Dropout) {
  const torch::Tensor x = sample({8, 6, 3, 2}) + 2;
  const auto seeded = [](auto f) {
    torch::manual_seed(11);
    return f();
  };
  EXPECT_TENSOR_EQ(seeded([&] { return F::dropout(x, F::DropoutFuncOptions().p(0.3)); }),
                   seeded([&] { return F::dropout(x, 0.3, true); }));
  EXPECT_TENSOR_EQ(seeded([&] { return F::dropout(x); }), seeded([&] { return F::dropout(x, 0.5); }));
  EXPECT_TENSOR_EQ(F::dropout(x, F::DropoutFuncOptions().p(0.9).training(false)), x);
  EXPECT_TENSOR_EQ(seeded([&] { return F::dropout2d(x, F::Dropout2dFuncOptions().p(0.4)); }),
                   seeded([&] { return F::dropout2d(x, 0.4, true); }));
  EXPECT_TENSOR_EQ(seeded([&] { return F::dropout3d(x.unsqueeze(2), F::Dropout3dFuncOptions().p(0.4)); }),
                   seeded([&] { return F::dropout3d(x.unsqueeze(2), 0.4, true); }));
  // inplace: the input holds the result
  torch::Tensor y = x.clone();
  const torch::Tensor expect = seeded([&] { return F::dropout(x, 0.3, true); });
  const torch::Tensor got = seeded([&] { return F::dropout(y, F::DropoutFuncOptions().p(0.3).inplace(true)); });
  EXPECT_EQ(got.data_ptr(), y.data_ptr());
  EXPECT_TENSOR_EQ(y, expect);
  torch::Tensor y2 = x.clone();
  seeded([&] { return F::dropout2d(y2, F::Dropout2dFuncOptions().p(0.3).inplace(true)); });
  EXPECT_TENSOR_EQ(y2, seeded([&] { return F::dropout2d(x, 0.3, true); }));
}

TEST(FuncOptionsLayers, Dropout3dChannels) {
  // batched (N, C, D, H, W): whole (n, c) volumes are dropped; unbatched (C, D, H, W): whole c
  const torch::Tensor x = torch::ones({4, 8, 2, 3, 2}, torch::kDouble);
  torch::manual_seed(5);
  const torch::Tensor y = F::dropout3d(x, F::Dropout3dFuncOptions().p(0.5));
  const torch::Tensor per_channel = y.flatten(2);
  EXPECT_TENSOR_EQ(per_channel.amax(2), per_channel.amin(2));
  EXPECT_TRUE(torch::logical_or(per_channel.eq(0), per_channel.eq(2)).all().item<bool>());
  const torch::Tensor u = F::dropout3d(x[0], F::Dropout3dFuncOptions().p(0.5)).flatten(1);
  EXPECT_TENSOR_EQ(u.amax(1), u.amin(1));
  EXPECT_TENSOR_EQ(F::dropout3d(x, F::Dropout3dFuncOptions().training(false)), x);
}

TEST(FuncOptionsLayers, LayerNorm) {
  const torch::Tensor x = sample({3, 2, 4}), w = sample({4}, 1), b = sample({4}, 2);
  const torch::Tensor got = F::layer_norm(x, F::LayerNormFuncOptions({4}).eps(1e-3).weight(w).bias(b));
  EXPECT_TENSOR_EQ(got, F::layer_norm(x, {4}, w, b, 1e-3));
  const torch::Tensor mean = x.mean(-1, true), var = (x - mean).pow(2).mean(-1, true);
  EXPECT_TENSOR_CLOSE(got, (x - mean) / (var + 1e-3).sqrt() * w + b);
  EXPECT_TENSOR_EQ(F::layer_norm(x, F::LayerNormFuncOptions({2, 4})), F::layer_norm(x, {2, 4}));
  EXPECT_ERROR_WITH(F::layer_norm(x, F::LayerNormFuncOptions({3})), "expected input with shape");
}

TEST(FuncOptionsLayers, Embedding) {
  const torch::Tensor idx = torch::tensor(std::vector<int64_t>{0, 2, 0, 3, 1}).view({5});
  const torch::Tensor w0 = sample({4, 3});
  torch::Tensor w = w0.clone().requires_grad_();
  const torch::Tensor got = F::embedding(idx, w, F::EmbeddingFuncOptions().padding_idx(0));
  EXPECT_TENSOR_EQ(got, F::embedding(idx, w, 0));
  EXPECT_TENSOR_EQ(got, w0.index_select(0, idx));
  got.sum().backward();
  EXPECT_TENSOR_EQ(w.grad(), torch::tensor({0.0, 1.0, 1.0, 1.0}, torch::kDouble).view({4, 1}).expand({4, 3}));
  // a negative padding_idx counts from the end
  torch::Tensor w2 = w0.clone().requires_grad_();
  F::embedding(idx, w2, F::EmbeddingFuncOptions().padding_idx(-1)).sum().backward();
  EXPECT_TENSOR_EQ(w2.grad(), torch::tensor({2.0, 1.0, 1.0, 0.0}, torch::kDouble).view({4, 1}).expand({4, 3}));
  EXPECT_ERROR_WITH(F::embedding(idx, w0, F::EmbeddingFuncOptions().padding_idx(4)), "Padding_idx");
  // max_norm renormalizes the referenced rows of weight in place (row 3 unreferenced: kept)
  torch::Tensor wa = w0.clone() * 3, wb = w0.clone() * 3;
  const torch::Tensor ref = torch::tensor(std::vector<int64_t>{0, 1, 1});
  const torch::Tensor r = F::embedding(ref, wa, F::EmbeddingFuncOptions().max_norm(1.0).norm_type(1.0));
  EXPECT_TENSOR_EQ(r, F::embedding(ref, wb, std::nullopt, 1.0, 1.0));
  EXPECT_TENSOR_EQ(wa, wb);
  EXPECT_LE(wa.slice(0, 0, 2).abs().sum(1).max().item<double>(), 1.0 + 1e-6);
  EXPECT_TENSOR_EQ(wa.slice(0, 2, 4), w0.slice(0, 2, 4) * 3);
  // scale_grad_by_freq: each row's gradient divided by its index's count
  torch::Tensor ws = w0.clone().requires_grad_();
  F::embedding(idx, ws, F::EmbeddingFuncOptions().scale_grad_by_freq(true).sparse(true)).sum().backward();
  EXPECT_TENSOR_CLOSE(ws.grad(), torch::ones({4, 3}, torch::kDouble));
  torch::Tensor wp = w0.clone().requires_grad_();
  F::embedding(idx, wp, std::nullopt, std::nullopt, 2.0, /*scale_grad_by_freq=*/true).sum().backward();
  EXPECT_TENSOR_EQ(wp.grad(), ws.grad());
}

TEST(FuncOptionsLayers, Normalize) {
  const torch::Tensor x = sample({3, 5});
  const torch::Tensor got = F::normalize(x, F::NormalizeFuncOptions().p(1).dim(-1).eps(1e-3));
  EXPECT_TENSOR_EQ(got, F::normalize(x, 1.0, -1, 1e-3));
  EXPECT_TENSOR_CLOSE(got, x / x.abs().sum(-1, true).clamp_min(1e-3));
  EXPECT_TENSOR_EQ(F::normalize(x), F::normalize(x, 2.0, 1, 1e-12));
  torch::Tensor out = torch::empty({0}, torch::kDouble);
  const torch::Tensor r = F::normalize(x, F::NormalizeFuncOptions().dim(0).out(out));
  EXPECT_TENSOR_CLOSE(out, F::normalize(x, 2.0, 0));
  EXPECT_EQ(r.data_ptr(), out.data_ptr());
}

TEST(FuncOptionsLayers, LinearAndDistances) {
  const torch::Tensor x = sample({4, 3}), y = sample({4, 3}, 1), w = sample({2, 3}, 2), b = sample({2}, 3);
  EXPECT_TENSOR_CLOSE(F::linear(x, w, b), x.matmul(w.t()) + b);
  EXPECT_TENSOR_CLOSE(F::linear(x, w), x.matmul(w.t()));
  const torch::Tensor w3 = sample({2, 3, 3}, 4);
  EXPECT_TENSOR_CLOSE(F::bilinear(x, y, w3, b), torch::einsum("bi,oij,bj->bo", {x, w3, y}) + b);
  EXPECT_TENSOR_EQ(F::pairwise_distance(x, y, F::PairwiseDistanceFuncOptions().p(1).eps(1e-3).keepdim(true)),
                   F::pairwise_distance(x, y, 1.0, 1e-3, true));
  EXPECT_TENSOR_CLOSE(F::pairwise_distance(x, y, F::PairwiseDistanceFuncOptions().p(1)),
                      (x - y + 1e-6).abs().sum(-1));
  EXPECT_TENSOR_EQ(F::pairwise_distance(x, y), F::pairwise_distance(x, y, 2.0));
  EXPECT_TENSOR_EQ(F::cosine_similarity(x, y, F::CosineSimilarityFuncOptions().dim(0).eps(1e-4)),
                   F::cosine_similarity(x, y, 0, 1e-4));
  EXPECT_TENSOR_CLOSE(F::cosine_similarity(x, y, F::CosineSimilarityFuncOptions().dim(1)),
                      (x * y).sum(1) / (x.norm(2, 1) * y.norm(2, 1)));
  EXPECT_TENSOR_EQ(F::cosine_similarity(x, y), F::cosine_similarity(x, y, 1));
  // pdist: the upper triangle of the distance matrix, row by row
  const torch::Tensor d = F::pdist(x, 3.0);
  std::vector<double> expect;
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = i + 1; j < 4; ++j) expect.push_back((x[i] - x[j]).abs().pow(3).sum().pow(1.0 / 3).item<double>());
  EXPECT_TENSOR_CLOSE(d, torch::tensor(expect, torch::kDouble));
  EXPECT_EQ(F::pdist(x).numel(), 6);
}

// ---- losses -----------------------------------------------------------------------------------
TEST(FuncOptionsLosses, Regression) {
  const torch::Tensor x = sample({4, 5}), t = sample({4, 5}, 1);
  EXPECT_TENSOR_EQ(F::mse_loss(x, t, F::MSELossFuncOptions(torch::kSum)), F::mse_loss(x, t, torch::kSum));
  EXPECT_TENSOR_EQ(F::mse_loss(x, t, F::MSELossFuncOptions().reduction(torch::kNone)), (x - t).pow(2));
  EXPECT_TENSOR_EQ(F::mse_loss(x, t), F::mse_loss(x, t, torch::kMean));
  EXPECT_TENSOR_EQ(F::l1_loss(x, t, F::L1LossFuncOptions(torch::kSum)), F::l1_loss(x, t, torch::kSum));
  EXPECT_TENSOR_CLOSE(F::l1_loss(x, t, F::L1LossFuncOptions(torch::kSum)), (x - t).abs().sum());
  EXPECT_TENSOR_EQ(F::l1_loss(x, t), F::l1_loss(x, t, torch::kMean));
  EXPECT_TENSOR_EQ(F::smooth_l1_loss(x, t, F::SmoothL1LossFuncOptions(torch::kSum).beta(0.5)),
                   F::smooth_l1_loss(x, t, torch::kSum, 0.5));
  // LibTorch 1.13's extra beta argument
  EXPECT_TENSOR_EQ(F::smooth_l1_loss(x, t, F::SmoothL1LossFuncOptions(torch::kNone), 0.5),
                   F::smooth_l1_loss(x, t, torch::kNone, 0.5));
  const torch::Tensor d = (x - t).abs();
  EXPECT_TENSOR_CLOSE(F::smooth_l1_loss(x, t, F::SmoothL1LossFuncOptions(torch::kNone).beta(0.5)),
                      torch::where(d < 0.5, d.pow(2) * 0.5 / 0.5, d - 0.25));
  EXPECT_TENSOR_EQ(F::smooth_l1_loss(x, t), F::smooth_l1_loss(x, t, torch::kMean));
  EXPECT_TENSOR_EQ(F::huber_loss(x, t, F::HuberLossFuncOptions().reduction(torch::kSum).delta(0.3)),
                   F::huber_loss(x, t, torch::kSum, 0.3));
  EXPECT_TENSOR_CLOSE(F::huber_loss(x, t, F::HuberLossFuncOptions(torch::kNone).delta(0.3)),
                      torch::where(d < 0.3, d.pow(2) * 0.5, (d - 0.15) * 0.3));
  EXPECT_TENSOR_EQ(F::huber_loss(x, t), F::huber_loss(x, t, torch::kMean));
  const torch::Tensor rate = sample({4, 5}, 2).abs() + 0.1, counts = (rate * 3).round();
  EXPECT_TENSOR_EQ(F::poisson_nll_loss(rate, counts,
                                       F::PoissonNLLLossFuncOptions().log_input(false).full(true).eps(1e-4).reduction(
                                           torch::kSum)),
                   F::poisson_nll_loss(rate, counts, false, true, 1e-4, torch::kSum));
  EXPECT_TENSOR_EQ(F::poisson_nll_loss(x, counts), F::poisson_nll_loss(x, counts, true));
  EXPECT_TENSOR_CLOSE(F::poisson_nll_loss(x, counts, F::PoissonNLLLossFuncOptions().reduction(torch::kNone)),
                      x.exp() - counts * x);
}

TEST(FuncOptionsLosses, Classification) {
  const torch::Tensor x = sample({6, 4});
  const torch::Tensor target = torch::tensor(std::vector<int64_t>{0, 3, 1, 1, 2, 3});
  const torch::Tensor w = sample({4}, 1).abs() + 0.5;
  EXPECT_TENSOR_EQ(
      F::cross_entropy(x, target,
                       F::CrossEntropyFuncOptions().weight(w).ignore_index(1).reduction(torch::kSum).label_smoothing(
                           0.1)),
      F::cross_entropy(x, target, w, 1, torch::kSum, 0.1));
  EXPECT_TENSOR_EQ(F::cross_entropy(x, target), F::cross_entropy(x, target, {}, -100, torch::kMean, 0.0));
  // against -log_softmax at the targets, the ignored ones left out
  const torch::Tensor picked = -torch::log_softmax(x, 1).gather(1, target.unsqueeze(1)).squeeze(1);
  EXPECT_NEAR(F::cross_entropy(x, target, F::CrossEntropyFuncOptions().ignore_index(1).reduction(torch::kSum))
                  .item<double>(),
              picked.masked_select(target != 1).sum().item<double>(), 1e-12);
  const torch::Tensor lp = torch::log_softmax(x, 1);
  EXPECT_TENSOR_EQ(F::nll_loss(lp, target, F::NLLLossFuncOptions().weight(w).ignore_index(3).reduction(torch::kNone)),
                   F::nll_loss(lp, target, w, 3, torch::kNone));
  EXPECT_TENSOR_EQ(F::nll_loss(lp, target), F::nll_loss(lp, target, {}, -100, torch::kMean));
  const torch::Tensor p = torch::sigmoid(x), y = (sample({6, 4}, 2) > 0).to(torch::kDouble);
  const torch::Tensor wb = sample({6, 4}, 3).abs();
  EXPECT_TENSOR_EQ(F::binary_cross_entropy(p, y, F::BinaryCrossEntropyFuncOptions().weight(wb).reduction(torch::kSum)),
                   F::binary_cross_entropy(p, y, wb, torch::kSum));
  EXPECT_TENSOR_CLOSE(F::binary_cross_entropy(p, y, F::BinaryCrossEntropyFuncOptions().reduction(torch::kNone)),
                      -(y * p.log() + (1 - y) * (1 - p).log()));
  EXPECT_TENSOR_EQ(F::binary_cross_entropy(p, y), F::binary_cross_entropy(p, y, {}, torch::kMean));
  const torch::Tensor pw = sample({4}, 4).abs();
  EXPECT_TENSOR_EQ(
      F::binary_cross_entropy_with_logits(
          x, y, F::BinaryCrossEntropyWithLogitsFuncOptions().weight(wb).pos_weight(pw).reduction(torch::kNone)),
      F::binary_cross_entropy_with_logits(x, y, wb, torch::kNone, pw));
  EXPECT_TENSOR_EQ(F::binary_cross_entropy_with_logits(x, y),
                   F::binary_cross_entropy_with_logits(x, y, torch::Tensor()));
  const torch::Tensor lq = torch::log_softmax(sample({6, 4}, 5), 1), pt = torch::softmax(sample({6, 4}, 6), 1);
  EXPECT_TENSOR_EQ(F::kl_div(lq, pt.log(), F::KLDivFuncOptions(torch::kBatchMean).log_target(true)),
                   F::kl_div(lq, pt.log(), torch::kBatchMean, true));
  EXPECT_NEAR(F::kl_div(lq, pt, F::KLDivFuncOptions().reduction(torch::kBatchMean)).item<double>(),
              (pt * (pt.log() - lq)).sum().item<double>() / 6, 1e-12);
  EXPECT_TENSOR_EQ(F::kl_div(lq, pt), F::kl_div(lq, pt, torch::kMean));
}

TEST(FuncOptionsLosses, Margin) {
  const torch::Tensor x = sample({5, 4});
  const torch::Tensor sign = torch::where(sample({5, 4}, 1) > 0, torch::ones({5, 4}, torch::kDouble),
                                          -torch::ones({5, 4}, torch::kDouble));
  EXPECT_TENSOR_EQ(F::soft_margin_loss(x, sign, F::SoftMarginLossFuncOptions(torch::kSum)),
                   F::soft_margin_loss(x, sign, torch::kSum));
  EXPECT_TENSOR_CLOSE(F::soft_margin_loss(x, sign, F::SoftMarginLossFuncOptions(torch::kNone)),
                      (1 + (-sign * x).exp()).log());
  EXPECT_TENSOR_EQ(F::soft_margin_loss(x, sign), F::soft_margin_loss(x, sign, torch::kMean));
  const torch::Tensor labels = (sign > 0).to(torch::kDouble), w = sample({4}, 2).abs();
  EXPECT_TENSOR_EQ(F::multilabel_soft_margin_loss(
                       x, labels, F::MultilabelSoftMarginLossFuncOptions().reduction(torch::kNone).weight(w)),
                   F::multilabel_soft_margin_loss(x, labels, w, torch::kNone));
  EXPECT_TENSOR_EQ(F::multilabel_soft_margin_loss(x, labels),
                   F::multilabel_soft_margin_loss(x, labels, torch::Tensor()));
  const torch::Tensor cls = torch::tensor(std::vector<int64_t>{0, 3, 2, 1, 3});
  EXPECT_TENSOR_EQ(
      F::multi_margin_loss(x, cls, F::MultiMarginLossFuncOptions().p(2).margin(0.5).weight(w).reduction(torch::kSum)),
      F::multi_margin_loss(x, cls, 2, 0.5, w, torch::kSum));
  EXPECT_TENSOR_EQ(F::multi_margin_loss(x, cls), F::multi_margin_loss(x, cls, 1));
  // sum_{i != y} max(0, margin - x[y] + x[i]) / C, checked on the first sample
  double first = 0;
  for (int64_t i = 1; i < 4; ++i) first += std::max(0.0, 0.5 - x[0][0].item<double>() + x[0][i].item<double>());
  EXPECT_NEAR(F::multi_margin_loss(x, cls, F::MultiMarginLossFuncOptions().margin(0.5).reduction(torch::kNone))[0]
                  .item<double>(),
              first / 4, 1e-12);
  const torch::Tensor ml = torch::tensor(std::vector<int64_t>{3, 0, -1, 1, 2, 1, -1, 0, 0, -1, 2, 2, 1, 2, 3, 0,
                                                              0, 1, 2, 3}).view({5, 4});
  EXPECT_TENSOR_EQ(F::multilabel_margin_loss(x, ml, F::MultilabelMarginLossFuncOptions(torch::kSum)),
                   F::multilabel_margin_loss(x, ml, torch::kSum));
  EXPECT_TENSOR_EQ(F::multilabel_margin_loss(x, ml), F::multilabel_margin_loss(x, ml, torch::kMean));

  const torch::Tensor a = sample({5}), b = sample({5}, 3), s = sign.select(1, 0);
  EXPECT_TENSOR_EQ(
      F::margin_ranking_loss(a, b, s, F::MarginRankingLossFuncOptions().margin(0.5).reduction(torch::kSum)),
      F::margin_ranking_loss(a, b, s, 0.5, torch::kSum));
  EXPECT_TENSOR_CLOSE(F::margin_ranking_loss(a, b, s, F::MarginRankingLossFuncOptions().reduction(torch::kNone)),
                      (-s * (a - b)).clamp_min(0));
  EXPECT_TENSOR_EQ(F::margin_ranking_loss(a, b, s), F::margin_ranking_loss(a, b, s, 0.0));
  EXPECT_TENSOR_EQ(
      F::hinge_embedding_loss(x, sign, F::HingeEmbeddingLossFuncOptions().margin(2).reduction(torch::kSum)),
      F::hinge_embedding_loss(x, sign, 2.0, torch::kSum));
  EXPECT_TENSOR_EQ(F::hinge_embedding_loss(x, sign), F::hinge_embedding_loss(x, sign, 1.0));
  const torch::Tensor u = sample({5, 4}, 4), v = sample({5, 4}, 5);
  EXPECT_TENSOR_EQ(
      F::cosine_embedding_loss(u, v, s, F::CosineEmbeddingLossFuncOptions().margin(0.25).reduction(torch::kNone)),
      F::cosine_embedding_loss(u, v, s, 0.25, torch::kNone));
  EXPECT_TENSOR_EQ(F::cosine_embedding_loss(u, v, s), F::cosine_embedding_loss(u, v, s, 0.0));
}

TEST(FuncOptionsLosses, Triplet) {
  const torch::Tensor an = sample({6, 3}), po = sample({6, 3}, 1), ne = sample({6, 3}, 2);
  EXPECT_TENSOR_EQ(
      F::triplet_margin_loss(an, po, ne,
                             F::TripletMarginLossFuncOptions().margin(0.7).p(1).eps(1e-3).swap(true).reduction(
                                 torch::kNone)),
      F::triplet_margin_loss(an, po, ne, 0.7, 1.0, 1e-3, true, torch::kNone));
  EXPECT_TENSOR_EQ(F::triplet_margin_loss(an, po, ne), F::triplet_margin_loss(an, po, ne, 1.0));
  // the distance version with its default distance is the p = 2 triplet margin loss
  EXPECT_TENSOR_CLOSE(F::triplet_margin_with_distance_loss(
                          an, po, ne, F::TripletMarginWithDistanceLossFuncOptions().margin(0.5).swap(true)),
                      F::triplet_margin_loss(an, po, ne, 0.5, 2.0, 1e-6, true));
  // a distance function of its own
  const auto cos_distance = [](const torch::Tensor& a, const torch::Tensor& b) {
    return 1 - F::cosine_similarity(a, b, F::CosineSimilarityFuncOptions().dim(1));
  };
  const torch::Tensor got = F::triplet_margin_with_distance_loss(
      an, po, ne,
      F::TripletMarginWithDistanceLossFuncOptions().distance_function(cos_distance).margin(0.3).reduction(
          torch::kNone));
  EXPECT_TENSOR_CLOSE(got, (cos_distance(an, po) - cos_distance(an, ne) + 0.3).clamp_min(0));
  EXPECT_ERROR_WITH(F::triplet_margin_with_distance_loss(an, po, ne,
                                                         F::TripletMarginWithDistanceLossFuncOptions().margin(0)),
                    "margin");
}

// ---- modules built on the same options ------------------------------------------------------
TEST(FuncOptionsModules, SharedOptions) {
  const torch::Tensor x = sample({4, 6});
  torch::Tensor y = x.clone();
  torch::nn::ELU elu(torch::nn::ELUOptions().alpha(0.5).inplace(true));
  elu(y);
  EXPECT_TENSOR_EQ(y, F::elu(x, 0.5));
  torch::Tensor y6 = x.clone() * 4;
  torch::nn::ReLU6(torch::nn::ReLU6Options(true))(y6);
  EXPECT_TENSOR_EQ(y6, torch::relu6(x * 4));
  torch::Tensor yl = x.clone();
  torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.3).inplace(true))(yl);
  EXPECT_TENSOR_EQ(yl, F::leaky_relu(x, 0.3));
  torch::Tensor yt = x.clone();
  torch::nn::Threshold(torch::nn::ThresholdOptions(0.1, 5.0).inplace(true))(yt);
  EXPECT_TENSOR_EQ(yt, F::threshold(x, 0.1, 5.0));
  torch::Tensor yh = x.clone();
  torch::nn::Hardtanh(torch::nn::HardtanhOptions().min_val(-0.2).inplace(true))(yh);
  EXPECT_TENSOR_EQ(yh, x.clamp(-0.2, 1.0));
  EXPECT_TENSOR_EQ(torch::nn::SELU()(x), torch::selu(x));
  EXPECT_TENSOR_EQ(torch::nn::CELU(torch::nn::CELUOptions().alpha(3))(x), F::celu(x, 3.0));
  torch::nn::RReLU rrelu(torch::nn::RReLUOptions().lower(0.1).upper(0.5));
  rrelu->eval();
  EXPECT_TENSOR_CLOSE(rrelu(x), F::leaky_relu(x, 0.3));
  rrelu->train();
  torch::manual_seed(3);
  const torch::Tensor rt = rrelu(x);
  torch::manual_seed(3);
  EXPECT_TENSOR_EQ(rt, F::rrelu(x, F::RReLUFuncOptions().lower(0.1).upper(0.5).training(true)));
  EXPECT_TENSOR_EQ(torch::nn::LogSoftmax(torch::nn::LogSoftmaxOptions(0))(x), torch::log_softmax(x, 0));
  EXPECT_TENSOR_EQ(torch::nn::CosineSimilarity(torch::nn::CosineSimilarityOptions().dim(0))(x, x * 2 + 1),
                   F::cosine_similarity(x, x * 2 + 1, 0));
  EXPECT_TENSOR_EQ(torch::nn::PairwiseDistance(torch::nn::PairwiseDistanceOptions().p(3).keepdim(true))(x, x.flip(0)),
                   F::pairwise_distance(x, x.flip(0), 3.0, 1e-6, true));
  EXPECT_TENSOR_EQ(torch::nn::MSELoss(torch::nn::MSELossOptions(torch::kSum))(x, x.flip(1)),
                   F::mse_loss(x, x.flip(1), torch::kSum));
  EXPECT_TENSOR_EQ(torch::nn::L1Loss(torch::kNone)(x, x.flip(1)), F::l1_loss(x, x.flip(1), torch::kNone));
  EXPECT_TENSOR_EQ(torch::nn::TripletMarginWithDistanceLoss()(x, x.flip(0), x.flip(1)),
                   F::triplet_margin_with_distance_loss(x, x.flip(0), x.flip(1)));
  torch::nn::Dropout3d d3(torch::nn::Dropout3dOptions(0.5));
  d3->eval();
  const torch::Tensor vol = sample({2, 3, 2, 2, 2});
  EXPECT_TENSOR_EQ(d3(vol), vol);
  torch::nn::Embedding emb(torch::nn::EmbeddingOptions(4, 3)._weight(sample({4, 3}, 9)).max_norm(0.5));
  const torch::Tensor idx = torch::tensor(std::vector<int64_t>{1, 2});
  EXPECT_LE(emb(idx).norm(2, 1).max().item<double>(), 0.5 + 1e-6);
  EXPECT_EQ(torch::str(*elu), "torch::nn::ELU(alpha=0.5, inplace=true)");
  EXPECT_EQ(torch::str(*torch::nn::ReLU6()), "torch::nn::ReLU6()");
  EXPECT_EQ(torch::str(*rrelu), "torch::nn::RReLU(lower=0.1, upper=0.5)");
}

// ---- written as in LibTorch's documentation ---------------------------------------------------
// A model whose forward uses the functional options forms as LibTorch programs do.
struct DocNet : torch::nn::Module {
  DocNet() : fc1(8, 16), fc2(16, 4), norm(torch::nn::LayerNormOptions({16})) {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
    register_module("norm", norm);
  }
  torch::Tensor forward(torch::Tensor x) {
    namespace F = torch::nn::functional;
    x = F::leaky_relu(fc1->forward(x), F::LeakyReLUFuncOptions().negative_slope(0.2));
    x = F::layer_norm(x, F::LayerNormFuncOptions({16}).eps(1e-6));
    x = F::dropout(x, F::DropoutFuncOptions().p(0.5).training(is_training()));
    x = F::relu(x, F::ReLUFuncOptions().inplace(true));
    x = F::normalize(x, F::NormalizeFuncOptions().p(2).dim(-1));
    return F::log_softmax(fc2->forward(x), F::LogSoftmaxFuncOptions(1));
  }
  torch::nn::Linear fc1, fc2;
  torch::nn::LayerNorm norm;
};

TEST(FuncOptionsDocs, Model) {
  DocNet net;
  torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.1));
  const torch::Tensor x = torch::randn({6, 8});
  const torch::Tensor y = torch::tensor(std::vector<int64_t>{0, 1, 2, 3, 0, -1});
  for (int step = 0; step < 3; ++step) {
    opt.zero_grad();
    torch::Tensor loss = F::nll_loss(net.forward(x), y, F::NLLLossFuncOptions().ignore_index(-1));
    loss.backward();
    opt.step();
    EXPECT_TRUE(std::isfinite(loss.item<double>()));
  }
  net.eval();
  const torch::Tensor out = net.forward(x);
  EXPECT_TENSOR_CLOSE(out.exp().sum(1), torch::ones({6}));
  torch::Tensor ce = F::cross_entropy(out, y, F::CrossEntropyFuncOptions().ignore_index(-1).reduction(torch::kSum));
  EXPECT_TRUE(std::isfinite(ce.item<double>()));
}

// nn::Functional around a functional with its options (LibTorch's container docs).
TEST(FuncOptionsDocs, FunctionalModule) {
  torch::nn::Sequential seq(torch::nn::Linear(3, 4), torch::nn::Functional(torch::relu),
                            torch::nn::Functional(F::relu6, F::ReLU6FuncOptions()),
                            torch::nn::Functional(F::rrelu, F::RReLUFuncOptions().lower(0.2).upper(0.2)));
  const torch::Tensor x = torch::randn({2, 3});
  auto* lin = seq->ptr(0)->as<torch::nn::Linear>();
  ASSERT_NE(lin, nullptr);
  EXPECT_TENSOR_CLOSE(seq->forward(x), torch::relu6(torch::relu(lin->forward(x))));
}

// The examples of LibTorch's torch/nn/functional/*.h documentation, one per functional, each
// checked against the formula it computes (or, where the result is random or a reduction of
// many terms, the property that defines it).
TEST(FuncOptionsDocs, Snippets) {
  torch::manual_seed(5);
  const torch::Tensor x0 = torch::randn({4, 6}), input = torch::randn({2, 4, 3, 3}), logits = torch::randn({3, 5});
  const torch::Tensor pos = x0.clamp_min(0), neg = x0.clamp_max(0);
  auto inplace = [&](const std::function<void(torch::Tensor&)>& f) {
    torch::Tensor x = x0.clone();
    f(x);
    return x;
  };
  EXPECT_TENSOR_CLOSE(inplace([](torch::Tensor& x) { F::elu(x, F::ELUFuncOptions().alpha(0.42).inplace(true)); }),
                      pos + (neg.exp() - 1) * 0.42);
  const double sa = 1.6732632423543772, ss = 1.0507009873554805;
  EXPECT_TENSOR_CLOSE(F::selu(input, F::SELUFuncOptions(false)),
                      (input.clamp_min(0) + (input.clamp_max(0).exp() - 1) * sa) * ss);
  EXPECT_TENSOR_CLOSE(F::hardshrink(x0, F::HardshrinkFuncOptions().lambda(0.42)),
                      torch::where(x0.abs() > 0.42, x0, torch::zeros_like(x0)));
  EXPECT_TENSOR_CLOSE(inplace([](torch::Tensor& x) {
                        F::hardtanh(x, F::HardtanhFuncOptions().min_val(-1.0).max_val(1.0).inplace(true));
                      }),
                      x0.clamp(-1, 1));
  EXPECT_TENSOR_CLOSE(inplace([](torch::Tensor& x) {
                        F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.42).inplace(true));
                      }),
                      pos + neg * 0.42);
  const torch::Tensor hard = F::gumbel_softmax(logits, F::GumbelSoftmaxFuncOptions().hard(true).dim(-1));
  EXPECT_TRUE(torch::equal(hard.sum(-1), torch::ones({3})));  // one-hot rows
  EXPECT_TRUE(torch::equal(hard.eq(0).logical_or(hard.eq(1)), torch::ones_like(hard, torch::kBool)));
  const torch::Tensor e = input.exp();
  EXPECT_TENSOR_CLOSE(F::softmax(input, F::SoftmaxFuncOptions(1)), e / e.sum(1, true));
  EXPECT_TENSOR_CLOSE(F::softmin(input, F::SoftminFuncOptions(1)), input.neg().exp() / input.neg().exp().sum(1, true));
  EXPECT_TENSOR_CLOSE(F::log_softmax(input, F::LogSoftmaxFuncOptions(1)), (e / e.sum(1, true)).log());
  EXPECT_TENSOR_CLOSE(F::glu(input, F::GLUFuncOptions(1)), input.narrow(1, 0, 2) * input.narrow(1, 2, 2).sigmoid());
  const double k = std::sqrt(2 / M_PI);
  EXPECT_TENSOR_CLOSE(F::gelu(input, F::GELUFuncOptions().approximate("tanh")),
                      input * 0.5 * (1 + ((input + input.pow(3) * 0.044715) * k).tanh()));
  EXPECT_TENSOR_CLOSE(inplace([](torch::Tensor& x) { F::relu(x, F::ReLUFuncOptions().inplace(true)); }), pos);
  EXPECT_TENSOR_CLOSE(inplace([](torch::Tensor& x) { F::relu6(x, F::ReLU6FuncOptions().inplace(true)); }),
                      x0.clamp(0, 6));
  // not training: the slope is the mean of lower and upper
  EXPECT_TENSOR_CLOSE(inplace([](torch::Tensor& x) {
                        F::rrelu(x, F::RReLUFuncOptions().lower(0.1).upper(0.4).inplace(true));
                      }),
                      pos + neg * 0.25);
  EXPECT_TENSOR_CLOSE(inplace([](torch::Tensor& x) { F::celu(x, F::CELUFuncOptions().alpha(0.42).inplace(true)); }),
                      pos + ((neg / 0.42).exp() - 1) * 0.42);
  EXPECT_TENSOR_CLOSE(F::softplus(x0, F::SoftplusFuncOptions().beta(0.5).threshold(3.0)),
                      torch::where(x0 * 0.5 > 3, x0, (x0 * 0.5).exp().log1p() / 0.5));
  EXPECT_TENSOR_CLOSE(F::softshrink(x0, F::SoftshrinkFuncOptions(0.42)),
                      torch::where(x0.abs() > 0.42, x0 - x0.sign() * 0.42, torch::zeros_like(x0)));
  EXPECT_TENSOR_CLOSE(inplace([](torch::Tensor& x) {
                        F::threshold(x, F::ThresholdFuncOptions(0.5, 0.5).inplace(true));
                      }),
                      torch::where(x0 > 0.5, x0, torch::full_like(x0, 0.5)));
  // dropout (training by default): each element, or each channel, is 0 or scaled by 1 / (1 - p)
  const torch::Tensor d = F::dropout(input, F::DropoutFuncOptions().p(0.5));
  EXPECT_TRUE(torch::allclose(torch::where(d.eq(0), torch::zeros_like(input), input * 2), d));
  const torch::Tensor d2 = F::dropout2d(input, F::Dropout2dFuncOptions().p(0.5));
  const torch::Tensor kept2 = d2.flatten(2).ne(0).any(-1, true).unsqueeze(-1);
  EXPECT_TENSOR_CLOSE(d2, torch::where(kept2, input * 2, torch::zeros_like(input)));
  const torch::Tensor in5 = input.unsqueeze(0);
  const torch::Tensor d3 = F::dropout3d(in5, F::Dropout3dFuncOptions().p(0.5));
  const torch::Tensor kept3 = d3.flatten(2).ne(0).any(-1, true).unsqueeze(-1).unsqueeze(-1);
  EXPECT_TENSOR_CLOSE(d3, torch::where(kept3, in5 * 2, torch::zeros_like(in5)));
  torch::Tensor weight = torch::randn({10, 3}), idx = torch::tensor(std::vector<int64_t>{1, 2, 4, 5});
  EXPECT_TENSOR_CLOSE(
      F::embedding(idx, weight, F::EmbeddingFuncOptions().norm_type(2.5).scale_grad_by_freq(true).sparse(true)),
      weight.index_select(0, idx));
  torch::Tensor input1 = torch::randn({5, 3}), input2 = torch::randn({5, 3});
  EXPECT_TENSOR_CLOSE(F::cosine_similarity(input1, input2, F::CosineSimilarityFuncOptions().dim(1)),
                      (input1 * input2).sum(1) / (input1.norm(2, 1) * input2.norm(2, 1)));
  EXPECT_TENSOR_CLOSE(F::pairwise_distance(input1, input2, F::PairwiseDistanceFuncOptions().p(1)),
                      (input1 - input2 + 1e-6).abs().sum(1));
  EXPECT_TENSOR_CLOSE(F::normalize(input, F::NormalizeFuncOptions().p(1).dim(-1)),
                      input / input.abs().sum(-1, true));
  const torch::Tensor mu = input.mean({2, 3}, true), var = input.var({2, 3}, false, true);
  EXPECT_TENSOR_CLOSE(F::layer_norm(input, F::LayerNormFuncOptions({3, 3}).eps(2e-5)), (input - mu) / (var + 2e-5).sqrt());
  torch::Tensor target = torch::randn({5, 3}), prob = torch::rand({5, 3}), w = torch::rand({5, 3});
  EXPECT_TENSOR_CLOSE(F::l1_loss(input1, target, F::L1LossFuncOptions(torch::kNone)), (input1 - target).abs());
  EXPECT_TENSOR_CLOSE(F::kl_div(input1, prob, F::KLDivFuncOptions().reduction(torch::kNone).log_target(false)),
                      prob * (prob.log() - input1));
  EXPECT_TENSOR_CLOSE(F::mse_loss(input1, target, F::MSELossFuncOptions(torch::kNone)), (input1 - target).square());
  const torch::Tensor y = prob.round();
  EXPECT_TENSOR_CLOSE(F::binary_cross_entropy(prob, y, F::BinaryCrossEntropyFuncOptions().weight(w)),
                      (-w * (y * prob.log() + (1 - y) * (1 - prob).log())).mean());
  const torch::Tensor sg = target.sign();
  EXPECT_TENSOR_CLOSE(F::hinge_embedding_loss(input1, sg, F::HingeEmbeddingLossFuncOptions().margin(2)),
                      torch::where(sg.eq(1), input1, (2 - input1).clamp_min(0)).mean());
  torch::Tensor cls = torch::tensor(std::vector<int64_t>{0, 2, 1, 1, 0});
  const torch::Tensor mw = torch::rand({3});
  {  // sum over j != y of w[y] * max(0, margin - x[y] + x[j])^p / C, p = 1
    const torch::Tensor xy = input1.gather(1, cls.unsqueeze(1));
    const torch::Tensor terms = (2 - xy + input1).clamp_min(0) * mw.index_select(0, cls).unsqueeze(1);
    const torch::Tensor not_y = torch::ones_like(input1).scatter(1, cls.unsqueeze(1), 0);
    EXPECT_TENSOR_CLOSE(F::multi_margin_loss(input1, cls, F::MultiMarginLossFuncOptions().margin(2).weight(mw)),
                        (terms * not_y).sum(1).div(3).mean());
  }
  torch::Tensor sign = torch::tensor({1.0f, -1.0f, 1.0f, 1.0f, -1.0f});
  {
    const torch::Tensor cosv = (input1 * input2).sum(1) / (input1.norm(2, 1) * input2.norm(2, 1));
    EXPECT_TENSOR_CLOSE(
        F::cosine_embedding_loss(input1, input2, sign, F::CosineEmbeddingLossFuncOptions().margin(0.5)),
        torch::where(sign.eq(1), 1 - cosv, (cosv - 0.5).clamp_min(0)).mean());
  }
  const torch::Tensor diff = (input1 - target).abs();
  EXPECT_TENSOR_CLOSE(F::smooth_l1_loss(input1, target, F::SmoothL1LossFuncOptions(torch::kNone)),
                      torch::where(diff < 1, diff.square() * 0.5, diff - 0.5));
  EXPECT_TENSOR_CLOSE(F::huber_loss(input1, target, F::HuberLossFuncOptions().reduction(torch::kNone).delta(0.5)),
                      torch::where(diff < 0.5, diff.square() * 0.5, (diff - 0.25) * 0.5));
  torch::Tensor ml = torch::tensor(std::vector<int64_t>{0, 1, -1, 2, -1, 0, 1, 2, -1, 0, 0, 0, 2, -1, 1}).view({5, 3});
  {  // per row: sum over targets t (before the first -1) and non-targets j of max(0, 1 - (x[t] - x[j])) / C
    torch::Tensor expect = torch::zeros({5});
    for (int64_t i = 0; i < 5; ++i) {
      std::vector<int64_t> targets;
      for (int64_t j = 0; j < 3 && ml[i][j].item<int64_t>() >= 0; ++j) targets.push_back(ml[i][j].item<int64_t>());
      double sum = 0;
      for (int64_t t : targets)
        for (int64_t j = 0; j < 3; ++j)
          if (std::find(targets.begin(), targets.end(), j) == targets.end())
            sum += std::max(0.0, 1 - (input1[i][t].item<double>() - input1[i][j].item<double>()));
      expect[i] = sum / 3;
    }
    EXPECT_TENSOR_CLOSE(F::multilabel_margin_loss(input1, ml, F::MultilabelMarginLossFuncOptions(torch::kNone)),
                        expect);
  }
  EXPECT_TENSOR_CLOSE(F::soft_margin_loss(input1, sg, F::SoftMarginLossFuncOptions(torch::kNone)),
                      (-sg * input1).exp().log1p());
  {
    const torch::Tensor lw = torch::rand({3});
    const torch::Tensor per = -(y * input1.sigmoid().log() + (1 - y) * (-input1).sigmoid().log()) * lw;
    EXPECT_TENSOR_CLOSE(
        F::multilabel_soft_margin_loss(input1, y,
                                       F::MultilabelSoftMarginLossFuncOptions().reduction(torch::kNone).weight(lw)),
        per.mean(1));
  }
  torch::Tensor anchor = torch::randn({5, 3}), positive = torch::randn({5, 3}), negative = torch::randn({5, 3});
  auto dist = [](const torch::Tensor& a, const torch::Tensor& b) { return (a - b + 1e-6).norm(2, 1); };
  EXPECT_TENSOR_CLOSE(
      F::triplet_margin_loss(anchor, positive, negative, F::TripletMarginLossFuncOptions().margin(1.0)),
      (dist(anchor, positive) - dist(anchor, negative) + 1).clamp_min(0).mean());
  EXPECT_TENSOR_CLOSE(F::triplet_margin_with_distance_loss(anchor, positive, negative,
                                                           F::TripletMarginWithDistanceLossFuncOptions().margin(1.0)),
                      (F::pairwise_distance(anchor, positive) - F::pairwise_distance(anchor, negative) + 1)
                          .clamp_min(0)
                          .mean());
  EXPECT_TENSOR_CLOSE(F::poisson_nll_loss(input1, prob, F::PoissonNLLLossFuncOptions().reduction(torch::kNone)),
                      input1.exp() - prob * input1);
  const torch::Tensor a0 = input1.select(1, 0), b0 = input2.select(1, 0);
  EXPECT_TENSOR_CLOSE(F::margin_ranking_loss(a0, b0, sign, F::MarginRankingLossFuncOptions().margin(0.5).reduction(
                                                               torch::kSum)),
                      (-sign * (a0 - b0) + 0.5).clamp_min(0).sum());
  torch::Tensor logp = torch::log_softmax(input1, 1);
  const torch::Tensor picked = logp.gather(1, cls.unsqueeze(1)).neg().mean();
  EXPECT_TENSOR_CLOSE(F::nll_loss(logp, cls, F::NLLLossFuncOptions().ignore_index(-100).reduction(torch::kMean)), picked);
  EXPECT_TENSOR_CLOSE(
      F::cross_entropy(input1, cls, F::CrossEntropyFuncOptions().ignore_index(-100).reduction(torch::kMean)), picked);
  torch::Tensor pos_weight = torch::ones({3});
  EXPECT_TENSOR_CLOSE(
      F::binary_cross_entropy_with_logits(
          input1, y, F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(pos_weight).reduction(torch::kSum)),
      (-(y * input1.sigmoid().log() + (1 - y) * (-input1).sigmoid().log())).sum());
  // and the forms that convert to the options implicitly
  EXPECT_TENSOR_CLOSE(inplace([](torch::Tensor& x) { F::relu(x, true); }), pos);
  EXPECT_TENSOR_CLOSE(F::softmax(input, 1), e / e.sum(1, true));
  EXPECT_TENSOR_CLOSE(F::glu(input, 1), input.narrow(1, 0, 2) * input.narrow(1, 2, 2).sigmoid());
  EXPECT_TENSOR_CLOSE(F::hardshrink(x0, 0.42), torch::where(x0.abs() > 0.42, x0, torch::zeros_like(x0)));
  EXPECT_TENSOR_CLOSE(F::mse_loss(input1, target, torch::kSum), (input1 - target).square().sum());
  EXPECT_TENSOR_CLOSE(F::layer_norm(input, {3, 3}), (input - mu) / (var + 1e-5).sqrt());
}

}  // namespace
