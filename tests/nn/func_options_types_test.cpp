// torch::nn::functional's options types: those LibTorch shares with the modules, defaults, modules built on them.
#include <torch/torch.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "func_options_test_util.h"
#include "test_util.h"

namespace {

namespace F = torch::nn::functional;
using ember::test::sample;

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

}  // namespace
