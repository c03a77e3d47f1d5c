// Sampler: what a DataLoader asks for the next batch request (LibTorch's
// torch::data::samplers::Sampler). next(batch_size) returns up to batch_size indices, or
// nullopt when the epoch is over; reset() starts a new epoch; save/load checkpoint the
// position through ember's serialize archives.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

namespace ember::serialize {
class OutputArchive;
class InputArchive;
}  // namespace ember::serialize

namespace ember::data::samplers {

template <typename BatchRequest = std::vector<size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;

  virtual ~Sampler() = default;

  // Starts a new epoch; `new_size` (when given) changes the number of examples.
  virtual void reset(std::optional<size_t> new_size) = 0;
  virtual std::optional<BatchRequest> next(size_t batch_size) = 0;
  virtual void save(serialize::OutputArchive& archive) const = 0;
  virtual void load(serialize::InputArchive& archive) = 0;
};

}  // namespace ember::data::samplers
