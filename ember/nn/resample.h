// Separable resampling, the engine under interpolate and non-constant padding: a chain of
// linear maps, each along one dim, out[.., o, ..] = sum_k w_k * in[.., i_k, ..]. A map's
// transpose is its vjp, so the op is differentiable to any order in both modes. Runs on
// the input's memory format (channels-last stays channels-last); unit-weight single-tap
// maps (nearest, padding) are copies and work for every dtype.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::nn::detail {

// A linear map along one dim in CSR form: output o reads taps [offset[o], offset[o + 1]).
struct DimMap {
  DimMap(int64_t in = 0, int64_t out = 0) : in_size(in), out_size(out) {}  // NOLINT
  int64_t in_size, out_size;
  std::vector<int64_t> offset{0}, index;
  std::vector<double> weight;  // one per tap

  void add(int64_t i, double w = 1) {
    index.push_back(i);
    weight.push_back(w);
  }
  void end_row() { offset.push_back(int64_t(index.size())); }
  bool is_identity() const;
  DimMap transposed() const;
};

// Maps applied in order, each to a tensor dim.
struct ResamplePlan {
  std::string name;                             // the op, for autograd (e.g. "upsample_bilinear2d")
  std::vector<std::pair<int64_t, DimMap>> steps;  // identity maps are left out
  std::vector<std::pair<int64_t, DimMap>> transposed_steps;  // reverse order, transposed
  void add(int64_t dim, DimMap map);
};

// Applies the plan (or its transpose) to x; differentiable in both modes.
Tensor resample(const Tensor& x, const std::shared_ptr<const ResamplePlan>& plan, bool transpose = false);

}  // namespace ember::nn::detail
