// StreamSampler: batch sizes (not indices) for a stream dataset, until epoch_size examples
// have been requested (LibTorch's samplers::StreamSampler).
#pragma once
#include "ember/data/samplers/base.h"
#include "ember/data/samplers/custom_batch_request.h"

namespace ember::data::samplers {

// A request for `size_` examples; converts to size_t.
struct BatchSize : public CustomBatchRequest {
  explicit BatchSize(size_t size) : size_(size) {}
  size_t size() const noexcept override { return size_; }
  operator size_t() const noexcept { return size_; }
  size_t size_;
};

class StreamSampler : public Sampler<BatchSize> {
 public:
  explicit StreamSampler(size_t epoch_size);

  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<BatchSize> next(size_t batch_size) override;
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;

 private:
  size_t examples_retrieved_so_far_ = 0;
  size_t epoch_size_;
};

}  // namespace ember::data::samplers
