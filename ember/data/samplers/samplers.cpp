// The samplers (samplers/*.h): index generation and checkpoints. A checkpoint stores each
// position as a one-element int64 tensor under LibTorch's key names ("index", "indices",
// "sample_index_", "epoch_", "examples_retrieved_so_far"), so it reads like LibTorch's.
#include <algorithm>
#include <numeric>

#include "ember/core/error.h"
#include "ember/data/samplers/distributed.h"
#include "ember/data/samplers/random.h"
#include "ember/data/samplers/sequential.h"
#include "ember/data/samplers/stream.h"
#include "ember/ops/functions.h"
#include "ember/ops/tensor_literal.h"
#include "ember/serialize/archive.h"

namespace ember::data::samplers {

namespace {

void write_position(serialize::OutputArchive& archive, const std::string& key, size_t value) {
  archive.write(key, tensor(int64_t(value)), /*is_buffer=*/true);
}

// The position stored under `key`, checked to be one integer in [low, high].
size_t read_position(serialize::InputArchive& archive, const std::string& key, const char* sampler, size_t low,
                     size_t high) {
  Tensor t;
  archive.read(key, t, /*is_buffer=*/true);
  EMBER_CHECK(t.numel() == 1 && isIntegralType(t.dtype(), /*includeBool=*/false), sampler, "::load: '",
              archive.qualified(key), "' should hold one integer, got a ", t.scalar_type(), " tensor of shape ", t.sizes());
  const int64_t v = t.item<int64_t>();
  EMBER_CHECK(v >= int64_t(low) && uint64_t(v) <= high, sampler, "::load: '", archive.qualified(key), "' is ", v,
              ", outside the valid range [", low, ", ", high, "] for this sampler");
  return size_t(v);
}

void check_batch_size(size_t batch_size, const char* sampler) {
  EMBER_CHECK(batch_size > 0, sampler, "::next: batch_size must be positive, got 0");
}

}  // namespace

// ---- SequentialSampler -----------------------------------------------------------------
SequentialSampler::SequentialSampler(size_t size) : size_(size) {}

void SequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  index_ = 0;
}

std::optional<std::vector<size_t>> SequentialSampler::next(size_t batch_size) {
  check_batch_size(batch_size, "SequentialSampler");
  if (index_ >= size_) return std::nullopt;
  std::vector<size_t> batch(std::min(size_ - index_, batch_size));
  std::iota(batch.begin(), batch.end(), index_);
  index_ += batch.size();
  return batch;
}

void SequentialSampler::save(serialize::OutputArchive& archive) const { write_position(archive, "index", index_); }

void SequentialSampler::load(serialize::InputArchive& archive) {
  index_ = read_position(archive, "index", "SequentialSampler", 0, size_);
}

// ---- RandomSampler ---------------------------------------------------------------------
RandomSampler::RandomSampler(int64_t size, Dtype index_dtype) {
  EMBER_CHECK(size >= 0, "RandomSampler: size must be non-negative, got ", size);
  EMBER_CHECK(isIntegralType(index_dtype, /*includeBool=*/false), "RandomSampler: index_dtype must be an integer type, got ",
              index_dtype);
  indices_ = randperm(size, TensorOptions().dtype(index_dtype));
}

RandomSampler::~RandomSampler() = default;

void RandomSampler::reset(std::optional<size_t> new_size) {
  const int64_t size = new_size ? int64_t(*new_size) : indices_.numel();
  indices_ = randperm(size, indices_.options());
  index_ = 0;
}

std::optional<std::vector<size_t>> RandomSampler::next(size_t batch_size) {
  check_batch_size(batch_size, "RandomSampler");
  const int64_t remaining = indices_.numel() - index_;
  if (remaining <= 0) return std::nullopt;
  const int64_t n = batch_size < size_t(remaining) ? int64_t(batch_size) : remaining;
  Tensor slice = indices_.slice(0, index_, index_ + n).to(kLong).contiguous();
  const int64_t* p = slice.data_ptr<int64_t>();
  std::vector<size_t> batch(p, p + n);
  index_ += n;
  return batch;
}

void RandomSampler::save(serialize::OutputArchive& archive) const {
  write_position(archive, "index", size_t(index_));
  archive.write("indices", indices_, /*is_buffer=*/true);
}

void RandomSampler::load(serialize::InputArchive& archive) {
  Tensor indices;
  archive.read("indices", indices, /*is_buffer=*/true);
  EMBER_CHECK(indices.dim() == 1 && isIntegralType(indices.dtype(), /*includeBool=*/false),
              "RandomSampler::load: '", archive.qualified("indices"), "' should be a 1-d integer tensor, got a ",
              indices.scalar_type(), " tensor of shape ", indices.sizes());
  // A permutation of 0..n-1: anything else would hand the dataset indices it does not have.
  Tensor as_long = indices.to(kLong).contiguous();
  const int64_t n = as_long.numel();
  std::vector<bool> seen(size_t(n), false);
  const int64_t* p = as_long.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    EMBER_CHECK(p[i] >= 0 && p[i] < n && !seen[size_t(p[i])], "RandomSampler::load: '",
                archive.qualified("indices"), "' is not a permutation of 0..", n - 1, " (entry ", i, " is ", p[i], ")");
    seen[size_t(p[i])] = true;
  }
  const size_t index = read_position(archive, "index", "RandomSampler", 0, size_t(n));
  indices_ = indices.contiguous();
  index_ = int64_t(index);
}

// ---- distributed samplers --------------------------------------------------------------
void check_distributed_replicas(size_t num_replicas, size_t rank) {
  EMBER_CHECK(num_replicas > 0, "DistributedSampler: num_replicas must be positive, got 0");
  EMBER_CHECK(rank < num_replicas, "DistributedSampler: rank ", rank, " is out of range for ", num_replicas,
              " replicas (expected 0 <= rank < num_replicas)");
}

DistributedRandomSampler::DistributedRandomSampler(size_t size, size_t num_replicas, size_t rank,
                                                   bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  reset(size_);
}

void DistributedRandomSampler::populate_indices() {
  const size_t local = local_sample_count();
  const size_t total = local * num_replicas_;
  // The same permutation on every replica: a generator seeded with the epoch.
  Tensor perm = randperm(int64_t(size_), Generator(uint64_t(epoch_)), TensorOptions().dtype(kLong));
  const int64_t* p = perm.data_ptr<int64_t>();
  all_indices_.resize(total);
  // Past the end (allow_duplicates), the permutation wraps around to its start.
  for (size_t i = 0; i < total; ++i) all_indices_[i] = size_t(p[i % size_]);
  begin_index_ = rank_ * local;
  end_index_ = begin_index_ + local;
  sample_index_ = begin_index_;
}

void DistributedRandomSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  populate_indices();
}

std::optional<std::vector<size_t>> DistributedRandomSampler::next(size_t batch_size) {
  check_batch_size(batch_size, "DistributedRandomSampler");
  if (sample_index_ >= end_index_) return std::nullopt;
  const size_t end = std::min(end_index_, sample_index_ + std::min(batch_size, end_index_ - sample_index_));
  std::vector<size_t> batch(all_indices_.begin() + ptrdiff_t(sample_index_), all_indices_.begin() + ptrdiff_t(end));
  sample_index_ = end;
  return batch;
}

void DistributedRandomSampler::save(serialize::OutputArchive& archive) const {
  write_position(archive, "sample_index_", sample_index_);
  write_position(archive, "epoch_", epoch_);
}

void DistributedRandomSampler::load(serialize::InputArchive& archive) {
  epoch_ = read_position(archive, "epoch_", "DistributedRandomSampler", 0, SIZE_MAX >> 1);
  populate_indices();  // the saved epoch's permutation
  sample_index_ = read_position(archive, "sample_index_", "DistributedRandomSampler", begin_index_, end_index_);
}

DistributedSequentialSampler::DistributedSequentialSampler(size_t size, size_t num_replicas, size_t rank,
                                                           bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  populate_indices();
}

void DistributedSequentialSampler::populate_indices() {
  begin_index_ = rank_ * local_sample_count();
  end_index_ = begin_index_ + local_sample_count();
  sample_index_ = begin_index_;
}

void DistributedSequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  populate_indices();
}

std::optional<std::vector<size_t>> DistributedSequentialSampler::next(size_t batch_size) {
  check_batch_size(batch_size, "DistributedSequentialSampler");
  if (sample_index_ >= end_index_) return std::nullopt;
  const size_t end = std::min(end_index_, sample_index_ + std::min(batch_size, end_index_ - sample_index_));
  std::vector<size_t> batch(end - sample_index_);
  // Past the end (allow_duplicates), the last replicas wrap around to the start.
  for (size_t i = 0; i < batch.size(); ++i) batch[i] = (sample_index_ + i) % size_;
  sample_index_ = end;
  return batch;
}

void DistributedSequentialSampler::save(serialize::OutputArchive& archive) const {
  write_position(archive, "sample_index_", sample_index_);
}

void DistributedSequentialSampler::load(serialize::InputArchive& archive) {
  sample_index_ = read_position(archive, "sample_index_", "DistributedSequentialSampler", begin_index_, end_index_);
}

// ---- StreamSampler ---------------------------------------------------------------------
StreamSampler::StreamSampler(size_t epoch_size) : epoch_size_(epoch_size) {}

void StreamSampler::reset(std::optional<size_t> new_size) {
  if (new_size) epoch_size_ = *new_size;
  examples_retrieved_so_far_ = 0;
}

std::optional<BatchSize> StreamSampler::next(size_t batch_size) {
  check_batch_size(batch_size, "StreamSampler");
  if (examples_retrieved_so_far_ >= epoch_size_) return std::nullopt;
  batch_size = std::min(batch_size, epoch_size_ - examples_retrieved_so_far_);
  examples_retrieved_so_far_ += batch_size;
  return BatchSize(batch_size);
}

void StreamSampler::save(serialize::OutputArchive& archive) const {
  write_position(archive, "examples_retrieved_so_far", examples_retrieved_so_far_);
}

void StreamSampler::load(serialize::InputArchive& archive) {
  examples_retrieved_so_far_ =
      read_position(archive, "examples_retrieved_so_far", "StreamSampler", 0, epoch_size_);
}

}  // namespace ember::data::samplers
