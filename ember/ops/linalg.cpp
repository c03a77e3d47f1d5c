// The matmul family: mm, bmm, mv, dot, vdot, outer, addmm, addbmm, baddbmm, addmv, addr,
// matmul (every broadcasting case of torch.matmul), and their out= forms and Tensor methods
// (trace is in linalg_composites.cpp). Shape/dtype checks and PyTorch's messages live here; tensors become GEMMs in
// linalg_gemm.cpp, which run on the "mm" family's kernel (blas.cpp).
#include "ember/autograd/record.h"
#include "ember/core/tracing_call.h"
#include <algorithm>
#include <optional>
#include <string_view>

#include "ember/ops/blas.h"
#include "ember/ops/dispatch.h"
#include "ember/ops/functions.h"
#include "ember/ops/autocast.h"
#include "ember/ops/linalg_utils.h"
#include "ember/ops/op_def.h"
#include "ember/ops/type_promotion.h"

namespace ember {

using namespace linalg_detail;

namespace {

void check_same_dtype(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.scalar_type() == b.scalar_type(), "expected scalar type ", a.scalar_type(), " but found ",
              b.scalar_type());
}

void check_out_dtype(const Tensor& out, ScalarType expected) {
  EMBER_CHECK(out.scalar_type() == expected, "Expected out tensor to have dtype ", cpp_type_name(expected),
              ", but got ", cpp_type_name(out.scalar_type()), " instead");
}

void resize_out(Tensor& out, IntArrayRef sizes) {
  if (out.sizes() != sizes) out.resize_(sizes);
}

void check_inplace(const Tensor& self, IntArrayRef out_sizes, ScalarType out_dtype) {
  EMBER_CHECK(self.sizes() == out_sizes, "Bad in-place call: input tensor size ", self.sizes(),
              " and output tensor size ", out_sizes, " should match");
  EMBER_CHECK(self.scalar_type() == out_dtype, "Bad in-place call: input tensor dtype ",
              cpp_type_name(self.scalar_type()), " and output tensor dtype ", cpp_type_name(out_dtype), " should match");
}

bool is_zero(const Scalar& s) { return s.toComplexDouble() == Complex<double>(0); }

// Writes beta * self (broadcast) into result, the starting point of an addmm-style op.
// With beta == 0 self is not read (NaN in it is ignored, as in PyTorch).
void init_from_self(Tensor& result, const Tensor& self, const Scalar& beta) {
  if (!is_zero(beta)) result.copy_(self.expand(result.sizes()));
}

void check_mm_shapes(const char* op, const Tensor& m1, const Tensor& m2) {
  EMBER_CHECK(m1.size(1) == m2.size(0), op, ": mat1 and mat2 shapes cannot be multiplied (", m1.size(0), "x", m1.size(1),
              " and ", m2.size(0), "x", m2.size(1), ")");
}

void check_bmm_args(const char* op, const Tensor& b1, const Tensor& b2) {
  EMBER_CHECK(b1.dim() == 3, op, ": batch1 must be a 3D tensor, got ", b1.dim(), "-D");
  EMBER_CHECK(b2.dim() == 3, op, ": batch2 must be a 3D tensor, got ", b2.dim(), "-D");
  EMBER_CHECK(b2.size(0) == b1.size(0) && b2.size(1) == b1.size(2),
              op, ": Expected size for first two dimensions of batch2 tensor to be: [", b1.size(0), ", ", b1.size(2),
              "] but got: [", b2.size(0), ", ", b2.size(1), "].");
  check_same_dtype(b1, b2);
  check_gemm_dtype(op, b1.scalar_type());
}

void check_addmm_args(const Tensor& self, const Tensor& m1, const Tensor& m2) {
  EMBER_CHECK(m1.dim() == 2, "addmm: mat1 must be a matrix, got ", m1.dim(), "-D tensor");
  EMBER_CHECK(m2.dim() == 2, "addmm: mat2 must be a matrix, got ", m2.dim(), "-D tensor");
  check_mm_shapes("addmm", m1, m2);
  check_same_dtype(m1, m2);
  EMBER_CHECK(self.scalar_type() == m2.scalar_type(), "self and mat2 must have the same dtype");
  check_gemm_dtype("addmm", m1.scalar_type());
}

void check_mv_args(int64_t self_dim, const Tensor& mat, const Tensor& vec, int64_t self_size) {
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1 && self_dim <= 1, "mv: vector + matrix @ vector expected, got ", self_dim,
              ", ", mat.dim(), ", ", vec.dim());
  EMBER_CHECK(mat.size(1) == vec.size(0) && (mat.size(0) == self_size || self_size == 1),
              "mv: size mismatch, got ", self_size, ", ", mat.size(0), "x", mat.size(1), ",", vec.size(0));
  check_same_dtype(mat, vec);
  check_gemm_dtype("addmv", mat.scalar_type());
}

// mat @ vec written into result (m), as an (m x k) @ (k x 1) GEMM.
void mv_into(Tensor& result, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha,
             const char* op) {
  const int64_t m = mat.size(0), k = mat.size(1);
  Tensor c = result.as_strided({1, m, 1}, {0, result.stride(0), 1});
  Tensor v = vec.as_strided({1, k, 1}, {0, vec.stride(0), 1});
  gemm_into(c, mat.unsqueeze(0), v, alpha, beta, op);
}

// Collapses the leading `nb` dims of t into one (returning a 3-D view) when one stride
// describes them all (size-1 dims ignored; all-zero strides of a broadcast qualify).
std::optional<Tensor> collapse_batch(const Tensor& t, int64_t nb) {
  int64_t size = 1, stride = 0, expected = -1;
  for (int64_t d = nb - 1; d >= 0; --d) {
    const int64_t s = t.size(d);
    size *= s;
    if (s == 1) continue;
    if (expected >= 0 && t.stride(d) != expected) return std::nullopt;
    if (expected < 0) stride = t.stride(d);
    expected = t.stride(d) * s;
  }
  const int64_t r = t.dim();
  return t.as_strided({size, t.size(r - 2), t.size(r - 1)}, {size <= 1 ? 0 : stride, t.stride(r - 2), t.stride(r - 1)});
}

}  // namespace

// ---- mm, bmm, addmm, baddbmm, addbmm ---------------------------------------------
namespace {
// mm and bmm record (a @ b)'s derivatives: grad @ b^H and a^H @ grad.
Tensor record_matmul(const Tensor& a, const Tensor& b, const char* op, const std::function<Tensor()>& impl) {
  autograd::Recording rec({&a, &b});
  if (EMBER_LIKELY(!rec.any())) return impl();
  Tensor r;
  {
    autograd::BelowAutogradGuard below;
    r = impl();
  }
  const bool batched = a.dim() == 3;
  if (rec.forward()) {
    rec.forward_each(r, [&](const std::function<Tensor(size_t)>& t) {
      auto prod = [&](const Tensor& x, const Tensor& y) { return batched ? x.bmm(y) : x.mm(y); };
      Tensor ta = t(0), tb = t(1), res;
      if (ta.defined()) res = prod(ta, b);
      if (tb.defined()) res = res.defined() ? res.add(prod(a, tb)) : prod(a, tb);
      return res;
    });
  }
  if (rec.reverse()) {
    rec.record(op, {&r}, [batched](const autograd::VjpCtx& c) {
      Tensor a = c.saved_tensor(0), b = c.saved_tensor(1);
      auto mH = [&](const Tensor& t) { return t.transpose(-2, -1).conj(); };
      auto prod = [&](const Tensor& x, const Tensor& y) { return batched ? x.bmm(y) : x.mm(y); };
      return autograd::variable_list{c.needs_input_grad(0) ? prod(c.grad(), mH(b)) : Tensor(),
                                     c.needs_input_grad(1) ? prod(mH(a), c.grad()) : Tensor()};
    }, {{a}, {b}});
  }
  return r;
}
}  // namespace

Tensor mm(const Tensor& self, const Tensor& mat2) {
  check_defined(self, "mm");
  check_defined(mat2, "mm", "mat2");
  EMBER_AUTOCAST_ENTRY(mm_op, mm(_ac[0], _ac[1]), &self, &mat2);
  if (EMBER_UNLIKELY(self.unsafeGetTensorImpl()->autograd_meta() || mat2.unsafeGetTensorImpl()->autograd_meta())) {
    if (autograd::Recording({&self, &mat2}).any())
      return record_matmul(self, mat2, "mm", [&] { return mm(self, mat2); });
  }
  check_same_device("mm", {&self, &mat2});
  EMBER_CHECK(self.dim() == 2, "mm: self must be a matrix, got ", self.dim(), "-D tensor");
  EMBER_CHECK(mat2.dim() == 2, "mm: mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
  check_mm_shapes("mm", self, mat2);
  check_same_dtype(self, mat2);
  check_gemm_dtype("mm", self.scalar_type());
  Tensor out = empty({self.size(0), mat2.size(1)}, self.options());
  gemm_into(out.unsqueeze(0), self.unsqueeze(0), mat2.unsqueeze(0), 1, 0, "mm");
  return out;
}

Tensor& mm_out(Tensor& out, const Tensor& self, const Tensor& mat2) {
  check_same_device("mm", {&out, &self, &mat2});
  EMBER_CHECK(self.dim() == 2, "mm: self must be a matrix, got ", self.dim(), "-D tensor");
  EMBER_CHECK(mat2.dim() == 2, "mm: mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
  check_mm_shapes("mm", self, mat2);
  check_same_dtype(self, mat2);
  check_gemm_dtype("mm", self.scalar_type());
  check_out_dtype(out, self.scalar_type());
  resize_out(out, {self.size(0), mat2.size(1)});
  gemm_into(out.unsqueeze(0), self.unsqueeze(0), mat2.unsqueeze(0), 1, 0, "mm");
  return out;
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  check_defined(self, "bmm");
  check_defined(mat2, "bmm", "mat2");
  EMBER_AUTOCAST_ENTRY(bmm_op, bmm(_ac[0], _ac[1]), &self, &mat2);
  if (EMBER_UNLIKELY(self.unsafeGetTensorImpl()->autograd_meta() || mat2.unsafeGetTensorImpl()->autograd_meta())) {
    if (autograd::Recording({&self, &mat2}).any())
      return record_matmul(self, mat2, "bmm", [&] { return bmm(self, mat2); });
  }
  check_same_device("bmm", {&self, &mat2});
  check_bmm_args("bmm", self, mat2);
  Tensor out = empty({self.size(0), self.size(1), mat2.size(2)}, self.options());
  gemm_into(out, self, mat2, 1, 0, "bmm");
  return out;
}

Tensor& bmm_out(Tensor& out, const Tensor& self, const Tensor& mat2) {
  check_same_device("bmm", {&out, &self, &mat2});
  check_bmm_args("bmm", self, mat2);
  check_out_dtype(out, self.scalar_type());
  resize_out(out, {self.size(0), self.size(1), mat2.size(2)});
  gemm_into(out, self, mat2, 1, 0, "bmm");
  return out;
}

namespace {
bool is_one(const Scalar& s) { return !s.isComplex() && s.toDouble() == 1.0; }
}  // namespace

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  EMBER_AUTOCAST_ENTRY(addmm_op, addmm(_ac[0], _ac[1], _ac[2], beta, alpha), &self, &mat1, &mat2);
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, mat1, mat2))) {
    // beta * self + alpha * mat1 @ mat2
    return autograd::differentiable(
        "addmm", {&self, &mat1, &mat2}, [&] { return addmm(self, mat1, mat2, beta, alpha); },
        [beta, alpha](const autograd::VjpCtx& c) {
          const Tensor& g = c.grad();
          Tensor ga = is_one(alpha) ? g : g.mul(autograd::conj_scalar(alpha));
          return autograd::variable_list{
              c.needs_input_grad(0) ? (is_one(beta) ? g : g.mul(autograd::conj_scalar(beta))) : Tensor(),
              c.needs_input_grad(1) ? ga.mm(mH(c.saved_tensor(1))) : Tensor(),
              c.needs_input_grad(2) ? mH(c.saved_tensor(0)).mm(ga) : Tensor()};
        },
        [&](const auto& t, const Tensor& r) {
          // alpha (t1 @ mat2 + mat1 @ t2) + beta t0, with only the terms that exist
          Tensor res;
          if (t(1).defined()) res = t(1).mm(mat2);
          if (t(2).defined()) res = res.defined() ? addmm(res, mat1, t(2)) : mat1.mm(t(2));
          if (res.defined() && !is_one(alpha)) res = res.mul(alpha);
          if (t(0).defined()) {
            Tensor tb = is_one(beta) ? t(0) : t(0).mul(beta);
            res = res.defined() ? res.add(tb) : tb.expand(r.sizes()).clone();
          }
          return res;
        },
        {{mat1}, {mat2}});
  }
  check_same_device("addmm", {&self, &mat1, &mat2});
  check_addmm_args(self, mat1, mat2);
  check_scalar_fits(alpha, mat1.scalar_type());
  check_scalar_fits(beta, mat1.scalar_type());
  Tensor s = self.expand({mat1.size(0), mat2.size(1)});  // shape check even when beta == 0
  Tensor out = empty({mat1.size(0), mat2.size(1)}, mat1.options());
  // A bias broadcast along the rows on a device: added by the GEMM's epilogue.
  if (!out.is_cpu() && is_one(alpha) && is_one(beta) && (self.dim() == 1 || (self.dim() == 2 && self.size(0) == 1)) &&
      gemm_bias_into(out, mat1, mat2, self.reshape({-1})))
    return out;
  init_from_self(out, s, beta);
  gemm_into(out.unsqueeze(0), mat1.unsqueeze(0), mat2.unsqueeze(0), alpha, beta, "addmm");
  return out;
}

Tensor& addmm_out(Tensor& out, const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                  const Scalar& alpha) {
  check_same_device("addmm", {&out, &self, &mat1, &mat2});
  check_addmm_args(self, mat1, mat2);
  check_scalar_fits(alpha, mat1.scalar_type());
  check_scalar_fits(beta, mat1.scalar_type());
  check_out_dtype(out, mat1.scalar_type());
  const std::vector<int64_t> sizes{mat1.size(0), mat2.size(1)};
  Tensor s = is_zero(beta) ? self : self.expand(sizes).clone();  // out may alias self
  resize_out(out, sizes);
  init_from_self(out, s, beta);
  gemm_into(out.unsqueeze(0), mat1.unsqueeze(0), mat2.unsqueeze(0), alpha, beta, "addmm");
  return out;
}

static Tensor& addmm_inplace(Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, mat1, mat2)))
    return autograd::assign_inplace(self, addmm(self, mat1, mat2, beta, alpha), "addmm_");
  check_same_device("addmm_", {&self, &mat1, &mat2});
  check_addmm_args(self, mat1, mat2);
  check_scalar_fits(alpha, mat1.scalar_type());
  check_scalar_fits(beta, mat1.scalar_type());
  check_inplace(self, {mat1.size(0), mat2.size(1)}, mat1.scalar_type());
  gemm_into(self.unsqueeze(0), mat1.unsqueeze(0), mat2.unsqueeze(0), alpha, beta, "addmm_");
  return self;
}

namespace {
std::vector<int64_t> check_baddbmm(const char* op, const Tensor& self, const Tensor& b1, const Tensor& b2,
                                   const Scalar& beta, const Scalar& alpha) {
  check_same_device(op, {&self, &b1, &b2});
  check_bmm_args(op, b1, b2);
  check_scalar_fits(alpha, b1.scalar_type());
  check_scalar_fits(beta, b1.scalar_type());
  return {b1.size(0), b1.size(1), b2.size(2)};
}
}  // namespace

Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta, const Scalar& alpha) {
  EMBER_AUTOCAST_ENTRY(baddbmm_op, baddbmm(_ac[0], _ac[1], _ac[2], beta, alpha), &self, &batch1, &batch2);
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, batch1, batch2))) {
    return autograd::differentiable(
        "baddbmm", {&self, &batch1, &batch2}, [&] { return baddbmm(self, batch1, batch2, beta, alpha); },
        [beta, alpha](const autograd::VjpCtx& c) {
          Tensor ga = c.grad().mul(autograd::conj_scalar(alpha));
          return autograd::variable_list{
              c.needs_input_grad(0) ? c.grad().mul(autograd::conj_scalar(beta)) : Tensor(),
              c.needs_input_grad(1) ? ga.bmm(mH(c.saved_tensor(1))) : Tensor(),
              c.needs_input_grad(2) ? mH(c.saved_tensor(0)).bmm(ga) : Tensor()};
        },
        [&](const auto& t, const Tensor& r) {
          Tensor res = zeros_like(r);
          if (t(0).defined()) res = res.add(t(0).mul(beta));
          if (t(1).defined()) res = res.add(t(1).bmm(batch2).mul(alpha));
          if (t(2).defined()) res = res.add(batch1.bmm(t(2)).mul(alpha));
          return res;
        },
        {{batch1}, {batch2}});
  }
  auto sizes = check_baddbmm("baddbmm", self, batch1, batch2, beta, alpha);
  Tensor s = self.expand(sizes);  // shape check even when beta == 0, as PyTorch
  Tensor out = empty(sizes, batch1.options());
  init_from_self(out, s, beta);
  gemm_into(out, batch1, batch2, alpha, beta, "baddbmm");
  return out;
}

Tensor& baddbmm_out(Tensor& out, const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                    const Scalar& alpha) {
  auto sizes = check_baddbmm("baddbmm", self, batch1, batch2, beta, alpha);
  check_same_device("baddbmm", {&out, &batch1});
  check_out_dtype(out, batch1.scalar_type());
  Tensor s = is_zero(beta) ? self.expand(sizes) : self.expand(sizes).clone();
  resize_out(out, sizes);
  init_from_self(out, s, beta);
  gemm_into(out, batch1, batch2, alpha, beta, "baddbmm");
  return out;
}

static Tensor& baddbmm_inplace(Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta, const Scalar& alpha) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, batch1, batch2)))
    return autograd::assign_inplace(self, baddbmm(self, batch1, batch2, beta, alpha), "baddbmm_");
  auto sizes = check_baddbmm("baddbmm_", self, batch1, batch2, beta, alpha);
  check_inplace(self, sizes, batch1.scalar_type());
  gemm_into(self, batch1, batch2, alpha, beta, "baddbmm_");
  return self;
}

namespace {
// addbmm: sum_b batch1[b] @ batch2[b] is one GEMM of (m x B*k) @ (B*k x n).
void addbmm_impl(Tensor& out, const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) {
  const int64_t B = b1.size(0), m = b1.size(1), k = b1.size(2), n = b2.size(2);
  Tensor a = b1.permute({1, 0, 2}).reshape({1, m, B * k});
  Tensor b = b2.reshape({1, B * k, n});
  gemm_into(out.unsqueeze(0), a, b, alpha, beta, "addbmm");
}
std::vector<int64_t> check_addbmm(const char* op, const Tensor& self, const Tensor& b1, const Tensor& b2,
                                  const Scalar& beta, const Scalar& alpha) {
  check_same_device(op, {&self, &b1, &b2});
  EMBER_CHECK(b1.dim() == 3, "batch1 must be a 3D tensor");
  EMBER_CHECK(b2.dim() == 3, "batch2 must be a 3D tensor");
  EMBER_CHECK(b1.size(0) == b2.size(0), "batch1 and batch2 must have same number of batches, got ", b1.size(0),
              " and ", b2.size(0));
  EMBER_CHECK(b1.size(2) == b2.size(1), "Incompatible matrix sizes for bmm (", b1.size(1), "x", b1.size(2), " and ",
              b2.size(1), "x", b2.size(2), ")");
  check_same_dtype(b1, b2);
  EMBER_CHECK(self.scalar_type() == b2.scalar_type(), "self and mat2 must have the same dtype");
  check_gemm_dtype(op, b1.scalar_type());
  check_scalar_fits(alpha, b1.scalar_type());
  check_scalar_fits(beta, b1.scalar_type());
  return {b1.size(1), b2.size(2)};
}
}  // namespace

Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta, const Scalar& alpha) {
  EMBER_AUTOCAST_ENTRY(addbmm_op, addbmm(_ac[0], _ac[1], _ac[2], beta, alpha), &self, &batch1, &batch2);
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, batch1, batch2))) {
    // beta * self + alpha * sum_b batch1[b] @ batch2[b]
    return autograd::differentiable(
        "addbmm", {&self, &batch1, &batch2}, [&] { return addbmm(self, batch1, batch2, beta, alpha); },
        [beta, alpha](const autograd::VjpCtx& c) {
          Tensor b1 = c.saved_tensor(0), b2 = c.saved_tensor(1);
          Tensor ga = c.grad().mul(autograd::conj_scalar(alpha)).unsqueeze(0).expand({b1.size(0), c.grad().size(0), c.grad().size(1)});
          return autograd::variable_list{
              c.needs_input_grad(0) ? c.grad().mul(autograd::conj_scalar(beta)) : Tensor(),
              c.needs_input_grad(1) ? ga.bmm(mH(b2)) : Tensor(),
              c.needs_input_grad(2) ? mH(b1).bmm(ga) : Tensor()};
        },
        [&](const auto& t, const Tensor& r) {
          Tensor res = zeros_like(r);
          if (t(0).defined()) res = res.add(t(0).mul(beta));
          if (t(1).defined()) res = res.add(t(1).bmm(batch2).sum(0).mul(alpha));
          if (t(2).defined()) res = res.add(batch1.bmm(t(2)).sum(0).mul(alpha));
          return res;
        },
        {{batch1}, {batch2}});
  }
  auto sizes = check_addbmm("addbmm", self, batch1, batch2, beta, alpha);
  Tensor s = self.expand(sizes);
  Tensor out = empty(sizes, batch1.options());
  init_from_self(out, s, beta);
  addbmm_impl(out, batch1, batch2, beta, alpha);
  return out;
}

Tensor& addbmm_out(Tensor& out, const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                   const Scalar& alpha) {
  auto sizes = check_addbmm("addbmm", self, batch1, batch2, beta, alpha);
  check_out_dtype(out, batch1.scalar_type());
  Tensor s = is_zero(beta) ? self.expand(sizes) : self.expand(sizes).clone();
  resize_out(out, sizes);
  init_from_self(out, s, beta);
  addbmm_impl(out, batch1, batch2, beta, alpha);
  return out;
}

static Tensor& addbmm_inplace(Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta, const Scalar& alpha) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, batch1, batch2)))
    return autograd::assign_inplace(self, addbmm(self, batch1, batch2, beta, alpha), "addbmm_");
  auto sizes = check_addbmm("addbmm_", self, batch1, batch2, beta, alpha);
  check_inplace(self, sizes, batch1.scalar_type());
  addbmm_impl(self, batch1, batch2, beta, alpha);
  return self;
}

// ---- mv, addmv, dot, vdot, outer, addr ------------------------------------------------
Tensor mv(const Tensor& self, const Tensor& vec) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, vec))) {
    return autograd::differentiable(
        "mv", {&self, &vec}, [&] { return mv(self, vec); },
        [](const autograd::VjpCtx& c) {
          return autograd::variable_list{
              c.needs_input_grad(0) ? outer(c.grad(), c.saved_tensor(1).conj()) : Tensor(),
              c.needs_input_grad(1) ? mH(c.saved_tensor(0)).mv(c.grad()) : Tensor()};
        },
        [&](const auto& t, const Tensor& r) {
          Tensor res = zeros_like(r);
          if (t(0).defined()) res = res.add(t(0).mv(vec));
          if (t(1).defined()) res = res.add(self.mv(t(1)));
          return res;
        },
        {{self}, {vec}});
  }
  check_same_device("mv", {&self, &vec});
  check_mv_args(1, self, vec, self.dim() == 2 ? self.size(0) : 0);
  Tensor out = empty({self.size(0)}, self.options());
  mv_into(out, self, vec, 0, 1, "mv");
  return out;
}

Tensor& mv_out(Tensor& out, const Tensor& self, const Tensor& vec) {
  check_same_device("mv", {&out, &self, &vec});
  check_mv_args(1, self, vec, self.dim() == 2 ? self.size(0) : 0);
  check_out_dtype(out, self.scalar_type());
  resize_out(out, {self.size(0)});
  mv_into(out, self, vec, 0, 1, "mv");
  return out;
}

namespace {
int64_t addmv_self_size(const Tensor& self) { return self.dim() == 0 ? 1 : self.size(0); }
}  // namespace

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, mat, vec))) {
    return autograd::differentiable(
        "addmv", {&self, &mat, &vec}, [&] { return addmv(self, mat, vec, beta, alpha); },
        [beta, alpha](const autograd::VjpCtx& c) {
          Tensor ga = c.grad().mul(autograd::conj_scalar(alpha));
          return autograd::variable_list{
              c.needs_input_grad(0) ? c.grad().mul(autograd::conj_scalar(beta)) : Tensor(),
              c.needs_input_grad(1) ? outer(ga, c.saved_tensor(1).conj()) : Tensor(),
              c.needs_input_grad(2) ? mH(c.saved_tensor(0)).mv(ga) : Tensor()};
        },
        [&](const auto& t, const Tensor& r) {
          Tensor res = zeros_like(r);
          if (t(0).defined()) res = res.add(t(0).mul(beta));
          if (t(1).defined()) res = res.add(t(1).mv(vec).mul(alpha));
          if (t(2).defined()) res = res.add(mat.mv(t(2)).mul(alpha));
          return res;
        },
        {{mat}, {vec}});
  }
  check_same_device("addmv", {&self, &mat, &vec});
  check_mv_args(self.dim(), mat, vec, addmv_self_size(self));
  check_scalar_fits(alpha, mat.scalar_type());
  check_scalar_fits(beta, mat.scalar_type());
  Tensor out = empty({mat.size(0)}, mat.options());
  init_from_self(out, self, beta);
  mv_into(out, mat, vec, beta, alpha, "addmv");
  return out;
}

Tensor& addmv_out(Tensor& out, const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
                  const Scalar& alpha) {
  check_same_device("addmv", {&out, &self, &mat, &vec});
  check_mv_args(self.dim(), mat, vec, addmv_self_size(self));
  check_scalar_fits(alpha, mat.scalar_type());
  check_scalar_fits(beta, mat.scalar_type());
  check_out_dtype(out, mat.scalar_type());
  Tensor s = is_zero(beta) ? self : self.expand({mat.size(0)}).clone();
  resize_out(out, {mat.size(0)});
  init_from_self(out, s, beta);
  mv_into(out, mat, vec, beta, alpha, "addmv");
  return out;
}

static Tensor& addmv_inplace(Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, mat, vec)))
    return autograd::assign_inplace(self, addmv(self, mat, vec, beta, alpha), "addmv_");
  check_same_device("addmv_", {&self, &mat, &vec});
  check_mv_args(self.dim(), mat, vec, addmv_self_size(self));
  check_scalar_fits(alpha, mat.scalar_type());
  check_scalar_fits(beta, mat.scalar_type());
  check_inplace(self, {mat.size(0)}, mat.scalar_type());
  mv_into(self, mat, vec, beta, alpha, "addmv_");
  return self;
}

namespace {
Tensor dot_impl(const char* op, const Tensor& self, const Tensor& other, bool conj_self) {
  check_same_device(op, {&self, &other});
  EMBER_CHECK(self.dim() == 1 && other.dim() == 1, "1D tensors expected, but got ", self.dim(), "D and ", other.dim(),
              "D tensors");
  EMBER_CHECK(self.scalar_type() == other.scalar_type(), "dot : expected both vectors to have same dtype, but found ",
              self.scalar_type(), " and ", other.scalar_type());
  EMBER_CHECK(self.numel() == other.numel(), "inconsistent tensor size, expected tensor [", self.numel(),
              "] and src [", other.numel(), "] to have the same number of elements, but got ", self.numel(), " and ",
              other.numel(), " elements respectively");
  check_gemm_dtype(op, self.scalar_type());
  const ScalarType dt = self.scalar_type();
  Tensor out = empty({}, self.options());
  if (out.is_meta()) return out;
  if (dt == kHalf || dt == kComplexHalf) {
    const ScalarType w = computeType(dt);
    return dot_impl(op, self.to(w), other.to(w), conj_self).to(dt);
  }
  const int64_t k = self.size(0);
  // x as a stored (k x 1) column read transposed (conjugated for vdot), y as a (k x 1) column.
  Tensor x = self.stride(0) >= 1 ? self : self.contiguous();
  Tensor y = other.stride(0) >= 1 ? other : other.contiguous();
  GemmArgs g;
  g.dtype = dt, g.m = 1, g.n = 1, g.k = k;
  g.ta = conj_self && self.is_complex() ? BlasTrans::C : BlasTrans::T;
  g.a = x.data_ptr(), g.lda = x.stride(0);
  g.tb = BlasTrans::N, g.b = y.data_ptr(), g.ldb = y.stride(0);
  g.c = out.data_ptr(), g.ldc = 1;
  run_gemm(g, out.device(), op);
  return out;
}
}  // namespace

Tensor dot(const Tensor& self, const Tensor& other) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, other))) {
    // sum(a * b): d/da = g * conj(b)
    return autograd::differentiable(
        "dot", {&self, &other}, [&] { return dot(self, other); },
        [](const autograd::VjpCtx& c) {
          return autograd::variable_list{c.needs_input_grad(0) ? c.saved_tensor(1).conj().mul(c.grad()) : Tensor(),
                                         c.needs_input_grad(1) ? c.saved_tensor(0).conj().mul(c.grad()) : Tensor()};
        },
        [&](const auto& t, const Tensor& r) {
          Tensor res = zeros_like(r);
          if (t(0).defined()) res = res.add(dot(t(0), other));
          if (t(1).defined()) res = res.add(dot(self, t(1)));
          return res;
        },
        {{self}, {other}});
  }
  return dot_impl("dot", self, other, false);
}
Tensor vdot(const Tensor& self, const Tensor& other) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, other))) {
    // sum(conj(a) * b): d/da = conj(g) * b, d/db = g * a
    return autograd::differentiable(
        "vdot", {&self, &other}, [&] { return vdot(self, other); },
        [](const autograd::VjpCtx& c) {
          return autograd::variable_list{c.needs_input_grad(0) ? c.saved_tensor(1).mul(c.grad().conj()) : Tensor(),
                                         c.needs_input_grad(1) ? c.saved_tensor(0).mul(c.grad()) : Tensor()};
        },
        [&](const auto& t, const Tensor& r) {
          Tensor res = zeros_like(r);
          if (t(0).defined()) res = res.add(vdot(t(0), other));
          if (t(1).defined()) res = res.add(vdot(self, t(1)));
          return res;
        },
        {{self}, {other}});
  }
  return dot_impl("vdot", self, other, true);
}

Tensor outer(const Tensor& self, const Tensor& vec2) {
  EMBER_CHECK(self.dim() == 1, "outer: Expected 1-D argument self, but got ", self.dim(), "-D");
  EMBER_CHECK(vec2.dim() == 1, "outer: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  return mul(self.reshape({-1, 1}), vec2);
}

Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta, const Scalar& alpha) {
  check_same_device("addr", {&self, &vec1, &vec2});
  EMBER_CHECK(vec1.dim() == 1, "addr: Expected 1-D argument vec1, but got ", vec1.dim(), "-D");
  EMBER_CHECK(vec2.dim() == 1, "addr: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  const ScalarType rt = result_type(TensorList({self, vec1, vec2}));
  if (rt != kBool) {
    EMBER_CHECK(!beta.isBoolean(), "Boolean beta only supported for Boolean results.");
    EMBER_CHECK(!alpha.isBoolean(), "Boolean alpha only supported for Boolean results.");
  }
  if (isIntegralType(rt, false)) {
    EMBER_CHECK(!beta.isFloatingPoint() && !beta.isComplex(),
                "For integral input tensors, argument beta must not be a floating point number.");
    EMBER_CHECK(!alpha.isFloatingPoint() && !alpha.isComplex(),
                "For integral input tensors, argument alpha must not be a floating point number.");
  }
  check_scalar_fits(alpha, rt);
  check_scalar_fits(beta, rt);
  const std::vector<int64_t> sizes{vec1.size(0), vec2.size(0)};
  Tensor s = self.expand(sizes);
  Tensor prod = mul(vec1.reshape({-1, 1}).to(rt), vec2.to(rt));
  if (rt == kBool) {
    Tensor r = alpha.toBool() ? prod : zeros(sizes, prod.options());
    if (beta.toBool()) r = logical_or(r, s.to(kBool));
    return r.contiguous();
  }
  Tensor r = mul(prod, alpha);
  if (!is_zero(beta)) r = add(r, mul(s.to(rt), beta));
  return r.to(rt).contiguous();
}

// ---- matmul -------------------------------------------------------------------------
namespace {
// Whether dims [0, nb) of t can be merged into one dim by a view.
bool leading_dims_viewable(const Tensor& t, int64_t nb) {
  int64_t expected = -1;
  for (int64_t d = nb - 1; d >= 0; --d) {
    if (t.size(d) == 1) continue;
    if (expected >= 0 && t.stride(d) != expected) return false;
    expected = t.stride(d) * t.size(d);
  }
  return true;
}

Tensor matmul_impl(const Tensor& a, const Tensor& b) {
  check_same_device("matmul", {&a, &b});
  const int64_t da = a.dim(), db = b.dim();
  EMBER_CHECK(da > 0 && db > 0, "matmul: both arguments to matmul need to be at least 1D, but they are ", da,
              "D and ", db, "D");
  // The shapes are checked here so that errors name matmul, not the op it runs (PyTorch's texts).
  if (da == 1 && db == 1)
    EMBER_CHECK(a.size(0) == b.size(0), "matmul: inconsistent tensor size, expected tensor [", a.size(0),
                "] and src [", b.size(0), "] to have the same number of elements, but got ", a.size(0), " and ",
                b.size(0), " elements respectively");
  if (da == 2 && db == 1)
    EMBER_CHECK(a.size(1) == b.size(0), "matmul: size mismatch, got ", a.size(0), ", ", a.size(0), "x", a.size(1), ",",
                b.size(0));
  if (da <= 2 && db == 2)
    EMBER_CHECK(a.size(-1) == b.size(0), "matmul: mat1 and mat2 shapes cannot be multiplied (",
                da == 1 ? 1 : a.size(0), "x", a.size(-1), " and ", b.size(0), "x", b.size(1), ")");
  if (da == 1 && db == 1) return dot(a, b);
  if (da == 2 && db == 1) return mv(a, b);
  if (da == 1 && db == 2) return mm(a.unsqueeze(0), b).squeeze(0);
  if (da == 2 && db == 2) return mm(a, b);
  if (da >= 3 && db <= 2) {
    // Fold a's batch dims into the rows of one mm (or mv) when a view allows it.
    std::vector<int64_t> out_sizes(a.sizes().begin(), a.sizes().end() - 1);
    int64_t rows = 1;
    for (int64_t d = 0; d < da - 1; ++d) rows *= a.size(d);
    const int64_t kdim = a.size(da - 1);
    if (db == 1) {
      EMBER_CHECK(kdim == b.size(0), "matmul: size mismatch, got ", rows, ", ", rows, "x", kdim, ",", b.size(0));
    } else {
      EMBER_CHECK(kdim == b.size(0), "matmul: mat1 and mat2 shapes cannot be multiplied (", rows, "x", kdim, " and ",
                  b.size(0), "x", b.size(1), ")");
      out_sizes.push_back(b.size(1));
    }
    if (leading_dims_viewable(a, da - 1)) {
      Tensor a2 = a.reshape({rows, kdim});
      return (db == 1 ? mv(a2, b) : mm(a2, b)).view(out_sizes);
    }
  }
  if (da <= 2 && db >= 3) {
    // PyTorch's messages for this case come from folding b^T: (rows of b^T) x k.
    int64_t rows = 1;
    for (int64_t d = 0; d < db; ++d) rows *= d == db - 2 ? 1 : b.size(d);
    const int64_t kb = b.size(db - 2), ka = a.size(da - 1);
    if (da == 1) {
      EMBER_CHECK(ka == kb, "matmul: size mismatch, got ", rows, ", ", rows, "x", kb, ",", ka);
    } else {
      EMBER_CHECK(ka == kb, "matmul: mat1 and mat2 shapes cannot be multiplied (", rows, "x", kb, " and ", ka, "x", a.size(0),
                  ")");
    }
  }
  // General case: broadcast the batch dims, run one strided-batched GEMM.
  const Tensor a2 = da == 1 ? a.unsqueeze(0) : a;
  const Tensor b2 = db == 1 ? b.unsqueeze(1) : b;
  const int64_t n = a2.size(-2), ka = a2.size(-1), kb = b2.size(-2), p = b2.size(-1);
  IntArrayRef ba = a2.sizes().slice(0, a2.dim() - 2), bb = b2.sizes().slice(0, b2.dim() - 2);
  std::vector<int64_t> batch = broadcast_shapes(ba, bb);
  int64_t B = 1;
  for (int64_t s : batch) B *= s;
  EMBER_CHECK(ka == kb, "matmul: Expected size for first two dimensions of batch2 tensor to be: [", B, ", ", ka,
              "] but got: [", B, ", ", kb, "].");
  check_same_dtype(a, b);
  check_gemm_dtype("matmul", a.scalar_type());
  std::vector<int64_t> as = batch, bs = batch, out_sizes = batch;
  as.insert(as.end(), {n, ka});
  bs.insert(bs.end(), {kb, p});
  out_sizes.insert(out_sizes.end(), {n, p});
  const int64_t nb = int64_t(batch.size());
  Tensor ae = a2.expand(as), be = b2.expand(bs);
  std::optional<Tensor> a3 = collapse_batch(ae, nb), b3 = collapse_batch(be, nb);
  if (!a3) a3 = ae.reshape({B, n, ka});
  if (!b3) b3 = be.reshape({B, kb, p});
  Tensor out;
  if (autograd::Recording({&a, &b}).any()) {
    out = bmm(*a3, *b3).view(out_sizes);  // differentiable through bmm's derivative
  } else {
    out = empty(out_sizes, a.options());
    gemm_into(out.view({B, n, p}), *a3, *b3, 1, 0, "matmul");
  }
  if (da == 1) out = out.squeeze(-2);
  if (db == 1) out = out.squeeze(-1);
  return out;
}
}  // namespace

namespace {
const tracing::TracedOpDef matmul_traced{{"matmul", tracing::Fusion::Opaque, [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
  (void)a;
  return {matmul(in.at(0), in.at(1))};
}}};
}  // namespace

Tensor matmul(const Tensor& self, const Tensor& other) {
  if (tracing::active()) return tracing::traced_call(matmul_traced, {self, other}, {}, [&] { return matmul(self, other); });
  EMBER_AUTOCAST(matmul, matmul_impl(_ac[0], _ac[1]), &self, &other);
  return matmul_impl(self, other);
}
namespace linalg {
Tensor matmul(const Tensor& a, const Tensor& b) { return matmul_impl(a, b); }
}  // namespace linalg

Tensor& matmul_out(Tensor& out, const Tensor& self, const Tensor& other) {
  check_same_device("matmul", {&out, &self, &other});
  Tensor r = matmul_impl(self, other);
  check_out_dtype(out, r.scalar_type());
  resize_out(out, r.sizes());
  out.copy_(r);
  return out;
}

// ---- Tensor methods ---------------------------------------------------------------------
Tensor Tensor::matmul(const Tensor& other) const { return ember::matmul(*this, other); }
Tensor Tensor::mm(const Tensor& other) const { return ember::mm(*this, other); }
Tensor Tensor::bmm(const Tensor& other) const { return ember::bmm(*this, other); }
Tensor Tensor::mv(const Tensor& vec) const { return ember::mv(*this, vec); }
Tensor Tensor::dot(const Tensor& other) const { return ember::dot(*this, other); }
Tensor Tensor::vdot(const Tensor& other) const { return ember::vdot(*this, other); }
Tensor Tensor::outer(const Tensor& other) const { return ember::outer(*this, other); }
Tensor Tensor::addmm(const Tensor& m1, const Tensor& m2, const Scalar& beta, const Scalar& alpha) const {
  return ember::addmm(*this, m1, m2, beta, alpha);
}
Tensor& Tensor::addmm_(const Tensor& m1, const Tensor& m2, const Scalar& beta, const Scalar& alpha) const {
  return addmm_inplace(self(), m1, m2, beta, alpha);
}
Tensor Tensor::addbmm(const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) const {
  return ember::addbmm(*this, b1, b2, beta, alpha);
}
Tensor& Tensor::addbmm_(const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) const {
  return addbmm_inplace(self(), b1, b2, beta, alpha);
}
Tensor Tensor::baddbmm(const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) const {
  return ember::baddbmm(*this, b1, b2, beta, alpha);
}
Tensor& Tensor::baddbmm_(const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) const {
  return baddbmm_inplace(self(), b1, b2, beta, alpha);
}
Tensor Tensor::addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) const {
  return ember::addmv(*this, mat, vec, beta, alpha);
}
Tensor& Tensor::addmv_(const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) const {
  return addmv_inplace(self(), mat, vec, beta, alpha);
}
Tensor Tensor::addr(const Tensor& v1, const Tensor& v2, const Scalar& beta, const Scalar& alpha) const {
  return ember::addr(*this, v1, v2, beta, alpha);
}
Tensor& Tensor::addr_(const Tensor& v1, const Tensor& v2, const Scalar& beta, const Scalar& alpha) const {
  Tensor r = ember::addr(self(), v1, v2, beta, alpha);
  check_inplace(self(), r.sizes(), r.scalar_type());
  copy_(r);
  return self();
}
Tensor Tensor::trace() const { return ember::trace(*this); }

}  // namespace ember
