// torch::data datasets and transforms: Example, TensorDataset, map chains, Lambda,
// BatchLambda, TensorLambda, Normalize, Stack and SharedBatchDataset, through the LibTorch
// names (<torch/torch.h>), against values computed by hand.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include "test_util.h"

namespace {

using namespace torch::data;

// Example i: data = [i, i + 0.5] (float), target = i * 10 (int64).
struct Numbers : datasets::Dataset<Numbers> {
  explicit Numbers(size_t n) : n(n) {}
  Example<> get(size_t i) override {
    return {torch::tensor({float(i), float(i) + 0.5f}), torch::tensor(int64_t(i) * 10)};
  }
  std::optional<size_t> size() const override { return n; }
  size_t n;
};

TEST(TorchDataExample, NoTargetConvertsToData) {
  TensorExample e = torch::ones({2});
  torch::Tensor& t = e;
  EXPECT_TRUE(t.is_same(e.data));
  static_assert(std::is_same_v<TensorExample::TargetType, example::NoTarget>);
  Example<int, std::string> pair(3, "x");
  EXPECT_EQ(pair.data, 3);
  EXPECT_EQ(pair.target, "x");
}

TEST(TorchDataDatasets, DatasetGetBatchCallsGetPerIndex) {
  Numbers d(5);
  std::vector<size_t> idx{4, 0, 2};
  auto batch = d.get_batch(idx);
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_EQ(batch[0].target.item<int64_t>(), 40);
  EXPECT_EQ(batch[1].target.item<int64_t>(), 0);
  EXPECT_FLOAT_EQ(batch[2].data[1].item<float>(), 2.5f);
  EXPECT_EQ(d.size().value(), 5u);
  static_assert(!Numbers::is_stateful);
}

TEST(TorchDataDatasets, TensorDatasetRowsAreViews) {
  auto t = torch::arange(12, torch::kFloat).view({4, 3});
  datasets::TensorDataset d(t);
  EXPECT_EQ(d.size().value(), 4u);
  TensorExample e = d.get(2);
  EXPECT_TENSOR_EQ(e.data, torch::tensor({6.f, 7.f, 8.f}));
  EXPECT_TRUE(e.data.is_alias_of(t));
  EXPECT_ERROR_WITH(d.get(4), "index 4 is out of range for a dataset of 4 examples");
  // From a list of tensors: stacked.
  datasets::TensorDataset s(std::vector<torch::Tensor>{torch::zeros({2}), torch::ones({2})});
  EXPECT_EQ(s.tensor.sizes(), torch::IntArrayRef({2, 2}));
  EXPECT_ERROR_WITH(datasets::TensorDataset(torch::tensor(1.0)), "at least one dimension");
}

TEST(TorchDataTransforms, StackCollatesDataAndTargets) {
  auto d = Numbers(6).map(transforms::Stack<>());
  static_assert(std::is_same_v<decltype(d)::BatchType, Example<>>);
  std::vector<size_t> idx{1, 3, 5};
  Example<> b = d.get_batch(idx);
  EXPECT_TENSOR_EQ(b.data, torch::tensor({{1.f, 1.5f}, {3.f, 3.5f}, {5.f, 5.5f}}));
  EXPECT_TENSOR_EQ(b.target, torch::tensor({10, 30, 50}));
  EXPECT_EQ(d.size().value(), 6u);
}

TEST(TorchDataTransforms, StackOfTensorExamplesAndNonContiguousRows) {
  // Columns of a matrix are strided views: Stack copies them element by element.
  auto m = torch::arange(6, torch::kFloat).view({2, 3});
  std::vector<TensorExample> cols{m.select(1, 2), m.select(1, 0)};
  TensorExample b = transforms::Stack<TensorExample>().apply_batch(cols);
  EXPECT_TENSOR_EQ(b.data, torch::tensor({{2.f, 5.f}, {0.f, 3.f}}));
}

TEST(TorchDataTransforms, StackNamesTheShapesThatDiffer) {
  std::vector<Example<>> batch{{torch::zeros({1, 28, 28}), torch::tensor(1)},
                               {torch::zeros({1, 28, 28}), torch::tensor(2)},
                               {torch::zeros({1, 27, 28}), torch::tensor(3)}};
  EXPECT_ERROR_WITH(transforms::Stack<>().apply_batch(batch),
                    "example 0 has data of shape [1, 28, 28] and example 2 has data of shape [1, 27, 28]");
  std::vector<Example<>> targets{{torch::zeros({2}), torch::tensor(1)}, {torch::zeros({2}), torch::tensor({1, 2})}};
  EXPECT_ERROR_WITH(transforms::Stack<>().apply_batch(targets), "example 1 has target of shape [2]");
  EXPECT_ERROR_WITH(transforms::Stack<>().apply_batch({}), "empty batch");
}

TEST(TorchDataTransforms, StackKeepsAutogradAndPromotesMixedDtypes) {
  auto a = torch::ones({2}, torch::requires_grad());
  auto b = torch::full({2}, 2.0, torch::requires_grad());
  TensorExample s = transforms::Stack<TensorExample>().apply_batch({a, b});
  s.data.mul(torch::tensor({{1.f, 2.f}, {3.f, 4.f}})).sum().backward();
  EXPECT_TENSOR_EQ(a.grad(), torch::tensor({1.f, 2.f}));
  EXPECT_TENSOR_EQ(b.grad(), torch::tensor({3.f, 4.f}));
  // An int and a float example: stack promotes, as torch::stack does.
  TensorExample m = transforms::Stack<TensorExample>().apply_batch({torch::tensor({1, 2}), torch::tensor({0.5f, 1.f})});
  EXPECT_TENSOR_EQ(m.data, torch::tensor({{1.f, 2.f}, {0.5f, 1.f}}));
}

TEST(TorchDataTransforms, NormalizePerChannel) {
  // [2, 1, 2] image, channel means 1 and 10, stddevs 2 and 5.
  auto img = torch::tensor({{{3.f, 5.f}}, {{20.f, 0.f}}});
  transforms::Normalize<> norm({1.0, 10.0}, {2.0, 5.0});
  Example<> e = norm.apply({img, torch::tensor(7)});
  EXPECT_TENSOR_CLOSE(e.data, torch::tensor({{{1.f, 2.f}}, {{2.f, -2.f}}}));
  EXPECT_EQ(e.target.item<int64_t>(), 7);
  // One value for all channels (the MNIST example's Normalize<>(0.1307, 0.3081)).
  transforms::Normalize<> one(0.5, 0.25);
  EXPECT_TENSOR_CLOSE(one(torch::tensor({{{1.f}}, {{0.f}}})), torch::tensor({{{2.f}}, {{-2.f}}}));
  EXPECT_ERROR_WITH(norm(torch::zeros({3, 4, 4})), "expected data with 2 channels in dimension -3");
  EXPECT_ERROR_WITH(transforms::Normalize<>(0.5, 0.0), "stddev[0] is 0");
  EXPECT_ERROR_WITH(transforms::Normalize<>({0.5, 0.5}, {1.0, 1.0, 1.0}), "got 2 mean values but 3 stddev values");
}

TEST(TorchDataTransforms, LambdasAndMapChains) {
  // Per example: double the data; per batch: keep the first two; then Stack.
  auto d = Numbers(4)
               .map(transforms::Lambda<Example<>>([](Example<> e) {
                 e.data = e.data * 2;
                 return e;
               }))
               .map(transforms::BatchLambda<std::vector<Example<>>>([](std::vector<Example<>> b) {
                 b.resize(std::min<size_t>(b.size(), 2));
                 return b;
               }))
               .map(transforms::TensorLambda<>([](torch::Tensor t) { return t + 1; }))
               .map(transforms::Stack<>());
  std::vector<size_t> idx{3, 2, 1};
  Example<> b = d.get_batch(idx);
  EXPECT_TENSOR_EQ(b.data, torch::tensor({{7.f, 8.f}, {5.f, 6.f}}));
  EXPECT_TENSOR_EQ(b.target, torch::tensor({30, 20}));
  // A Collate (BatchLambda to one value).
  auto sum = Numbers(3).map(transforms::Collate<Example<>>([](std::vector<Example<>> b) {
    Example<> r{torch::zeros({2}), torch::tensor(0)};
    for (auto& e : b) r.data = r.data + e.data;
    return r;
  }));
  std::vector<size_t> all{0, 1, 2};
  EXPECT_TENSOR_EQ(sum.get_batch(all).data, torch::tensor({3.f, 4.5f}));
  // map on an lvalue copies the dataset.
  Numbers base(2);
  auto mapped = base.map(transforms::Stack<>());
  EXPECT_EQ(mapped.dataset().n, 2u);
}

TEST(TorchDataDatasets, SharedBatchDatasetSharesOneObject) {
  auto shared = datasets::make_shared_dataset<Numbers>(3);
  auto copy = shared;
  copy->n = 7;
  EXPECT_EQ(shared.size().value(), 7u);
  EXPECT_EQ((*shared).n, 7u);
  std::vector<size_t> idx{6};
  EXPECT_EQ(shared.get_batch(idx)[0].target.item<int64_t>(), 60);
}

}  // namespace
