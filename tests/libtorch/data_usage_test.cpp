// The torch::data API the way LibTorch 1.13 training programs use it: a custom Dataset,
// .map() with Stack<> and Normalize<>, make_data_loader with DataLoaderOptions, the samplers,
// TensorDataset, lambda transforms and a ChunkDataset. Batch contents are what LibTorch 1.13
// produces.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <vector>

using namespace torch::data;

namespace {

// Example i is a 2-element feature vector {i, 2i} with label i % 3.
class ToyDataset : public datasets::Dataset<ToyDataset> {
 public:
  explicit ToyDataset(int64_t n) : n_(n) {}
  Example<> get(size_t index) override {
    auto i = static_cast<float>(index);
    return {torch::tensor({i, 2 * i}), torch::tensor(static_cast<int64_t>(index % 3))};
  }
  c10::optional<size_t> size() const override { return static_cast<size_t>(n_); }

 private:
  int64_t n_;
};

// A dataset of plain tensors (no labels).
class SquaresDataset : public datasets::Dataset<SquaresDataset, torch::Tensor> {
 public:
  torch::Tensor get(size_t index) override { return torch::tensor(static_cast<double>(index * index)); }
  c10::optional<size_t> size() const override { return 5; }
};

std::vector<int64_t> labels_of(const torch::Tensor& t) {
  auto c = t.contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

}  // namespace

TEST(DataUsage, CustomDatasetGetAndSize) {
  ToyDataset ds(10);
  EXPECT_EQ(ds.size().value(), 10u);
  auto ex = ds.get(4);
  EXPECT_TRUE(ex.data.equal(torch::tensor({4.0f, 8.0f})));
  EXPECT_EQ(ex.target.item<int64_t>(), 1);
  auto batch = ds.get_batch({1, 2, 3});
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_EQ(batch[2].target.item<int64_t>(), 0);
}

TEST(DataUsage, SequentialLoaderWithStack) {
  auto dataset = ToyDataset(10).map(transforms::Stack<>());
  EXPECT_EQ(dataset.size().value(), 10u);
  auto loader = make_data_loader<samplers::SequentialSampler>(std::move(dataset), /*batch_size=*/4);
  std::vector<int64_t> batch_sizes;
  std::vector<int64_t> all_labels;
  for (auto& batch : *loader) {
    EXPECT_EQ(batch.data.dim(), 2);
    EXPECT_EQ(batch.data.size(1), 2);
    batch_sizes.push_back(batch.data.size(0));
    auto l = labels_of(batch.target);
    all_labels.insert(all_labels.end(), l.begin(), l.end());
  }
  EXPECT_EQ(batch_sizes, (std::vector<int64_t>{4, 4, 2}));
  EXPECT_EQ(all_labels, (std::vector<int64_t>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0}));
}

TEST(DataUsage, LoaderOptionsDropLastAndEpochs) {
  auto loader = make_data_loader<samplers::SequentialSampler>(ToyDataset(10).map(transforms::Stack<>()),
                                                              DataLoaderOptions().batch_size(3).drop_last(true));
  for (int epoch = 0; epoch < 2; ++epoch) {
    int batches = 0;
    for (auto& b : *loader) {
      EXPECT_EQ(b.data.size(0), 3);
      ++batches;
    }
    EXPECT_EQ(batches, 3);
  }
  DataLoaderOptions opts(16);
  EXPECT_EQ(opts.batch_size(), 16u);
  EXPECT_EQ(opts.workers(), 0u);
  EXPECT_FALSE(opts.drop_last());
  EXPECT_TRUE(opts.enforce_ordering());
  auto& o = loader->options();
  EXPECT_EQ(o.batch_size, 3u);
  EXPECT_TRUE(o.drop_last);
}

TEST(DataUsage, RandomSamplerIsAPermutationAndSeeded) {
  auto collect = [](uint64_t seed) {
    torch::manual_seed(seed);
    auto loader = make_data_loader(ToyDataset(12).map(transforms::Stack<>()), DataLoaderOptions().batch_size(5));
    std::vector<int64_t> order;
    for (auto& b : *loader) {
      auto first = b.data.select(1, 0).to(torch::kLong);
      auto v = labels_of(first);
      order.insert(order.end(), v.begin(), v.end());
    }
    return order;
  };
  auto a = collect(0);
  auto b = collect(0);
  auto c = collect(1);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> expected(12);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(sorted, expected);
}

TEST(DataUsage, SamplersDirectly) {
  samplers::SequentialSampler seq(5);
  auto idx = seq.next(3).value();
  EXPECT_EQ(idx, (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(seq.next(3).value(), (std::vector<size_t>{3, 4}));
  EXPECT_FALSE(seq.next(3).has_value());
  seq.reset();
  EXPECT_EQ(seq.next(1).value(), (std::vector<size_t>{0}));
  EXPECT_EQ(seq.index(), 1u);

  torch::manual_seed(0);
  samplers::RandomSampler rnd(6);
  auto r = rnd.next(6).value();
  std::set<size_t> unique(r.begin(), r.end());
  EXPECT_EQ(unique.size(), 6u);
  EXPECT_FALSE(rnd.next(1).has_value());
  rnd.reset(3);
  EXPECT_EQ(rnd.next(10).value().size(), 3u);

  samplers::DistributedRandomSampler d0(10, /*num_replicas=*/2, /*rank=*/0);
  samplers::DistributedRandomSampler d1(10, 2, 1);
  d0.set_epoch(3);
  d1.set_epoch(3);
  auto i0 = d0.next(100).value();
  auto i1 = d1.next(100).value();
  EXPECT_EQ(i0.size(), 5u);
  EXPECT_EQ(i1.size(), 5u);
  std::set<size_t> both(i0.begin(), i0.end());
  both.insert(i1.begin(), i1.end());
  EXPECT_EQ(both.size(), 10u);  // the replicas split the data
  samplers::DistributedSequentialSampler s1(10, 3, 1);
  auto seq1 = s1.next(100).value();
  EXPECT_EQ(seq1.size(), 4u);  // ceil(10/3) with padding
}

TEST(DataUsage, TensorDatasetAndNormalize) {
  auto data = torch::arange(12, torch::kFloat).view({6, 2});
  datasets::TensorDataset td(data);
  EXPECT_EQ(td.size().value(), 6u);
  EXPECT_TRUE(td.get(2).data.equal(torch::tensor({4.0f, 5.0f})));
  auto loader = make_data_loader<samplers::SequentialSampler>(td.map(transforms::Stack<TensorExample>()), 4);
  std::vector<int64_t> sizes;
  for (auto& batch : *loader) sizes.push_back(batch.data.size(0));
  EXPECT_EQ(sizes, (std::vector<int64_t>{4, 2}));

  auto norm = ToyDataset(4).map(transforms::Normalize<>(/*mean=*/1.0, /*stddev=*/2.0)).map(transforms::Stack<>());
  auto batch = norm.get_batch({0, 3});
  // Normalize keeps its mean/stddev as {C, 1, 1} tensors (it is meant for images), so a 1-d
  // example broadcasts to {1, 1, 2}
  EXPECT_EQ(batch.data.sizes(), (std::vector<int64_t>{2, 1, 1, 2}));
  EXPECT_TRUE(batch.data.flatten(1).equal(torch::tensor({{-0.5f, -0.5f}, {1.0f, 2.5f}})));
  EXPECT_TRUE(batch.target.equal(torch::tensor({0, 0})));

  transforms::Normalize<> per_channel({0.5, 1.0}, {0.5, 2.0});
  auto out = per_channel(torch::ones({2, 1, 1}));
  EXPECT_TRUE(out.flatten().equal(torch::tensor({1.0f, 0.0f})));
}

TEST(DataUsage, LambdaTransforms) {
  auto doubled = ToyDataset(6)
                     .map(transforms::TensorLambda<>([](torch::Tensor t) { return t * 2; }))
                     .map(transforms::Lambda<Example<>>([](Example<> e) {
                       e.target = e.target + 10;
                       return e;
                     }))
                     .map(transforms::Stack<>());
  auto loader = make_data_loader<samplers::SequentialSampler>(std::move(doubled), 6);
  auto it = loader->begin();
  ASSERT_TRUE(it != loader->end());
  auto& batch = *it;
  EXPECT_TRUE(batch.data[5].equal(torch::tensor({10.0f, 20.0f})));
  EXPECT_EQ(labels_of(batch.target), (std::vector<int64_t>{10, 11, 12, 10, 11, 12}));
  ++it;
  EXPECT_TRUE(it == loader->end());

  // a batch lambda over the whole vector of examples
  auto counted = ToyDataset(5).map(transforms::BatchLambda<std::vector<Example<>>, int64_t>(
      [](std::vector<Example<>> batch) { return static_cast<int64_t>(batch.size()); }));
  auto count_loader = make_data_loader<samplers::SequentialSampler>(std::move(counted), 2);
  std::vector<int64_t> counts;
  for (auto n : *count_loader) counts.push_back(n);
  EXPECT_EQ(counts, (std::vector<int64_t>{2, 2, 1}));
}

TEST(DataUsage, UnstackedBatchesAndPlainTensors) {
  auto loader = make_data_loader<samplers::SequentialSampler>(ToyDataset(5), 2);
  std::vector<size_t> sizes;
  for (std::vector<Example<>>& batch : *loader) sizes.push_back(batch.size());
  EXPECT_EQ(sizes, (std::vector<size_t>{2, 2, 1}));

  // Stack<> only exists for Example<> and TensorExample; plain tensors are stacked by hand
  auto squares = SquaresDataset().map(transforms::BatchLambda<std::vector<torch::Tensor>, torch::Tensor>(
      [](std::vector<torch::Tensor> batch) { return torch::stack(batch); }));
  auto sq_loader = make_data_loader<samplers::SequentialSampler>(std::move(squares), 5);
  for (auto& batch : *sq_loader) {
    EXPECT_TRUE(batch.equal(torch::tensor({0.0, 1.0, 4.0, 9.0, 16.0}, torch::kDouble)));
  }
}

TEST(DataUsage, WorkersDeliverEveryExample) {
  auto loader = make_data_loader<samplers::SequentialSampler>(
      ToyDataset(40).map(transforms::Stack<>()), DataLoaderOptions().batch_size(8).workers(2).enforce_ordering(true));
  std::vector<int64_t> firsts;
  int64_t total = 0;
  for (auto& batch : *loader) {
    total += batch.data.size(0);
    firsts.push_back(static_cast<int64_t>(batch.data[0][0].item<float>()));
  }
  EXPECT_EQ(total, 40);
  EXPECT_EQ(firsts, (std::vector<int64_t>{0, 8, 16, 24, 32}));  // ordering enforced
}

namespace {

// Each chunk i holds the values {10 i, 10 i + 1, 10 i + 2}.
class RangeChunkReader : public datasets::ChunkDataReader<int> {
 public:
  using BatchType = std::vector<int>;
  BatchType read_chunk(size_t chunk_index) override {
    const int base = static_cast<int>(chunk_index) * 10;
    return {base, base + 1, base + 2};
  }
  size_t chunk_count() override { return 4; }
  void reset() override {}
};

}  // namespace

TEST(DataUsage, ChunkDatasetYieldsEveryElement) {
  RangeChunkReader reader;
  samplers::SequentialSampler chunk_sampler(0);
  samplers::SequentialSampler example_sampler(0);
  auto dataset = datasets::make_shared_dataset<datasets::ChunkDataset<RangeChunkReader, samplers::SequentialSampler,
                                                                      samplers::SequentialSampler>>(
      reader, chunk_sampler, example_sampler, datasets::ChunkDatasetOptions(/*preloader_count=*/1, /*batch_size=*/4));
  auto loader = make_data_loader(dataset, DataLoaderOptions(4).workers(0));
  std::vector<int> seen;
  for (auto& batch : *loader) seen.insert(seen.end(), batch.begin(), batch.end());
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32}));
}
