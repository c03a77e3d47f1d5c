// The non-template parts of the transforms: Stack's collation and Normalize's arithmetic.
#include <algorithm>
#include <cstring>

#include "ember/autograd/record.h"
#include "ember/core/error.h"
#include "ember/data/transforms/stack.h"
#include "ember/data/transforms/tensor.h"
#include "ember/ops/functions.h"
#include "ember/ops/tensor_literal.h"

namespace ember::data::transforms::detail {

Tensor stack_examples(const std::vector<Tensor>& tensors, const char* what) {
  EMBER_CHECK(!tensors.empty(), "Stack: cannot stack an empty batch of examples");
  const Tensor& first = tensors[0];
  EMBER_CHECK(first.defined(), "Stack: the ", what, " of example 0 is an undefined tensor");
  bool direct = first.is_cpu() && !autograd::maybe_differentiable(first);
  for (size_t i = 1; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.defined(), "Stack: the ", what, " of example ", i, " is an undefined tensor");
    EMBER_CHECK(t.sizes() == first.sizes(), "Stack: the examples' ", what, " must all have one shape, but example 0 has ",
                what, " of shape ", first.sizes(), " and example ", i, " has ", what, " of shape ", t.sizes());
    direct = direct && t.dtype() == first.dtype() && t.is_cpu() && !autograd::maybe_differentiable(t);
  }
  if (!direct) return stack(tensors);

  // The common case (examples read from memory or a file): one memcpy per example into the
  // batch, instead of stack's unsqueeze + narrow + copy_ per example.
  DimVector shape;
  shape.push_back(int64_t(tensors.size()));
  for (int64_t s : first.sizes()) shape.push_back(s);
  Tensor out = empty(shape, first.options());
  const size_t bytes = first.nbytes();
  if (bytes == 0) return out;
  auto* dst = static_cast<char*>(out.data_ptr());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (t.is_contiguous()) {
      std::memcpy(dst + i * bytes, t.data_ptr(), bytes);
    } else {
      Tensor slot = out.select(0, int64_t(i));
      slot.copy_(t);
    }
  }
  return out;
}

Tensor channel_values(ArrayRef<double> values, const char* what) {
  EMBER_CHECK(!values.empty(), "Normalize: expected at least one ", what, " value");
  if (std::string_view(what) == "stddev")
    for (size_t i = 0; i < values.size(); ++i)
      EMBER_CHECK(values[i] != 0, "Normalize: stddev[", i, "] is 0 (the data would be divided by zero)");
  return tensor(values, TensorOptions().dtype(kFloat)).view({int64_t(values.size()), 1, 1});
}

void check_normalize_sizes(const Tensor& mean, const Tensor& stddev) {
  EMBER_CHECK(mean.size(0) == stddev.size(0) || mean.size(0) == 1 || stddev.size(0) == 1, "Normalize: got ",
              mean.size(0), " mean values but ", stddev.size(0), " stddev values (expected one per channel)");
}

Tensor normalize(const Tensor& input, const Tensor& mean, const Tensor& stddev) {
  EMBER_CHECK(input.defined(), "Normalize: the example's data is an undefined tensor");
  check_normalize_sizes(mean, stddev);  // (the fields are public and may have been replaced)
  const int64_t channels = std::max(mean.size(0), stddev.size(0));
  if (channels > 1)
    EMBER_CHECK(input.dim() >= 3 && input.size(-3) == channels, "Normalize: expected data with ", channels,
                " channels in dimension -3 (a [C, H, W] image), got data of shape ", input.sizes());
  return input.sub(mean).div(stddev);
}

}  // namespace ember::data::transforms::detail
