// Linear layers (LibTorch's torch/nn/modules/linear.h, functional/linear.h; `XImpl` +
// `TORCH_MODULE(X)` + `XOptions`): Linear, Identity, Flatten, Unflatten, Bilinear;
// F::linear and F::bilinear.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

namespace functional {
// input @ weight^T + bias (bias optional), for any number of leading dims.
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias = {});
}  // namespace functional

struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features) : in_features_(in_features), out_features_(out_features) {}
  TORCH_ARG(int64_t, in_features);
  TORCH_ARG(int64_t, out_features);
  TORCH_ARG(bool, bias) = true;
};

// y = x W^T + b; W (out, in) ~ U(-1/sqrt(in), 1/sqrt(in)) (kaiming_uniform_ with a = sqrt(5)),
// b ~ U(-1/sqrt(in), 1/sqrt(in)), as PyTorch.
class LinearImpl : public Cloneable<LinearImpl> {
 public:
  LinearImpl(int64_t in_features, int64_t out_features) : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  LinearOptions options;
  Tensor weight;
  Tensor bias;
};
TORCH_MODULE(Linear);

class IdentityImpl : public Cloneable<IdentityImpl> {
 public:
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return input; }
};
TORCH_MODULE(Identity);

struct FlattenOptions {
  TORCH_ARG(int64_t, start_dim) = 1;
  TORCH_ARG(int64_t, end_dim) = -1;
};
class FlattenImpl : public Cloneable<FlattenImpl> {
 public:
  explicit FlattenImpl(const FlattenOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  FlattenOptions options;
};
TORCH_MODULE(Flatten);

struct UnflattenOptions {
  UnflattenOptions(int64_t dim, std::vector<int64_t> sizes) : dim_(dim), sizes_(std::move(sizes)) {}
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::vector<int64_t>, sizes);
};
class UnflattenImpl : public Cloneable<UnflattenImpl> {
 public:
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes) : options(dim, std::move(sizes)) {}
  explicit UnflattenImpl(UnflattenOptions options) : options(std::move(options)) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  UnflattenOptions options;
};
TORCH_MODULE(Unflatten);

struct BilinearOptions {
  BilinearOptions(int64_t in1, int64_t in2, int64_t out) : in1_features_(in1), in2_features_(in2), out_features_(out) {}
  TORCH_ARG(int64_t, in1_features);
  TORCH_ARG(int64_t, in2_features);
  TORCH_ARG(int64_t, out_features);
  TORCH_ARG(bool, bias) = true;
};
// y = x1^T W x2 + b; W, b ~ U(-1/sqrt(in1), 1/sqrt(in1)), as PyTorch.
class BilinearImpl : public Cloneable<BilinearImpl> {
 public:
  BilinearImpl(int64_t in1, int64_t in2, int64_t out) : BilinearImpl(BilinearOptions(in1, in2, out)) {}
  explicit BilinearImpl(const BilinearOptions& options);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input1, const Tensor& input2) {
    return functional::bilinear(input1, input2, weight, bias);
  }
  BilinearOptions options;
  Tensor weight, bias;
};
TORCH_MODULE(Bilinear);

}  // namespace ember::nn
