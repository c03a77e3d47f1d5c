// Linear-algebra functions composed from ember's factorizations and matmul (so they are
// differentiable where those are): logdet, matrix_power, matrix_exp, pinverse/pinv,
// matrix_rank, multi_dot, solve_triangular, cholesky_solve/inverse, tensorinv/tensorsolve,
// the *_ex forms, the older torch::svd / torch::qr / triangular_solve interfaces, and trace.
#include <cmath>
#include <limits>

#include "ember/autograd/record.h"
#include "ember/ops/autocast.h"
#include "ember/ops/dispatch.h"
#include "ember/ops/functions.h"

namespace ember {

namespace {
void check_square(const Tensor& A, const char* op) {
  check_defined(A, op, "A");
  EMBER_CHECK(A.dim() >= 2, op, ": The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(A.size(-1) == A.size(-2), op, ": A must be batches of square matrices, but they are ", A.size(-2),
              " by ", A.size(-1), " matrices");
}
Tensor batched_identity(const Tensor& A) {
  const int64_t n = A.size(-1);
  return eye(n, A.options().requires_grad(false)).expand(A.sizes()).clone();
}
double eps_of(ScalarType t) {
  return toRealValueType(t) == kDouble ? std::numeric_limits<double>::epsilon()
                                       : double(std::numeric_limits<float>::epsilon());
}
}  // namespace

Tensor logdet(const Tensor& self) {
  check_square(self, "logdet");
  auto [sign, logabs] = linalg::slogdet(self);
  if (self.is_complex()) return sign.log().add(logabs);
  return where(sign.lt(0), full_like(logabs, std::numeric_limits<double>::quiet_NaN()), logabs);
}

Tensor matrix_power(const Tensor& self, int64_t n) {
  check_square(self, "matrix_power");
  if (n == 0) return batched_identity(self);
  Tensor base = n < 0 ? linalg::inv(self) : self;
  uint64_t k = n < 0 ? uint64_t(-(n + 1)) + 1 : uint64_t(n);
  Tensor result;
  while (k > 0) {  // binary powering
    if (k & 1) result = result.defined() ? result.matmul(base) : base;
    k >>= 1;
    if (k > 0) base = base.matmul(base);
  }
  return result;
}

// exp(A) by scaling and squaring: A / 2^s with ||A / 2^s||_1 <= 1/2, a degree-18 Taylor
// polynomial (truncation below double rounding there), then s squarings.
Tensor matrix_exp(const Tensor& self) {
  check_square(self, "matrix_exp");
  EMBER_CHECK_TYPE(self.is_floating_point() || self.is_complex(), "matrix_exp: expected a floating point or complex "
                   "tensor, got ", self.scalar_type());
  if (self.numel() == 0) return self.clone();
  const double norm = self.detach().abs().sum(-2).amax().item<double>();  // the largest 1-norm in the batch
  int s = 0;
  if (norm > 0.5 && std::isfinite(norm)) s = int(std::ceil(std::log2(norm / 0.5)));
  const Tensor A = self.div(std::ldexp(1.0, s));
  Tensor term = batched_identity(self).to(self.scalar_type());
  Tensor sum = term;
  for (int k = 1; k <= 18; ++k) {
    term = term.matmul(A).div(double(k));
    sum = sum.add(term);
  }
  for (int i = 0; i < s; ++i) sum = sum.matmul(sum);
  return sum;
}

namespace linalg {
Tensor matrix_power(const Tensor& A, int64_t n) { return ember::matrix_power(A, n); }
Tensor matrix_exp(const Tensor& A) { return ember::matrix_exp(A); }

// Moore-Penrose inverse from the SVD, singular values below rcond * the largest dropped.
Tensor pinv(const Tensor& A, double rcond, bool hermitian) {
  check_defined(A, "linalg.pinv", "A");
  EMBER_CHECK(A.dim() >= 2, "linalg.pinv: The input tensor A must have at least 2 dimensions.");
  (void)hermitian;  // the SVD serves both
  if (A.numel() == 0) return A.mT().clone();
  auto [U, S, Vh] = linalg::svd(A, /*full_matrices=*/false);
  const Tensor cutoff = S.amax(-1, /*keepdim=*/true).mul(rcond);
  const Tensor S_inv = where(S.gt(cutoff), S.reciprocal(), zeros_like(S));
  return Vh.mH().mul(S_inv.unsqueeze(-2).to(A.scalar_type())).matmul(U.mH());
}
Tensor pinv(const Tensor& A, const std::optional<double>& atol, const std::optional<double>& rtol, bool hermitian) {
  check_defined(A, "linalg.pinv", "A");
  const double r = rtol.value_or(atol && *atol > 0 ? 0.0 : eps_of(A.scalar_type()) * double(std::max(A.size(-1), A.size(-2))));
  auto [U, S, Vh] = linalg::svd(A, false);
  Tensor tol = S.amax(-1, true).mul(r);
  if (atol) tol = tol.clamp_min(*atol);
  (void)hermitian;
  const Tensor S_inv = where(S.gt(tol), S.reciprocal(), zeros_like(S));
  return Vh.mH().mul(S_inv.unsqueeze(-2).to(A.scalar_type())).matmul(U.mH());
}

Tensor matrix_rank(const Tensor& A, const std::optional<double>& atol, const std::optional<double>& rtol,
                   bool hermitian) {
  check_defined(A, "linalg.matrix_rank", "A");
  EMBER_CHECK(A.dim() >= 2, "linalg.matrix_rank: The input tensor input must have at least 2 dimensions.");
  (void)hermitian;
  const Tensor S = linalg::svdvals(A);
  const double r =
      rtol.value_or(atol && *atol > 0 ? 0.0 : eps_of(A.scalar_type()) * double(std::max(A.size(-1), A.size(-2))));
  Tensor tol = S.amax(-1, true).mul(r);
  if (atol) tol = tol.clamp_min(*atol);
  return S.gt(tol).sum(-1);
}
Tensor matrix_rank(const Tensor& A, double tol, bool hermitian) {
  return matrix_rank(A, std::optional<double>(tol), std::optional<double>(0.0), hermitian);
}

// Left to right (PyTorch picks the cheapest order; the product is the same up to rounding).
Tensor multi_dot(TensorList tensors) {
  EMBER_CHECK(tensors.size() >= 2, "multi_dot(): expected at least 2 tensors but got ", tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    check_defined(tensors[i], "multi_dot", "tensors");
    const int64_t d = tensors[i].dim();
    const bool end = i == 0 || i + 1 == tensors.size();
    EMBER_CHECK(d == 2 || (end && d == 1), "multi_dot(): tensor ", i, " must be ", end ? "1D or 2D" : "2D",
                " but got ", d, "D");
  }
  const bool first_vec = tensors.front().dim() == 1, last_vec = tensors.back().dim() == 1;
  Tensor r = first_vec ? tensors.front().unsqueeze(0) : tensors.front();
  for (size_t i = 1; i < tensors.size(); ++i) {
    const Tensor m = (i + 1 == tensors.size() && last_vec) ? tensors[i].unsqueeze(1) : tensors[i];
    r = r.mm(m);
  }
  if (first_vec) r = r.squeeze(0);
  if (last_vec) r = r.squeeze(-1);
  return r;
}

// Solves A X = B (left) or X A = B with A triangular: only that triangle of A is read.
Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  check_defined(A, "linalg.solve_triangular", "A");
  check_defined(B, "linalg.solve_triangular", "B");
  Tensor T = upper ? A.triu() : A.tril();
  if (unitriangular) T = T.sub(T.diagonal(0, -2, -1).diag_embed()).add(batched_identity(A));
  return linalg::solve(T, B, left);
}

Tensor tensorinv(const Tensor& A, int64_t ind) {
  check_defined(A, "linalg.tensorinv", "A");
  EMBER_CHECK(ind > 0, "Expected a strictly positive integer for 'ind', but got ", ind);
  int64_t rows = 1, cols = 1;
  std::vector<int64_t> shape;
  for (int64_t i = ind; i < A.dim(); ++i) cols *= A.size(i), shape.push_back(A.size(i));
  for (int64_t i = 0; i < ind; ++i) rows *= A.size(i), shape.push_back(A.size(i));
  EMBER_CHECK(rows == cols, "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
              "prod(self.shape[:ind]), but got ", cols, " != ", rows);
  return linalg::inv(A.reshape({rows, cols})).reshape(shape);
}
Tensor tensorsolve(const Tensor& A, const Tensor& B, OptionalIntArrayRef dims) {
  check_defined(A, "linalg.tensorsolve", "A");
  check_defined(B, "linalg.tensorsolve", "B");
  Tensor a = A;
  if (dims) {
    std::vector<int64_t> rest, moved;
    std::vector<bool> picked(size_t(A.dim()), false);
    for (int64_t d : *dims) picked[size_t(maybe_wrap_dim(d, A.dim()))] = true;
    for (int64_t i = 0; i < A.dim(); ++i) (picked[size_t(i)] ? moved : rest).push_back(i);
    rest.insert(rest.end(), moved.begin(), moved.end());
    a = A.permute(rest);
  }
  const int64_t n = B.numel();
  std::vector<int64_t> x_shape(a.sizes().begin() + B.dim(), a.sizes().end());
  return linalg::solve(a.reshape({n, -1}), B.reshape({n})).reshape(x_shape);
}

Tensor svdvals(const Tensor& A, std::optional<std::string_view> driver) {
  (void)driver;  // a CUDA-only choice in PyTorch
  return linalg::svdvals(A);
}
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool full_matrices, std::optional<std::string_view> driver) {
  (void)driver;  // a CUDA-only choice in PyTorch
  return linalg::svd(A, full_matrices);
}
Tensor linalg_det(const Tensor& A) { return linalg::det(A); }
}  // namespace linalg

Tensor pinverse(const Tensor& self, double rcond) {
  EMBER_AUTOCAST(pinverse, pinverse(_ac[0], rcond), &self);  // pinverse is on the list, pinv is not
  return linalg::pinv(self, rcond, false);
}

// torch::svd (deprecated in PyTorch, still in LibTorch): V rather than V^H; `some` picks reduced.
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& self, bool some, bool compute_uv) {
  check_defined(self, "svd");
  auto [U, S, Vh] = linalg::svd(self, /*full_matrices=*/!some);
  if (!compute_uv) return {zeros_like(U), S, zeros_like(Vh)};
  return {U, S, Vh.mH()};
}
std::tuple<Tensor, Tensor> qr(const Tensor& self, bool some) {
  check_defined(self, "qr");
  return linalg::qr(self, some ? "reduced" : "complete");
}

// torch::triangular_solve(b, A): the solution and a copy of A.
std::tuple<Tensor, Tensor> triangular_solve(const Tensor& self, const Tensor& A, bool upper, bool transpose,
                                            bool unitriangular) {
  check_defined(self, "triangular_solve");
  check_defined(A, "triangular_solve", "A");
  const Tensor T = transpose ? A.mT() : A;
  return {linalg::solve_triangular(T, self, transpose ? !upper : upper, true, unitriangular), A.clone()};
}

// Solves A X = B given A's Cholesky factor (lower L with A = L L^H, or upper U with A = U^H U).
Tensor cholesky_solve(const Tensor& self, const Tensor& input2, bool upper) {
  check_defined(self, "cholesky_solve");
  check_defined(input2, "cholesky_solve", "input2");
  const Tensor L = upper ? input2.mH() : input2;
  const Tensor Y = linalg::solve_triangular(L, self, /*upper=*/false);
  return linalg::solve_triangular(L.mH(), Y, /*upper=*/true);
}
Tensor cholesky_inverse(const Tensor& self, bool upper) {
  check_square(self, "cholesky_inverse");
  return cholesky_solve(batched_identity(self).to(self.scalar_type()), self, upper);
}

// ---- trace ----------------------------------------------------------------------------
Tensor trace(const Tensor& self) {
  EMBER_AUTOCAST(trace, trace(_ac[0]), &self);
  EMBER_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self)))
    return self.diagonal().sum();  // differentiable through the diagonal view
  constexpr DtypeSet kTraceTypes = kIntegralTypes | DtypeSet{kFloat, kDouble, kComplexFloat, kComplexDouble};
  EMBER_CHECK_TYPE(kTraceTypes.contains(self.scalar_type()), "\"trace\" not implemented for '", self.scalar_type(),
                   "'");
  const ScalarType rt = isIntegralType(self.scalar_type(), false) ? kLong : self.scalar_type();
  Tensor out = empty({}, self.options().dtype(rt));
  if (out.is_meta()) return out;
  const int64_t n = std::min(self.size(0), self.size(1)), step = self.stride(0) + self.stride(1);
  visit_dtype<kTraceTypes>(self.scalar_type(), "trace", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = std::conditional_t<std::is_integral_v<T>, int64_t,
                std::conditional_t<is_complex_v<T>, Complex<double>, double>>;
    const T* p = static_cast<const T*>(self.data_ptr());
    Acc acc = Acc(0);
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (is_complex_v<T>) acc += Complex<double>(double(p[i * step].real()), double(p[i * step].imag()));
      else acc += Acc(p[i * step]);
    }
    if constexpr (std::is_integral_v<T>) *out.data_ptr<int64_t>() = acc;
    else if constexpr (is_complex_v<T>) *out.data_ptr<T>() = T(typename T::value_type(acc.real()), typename T::value_type(acc.imag()));
    else *out.data_ptr<T>() = T(acc);
  });
  return out;
}

}  // namespace ember
