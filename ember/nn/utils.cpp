#include "ember/nn/utils.h"

#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/functions.h"
#include "ember/ops/type_promotion.h"

namespace ember::nn::utils {

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  NoGradGuard no_grad;
  std::vector<Tensor> grads, norms;
  for (const Tensor& p : parameters)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return 0.0;
  for (const Tensor& g : grads) norms.push_back(linalg::vector_norm(g, norm_type).to(grads[0].device()));
  Tensor total = linalg::vector_norm(stack(norms), norm_type);
  EMBER_CHECK(!error_if_nonfinite || std::isfinite(total.item<double>()), "The total norm of order ", norm_type,
              " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and "
              "scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=false`");
  // max_norm / (total + 1e-6), computed as PyTorch's float / tensor does.
  Tensor coef = total.add(1e-6).reciprocal().mul(max_norm).clamp_max(1.0);
  for (Tensor& g : grads) g.mul_(coef.to(g.device()));
  return total.item<double>();
}
double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type, bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{parameter}, max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& p : parameters)
    if (p.grad().defined()) p.mutable_grad().clamp_(-clip_value, clip_value);
}
void clip_grad_value_(const Tensor& parameter, double clip_value) {
  clip_grad_value_(std::vector<Tensor>{parameter}, clip_value);
}

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  EMBER_CHECK(!parameters.empty(), "parameters_to_vector: expected at least one parameter");
  std::vector<Tensor> flat;
  for (const Tensor& p : parameters) {
    EMBER_CHECK(p.device() == parameters[0].device(),
                "Found two parameters on different devices, this is currently not supported.");
    flat.push_back(p.reshape({-1}));
  }
  return cat(flat);
}

void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters) {
  int64_t total = 0;
  for (const Tensor& p : parameters) total += p.numel();
  EMBER_CHECK(vec.dim() == 1 && vec.numel() == total, "vector_to_parameters: expected a 1-D vector of ", total,
              " elements (the parameters' total size), got shape ", vec.sizes());
  NoGradGuard no_grad;
  int64_t offset = 0;
  for (Tensor p : parameters) {
    p.copy_(vec.narrow(0, offset, p.numel()).view_as(p));
    offset += p.numel();
  }
}

}  // namespace ember::nn::utils
