// LibTorch programs that include the narrower headers (<torch/data/datasets/mnist.h>,
// <torch/nn/functional.h>, ...) instead of <torch/torch.h> compile against ember too.
#include <torch/data/datasets/mnist.h>
#include <torch/data/dataloader.h>
#include <torch/nn/functional.h>
#include <torch/nn/module.h>
#include <torch/optim.h>
#include <torch/serialize.h>

#include <gtest/gtest.h>

TEST(LibTorchHeaders, NarrowIncludesReachTheWholeApi) {
  using MNIST = torch::data::datasets::MNIST;
  static_assert(std::is_class_v<MNIST>);
  auto data = torch::data::datasets::TensorDataset(torch::arange(6, torch::kFloat).view({6, 1}));
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      std::move(data), torch::data::DataLoaderOptions().batch_size(4));
  int64_t n = 0;
  for (auto& batch : *loader) n += int64_t(batch.size());
  EXPECT_EQ(n, 6);
  EXPECT_EQ(torch::nn::functional::relu(torch::tensor({-1.0, 2.0})).sum().item<double>(), 2.0);
}
