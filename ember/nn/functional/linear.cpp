#include "ember/nn/functional/linear.h"

#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"
#include "ember/core/tracing_call.h"

namespace ember::nn {

namespace {
const tracing::TracedOpDef linear_traced{{"linear", tracing::Fusion::Opaque, [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
  (void)a;
  return {functional::linear(in.at(0), in.at(1), in.size() > 2 ? in[2] : Tensor())};
}}};
}  // namespace

Tensor functional::linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  if (tracing::active())
    return tracing::traced_call(linear_traced, {input, weight, bias}, {}, [&] { return functional::linear(input, weight, bias); });
  check_defined(input, "linear", "input");
  check_defined(weight, "linear", "weight");
  EMBER_AUTOCAST(linear, functional::linear(_ac[0], _ac[1], _ac[2]), &input, &weight, &bias);
  EMBER_CHECK(weight.dim() == 2, "linear: weight must be 2-D (out_features, in_features), got ", weight.sizes());
  EMBER_CHECK(input.dim() >= 1 && input.size(-1) == weight.size(1), "linear: input of shape ", input.sizes(),
              " does not match weight of shape ", weight.sizes(), " (expected the last dim to be ", weight.size(1), ")");
  if (input.dim() == 2 && bias.defined()) return addmm(bias, input, weight.t());
  if (bias.defined() && input.dim() > 2 && input.is_cuda() && input.is_contiguous()) {
    // As PyTorch: leading dims flattened into one addmm (on CUDA its bias rides the GEMM's
    // epilogue, Note [GEMM with bias on cuBLASLt]).
    DimVector shape(input.sizes().begin(), input.sizes().end());
    shape.back() = weight.size(0);
    return addmm(bias, input.reshape({-1, input.size(-1)}), weight.t()).view(shape);
  }
  Tensor out = matmul(input, weight.t());
  return bias.defined() ? out.add(bias) : out;
}

namespace functional {
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias) {
  EMBER_CHECK(weight.dim() == 3 && input1.size(-1) == weight.size(1) && input2.size(-1) == weight.size(2),
              "bilinear: inputs of shapes ", input1.sizes(), " and ", input2.sizes(), " do not match weight of shape ",
              weight.sizes());
  // leading dims flattened: out[b, o] = sum_ij x1[b, i] W[o, i, j] x2[b, j]
  Tensor a = input1.reshape({-1, input1.size(-1)}), b = input2.reshape({-1, input2.size(-1)});
  Tensor out = einsum("bi,oij,bj->bo", {a, weight, b});
  DimVector shape(input1.sizes().slice(0, size_t(input1.dim() - 1)));
  shape.push_back(weight.size(0));
  out = out.view(shape);
  return bias.defined() ? out.add(bias) : out;
}
}  // namespace functional

}  // namespace ember::nn
