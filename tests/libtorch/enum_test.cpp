// LibTorch's enum constants (torch::kReLU, torch::kSum, torch::kSame, ...): each has its own type
// in torch::enumtype, get_enum_name names a variant of them, and the option structs take them.
// Compiles against ember and LibTorch alike.
#include <torch/torch.h>

#include <gtest/gtest.h>

namespace F = torch::nn::functional;

#define EXPECT_ENUM_NAME(name)                                   \
  {                                                              \
    v = torch::k##name;                                          \
    EXPECT_EQ(torch::enumtype::get_enum_name(v), "k" #name);     \
  }

TEST(Enum, EveryConstantNamesItself) {
  c10::variant<torch::enumtype::kLinear, torch::enumtype::kConv1D, torch::enumtype::kConv2D,
               torch::enumtype::kConv3D, torch::enumtype::kConvTranspose1D, torch::enumtype::kConvTranspose2D,
               torch::enumtype::kConvTranspose3D, torch::enumtype::kSigmoid, torch::enumtype::kTanh,
               torch::enumtype::kReLU, torch::enumtype::kGELU, torch::enumtype::kSiLU, torch::enumtype::kMish,
               torch::enumtype::kLeakyReLU, torch::enumtype::kFanIn, torch::enumtype::kFanOut,
               torch::enumtype::kConstant, torch::enumtype::kReflect, torch::enumtype::kReplicate,
               torch::enumtype::kCircular, torch::enumtype::kNearest, torch::enumtype::kBilinear,
               torch::enumtype::kBicubic, torch::enumtype::kTrilinear, torch::enumtype::kArea,
               torch::enumtype::kNearestExact, torch::enumtype::kSum, torch::enumtype::kMean,
               torch::enumtype::kMax, torch::enumtype::kNone, torch::enumtype::kBatchMean,
               torch::enumtype::kZeros, torch::enumtype::kBorder, torch::enumtype::kReflection,
               torch::enumtype::kRNN_TANH, torch::enumtype::kRNN_RELU, torch::enumtype::kLSTM,
               torch::enumtype::kGRU, torch::enumtype::kValid, torch::enumtype::kSame>
      v;
  EXPECT_ENUM_NAME(Linear);
  EXPECT_ENUM_NAME(Conv1D);
  EXPECT_ENUM_NAME(Conv2D);
  EXPECT_ENUM_NAME(Conv3D);
  EXPECT_ENUM_NAME(ConvTranspose1D);
  EXPECT_ENUM_NAME(ConvTranspose2D);
  EXPECT_ENUM_NAME(ConvTranspose3D);
  EXPECT_ENUM_NAME(Sigmoid);
  EXPECT_ENUM_NAME(Tanh);
  EXPECT_ENUM_NAME(ReLU);
  EXPECT_ENUM_NAME(GELU);
  EXPECT_ENUM_NAME(SiLU);
  EXPECT_ENUM_NAME(Mish);
  EXPECT_ENUM_NAME(LeakyReLU);
  EXPECT_ENUM_NAME(FanIn);
  EXPECT_ENUM_NAME(FanOut);
  EXPECT_ENUM_NAME(Constant);
  EXPECT_ENUM_NAME(Reflect);
  EXPECT_ENUM_NAME(Replicate);
  EXPECT_ENUM_NAME(Circular);
  EXPECT_ENUM_NAME(Nearest);
  EXPECT_ENUM_NAME(Bilinear);
  EXPECT_ENUM_NAME(Bicubic);
  EXPECT_ENUM_NAME(Trilinear);
  EXPECT_ENUM_NAME(Area);
  EXPECT_ENUM_NAME(NearestExact);
  EXPECT_ENUM_NAME(Sum);
  EXPECT_ENUM_NAME(Mean);
  EXPECT_ENUM_NAME(Max);
  EXPECT_ENUM_NAME(None);
  EXPECT_ENUM_NAME(BatchMean);
  EXPECT_ENUM_NAME(Zeros);
  EXPECT_ENUM_NAME(Border);
  EXPECT_ENUM_NAME(Reflection);
  EXPECT_ENUM_NAME(RNN_TANH);
  EXPECT_ENUM_NAME(RNN_RELU);
  EXPECT_ENUM_NAME(LSTM);
  EXPECT_ENUM_NAME(GRU);
  EXPECT_ENUM_NAME(Valid);
  EXPECT_ENUM_NAME(Same);
}
#undef EXPECT_ENUM_NAME

TEST(Enum, OptionsTakeTheConstants) {
  auto x = torch::arange(16, torch::kFloat).view({1, 1, 4, 4});
  // Convolution padding "same" keeps the spatial size; "valid" pads nothing.
  torch::nn::Conv2d same(torch::nn::Conv2dOptions(1, 2, 3).padding(torch::kSame));
  EXPECT_EQ(same(x).sizes(), (std::vector<int64_t>{1, 2, 4, 4}));
  torch::nn::Conv2d valid(torch::nn::Conv2dOptions(1, 2, 3).padding(torch::kValid));
  EXPECT_EQ(valid(x).sizes(), (std::vector<int64_t>{1, 2, 2, 2}));
  torch::nn::Conv2d circular(torch::nn::Conv2dOptions(1, 1, 3).padding(1).padding_mode(torch::kCircular));
  EXPECT_EQ(circular(x).sizes(), (std::vector<int64_t>{1, 1, 4, 4}));
  // Reflect padding mirrors without repeating the edge.
  auto row = torch::tensor({1.0f, 2.0f, 3.0f}).view({1, 1, 3});
  auto padded = F::pad(row, F::PadFuncOptions({2, 0}).mode(torch::kReflect));
  EXPECT_TRUE(padded.view({5}).equal(torch::tensor({3.0f, 2.0f, 1.0f, 2.0f, 3.0f})));
  auto up = F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{8, 8}).mode(torch::kBilinear).align_corners(false));
  EXPECT_EQ(up.sizes(), (std::vector<int64_t>{1, 1, 8, 8}));
  auto lin = F::interpolate(row, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2}).mode(torch::kLinear).align_corners(true));
  EXPECT_EQ(lin.sizes(), (std::vector<int64_t>{1, 1, 6}));
  // Reductions.
  auto a = torch::tensor({1.0, 2.0, 3.0});
  auto b = torch::tensor({0.0, 0.0, 0.0});
  EXPECT_DOUBLE_EQ(F::mse_loss(a, b, F::MSELossFuncOptions(torch::kSum)).item<double>(), 14.0);
  EXPECT_DOUBLE_EQ(F::l1_loss(a, b, torch::kSum).item<double>(), 6.0);
  torch::nn::L1Loss none_loss(torch::kNone);
  EXPECT_EQ(none_loss(a, b).sizes(), a.sizes());
  torch::nn::MSELoss mean_loss(torch::nn::MSELossOptions().reduction(torch::kMean));
  EXPECT_NEAR(mean_loss(a, b).item<double>(), 14.0 / 3, 1e-6);  // float: tensor({1.0, ...}) is kFloat
  torch::nn::EmbeddingBag bag(torch::nn::EmbeddingBagOptions(4, 2).mode(torch::kMax));
  EXPECT_EQ(bag(torch::tensor({0, 1, 2, 3}), torch::tensor({0, 2})).sizes(), (std::vector<int64_t>{2, 2}));
  // nn::init's nonlinearities and fan modes.
  auto w = torch::empty({64, 32});
  torch::nn::init::kaiming_normal_(w, 0, torch::kFanOut, torch::kReLU);
  EXPECT_NEAR(w.std().item<double>(), std::sqrt(2.0 / 64), 0.02);
  EXPECT_DOUBLE_EQ(torch::nn::init::calculate_gain(torch::kTanh), 5.0 / 3);
  // Recurrent cells' nonlinearity.
  torch::nn::RNN rnn(torch::nn::RNNOptions(3, 4).nonlinearity(torch::kReLU));
  auto out = std::get<0>(rnn(torch::randn({2, 1, 3})));
  EXPECT_GE(out.min().item<double>(), 0.0);
  // Grid sampling modes.
  auto grid = torch::zeros({1, 2, 2, 2});
  auto sampled = F::grid_sample(x, grid, F::GridSampleFuncOptions().mode(torch::kNearest).padding_mode(torch::kBorder).align_corners(false));
  EXPECT_EQ(sampled.sizes(), (std::vector<int64_t>{1, 1, 2, 2}));
}
