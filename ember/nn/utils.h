// torch::nn::utils: gradient clipping and flattening parameters to one vector and back.
#pragma once
#include <vector>

#include "ember/core/tensor.h"

namespace ember::nn::utils {

// Scales the gradients of `parameters` together so that their total norm (the norm_type norm
// of the per-gradient norms; inf: the largest |g|) is at most max_norm: each gradient is
// multiplied by min(1, max_norm / (total + 1e-6)). Returns the total norm before clipping as a
// double (LibTorch's signature; PyTorch's Python API returns a 0-dim tensor). Parameters without a
// gradient are skipped; none at all gives 0. error_if_nonfinite: a NaN or infinite total norm
// throws instead of scaling.
double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);

// Clamps every gradient into [-clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
void clip_grad_value_(const Tensor& parameter, double clip_value);

// The parameters flattened and concatenated (differentiable). All on one device.
Tensor parameters_to_vector(const std::vector<Tensor>& parameters);
// Copies consecutive slices of the 1-D `vec` into the parameters (PyTorch rebinds each
// parameter's .data to a view of vec instead); vec's length must be their total size.
void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters);

}  // namespace ember::nn::utils
