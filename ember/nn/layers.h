// More layers: Dropout (Dropout2d, Dropout3d), Embedding (padding_idx, max_norm), LayerNorm,
// and activation modules with options (LeakyReLU, GELU, SiLU, Softmax, LogSoftmax), with
// their functionals in both call forms: LibTorch's `F::f(x, F::FFuncOptions()...)` and the
// positional `F::f(x, ...)`. Where both would take only the tensors, the options form does
// (the positional one leaves its first option without a default).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/nn/module.h"
#include "ember/ops/functions.h"

namespace ember {
// ATen's dropout family (torch::dropout, torch::feature_dropout_, torch::alpha_dropout, ...):
// PyTorch's noise, drawn in PyTorch's order (layers.cpp).
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

struct LayerNormFuncOptions {
  LayerNormFuncOptions(std::vector<int64_t> normalized_shape)  // NOLINT
      : normalized_shape_(std::move(normalized_shape)) {}
  TORCH_ARG(std::vector<int64_t>, normalized_shape);
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(Tensor, bias) = {};
  TORCH_ARG(double, eps) = 1e-5;
};
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5);
Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options);

struct EmbeddingFuncOptions {
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(bool, sparse) = false;  // accepted; the weight's gradient is dense
};
// Rows of weight; a negative padding_idx counts from the end. With max_norm the referenced
// rows of weight are first renormalized in place (no gradient) to norm_type-norm <= max_norm;
// with scale_grad_by_freq each row's gradient is divided by its index's count in input.
Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx,
                 std::optional<double> max_norm = std::nullopt, double norm_type = 2., bool scale_grad_by_freq = false,
                 bool sparse = false);
Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options = {});

struct NormalizeFuncOptions {
  TORCH_ARG(double, p) = 2.0;
  TORCH_ARG(int64_t, dim) = 1;
  TORCH_ARG(double, eps) = 1e-12;
  TORCH_ARG(std::optional<Tensor>, out) = std::nullopt;  // when set, the result is written there
};
// input / max(||input||_p along dim, eps)
Tensor normalize(const Tensor& input, double p, int64_t dim = 1, double eps = 1e-12);
Tensor normalize(const Tensor& input, NormalizeFuncOptions options = {});
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

struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  TORCH_ARG(int64_t, num_embeddings);
  TORCH_ARG(int64_t, embedding_dim);
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.0;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(bool, sparse) = false;  // accepted; the weight's gradient is dense
  TORCH_ARG(Tensor, _weight) = {};  // the initial weight, when given
};
// weight ~ N(0, 1) (or options._weight), the padding row zero, as PyTorch.
class EmbeddingImpl : public Cloneable<EmbeddingImpl> {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(EmbeddingOptions options);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  EmbeddingOptions options;
  Tensor weight;
};
struct EmbeddingFromPretrainedOptions {
  TORCH_ARG(bool, freeze) = true;
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.0;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(bool, sparse) = false;
};
class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  // An embedding over the rows of `embeddings` (2-D), frozen (no gradient) unless
  // options.freeze(false).
  static Embedding from_pretrained(const Tensor& embeddings, const EmbeddingFromPretrainedOptions& options = {});
};

struct LayerNormOptions {
  LayerNormOptions(std::vector<int64_t> normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}  // NOLINT
  TORCH_ARG(std::vector<int64_t>, normalized_shape);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(bool, elementwise_affine) = true;
};
class LayerNormImpl : public Cloneable<LayerNormImpl> {
 public:
  explicit LayerNormImpl(LayerNormOptions options);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  LayerNormOptions options;
  Tensor weight, bias;
};
TORCH_MODULE(LayerNorm);

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
