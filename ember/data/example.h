// Example<Data, Target>: one sample (or one collated batch) as a dataset yields it, with
// LibTorch's torch::data::Example layout. Example<Data, NoTarget> holds data only and
// converts to it, so a TensorDataset's batches read like plain tensors.
#pragma once
#include <utility>

#include "ember/core/tensor.h"

namespace ember::data {

template <typename Data = Tensor, typename Target = Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;

  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}

  Data data;
  Target target;
};

namespace example {
using NoTarget = void;
}  // namespace example

template <typename Data>
struct Example<Data, example::NoTarget> {
  using DataType = Data;
  using TargetType = example::NoTarget;

  Example() = default;
  /* implicit */ Example(Data data) : data(std::move(data)) {}

  operator Data&() { return data; }
  operator const Data&() const { return data; }

  Data data;
};

using TensorExample = Example<Tensor, example::NoTarget>;

}  // namespace ember::data
