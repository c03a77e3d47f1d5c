// Dropout (LibTorch's torch/nn/modules/dropout.h, functional/dropout.h): ATen's dropout
// family, Dropout, Dropout2d, Dropout3d, AlphaDropout and FeatureAlphaDropout, with their
// functionals in both call forms (F::dropout(x, F::DropoutFuncOptions()...) and
// F::dropout(x, p, ...)).
#pragma once
#include "ember/nn/module.h"

namespace ember {
// ATen's dropout family (torch::dropout, torch::feature_dropout_, torch::alpha_dropout, ...):
// PyTorch's noise, drawn in PyTorch's order (dropout.cpp).
Tensor dropout(const Tensor& input, double p, bool train);
Tensor dropout_(Tensor& input, double p, bool train);
Tensor feature_dropout(const Tensor& input, double p, bool train);
Tensor feature_dropout_(Tensor& input, double p, bool train);
Tensor alpha_dropout(const Tensor& input, double p, bool train);
Tensor alpha_dropout_(Tensor& input, double p, bool train);
Tensor feature_alpha_dropout(const Tensor& input, double p, bool train);
Tensor feature_alpha_dropout_(Tensor& input, double p, bool train);
}  // namespace ember

namespace ember::nn {

namespace functional {
struct DropoutFuncOptions {
  TORCH_ARG(double, p) = 0.5;
  TORCH_ARG(bool, training) = true;
  TORCH_ARG(bool, inplace) = false;
};
using Dropout2dFuncOptions = DropoutFuncOptions;
using Dropout3dFuncOptions = DropoutFuncOptions;
Tensor dropout(const Tensor& input, double p, bool training = true, bool inplace = false);
Tensor dropout(Tensor input, const DropoutFuncOptions& options = {});
// Zeroes whole channels (dim 1) of (N, C, ...) inputs.
Tensor dropout2d(const Tensor& input, double p, bool training = true, bool inplace = false);
Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options = {});
// Zeroes whole channels of (N, C, D, H, W) inputs, or of unbatched (C, D, H, W) ones.
Tensor dropout3d(const Tensor& input, double p, bool training = true, bool inplace = false);
Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& options = {});
}  // namespace functional

struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT
  TORCH_ARG(double, p);
  TORCH_ARG(bool, inplace) = false;
};
using Dropout2dOptions = DropoutOptions;
using Dropout3dOptions = DropoutOptions;
class DropoutImpl : public Cloneable<DropoutImpl> {
 public:
  explicit DropoutImpl(const DropoutOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  DropoutOptions options;
};
TORCH_MODULE(Dropout);

class Dropout2dImpl : public Cloneable<Dropout2dImpl> {
 public:
  explicit Dropout2dImpl(const Dropout2dOptions& options = {});
  explicit Dropout2dImpl(double p) : Dropout2dImpl(Dropout2dOptions(p)) {}
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  Dropout2dOptions options;
};
TORCH_MODULE(Dropout2d);

class Dropout3dImpl : public Cloneable<Dropout3dImpl> {
 public:
  explicit Dropout3dImpl(const Dropout3dOptions& options = {});
  explicit Dropout3dImpl(double p) : Dropout3dImpl(Dropout3dOptions(p)) {}
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  Dropout3dOptions options;
};
TORCH_MODULE(Dropout3d);

// ---- AlphaDropout ------------------------------------------------------------------------
using AlphaDropoutOptions = DropoutOptions;
using FeatureAlphaDropoutOptions = DropoutOptions;

namespace functional {
struct AlphaDropoutFuncOptions {
  TORCH_ARG(double, p) = 0.5;
  TORCH_ARG(bool, training) = false;
  TORCH_ARG(bool, inplace) = false;
};
using FeatureAlphaDropoutFuncOptions = AlphaDropoutFuncOptions;
// Keeps mean and variance of SELU activations: dropped elements take SELU's negative
// saturation value, then an affine map restores the statistics. The feature form drops
// whole channels (dim 1).
Tensor alpha_dropout(const Tensor& input, double p = 0.5, bool training = false, bool inplace = false);
Tensor alpha_dropout(const Tensor& input, const AlphaDropoutFuncOptions& options);
Tensor feature_alpha_dropout(const Tensor& input, double p = 0.5, bool training = false, bool inplace = false);
Tensor feature_alpha_dropout(const Tensor& input, const FeatureAlphaDropoutFuncOptions& options);
}  // namespace functional

class AlphaDropoutImpl : public Cloneable<AlphaDropoutImpl> {
 public:
  explicit AlphaDropoutImpl(const AlphaDropoutOptions& options = {});
  explicit AlphaDropoutImpl(double p) : AlphaDropoutImpl(AlphaDropoutOptions(p)) {}
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  AlphaDropoutOptions options;
};
TORCH_MODULE(AlphaDropout);

class FeatureAlphaDropoutImpl : public Cloneable<FeatureAlphaDropoutImpl> {
 public:
  explicit FeatureAlphaDropoutImpl(const FeatureAlphaDropoutOptions& options = {});
  explicit FeatureAlphaDropoutImpl(double p) : FeatureAlphaDropoutImpl(FeatureAlphaDropoutOptions(p)) {}
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  FeatureAlphaDropoutOptions options;
};
TORCH_MODULE(FeatureAlphaDropout);

}  // namespace ember::nn
