// torch::data samplers: the indices each hands out (against hand-computed lists), seeding
// through manual_seed, distributed slicing, and save/load through serialize archives
// (round trips in memory, and corrupted archives).
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "test_util.h"

namespace {

using namespace torch::data::samplers;
using torch::serialize::InputArchive;
using torch::serialize::OutputArchive;

std::vector<size_t> drain(Sampler<>& s, size_t batch) {
  std::vector<size_t> all;
  while (auto b = s.next(batch)) {
    EXPECT_LE(b->size(), batch);
    EXPECT_FALSE(b->empty());
    all.insert(all.end(), b->begin(), b->end());
  }
  return all;
}

// Writes `s` into an archive and reads the archive back from its bytes.
template <typename S>
InputArchive round_trip(const S& s) {
  OutputArchive out;
  out << s;
  const std::string bytes = out.to_bytes();
  InputArchive in;
  in.load_from(bytes.data(), bytes.size());
  return in;
}

TEST(TorchDataSamplers, SequentialInOrderWithShortLastBatch) {
  SequentialSampler s(7);
  EXPECT_EQ(*s.next(3), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(*s.next(3), (std::vector<size_t>{3, 4, 5}));
  EXPECT_EQ(*s.next(3), (std::vector<size_t>{6}));
  EXPECT_FALSE(s.next(3).has_value());
  s.reset();
  EXPECT_EQ(s.index(), 0u);
  EXPECT_EQ(drain(s, 4), (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6}));
  s.reset(2);
  EXPECT_EQ(drain(s, 5), (std::vector<size_t>{0, 1}));
  EXPECT_ERROR_WITH(s.next(0), "batch_size must be positive");
}

TEST(TorchDataSamplers, SequentialSaveLoad) {
  SequentialSampler s(10);
  s.next(4);
  InputArchive in = round_trip(s);
  SequentialSampler t(10);
  in >> t;
  EXPECT_EQ(t.index(), 4u);
  EXPECT_EQ(*t.next(2), (std::vector<size_t>{4, 5}));
  // A position past the end of a smaller sampler is rejected.
  SequentialSampler small(3);
  EXPECT_ERROR_WITH(small.load(in), "'index' is 4, outside the valid range [0, 3]");
}

TEST(TorchDataSamplers, RandomIsAPermutationReproducibleUnderManualSeed) {
  torch::manual_seed(7);
  RandomSampler a(100);
  auto first = drain(a, 16);
  std::vector<size_t> sorted = first;
  std::sort(sorted.begin(), sorted.end());
  std::vector<size_t> iota(100);
  std::iota(iota.begin(), iota.end(), 0);
  EXPECT_EQ(sorted, iota);
  EXPECT_NE(first, iota);  // shuffled (the chance of the identity is 1/100!)
  // The same seed gives the same order; the order is torch::randperm's.
  torch::manual_seed(7);
  RandomSampler b(100);
  EXPECT_EQ(drain(b, 100), first);
  torch::manual_seed(7);
  auto perm = torch::randperm(100);
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(first[size_t(i)], size_t(perm[i].item<int64_t>()));
  // A new epoch draws a new permutation.
  a.reset();
  EXPECT_NE(drain(a, 100), first);
  a.reset(5);
  EXPECT_EQ(drain(a, 2).size(), 5u);
  // A smaller index dtype holds the same values.
  RandomSampler small(300, torch::kInt16);
  auto v = drain(small, 64);
  EXPECT_EQ(std::set<size_t>(v.begin(), v.end()).size(), 300u);
  EXPECT_EQ(*std::max_element(v.begin(), v.end()), 299u);
  EXPECT_ERROR_WITH(RandomSampler(4, torch::kFloat), "index_dtype must be an integer type");
}

TEST(TorchDataSamplers, RandomSaveLoadResumesTheSamePermutation) {
  RandomSampler s(20);
  s.next(6);
  InputArchive in = round_trip(s);
  const std::vector<size_t> rest = drain(s, 5);
  RandomSampler t(3);
  in >> t;
  EXPECT_EQ(t.index(), 6u);
  EXPECT_EQ(drain(t, 7), rest);
  EXPECT_EQ(in.keys(), (std::vector<std::string>{"index", "indices"}));
}

TEST(TorchDataSamplers, RandomLoadRejectsBadArchives) {
  {
    OutputArchive out;
    out.write("index", torch::tensor(int64_t(1)));
    out.write("indices", torch::tensor({0, 2, 2}).to(torch::kLong));
    InputArchive in;
    const std::string b = out.to_bytes();
    in.load_from(b.data(), b.size());
    RandomSampler s(3);
    EXPECT_ERROR_WITH(s.load(in), "is not a permutation of 0..2 (entry 2 is 2)");
  }
  {
    OutputArchive out;
    out.write("indices", torch::tensor({1, 0}).to(torch::kLong));
    InputArchive in;
    const std::string b = out.to_bytes();
    in.load_from(b.data(), b.size());
    RandomSampler s(3);
    EXPECT_THROW(s.load(in), torch::Error);  // no "index"
  }
  {
    OutputArchive out;
    out.write("index", torch::tensor(0.5));
    out.write("indices", torch::tensor({1, 0}).to(torch::kLong));
    InputArchive in;
    const std::string b = out.to_bytes();
    in.load_from(b.data(), b.size());
    RandomSampler s(3);
    EXPECT_ERROR_WITH(s.load(in), "'index' should hold one integer");
  }
}

TEST(TorchDataSamplers, DistributedSequentialSlices) {
  // 10 examples over 3 replicas with duplicates: 4 each, the last slice wraps to 0 and 1.
  std::vector<std::vector<size_t>> expected{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 0, 1}};
  for (size_t rank = 0; rank < 3; ++rank) {
    DistributedSequentialSampler s(10, 3, rank);
    EXPECT_EQ(drain(s, 3), expected[rank]) << "rank " << rank;
  }
  // Without duplicates: 3 each, example 9 is left out.
  DistributedSequentialSampler last(10, 3, 2, /*allow_duplicates=*/false);
  EXPECT_EQ(drain(last, 2), (std::vector<size_t>{6, 7, 8}));
  // Save/load of the position.
  DistributedSequentialSampler s(10, 3, 1);
  s.next(1);
  InputArchive in = round_trip(s);
  DistributedSequentialSampler t(10, 3, 1);
  in >> t;
  EXPECT_EQ(t.index(), 5u);
  EXPECT_EQ(drain(t, 10), (std::vector<size_t>{5, 6, 7}));
  DistributedSequentialSampler other_rank(10, 3, 0);
  EXPECT_ERROR_WITH(other_rank.load(in), "'sample_index_' is 5, outside the valid range [0, 4]");
  EXPECT_ERROR_WITH(DistributedSequentialSampler(10, 2, 2), "rank 2 is out of range for 2 replicas");
  EXPECT_ERROR_WITH(DistributedSequentialSampler(10, 0, 0), "num_replicas must be positive");
}

TEST(TorchDataSamplers, DistributedRandomReplicasPartitionOneEpochPermutation) {
  const size_t n = 11, replicas = 3;
  std::vector<size_t> all;
  for (size_t rank = 0; rank < replicas; ++rank) {
    DistributedRandomSampler s(n, replicas, rank);
    auto mine = drain(s, 2);
    EXPECT_EQ(mine.size(), 4u);  // ceil(11 / 3)
    all.insert(all.end(), mine.begin(), mine.end());
  }
  // 12 slots: every example once, plus one duplicate to even out the replicas.
  std::set<size_t> distinct(all.begin(), all.end());
  EXPECT_EQ(all.size(), 12u);
  EXPECT_EQ(distinct.size(), n);
  EXPECT_EQ(*distinct.rbegin(), n - 1);
  // The permutation depends on the epoch only: replicas agree, epochs differ.
  DistributedRandomSampler a(100, 2, 0), b(100, 2, 0);
  auto a0 = drain(a, 10);
  EXPECT_EQ(drain(b, 10), a0);
  a.set_epoch(1);
  a.reset();
  EXPECT_EQ(a.epoch(), 1u);
  auto a1 = drain(a, 10);
  EXPECT_NE(a1, a0);
  // Without duplicates: floor(11 / 3) = 3 each, all distinct across replicas.
  std::set<size_t> seen;
  for (size_t rank = 0; rank < replicas; ++rank) {
    DistributedRandomSampler s(n, replicas, rank, /*allow_duplicates=*/false);
    for (size_t i : drain(s, 5)) EXPECT_TRUE(seen.insert(i).second) << i;
  }
  EXPECT_EQ(seen.size(), 9u);
}

TEST(TorchDataSamplers, DistributedRandomSaveLoadRestoresEpochAndPosition) {
  DistributedRandomSampler s(50, 2, 1);
  s.set_epoch(3);
  s.reset();
  s.next(7);
  InputArchive in = round_trip(s);
  auto rest = drain(s, 4);
  DistributedRandomSampler t(50, 2, 1);
  in >> t;
  EXPECT_EQ(t.epoch(), 3u);
  EXPECT_EQ(t.index(), 25u + 7u);
  EXPECT_EQ(drain(t, 9), rest);
}

TEST(TorchDataSamplers, StreamSamplerHandsOutBatchSizes) {
  StreamSampler s(10);
  std::vector<size_t> sizes;
  while (auto b = s.next(4)) sizes.push_back(*b);
  EXPECT_EQ(sizes, (std::vector<size_t>{4, 4, 2}));
  s.reset(3);
  auto b = s.next(5);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->size(), 3u);
  const CustomBatchRequest& request = *b;
  EXPECT_EQ(request.size(), 3u);
  s.reset(10);
  s.next(6);
  InputArchive in = round_trip(s);
  StreamSampler t(10);
  in >> t;
  EXPECT_EQ(size_t(*t.next(100)), 4u);
  StreamSampler tiny(2);
  EXPECT_ERROR_WITH(tiny.load(in), "'examples_retrieved_so_far' is 6, outside the valid range [0, 2]");
}

TEST(TorchDataSamplers, ArchivesOnDiskAndNested) {
  // A sampler's state nested in a larger checkpoint (as a training loop would save it).
  SequentialSampler s(9);
  s.next(5);
  OutputArchive sampler_archive, root;
  s.save(sampler_archive);
  root.write("sampler", sampler_archive);
  root.write("step", torch::tensor(int64_t(42)));
  const std::string path = ::testing::TempDir() + "/ember_sampler_ckpt.safetensors";
  root.save_to(path);
  InputArchive in, nested;
  in.load_from(path);
  in.read("sampler", nested);
  SequentialSampler t(9);
  t.load(nested);
  EXPECT_EQ(t.index(), 5u);
  std::remove(path.c_str());
}

}  // namespace
