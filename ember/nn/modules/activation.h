// Activation modules (LibTorch's torch/nn/modules/activation.h): the elementwise activations
// ReLU, ReLU6, ELU, SELU, CELU, RReLU, LeakyReLU, GELU, SiLU, Mish, Hardswish, Hardsigmoid,
// Hardtanh, Softplus, Softsign, Threshold, PReLU, Tanh, Sigmoid, LogSigmoid, Tanhshrink,
// Hardshrink, Softshrink, GLU, Softmax, LogSoftmax, Softmin and Softmax2d. Options:
// ember/nn/options/activation.h; the functionals (gumbel_softmax too): functional/activation.h.
#pragma once
#include "ember/nn/functional/activation.h"
#include "ember/nn/module.h"
#include "ember/nn/options/activation.h"

namespace ember::nn {

// Activation modules without options, named as LibTorch prints them.
#define EMBER_ACTIVATION(Name)                                  \
  class Name##Impl : public Cloneable<Name##Impl> {                            \
   public:                                                                     \
    void reset() override {}                                                   \
    void pretty_print(std::ostream& stream) const override;                    \
    Tensor forward(const Tensor& input);                                       \
  };                                                                           \
  TORCH_MODULE(Name)
EMBER_ACTIVATION(Mish);
EMBER_ACTIVATION(Hardswish);
EMBER_ACTIVATION(Hardsigmoid);
EMBER_ACTIVATION(Softsign);
EMBER_ACTIVATION(LogSigmoid);
EMBER_ACTIVATION(Tanhshrink);
EMBER_ACTIVATION(Softmax2d);  // softmax over the channels of (N, C, H, W) / (C, H, W)
#undef EMBER_ACTIVATION

// Activation modules with one option (Name##Options, ember/nn/options/activation.h).
#define EMBER_ACTIVATION_1(Name, InputT)                                                    \
  class Name##Impl : public Cloneable<Name##Impl> {                                         \
   public:                                                                                  \
    explicit Name##Impl(const Name##Options& options = {}) : options(options) {}            \
    void reset() override {}                                                                \
    void pretty_print(std::ostream& stream) const override;                                 \
    Tensor forward(InputT input);                                                           \
    Name##Options options;                                                                  \
  };                                                                                        \
  TORCH_MODULE(Name)
EMBER_ACTIVATION_1(ReLU6, Tensor);
EMBER_ACTIVATION_1(SELU, Tensor);
EMBER_ACTIVATION_1(Hardshrink, const Tensor&);
EMBER_ACTIVATION_1(Softshrink, const Tensor&);
EMBER_ACTIVATION_1(GLU, const Tensor&);
#undef EMBER_ACTIVATION_1

class SoftminImpl : public Cloneable<SoftminImpl> {
 public:
  explicit SoftminImpl(const SoftminOptions& options) : options(options) {}
  explicit SoftminImpl(int64_t dim) : options(dim) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  SoftminOptions options;
};
TORCH_MODULE(Softmin);

class ELUImpl : public Cloneable<ELUImpl> {
 public:
  explicit ELUImpl(const ELUOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  ELUOptions options;
};
TORCH_MODULE(ELU);

class CELUImpl : public Cloneable<CELUImpl> {
 public:
  explicit CELUImpl(const CELUOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  CELUOptions options;
};
TORCH_MODULE(CELU);

class RReLUImpl : public Cloneable<RReLUImpl> {
 public:
  explicit RReLUImpl(const RReLUOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  RReLUOptions options;
};
TORCH_MODULE(RReLU);

class HardtanhImpl : public Cloneable<HardtanhImpl> {
 public:
  explicit HardtanhImpl(const HardtanhOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  HardtanhOptions options;
};
TORCH_MODULE(Hardtanh);

class SoftplusImpl : public Cloneable<SoftplusImpl> {
 public:
  explicit SoftplusImpl(const SoftplusOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  SoftplusOptions options;
};
TORCH_MODULE(Softplus);

class ThresholdImpl : public Cloneable<ThresholdImpl> {
 public:
  ThresholdImpl(double threshold, double value) : options(threshold, value) {}
  explicit ThresholdImpl(const ThresholdOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  ThresholdOptions options;
};
TORCH_MODULE(Threshold);

class PReLUImpl : public Cloneable<PReLUImpl> {
 public:
  explicit PReLUImpl(const PReLUOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  PReLUOptions options;
  Tensor weight;
};
TORCH_MODULE(PReLU);

class ReLUImpl : public Cloneable<ReLUImpl> {
 public:
  explicit ReLUImpl(const ReLUOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  ReLUOptions options;
};
TORCH_MODULE(ReLU);

class TanhImpl : public Cloneable<TanhImpl> {
 public:
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};
TORCH_MODULE(Tanh);

class SigmoidImpl : public Cloneable<SigmoidImpl> {
 public:
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};
TORCH_MODULE(Sigmoid);

class LeakyReLUImpl : public Cloneable<LeakyReLUImpl> {
 public:
  explicit LeakyReLUImpl(const LeakyReLUOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  LeakyReLUOptions options;
};
TORCH_MODULE(LeakyReLU);

class GELUImpl : public Cloneable<GELUImpl> {
 public:
  explicit GELUImpl(const GELUOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  GELUOptions options;
};
TORCH_MODULE(GELU);

class SiLUImpl : public Cloneable<SiLUImpl> {
 public:
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};
TORCH_MODULE(SiLU);

class SoftmaxImpl : public Cloneable<SoftmaxImpl> {
 public:
  explicit SoftmaxImpl(const SoftmaxOptions& options) : options(options) {}
  explicit SoftmaxImpl(int64_t dim) : options(dim) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  SoftmaxOptions options;
};
TORCH_MODULE(Softmax);
class LogSoftmaxImpl : public Cloneable<LogSoftmaxImpl> {
 public:
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options) : options(options) {}
  explicit LogSoftmaxImpl(int64_t dim) : options(dim) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  LogSoftmaxOptions options;
};
TORCH_MODULE(LogSoftmax);

}  // namespace ember::nn
