// Activations (LibTorch's torch/nn/modules/activation.h, functional/activation.h): the
// elementwise activations ReLU, ReLU6, ELU, SELU, CELU, RReLU, LeakyReLU, GELU, SiLU, Mish,
// Hardswish, Hardsigmoid, Hardtanh, Softplus, Softsign, Threshold, PReLU, Tanh, Sigmoid,
// LogSigmoid, Tanhshrink, Hardshrink, Softshrink, GLU, Softmax, LogSoftmax, Softmin,
// Softmax2d, and gumbel_softmax, with their functionals in LibTorch's options form
// (F::elu(x, F::ELUFuncOptions().alpha(2))) and the positional one (F::elu(x, 2.0)). Where
// both would take only the tensors, the options form does (the positional one leaves its
// first option without a default).
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "ember/nn/module.h"
#include "ember/ops/functions.h"

namespace ember::nn {

namespace functional {
// The tensor ops of the same names (no options in LibTorch's F:: either).
using ember::hardsigmoid;
using ember::hardswish;
using ember::mish;
using ember::sigmoid;
using ember::silu;
using ember::tanh;
using ember::threshold;
// Positional forms of the activations whose options forms follow their modules below.
Tensor elu(const Tensor& input, double alpha, double scale = 1, double input_scale = 1);
Tensor celu(const Tensor& input, double alpha);
Tensor hardshrink(const Tensor& input, double lambda);
Tensor softshrink(const Tensor& input, double lambda);
Tensor hardtanh(const Tensor& input, double min_val, double max_val = 1);
Tensor softplus(const Tensor& input, double beta, double threshold = 20);
Tensor softsign(const Tensor& input);
Tensor logsigmoid(const Tensor& input);
Tensor tanhshrink(const Tensor& input);
Tensor softmin(const Tensor& input, int64_t dim, std::optional<Dtype> dtype = std::nullopt);
// a * sigmoid(b) for the halves a, b of input along dim.
Tensor glu(const Tensor& input, int64_t dim);
Tensor prelu(const Tensor& input, const Tensor& weight);
}  // namespace functional

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

// Activation modules with one option (`Name##Options(value)` converts implicitly, as
// LibTorch's), which is also the functional's options (Name##FuncOptions).
#define EMBER_ACTIVATION_1(Name, T, option, default_value, InputT)                           \
  struct Name##Options {                                                                    \
    Name##Options(T option = default_value) : option##_(option) {}  /* NOLINT */            \
    TORCH_ARG(T, option);                                                                   \
  };                                                                                        \
  namespace functional {                                                                    \
  using Name##FuncOptions = Name##Options;                                                  \
  }                                                                                         \
  class Name##Impl : public Cloneable<Name##Impl> {                                         \
   public:                                                                                  \
    explicit Name##Impl(const Name##Options& options = {}) : options(options) {}            \
    void reset() override {}                                                                \
    void pretty_print(std::ostream& stream) const override;                                 \
    Tensor forward(InputT input);                                                           \
    Name##Options options;                                                                  \
  };                                                                                        \
  TORCH_MODULE(Name)
EMBER_ACTIVATION_1(ReLU6, bool, inplace, false, Tensor);
EMBER_ACTIVATION_1(SELU, bool, inplace, false, Tensor);
EMBER_ACTIVATION_1(Hardshrink, double, lambda, 0.5, const Tensor&);
EMBER_ACTIVATION_1(Softshrink, double, lambda, 0.5, const Tensor&);
EMBER_ACTIVATION_1(GLU, int64_t, dim, -1, const Tensor&);
#undef EMBER_ACTIVATION_1

struct SoftminOptions {
  SoftminOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  TORCH_ARG(int64_t, dim);
};
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

struct ELUOptions {
  TORCH_ARG(double, alpha) = 1.0;
  TORCH_ARG(bool, inplace) = false;
};
class ELUImpl : public Cloneable<ELUImpl> {
 public:
  explicit ELUImpl(const ELUOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  ELUOptions options;
};
TORCH_MODULE(ELU);

struct CELUOptions {
  TORCH_ARG(double, alpha) = 1.0;
  TORCH_ARG(bool, inplace) = false;
};
class CELUImpl : public Cloneable<CELUImpl> {
 public:
  explicit CELUImpl(const CELUOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  CELUOptions options;
};
TORCH_MODULE(CELU);

// Randomized leaky ReLU: in training each negative element gets a slope ~ U(lower, upper),
// in evaluation the slope (lower + upper) / 2.
struct RReLUOptions {
  TORCH_ARG(double, lower) = 1.0 / 8.0;
  TORCH_ARG(double, upper) = 1.0 / 3.0;
  TORCH_ARG(bool, inplace) = false;
};
class RReLUImpl : public Cloneable<RReLUImpl> {
 public:
  explicit RReLUImpl(const RReLUOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  RReLUOptions options;
};
TORCH_MODULE(RReLU);

struct HardtanhOptions {
  TORCH_ARG(double, min_val) = -1.0;
  TORCH_ARG(double, max_val) = 1.0;
  TORCH_ARG(bool, inplace) = false;
};
class HardtanhImpl : public Cloneable<HardtanhImpl> {
 public:
  explicit HardtanhImpl(const HardtanhOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  HardtanhOptions options;
};
TORCH_MODULE(Hardtanh);

struct SoftplusOptions {
  TORCH_ARG(double, beta) = 1.0;
  TORCH_ARG(double, threshold) = 20.0;
};
class SoftplusImpl : public Cloneable<SoftplusImpl> {
 public:
  explicit SoftplusImpl(const SoftplusOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  SoftplusOptions options;
};
TORCH_MODULE(Softplus);

struct ThresholdOptions {
  ThresholdOptions(double threshold, double value) : threshold_(threshold), value_(value) {}
  TORCH_ARG(double, threshold);
  TORCH_ARG(double, value);
  TORCH_ARG(bool, inplace) = false;
};
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

struct PReLUOptions {
  TORCH_ARG(int64_t, num_parameters) = 1;
  TORCH_ARG(double, init) = 0.25;
};
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

// The activations' options forms (LibTorch's F::f(x, F::FFuncOptions()...)); the inplace
// options use the in-place ops (relu6_, elu_, hardtanh_, ...), which autograd supports.
namespace functional {
using ELUFuncOptions = ELUOptions;
using CELUFuncOptions = CELUOptions;
using HardtanhFuncOptions = HardtanhOptions;
using SoftplusFuncOptions = SoftplusOptions;
using ThresholdFuncOptions = ThresholdOptions;
struct SoftminFuncOptions {
  SoftminFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::optional<Dtype>, dtype) = std::nullopt;
};
struct RReLUFuncOptions {
  TORCH_ARG(double, lower) = 1.0 / 8.0;
  TORCH_ARG(double, upper) = 1.0 / 3.0;
  TORCH_ARG(bool, training) = false;
  TORCH_ARG(bool, inplace) = false;
};
// softmax((logits + Gumbel noise) / tau); with hard the one-hot of its argmax, with the
// gradient of the soft sample (straight-through).
struct GumbelSoftmaxFuncOptions {
  TORCH_ARG(double, tau) = 1.0;
  TORCH_ARG(bool, hard) = false;
  TORCH_ARG(int, dim) = -1;
};
Tensor relu6(Tensor input, const ReLU6FuncOptions& options = {});
Tensor selu(Tensor input, const SELUFuncOptions& options = {});
Tensor elu(Tensor input, const ELUFuncOptions& options = {});
Tensor celu(Tensor input, const CELUFuncOptions& options = {});
Tensor rrelu(Tensor input, const RReLUFuncOptions& options = {});
Tensor hardtanh(Tensor input, const HardtanhFuncOptions& options = {});
Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options = {});
Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options = {});
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {});
Tensor threshold(Tensor input, const ThresholdFuncOptions& options);
Tensor glu(const Tensor& input, const GLUFuncOptions& options = {});
Tensor softmin(const Tensor& input, const SoftminFuncOptions& options);
Tensor gumbel_softmax(const Tensor& logits, const GumbelSoftmaxFuncOptions& options = {});
}  // namespace functional

struct ReLUOptions {
  ReLUOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  TORCH_ARG(bool, inplace);
};
namespace functional {
using ReLUFuncOptions = ReLUOptions;
// F::relu(x, F::ReLUFuncOptions().inplace(true)); in place through relu_.
Tensor relu(Tensor input, const ReLUFuncOptions& options = {});
}  // namespace functional
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

struct LeakyReLUOptions {
  TORCH_ARG(double, negative_slope) = 1e-2;
  TORCH_ARG(bool, inplace) = false;
};
namespace functional {
using LeakyReLUFuncOptions = LeakyReLUOptions;
Tensor leaky_relu(const Tensor& input, double negative_slope);
Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options = {});
}  // namespace functional
class LeakyReLUImpl : public Cloneable<LeakyReLUImpl> {
 public:
  explicit LeakyReLUImpl(const LeakyReLUOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  LeakyReLUOptions options;
};
TORCH_MODULE(LeakyReLU);

struct GELUOptions {
  TORCH_ARG(std::string, approximate) = "none";  // "none" or "tanh"
};
namespace functional {
using GELUFuncOptions = GELUOptions;
Tensor gelu(const Tensor& input, std::string_view approximate);
Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {});
}  // namespace functional
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

struct SoftmaxOptions {
  SoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  TORCH_ARG(int64_t, dim);
};
struct LogSoftmaxOptions {
  LogSoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  TORCH_ARG(int64_t, dim);
};
namespace functional {
struct SoftmaxFuncOptions {
  SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::optional<Dtype>, dtype) = std::nullopt;  // the input is cast to it first
};
struct LogSoftmaxFuncOptions {
  LogSoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::optional<Dtype>, dtype) = std::nullopt;
};
using ::ember::log_softmax;
using ::ember::softmax;
Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options);
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options);
}  // namespace functional
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
