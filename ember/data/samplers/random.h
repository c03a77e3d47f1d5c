// RandomSampler: a random permutation of 0..size-1 per epoch, drawn from ember's default
// generator (torch::randperm), so manual_seed makes the order reproducible.
#pragma once
#include <cstdint>

#include "ember/core/dtype.h"
#include "ember/core/tensor.h"
#include "ember/data/samplers/base.h"

namespace ember::data::samplers {

class RandomSampler : public Sampler<> {
 public:
  // `index_dtype`: the dtype the permutation is kept in (kInt64, or a smaller integer type
  // to save memory on huge datasets).
  explicit RandomSampler(int64_t size, Dtype index_dtype = kLong);
  ~RandomSampler() override;

  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  // The position in this epoch's permutation.
  size_t index() const noexcept { return size_t(index_); }

 private:
  Tensor indices_;  // this epoch's permutation
  int64_t index_ = 0;
};

}  // namespace ember::data::samplers
