// The pooling and normalization layers (ember/nn/pooling.h, ember/nn/normalization.h, which
// this header includes for code that named it), and the smaller layers that came with
// them: AlphaDropout and FeatureAlphaDropout (SELU-preserving dropout), EmbeddingBag (bags
// reduced by sum, mean or max, with offsets, per_sample_weights, padding_idx,
// from_pretrained), ParameterList and ParameterDict. LibTorch's names, PyTorch 1.13's
// semantics; all written with differentiable ops.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/layers.h"
#include "ember/nn/loss.h"
#include "ember/nn/module.h"
#include "ember/nn/normalization.h"
#include "ember/nn/pooling.h"

namespace ember::nn {

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

// ---- EmbeddingBag ------------------------------------------------------------------------
// torch::kSum, torch::kMean or torch::kMax.
struct EmbeddingBagMode {
  enum Kind { Sum, Mean, Max };
  EmbeddingBagMode(Reduction r);  // NOLINT: kSum / kMean
  EmbeddingBagMode(enumtype::kSum) : kind(Sum) {}  // NOLINT
  EmbeddingBagMode(enumtype::kMean) : kind(Mean) {}  // NOLINT
  EmbeddingBagMode(enumtype::kMax) : kind(Max) {}  // NOLINT
  Kind kind = Mean;
  const char* name() const { return kind == Sum ? "sum" : kind == Mean ? "mean" : "max"; }
};

struct EmbeddingBagOptions {
  EmbeddingBagOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  TORCH_ARG(int64_t, num_embeddings);
  TORCH_ARG(int64_t, embedding_dim);
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(EmbeddingBagMode, mode) = kMean;
  TORCH_ARG(bool, sparse) = false;
  TORCH_ARG(Tensor, _weight);  // the initial weight, when given
  TORCH_ARG(bool, include_last_offset) = false;
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

struct EmbeddingBagFromPretrainedOptions {
  TORCH_ARG(bool, freeze) = true;
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(EmbeddingBagMode, mode) = kMean;
  TORCH_ARG(bool, sparse) = false;
  TORCH_ARG(bool, include_last_offset) = false;
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

namespace functional {
struct EmbeddingBagFuncOptions {
  TORCH_ARG(Tensor, offsets);
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(EmbeddingBagMode, mode) = kMean;
  TORCH_ARG(bool, sparse) = false;
  TORCH_ARG(Tensor, per_sample_weights);
  TORCH_ARG(bool, include_last_offset) = false;
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};
// Bags of rows of `weight`: input (B, L) is B bags of L indices; a 1-D input is cut into
// bags at `offsets`. Rows at padding_idx are left out; empty bags give zeros.
Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& options = {});
}  // namespace functional

class EmbeddingBagImpl : public Cloneable<EmbeddingBagImpl> {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingBagImpl(EmbeddingBagOptions options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& offsets = {}, const Tensor& per_sample_weights = {});
  EmbeddingBagOptions options;
  Tensor weight;
};
class EmbeddingBag : public ModuleHolder<EmbeddingBagImpl> {
 public:
  using ModuleHolder<EmbeddingBagImpl>::ModuleHolder;
  // A bag over the rows of `embeddings` (2-D), frozen (no gradient) unless options.freeze(false).
  static EmbeddingBag from_pretrained(const Tensor& embeddings, const EmbeddingBagFromPretrainedOptions& options = {});
};

// ---- ParameterList / ParameterDict -------------------------------------------------------
// Parameters keep their requires_grad; list entries are named "0", "1", ... in order.
class ParameterListImpl : public Cloneable<ParameterListImpl> {
 public:
  using Iterator = std::vector<OrderedDict<std::string, Tensor>::Item>::iterator;
  using ConstIterator = std::vector<OrderedDict<std::string, Tensor>::Item>::const_iterator;
  ParameterListImpl() = default;
  template <class... Tensors>
  explicit ParameterListImpl(const Tensors&... params) {
    (append(params), ...);
  }
  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override;
  void append(const Tensor& param);
  void append(const OrderedDict<std::string, Tensor>::Item& pair) { append(pair.value()); }
  template <class Container>
  void extend(const Container& container) {
    for (const auto& p : container) append(p);
  }
  // Inserts before position `index` (<= size()); later entries move up one name.
  void insert(size_t index, const Tensor& param);
  // Removes and returns the entry at `index`; later entries move down one name.
  Tensor pop(size_t index);
  Tensor& at(size_t index);
  const Tensor& at(size_t index) const;
  Tensor& operator[](size_t index) { return at(index); }
  const Tensor& operator[](size_t index) const { return at(index); }
  size_t size() const noexcept { return parameters_.size(); }
  bool is_empty() const noexcept { return parameters_.is_empty(); }
  Iterator begin() { return parameters_.begin(); }
  Iterator end() { return parameters_.end(); }
  ConstIterator begin() const { return parameters_.begin(); }
  ConstIterator end() const { return parameters_.end(); }
  template <class Container>
  ParameterListImpl& operator+=(const Container& other) {
    extend(other);
    return *this;
  }

 private:
  void rebuild(std::vector<Tensor> params);
};
TORCH_MODULE(ParameterList);

class ParameterDictImpl : public Cloneable<ParameterDictImpl> {
 public:
  using Iterator = std::vector<OrderedDict<std::string, Tensor>::Item>::iterator;
  using ConstIterator = std::vector<OrderedDict<std::string, Tensor>::Item>::const_iterator;
  ParameterDictImpl() = default;
  explicit ParameterDictImpl(const OrderedDict<std::string, Tensor>& params) { update(params); }
  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override;
  // Adds the parameter, or replaces the one under `key`.
  Tensor& insert(const std::string& key, const Tensor& param);
  Tensor pop(const std::string& key);
  std::vector<std::string> keys() const { return parameters_.keys(); }
  std::vector<Tensor> values() const { return parameters_.values(); }
  Iterator begin() { return parameters_.begin(); }
  Iterator end() { return parameters_.end(); }
  ConstIterator begin() const { return parameters_.begin(); }
  ConstIterator end() const { return parameters_.end(); }
  size_t size() const noexcept { return parameters_.size(); }
  bool empty() const noexcept { return parameters_.is_empty(); }
  void clear() { parameters_.clear(); }
  bool contains(const std::string& key) const noexcept { return parameters_.contains(key); }
  // Inserts or replaces every (key, value) item of `container` (an OrderedDict or a dict's items).
  template <class Container>
  void update(const Container& container) {
    for (const auto& item : container) insert(item.key(), item.value());
  }
  Tensor& get(const std::string& key) { return parameters_[key]; }
  const Tensor& get(const std::string& key) const { return parameters_[key]; }
  Tensor& operator[](const std::string& key) { return parameters_[key]; }
  const Tensor& operator[](const std::string& key) const { return parameters_[key]; }
};
TORCH_MODULE(ParameterDict);

}  // namespace ember::nn
