// Linear layers (LibTorch's torch/nn/modules/linear.h; `XImpl` + `TORCH_MODULE(X)`):
// Linear, Identity, Flatten, Unflatten, Bilinear. Options: ember/nn/options/linear.h;
// F::linear and F::bilinear: ember/nn/functional/linear.h.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/functional/linear.h"
#include "ember/nn/module.h"
#include "ember/nn/options/linear.h"

namespace ember::nn {

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

class FlattenImpl : public Cloneable<FlattenImpl> {
 public:
  explicit FlattenImpl(const FlattenOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  FlattenOptions options;
};
TORCH_MODULE(Flatten);

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
