// Options of padding (LibTorch's torch/nn/options/padding.h): F::pad's PadFuncOptions and the
// options of the padding modules of ember/nn/modules/padding.h.
#pragma once
#include <utility>
#include <vector>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"
#include "ember/nn/enum.h"
#include "ember/nn/expanding_array.h"

namespace ember::nn {

// PadMode and LibTorch's constants for it (torch::kReflect, ...): ember/nn/enum.h.

namespace functional {
struct PadFuncOptions {
  PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}  // NOLINT
  TORCH_ARG(std::vector<int64_t>, pad);
  TORCH_ARG(PadMode, mode) = PadMode::Constant;
  TORCH_ARG(double, value) = 0;
};
}  // namespace functional

template <size_t D>
struct ReflectionPadOptions {
  ReflectionPadOptions(ExpandingArray<D * 2> padding) : padding_(std::move(padding)) {}  // NOLINT
  TORCH_ARG(ExpandingArray<D * 2>, padding);
};
template <size_t D>
struct ReplicationPadOptions {
  ReplicationPadOptions(ExpandingArray<D * 2> padding) : padding_(std::move(padding)) {}  // NOLINT
  TORCH_ARG(ExpandingArray<D * 2>, padding);
};
template <size_t D>
struct ConstantPadOptions {
  ConstantPadOptions(ExpandingArray<D * 2> padding, double value) : padding_(std::move(padding)), value_(value) {}
  TORCH_ARG(ExpandingArray<D * 2>, padding);
  TORCH_ARG(double, value);
};
struct ZeroPad2dOptions {
  ZeroPad2dOptions(ExpandingArray<4> padding) : padding_(std::move(padding)) {}  // NOLINT
  TORCH_ARG(ExpandingArray<4>, padding);
};
using ReflectionPad1dOptions = ReflectionPadOptions<1>;
using ReflectionPad2dOptions = ReflectionPadOptions<2>;
using ReflectionPad3dOptions = ReflectionPadOptions<3>;
using ReplicationPad1dOptions = ReplicationPadOptions<1>;
using ReplicationPad2dOptions = ReplicationPadOptions<2>;
using ReplicationPad3dOptions = ReplicationPadOptions<3>;
using ConstantPad1dOptions = ConstantPadOptions<1>;
using ConstantPad2dOptions = ConstantPadOptions<2>;
using ConstantPad3dOptions = ConstantPadOptions<3>;

}  // namespace ember::nn
