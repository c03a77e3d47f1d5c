// CustomBatchRequest: the interface of batch requests that are not index lists (LibTorch's
// samplers::CustomBatchRequest), e.g. StreamSampler's BatchSize.
#pragma once
#include <cstddef>

namespace ember::data::samplers {

struct CustomBatchRequest {
  virtual ~CustomBatchRequest() = default;
  // The number of examples requested.
  virtual size_t size() const = 0;
};

}  // namespace ember::data::samplers
