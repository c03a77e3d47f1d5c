// The out= variants of the reductions, scans and softmax: each computes the result with the
// functional op and writes it into `out` (resized when its shape differs; the result must be
// castable to out's dtype without a lossy category change, as PyTorch's out= rule).
#include "ember/ops/functions.h"
#include "ember/ops/out_arg.h"

namespace ember {

namespace {
// sum/mean/prod with out=: without dtype=, the computation happens in out's dtype.
std::optional<ScalarType> out_dtype(const Tensor& out, std::optional<ScalarType> dtype) {
  return dtype ? dtype : std::optional<ScalarType>(out.scalar_type());
}
}  // namespace

Tensor& sum_out(Tensor& out, const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  return write_out(out, sum(self, dim, keepdim, out_dtype(out, dtype)), "sum_out");
}
Tensor& nansum_out(Tensor& out, const Tensor& self, OptionalIntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  return write_out(out, nansum(self, dim, keepdim, out_dtype(out, dtype)), "nansum_out");
}
Tensor& mean_out(Tensor& out, const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  return write_out(out, mean(self, dim, keepdim, out_dtype(out, dtype)), "mean_out");
}
Tensor& prod_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  return write_out(out, prod(self, dim, keepdim, out_dtype(out, dtype)), "prod_out");
}
Tensor& amax_out(Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim) {
  return write_out(out, amax(self, dim, keepdim), "amax_out");
}
Tensor& amin_out(Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim) {
  return write_out(out, amin(self, dim, keepdim), "amin_out");
}
std::tuple<Tensor&, Tensor&> max_out(Tensor& max, Tensor& max_values, const Tensor& self, int64_t dim, bool keepdim) {
  auto [v, i] = ember::max(self, dim, keepdim);
  write_out(max, v, "max_out");
  write_out(max_values, i, "max_out");
  return {max, max_values};
}
std::tuple<Tensor&, Tensor&> min_out(Tensor& min, Tensor& min_indices, const Tensor& self, int64_t dim, bool keepdim) {
  auto [v, i] = ember::min(self, dim, keepdim);
  write_out(min, v, "min_out");
  write_out(min_indices, i, "min_out");
  return {min, min_indices};
}
Tensor& argmax_out(Tensor& out, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return write_out(out, argmax(self, dim, keepdim), "argmax_out");
}
Tensor& argmin_out(Tensor& out, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return write_out(out, argmin(self, dim, keepdim), "argmin_out");
}
Tensor& all_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim) {
  return write_out(out, all(self, dim, keepdim), "all_out");
}
Tensor& any_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim) {
  return write_out(out, any(self, dim, keepdim), "any_out");
}
Tensor& var_out(Tensor& out, const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return write_out(out, var(self, dim, unbiased, keepdim), "var_out");
}
Tensor& std_out(Tensor& out, const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return write_out(out, ember::std(self, dim, unbiased, keepdim), "std_out");
}
Tensor& norm_out(Tensor& out, const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) {
  return write_out(out, norm(self, p, dim, keepdim), "norm_out");
}
Tensor& logsumexp_out(Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim) {
  return write_out(out, logsumexp(self, dim, keepdim), "logsumexp_out");
}
Tensor& cumsum_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return write_out(out, cumsum(self, dim, out_dtype(out, dtype)), "cumsum_out");
}
Tensor& cumprod_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return write_out(out, cumprod(self, dim, out_dtype(out, dtype)), "cumprod_out");
}
Tensor& softmax_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return write_out(out, softmax(self, dim, dtype), "softmax_out");
}
Tensor& log_softmax_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return write_out(out, log_softmax(self, dim, dtype), "log_softmax_out");
}
namespace linalg {
Tensor& vector_norm_out(Tensor& out, const Tensor& x, const Scalar& ord, OptionalIntArrayRef dim, bool keepdim,
                        std::optional<ScalarType> dtype) {
  return write_out(out, vector_norm(x, ord, dim, keepdim, dtype), "linalg.vector_norm_out");
}
}  // namespace linalg

}  // namespace ember
