// Transforms of an example's data tensor (LibTorch's TensorTransform, TensorLambda and
// Normalize); the target passes through unchanged.
#pragma once
#include <functional>
#include <utility>

#include "ember/core/array_ref.h"
#include "ember/data/example.h"
#include "ember/data/transforms/base.h"

namespace ember::data::transforms {

template <typename Target = Tensor>
class TensorTransform : public Transform<Example<Tensor, Target>, Example<Tensor, Target>> {
 public:
  using E = Example<Tensor, Target>;
  using typename Transform<E, E>::InputType;
  using typename Transform<E, E>::OutputType;

  virtual Tensor operator()(Tensor input) = 0;

  OutputType apply(InputType input) override {
    input.data = (*this)(std::move(input.data));
    return input;
  }
};

template <typename Target = Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<Tensor(Tensor)>;

  explicit TensorLambda(FunctionType function) : function_(std::move(function)) {}
  Tensor operator()(Tensor input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

namespace detail {
// The per-channel values as a float tensor of shape [C, 1, 1] (broadcasts over H and W).
Tensor channel_values(ArrayRef<double> values, const char* what);
// Raises an error unless mean and stddev have one value each or one per channel alike.
void check_normalize_sizes(const Tensor& mean, const Tensor& stddev);
// (input - mean) / stddev, with an error naming the shapes when they do not broadcast.
Tensor normalize(const Tensor& input, const Tensor& mean, const Tensor& stddev);
}  // namespace detail

// (data - mean[c]) / stddev[c] per channel c of a [C, H, W] image (one value: all channels).
template <typename Target = Tensor>
struct Normalize : public TensorTransform<Target> {
  Normalize(ArrayRef<double> mean, ArrayRef<double> stddev)
      : mean(detail::channel_values(mean, "mean")), stddev(detail::channel_values(stddev, "stddev")) {
    detail::check_normalize_sizes(this->mean, this->stddev);
  }

  Tensor operator()(Tensor input) override { return detail::normalize(input, mean, stddev); }

  Tensor mean, stddev;
};

}  // namespace ember::data::transforms
