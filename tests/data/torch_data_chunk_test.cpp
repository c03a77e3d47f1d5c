// datasets::ChunkDataset: every example of every chunk once per epoch (any number of
// preloaders, small caches, cross-chunk shuffling), batches that continue across chunks in
// sampler order, reader errors, checkpoints of the chunk sampler, and option checks.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "test_util.h"

namespace {

using namespace torch::data;

// Chunk c holds the examples start(c) .. start(c) + sizes[c] - 1.
struct Reader : datasets::ChunkDataReader<int> {
  using BatchType = datasets::ChunkDataReader<int>::ChunkType;
  explicit Reader(std::vector<size_t> sizes, int fail_chunk = -1) : sizes(std::move(sizes)), fail_chunk(fail_chunk) {}
  BatchType read_chunk(size_t c) override {
    if (int(c) == fail_chunk) throw std::runtime_error("chunk " + std::to_string(c) + " is corrupt");
    size_t start = std::accumulate(sizes.begin(), sizes.begin() + ptrdiff_t(c), size_t(0));
    BatchType chunk(sizes[c]);
    std::iota(chunk.begin(), chunk.end(), int(start));
    return chunk;
  }
  size_t chunk_count() override { return sizes.size(); }
  void reset() override {}
  std::vector<size_t> sizes;
  int fail_chunk;
};

const std::vector<size_t> kChunks{3, 5, 1, 4, 7};  // 20 examples

template <typename Loader>
std::vector<int> epoch(Loader& loader, size_t batch_size) {
  std::vector<int> all;
  for (auto& b : loader) {
    EXPECT_LE(b.size(), batch_size);
    EXPECT_FALSE(b.empty());
    all.insert(all.end(), b.begin(), b.end());
  }
  return all;
}

std::vector<int> iota(int n) {
  std::vector<int> v(size_t(n), 0);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

TEST(TorchDataChunk, EveryExampleOncePerEpoch) {
  for (size_t preloaders : {1, 2, 3})
    for (size_t batch : {1, 4, 6})
      for (size_t cache : {6, 2048})
        for (size_t cross : {1, 2}) {
          if (cache < batch) continue;
          using DS = datasets::ChunkDataset<Reader>;
          auto dataset = datasets::make_shared_dataset<DS>(Reader(kChunks), samplers::RandomSampler(0),
                                                           samplers::RandomSampler(0),
                                                           datasets::ChunkDatasetOptions(preloaders, batch, cache, cross));
          auto loader = make_data_loader(std::move(dataset), DataLoaderOptions(batch).workers(preloaders % 2));
          for (int e = 0; e < 2; ++e) {
            auto got = epoch(*loader, batch);
            std::sort(got.begin(), got.end());
            EXPECT_EQ(got, iota(20)) << preloaders << " preloaders, batch " << batch << ", cache " << cache
                                     << ", cross " << cross << ", epoch " << e;
          }
        }
}

TEST(TorchDataChunk, SequentialSamplersFillBatchesAcrossChunks) {
  using DS = datasets::ChunkDataset<Reader, samplers::SequentialSampler, samplers::SequentialSampler>;
  DS dataset(Reader(kChunks), samplers::SequentialSampler(0), samplers::SequentialSampler(0),
             datasets::ChunkDatasetOptions(1, 4));
  dataset.reset();
  std::vector<std::vector<int>> batches;
  while (auto b = dataset.get_batch(4)) batches.push_back(*b);
  EXPECT_EQ(batches, (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15},
                                                     {16, 17, 18, 19}}));
  EXPECT_FALSE(dataset.size().has_value());
  EXPECT_ERROR_WITH(dataset.get_batch(3), "get_batch(3) does not match the dataset's batch size 4");
}

TEST(TorchDataChunk, PreprocessingPolicyRunsPerChunk) {
  using DS = datasets::ChunkDataset<Reader, samplers::SequentialSampler, samplers::SequentialSampler>;
  DS dataset(Reader({3, 2}), samplers::SequentialSampler(0), samplers::SequentialSampler(0),
             datasets::ChunkDatasetOptions(1, 5), [](std::vector<int>& chunk) { std::reverse(chunk.begin(), chunk.end()); });
  dataset.reset();
  EXPECT_EQ(*dataset.get_batch(), (std::vector<int>{2, 1, 0, 4, 3}));
  EXPECT_FALSE(dataset.get_batch().has_value());
}

TEST(TorchDataChunk, ReaderErrorsReachTheConsumer) {
  using DS = datasets::ChunkDataset<Reader, samplers::SequentialSampler, samplers::SequentialSampler>;
  auto dataset = datasets::make_shared_dataset<DS>(Reader(kChunks, /*fail_chunk=*/1), samplers::SequentialSampler(0),
                                                   samplers::SequentialSampler(0), datasets::ChunkDatasetOptions(1, 2));
  auto loader = make_data_loader(std::move(dataset), DataLoaderOptions(2).workers(1));
  std::vector<int> got;
  bool failed = false;
  auto it = loader->begin();
  while (true) {
    try {
      if (it == loader->end()) break;
      got.insert(got.end(), it->begin(), it->end());
      ++it;
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("chunk 1 is corrupt"), std::string::npos) << e.what();
      failed = true;
      ++it;
    }
  }
  EXPECT_TRUE(failed);
  // Chunk 1 (examples 3..7) is missing; the rest came.
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<int>{0, 1, 2, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}));
}

TEST(TorchDataChunk, GetBatchBeforeResetAndBadOptions) {
  datasets::ChunkDataset<Reader> dataset(Reader(kChunks), samplers::RandomSampler(0), samplers::RandomSampler(0),
                                         datasets::ChunkDatasetOptions(1, 2));
  EXPECT_ERROR_WITH(dataset.get_batch(2), "get_batch() before reset()");
  EXPECT_ERROR_WITH(datasets::ChunkDatasetOptions(0, 2), "preloader_count is 0");
  EXPECT_ERROR_WITH(datasets::ChunkDatasetOptions(1, 0), "batch_size is 0");
  EXPECT_ERROR_WITH(datasets::ChunkDatasetOptions(1, 8, 4), "cache_size (4) is less than batch_size (8)");
  EXPECT_ERROR_WITH(datasets::ChunkDatasetOptions(1, 2, 4, 0), "cross_chunk_shuffle_count is 0");
  datasets::ChunkDatasetOptions o(2, 3);
  EXPECT_EQ(o.cache_size(), 2048u);
  EXPECT_EQ(o.cross_chunk_shuffle_count(), 1u);
}

TEST(TorchDataChunk, CheckpointResumesFromTheChunkSampler) {
  using DS = datasets::ChunkDataset<Reader, samplers::SequentialSampler, samplers::SequentialSampler>;
  // One preloader that has read chunks 0 and 1 (the cache holds one batch of 8): the chunk
  // sampler's position is 2 chunks.
  DS first(Reader(kChunks), samplers::SequentialSampler(0), samplers::SequentialSampler(0),
           datasets::ChunkDatasetOptions(1, 8, 8));
  first.reset();
  EXPECT_EQ(*first.get_batch(), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  // (the preloader may have gone on to chunk 2 and 3; save whatever position it reached)
  torch::serialize::OutputArchive out;
  out << first;
  const std::string bytes = out.to_bytes();
  torch::serialize::InputArchive in;
  in.load_from(bytes.data(), bytes.size());
  torch::Tensor index;
  in.read("index", index);
  const int64_t resumed_at = index.item<int64_t>();
  ASSERT_GE(resumed_at, 2);

  const int start = int(std::accumulate(kChunks.begin(), kChunks.begin() + resumed_at, size_t(0)));
  std::vector<int> expected(size_t(20 - start));
  std::iota(expected.begin(), expected.end(), start);

  // Loaded into a fresh dataset (its chunk sampler sized for the chunks), or into one whose
  // preloaders are already running (load stops them first).
  for (bool running : {false, true}) {
    DS second(Reader(kChunks), samplers::SequentialSampler(kChunks.size()), samplers::SequentialSampler(0),
              datasets::ChunkDatasetOptions(1, 8, 8));
    if (running) second.reset();
    in >> second;
    second.reset();  // continues from the checkpoint
    std::vector<int> rest;
    while (auto b = second.get_batch()) rest.insert(rest.end(), b->begin(), b->end());
    EXPECT_EQ(rest, expected) << (running ? "running" : "fresh");
    // The next reset without a checkpoint starts from chunk 0 again.
    second.reset();
    EXPECT_EQ(second.get_batch()->front(), 0);
  }
  // A position past the chunk count is rejected.
  DS tiny(Reader({4}), samplers::SequentialSampler(1), samplers::SequentialSampler(0),
          datasets::ChunkDatasetOptions(1, 8, 8));
  EXPECT_ERROR_WITH(tiny.load(in), "outside the valid range [0, 1]");
}

TEST(TorchDataChunk, DestroyedWhilePreloadersWaitOnAFullCache) {
  // A big chunk list and a cache of one batch: preloaders block until the consumer takes.
  std::vector<size_t> many(200, 10);
  for (size_t preloaders : {1, 3}) {
    auto dataset = datasets::make_shared_dataset<datasets::ChunkDataset<Reader>>(
        Reader(many), samplers::RandomSampler(0), samplers::RandomSampler(0),
        datasets::ChunkDatasetOptions(preloaders, 4, 4));
    auto loader = make_data_loader(std::move(dataset), DataLoaderOptions(4).workers(2));
    auto it = loader->begin();
    EXPECT_EQ(it->size(), 4u);
  }
  SUCCEED();
}

}  // namespace
