// Normalization layers with LibTorch's names and PyTorch 1.13's semantics: BatchNorm1d/2d/3d
// and InstanceNorm1d/2d/3d (running statistics, momentum or cumulative average, affine,
// track_running_stats), GroupNorm and LocalResponseNorm; and (last below) LayerNorm. Options:
// ember/nn/options/normalization.h; the functional forms: ember/nn/functional/normalization.h.
#pragma once
#include <optional>
#include <vector>

#include "ember/nn/functional/normalization.h"
#include "ember/nn/module.h"
#include "ember/nn/options/normalization.h"

namespace ember::nn {

// Parameters (weight = 1, bias = 0 when affine) and running statistics (when tracked) of a
// batch or instance norm over D spatial dims.
template <size_t D, class Derived, class Options>
class NormImplBase : public Cloneable<Derived> {
 public:
  explicit NormImplBase(const Options& options) : options(options) {}
  void reset() override;
  void reset_running_stats();
  void reset_parameters();
  Options options;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;
};

template <size_t D, class Derived>
class BatchNormImplBase : public NormImplBase<D, Derived, BatchNormOptions> {
 public:
  explicit BatchNormImplBase(const BatchNormOptions& options);
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};

template <size_t D, class Derived>
class InstanceNormImpl : public NormImplBase<D, Derived, InstanceNormOptions> {
 public:
  explicit InstanceNormImpl(const InstanceNormOptions& options);
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};

#define EMBER_NORM_MODULE(Name, Base, D)            \
  class Name##Impl : public Base<D, Name##Impl> {   \
   public:                                          \
    using Base<D, Name##Impl>::Base;                \
  };                                                \
  TORCH_MODULE(Name)
EMBER_NORM_MODULE(BatchNorm1d, BatchNormImplBase, 1);
EMBER_NORM_MODULE(BatchNorm2d, BatchNormImplBase, 2);
EMBER_NORM_MODULE(BatchNorm3d, BatchNormImplBase, 3);
EMBER_NORM_MODULE(InstanceNorm1d, InstanceNormImpl, 1);
EMBER_NORM_MODULE(InstanceNorm2d, InstanceNormImpl, 2);
EMBER_NORM_MODULE(InstanceNorm3d, InstanceNormImpl, 3);
#undef EMBER_NORM_MODULE

class GroupNormImpl : public Cloneable<GroupNormImpl> {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels) : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  GroupNormOptions options;
  Tensor weight, bias;
};
TORCH_MODULE(GroupNorm);

class LocalResponseNormImpl : public Cloneable<LocalResponseNormImpl> {
 public:
  LocalResponseNormImpl(int64_t size) : LocalResponseNormImpl(LocalResponseNormOptions(size)) {}  // NOLINT
  explicit LocalResponseNormImpl(const LocalResponseNormOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  LocalResponseNormOptions options;
};
TORCH_MODULE(LocalResponseNorm);

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

}  // namespace ember::nn
