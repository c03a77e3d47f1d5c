// ATen's positional functions for the nn ops (torch::dropout, torch::nll_loss,
// torch::binary_cross_entropy, torch::conv2d, torch::batch_norm, ...), in ATen's argument
// order, so LibTorch code that calls them through <torch/torch.h> compiles unchanged. Each
// forwards to ember::nn::functional. (The pooling ops live in ember/nn/functional/pooling.h.)
#pragma once
#include <optional>

#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/distance.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/embedding.h"
#include "ember/nn/functional/linear.h"
#include "ember/nn/functional/loss.h"
#include "ember/nn/functional/normalization.h"

namespace ember {

inline Tensor& linear_out(Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias = {}) {
  const Tensor r = nn::functional::linear(input, weight, bias);
  out.resize_(r.sizes());
  out.copy_(r);
  return out;
}
inline Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {}) {
  return nn::functional::linear(input, weight, bias);
}
inline Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = 1,
                     IntArrayRef padding = 0, IntArrayRef dilation = 1, int64_t groups = 1) {
  return nn::functional::conv1d(input, weight, bias, stride, std::vector<int64_t>(padding.begin(), padding.end()),
                                dilation, groups);
}
inline Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = 1,
                     IntArrayRef padding = 0, IntArrayRef dilation = 1, int64_t groups = 1) {
  return nn::functional::conv2d(input, weight, bias, stride, std::vector<int64_t>(padding.begin(), padding.end()),
                                dilation, groups);
}
inline Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = 1,
                     IntArrayRef padding = 0, IntArrayRef dilation = 1, int64_t groups = 1) {
  return nn::functional::conv3d(input, weight, bias, stride, std::vector<int64_t>(padding.begin(), padding.end()),
                                dilation, groups);
}
inline Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                               IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef output_padding = 0,
                               int64_t groups = 1, IntArrayRef dilation = 1) {
  return nn::functional::conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation);
}
inline Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight = {},
                         const Tensor& bias = {}, double eps = 1e-5, bool /*cudnn_enable*/ = true) {
  return nn::functional::layer_norm(input, normalized_shape, weight, bias, eps);
}
inline Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                         const Tensor& running_var, bool training, double momentum, double eps,
                         bool /*cudnn_enabled*/ = true) {
  return nn::functional::batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps);
}
inline Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1,
                        bool /*scale_grad_by_freq*/ = false, bool /*sparse*/ = false) {
  return nn::functional::embedding(indices, weight,
                                   padding_idx < 0 ? std::nullopt : std::optional<int64_t>(padding_idx));
}

// ATen's distances (F:: has them too, with options).
inline Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2, double eps = 1e-6,
                                bool keepdim = false) {
  return nn::functional::pairwise_distance(x1, x2, p, eps, keepdim);
}
inline Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-8) {
  return nn::functional::cosine_similarity(x1, x2, dim, eps);
}

// Losses: ATen puts the reduction before ignore_index.
inline Tensor nll_loss(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                       Reduction reduction = kMean, int64_t ignore_index = -100) {
  return nn::functional::nll_loss(self, target, weight, ignore_index, reduction);
}
inline Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                                 Reduction reduction = kMean, int64_t ignore_index = -100,
                                 double label_smoothing = 0.0) {
  return nn::functional::cross_entropy(self, target, weight, ignore_index, reduction, label_smoothing);
}
// ATen's form works on the squeezed input and target (so input [64, 1, 1, 1] and target [64]
// pair up, as in LibTorch) and gives the loss in the input's shape; F:: requires equal sizes.
inline Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                                   Reduction reduction = kMean) {
  check_defined(self, "binary_cross_entropy", "self");
  check_defined(target, "binary_cross_entropy", "target");
  const Tensor input = self.squeeze();
  Tensor loss = nn::functional::binary_cross_entropy(input, target.squeeze().expand_as(input), {}, Reduction::None)
                    .view(self.sizes());
  if (weight.defined()) loss = loss.mul(weight);
  return nn::functional::apply_reduction(loss, reduction);
}
inline Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                                               const Tensor& pos_weight = {}, Reduction reduction = kMean) {
  return nn::functional::binary_cross_entropy_with_logits(self, target, weight, reduction, pos_weight);
}
inline Tensor mse_loss(const Tensor& self, const Tensor& target, Reduction reduction = kMean) {
  return nn::functional::mse_loss(self, target, reduction);
}
inline Tensor l1_loss(const Tensor& self, const Tensor& target, Reduction reduction = kMean) {
  return nn::functional::l1_loss(self, target, reduction);
}
inline Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, Reduction reduction = kMean,
                             double beta = 1.0) {
  return nn::functional::smooth_l1_loss(self, target, reduction, beta);
}
inline Tensor huber_loss(const Tensor& self, const Tensor& target, Reduction reduction = kMean, double delta = 1.0) {
  return nn::functional::huber_loss(self, target, reduction, delta);
}
inline Tensor kl_div(const Tensor& self, const Tensor& target, Reduction reduction = kMean, bool log_target = false) {
  return nn::functional::kl_div(self, target, reduction, log_target);
}

}  // namespace ember
