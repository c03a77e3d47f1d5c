// Samplers for data-parallel training (LibTorch's DistributedRandomSampler and
// DistributedSequentialSampler): replica `rank` of `num_replicas` sees its own slice of the
// dataset. With allow_duplicates every replica gets ceil(size / num_replicas) examples (the
// last slices wrap around to the start); without, floor(size / num_replicas) and the rest
// is left out. The random sampler shuffles with a seed that depends only on the epoch, so
// all replicas agree on the permutation; call set_epoch(e) before each epoch's reset().
#pragma once
#include <cstddef>
#include <vector>

#include "ember/data/samplers/base.h"

namespace ember::data::samplers {

// Raises an error unless num_replicas > 0 and rank < num_replicas.
void check_distributed_replicas(size_t num_replicas, size_t rank);

template <typename BatchRequest = std::vector<size_t>>
class DistributedSampler : public Sampler<BatchRequest> {
 public:
  DistributedSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true)
      : size_(size), num_replicas_(num_replicas), rank_(rank), allow_duplicates_(allow_duplicates) {
    check_distributed_replicas(num_replicas, rank);
  }

  void set_epoch(size_t epoch) { epoch_ = epoch; }
  size_t epoch() const { return epoch_; }

 protected:
  // The number of examples this replica sees per epoch.
  size_t local_sample_count() const {
    return allow_duplicates_ ? (size_ + num_replicas_ - 1) / num_replicas_ : size_ / num_replicas_;
  }

  size_t size_;
  size_t num_replicas_;
  size_t rank_;
  size_t epoch_ = 0;
  bool allow_duplicates_;
};

class DistributedRandomSampler : public DistributedSampler<> {
 public:
  DistributedRandomSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true);

  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  size_t index() const noexcept { return sample_index_; }

 private:
  void populate_indices();

  size_t begin_index_ = 0;
  size_t end_index_ = 0;
  size_t sample_index_ = 0;
  std::vector<size_t> all_indices_;  // the epoch's permutation, padded to num_replicas slices
};

class DistributedSequentialSampler : public DistributedSampler<> {
 public:
  DistributedSequentialSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true);

  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  size_t index() const noexcept { return sample_index_; }

 private:
  void populate_indices();

  size_t begin_index_ = 0;
  size_t end_index_ = 0;
  size_t sample_index_ = 0;
};

}  // namespace ember::data::samplers
