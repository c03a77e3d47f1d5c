// Dropout modules (LibTorch's torch/nn/modules/dropout.h): Dropout, Dropout2d, Dropout3d,
// AlphaDropout and FeatureAlphaDropout. Options: ember/nn/options/dropout.h; functionals:
// ember/nn/functional/dropout.h.
#pragma once
#include "ember/nn/functional/dropout.h"
#include "ember/nn/module.h"
#include "ember/nn/options/dropout.h"

namespace ember::nn {

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
