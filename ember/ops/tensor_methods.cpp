// Tensor's methods: each forwards to the free function of the same name (ops/functions.h).
#include "ember/cuda/cuda.h"
#include "ember/ops/functions.h"
#include "ember/ops/indexing.h"
#include "ember/ops/tensor_iterator.h"
#include "ember/ops/type_promotion.h"
#include "ember/ops/special.h"
#include "ember/ops/views.h"

namespace ember {

// ---- random fills ----------------------------------------------------------------
Tensor& Tensor::uniform_(double from, double to, OptGen g) const { return ember::uniform_(self(), from, to, g); }
Tensor& Tensor::normal_(double mean, double std, OptGen g) const { return ember::normal_(self(), mean, std, g); }
Tensor& Tensor::bernoulli_(double p, OptGen g) const { return ember::bernoulli_(self(), p, g); }
Tensor& Tensor::bernoulli_(const Tensor& p, OptGen g) const { return ember::bernoulli_(self(), p, g); }
Tensor Tensor::bernoulli(double p, OptGen g) const { return ember::bernoulli(*this, p, g); }
Tensor& Tensor::log_normal_(double mean, double std, OptGen g) const { return ember::log_normal_(self(), mean, std, g); }
Tensor& Tensor::cauchy_(double median, double sigma, OptGen g) const { return ember::cauchy_(self(), median, sigma, g); }
Tensor& Tensor::geometric_(double p, OptGen g) const { return ember::geometric_(self(), p, g); }
Tensor Tensor::type_as(const Tensor& other) const {
  check_defined(other, "type_as", "other");
  return to(other.device(), other.scalar_type());
}
namespace {
// Named tensors are not supported (Note [Named tensors]): only wildcards are accepted.
void check_unnamed(const char* op, const Tensor& self, const std::optional<DimnameList>& names) {
  check_defined(self, op, "self");
  if (!names) return;
  EMBER_CHECK(int64_t(names->size()) == self.dim(), op, ": Number of names (", names->size(),
              ") and number of dimensions in tensor (", self.dim(), ") do not match.");
  for (const Dimname& n : *names)
    EMBER_CHECK(n.isWildcard(), op, ": named tensors are not supported by ember (dimension name ", n,
                "); only None (wildcard) names are accepted, which leave the tensor unnamed.");
}
}  // namespace
Tensor Tensor::refine_names(DimnameList names) const {
  check_unnamed("refine_names", *this, names);
  return alias();
}
Tensor Tensor::rename(std::optional<DimnameList> names) const {
  check_unnamed("rename", *this, names);
  return alias();
}
const Tensor& Tensor::rename_(std::optional<DimnameList> names) const {
  check_unnamed("rename_", *this, names);
  return *this;
}
bool Tensor::is_nonzero() const {
  check_defined(*this, "is_nonzero", "self");
  EMBER_CHECK(numel() != 0, "is_nonzero: Boolean value of Tensor with no values is ambiguous");
  EMBER_CHECK(numel() == 1, "is_nonzero: Boolean value of Tensor with more than one value is ambiguous");
  if (is_complex()) {
    auto c = to(kComplexDouble).item<Complex<double>>();
    return c.real() != 0 || c.imag() != 0;
  }
  return to(kDouble).item<double>() != 0;
}
Tensor Tensor::multinomial(int64_t num_samples, bool replacement, OptGen g) const {
  return ember::multinomial(*this, num_samples, replacement, g);
}
Tensor& Tensor::exponential_(double lambd, OptGen g) const { return ember::exponential_(self(), lambd, g); }
Tensor& Tensor::random_(int64_t from, std::optional<int64_t> to, OptGen g) const { return ember::random_(self(), from, to, g); }
Tensor& Tensor::random_(int64_t to, OptGen g) const { return ember::random_(self(), 0, to, g); }
Tensor& Tensor::random_(OptGen g) const { return ember::random_(self(), 0, std::nullopt, g); }
Tensor Tensor::bernoulli(OptGen g) const { return ember::bernoulli(*this, g); }

// ---- conversion ---------------------------------------------------------------------
namespace {
bool needs_copy(const Tensor& t, std::optional<ScalarType> dt, std::optional<Device> dev,
                std::optional<MemoryFormat> f, bool copy) {
  if (copy) return true;
  if (dt && *dt != t.scalar_type()) return true;
  if (dev && !(dev->type() == t.device().type() && (!dev->has_index() || dev->index() == std::max<int>(0, t.device().index()))))
    return true;
  if (f && *f != MemoryFormat::Preserve && !t.is_contiguous(*f)) return true;
  return false;
}
// _to_copy with non_blocking: a copy between pinned host memory and a CUDA device returns
// before the transfer is done (Note [Pinned host memory]).
Tensor to_impl(const Tensor& t, std::optional<ScalarType> dt, std::optional<Device> dev, bool copy,
               std::optional<MemoryFormat> f, bool non_blocking) {
  if (!needs_copy(t, dt, dev, f, copy)) return t;
  if (!non_blocking) return _to_copy(t, dt, dev, f);
  TensorOptions o = t.options();
  if (dt) o = o.dtype(*dt);
  if (dev) o = o.device(*dev);
  Tensor r = empty_like(t, o, f.value_or(MemoryFormat::Preserve));
  if (!r.is_meta()) r.copy_(t, /*non_blocking=*/true);
  return r;
}
}  // namespace
Tensor Tensor::to(ScalarType t, bool nb, bool copy, std::optional<MemoryFormat> f) const {
  check_defined(*this, "to");
  return to_impl(*this, t, std::nullopt, copy, f, nb);
}
Tensor Tensor::to(Device d, ScalarType t, bool nb, bool copy, std::optional<MemoryFormat> f) const {
  check_defined(*this, "to");
  return to_impl(*this, t, d, copy, f, nb);
}
Tensor Tensor::to(Device d, bool nb, bool copy, std::optional<MemoryFormat> f) const {
  check_defined(*this, "to");
  return to_impl(*this, std::nullopt, d, copy, f, nb);
}
Tensor Tensor::to(TensorOptions o, bool nb, bool copy, std::optional<MemoryFormat> f) const {
  check_defined(*this, "to");
  return to_impl(*this, o.dtype_opt(), o.device_opt(), copy, f ? f : o.memory_format_opt(), nb);
}
Tensor Tensor::to(const Tensor& other, bool nb, bool copy, std::optional<MemoryFormat> f) const {
  return to_impl(*this, other.scalar_type(), other.device(), copy, f, nb);
}
Tensor Tensor::contiguous(MemoryFormat f) const { return ember::contiguous(*this, f); }
Tensor Tensor::clone(std::optional<MemoryFormat> f) const { return ember::clone(*this, f); }
Tensor& Tensor::copy_(const Tensor& src, bool nb) const { return ember::copy_(self(), src, nb); }
Tensor& Tensor::fill_(const Scalar& v) const { return ember::fill_(self(), v); }
Tensor& Tensor::fill_(const Tensor& v) const {
  EMBER_CHECK(v.dim() == 0, "fill_: only supports 0-dimension value tensor but got tensor with ", v.dim(), " dimensions.");
  return ember::fill_(self(), v.item());
}
Tensor& Tensor::zero_() const { return ember::zero_(self()); }
const Tensor& Tensor::resize_(IntArrayRef size, std::optional<MemoryFormat> f) const { return ember::resize_(*this, size, f); }
Tensor& Tensor::set_(const Tensor& source) const {
  impl_->set_storage(source.storage());
  impl_->set_storage_offset(source.storage_offset());
  impl_->set_sizes_and_strides(source.sizes(), source.strides());
  return self();
}

// ---- views ----------------------------------------------------------------------------
Tensor Tensor::view(IntArrayRef size) const { return ember::view(*this, size); }
Tensor Tensor::view(ScalarType t) const {
  if (t == dtype()) return *this;
  size_t a = element_size(), b = ember::element_size(t);
  if (a == b) return make_view(*this, sizes(), strides(), storage_offset(), t);
  EMBER_CHECK(dim() > 0 && stride(-1) == 1, "view(dtype): self must have a last dimension with stride 1 to view ",
              dtype(), " as ", t);
  DimVector sz(sizes()), st(strides());
  if (a > b) {
    int64_t r = a / b;
    for (size_t d = 0; d + 1 < sz.size(); ++d) st[d] *= r;
    sz.back() *= r;
    return make_view(*this, sz, st, storage_offset() * r, t);
  }
  int64_t r = b / a;
  EMBER_CHECK(sz.back() % r == 0, "view(dtype): the size of the last dimension (", sz.back(),
              ") must be divisible by the ratio ", r, " when viewing ", dtype(), " as ", t);
  EMBER_CHECK(storage_offset() % r == 0, "view(dtype): the storage offset must be divisible by ", r);
  for (size_t d = 0; d + 1 < sz.size(); ++d) {
    EMBER_CHECK(st[d] % r == 0, "view(dtype): stride ", st[d], " of dim ", d, " must be divisible by ", r);
    st[d] /= r;
  }
  sz.back() /= r;
  return make_view(*this, sz, st, storage_offset() / r, t);
}
Tensor Tensor::view_as(const Tensor& o) const { return view(o.sizes()); }
Tensor Tensor::reshape(IntArrayRef size) const { return ember::reshape(*this, size); }
Tensor Tensor::reshape_as(const Tensor& o) const { return reshape(o.sizes()); }
Tensor Tensor::flatten(int64_t s, int64_t e) const { return ember::flatten(*this, s, e); }
Tensor Tensor::unflatten(int64_t d, IntArrayRef s) const { return ember::unflatten(*this, d, s); }
Tensor Tensor::squeeze() const { return ember::squeeze(*this); }
Tensor Tensor::squeeze(int64_t d) const { return ember::squeeze(*this, d); }
Tensor& Tensor::squeeze_() const { Tensor v = squeeze(); impl_->set_sizes_and_strides(v.sizes(), v.strides()); return self(); }
Tensor& Tensor::squeeze_(int64_t d) const { Tensor v = squeeze(d); impl_->set_sizes_and_strides(v.sizes(), v.strides()); return self(); }
Tensor Tensor::unsqueeze(int64_t d) const { return ember::unsqueeze(*this, d); }
Tensor& Tensor::unsqueeze_(int64_t d) const { Tensor v = unsqueeze(d); impl_->set_sizes_and_strides(v.sizes(), v.strides()); return self(); }
Tensor Tensor::permute(IntArrayRef dims) const { return ember::permute(*this, dims); }
Tensor Tensor::transpose(int64_t a, int64_t b) const { return ember::transpose(*this, a, b); }
Tensor& Tensor::transpose_(int64_t a, int64_t b) const { Tensor v = transpose(a, b); impl_->set_sizes_and_strides(v.sizes(), v.strides()); return self(); }
Tensor Tensor::t() const { return ember::t(*this); }
Tensor& Tensor::t_() const { Tensor v = t(); impl_->set_sizes_and_strides(v.sizes(), v.strides()); return self(); }
Tensor Tensor::mT() const {
  EMBER_CHECK(dim() >= 2, "mT: tensor.mT is only supported on matrices or batches of matrices. Got ", dim(), "-D tensor.");
  return transpose(-2, -1);
}
Tensor Tensor::mH() const { return mT().conj(); }
Tensor Tensor::expand(IntArrayRef size, bool implicit) const { return ember::expand(*this, size, implicit); }
Tensor Tensor::expand_as(const Tensor& o) const { return expand(o.sizes()); }
Tensor Tensor::narrow(int64_t d, int64_t s, int64_t l) const { return ember::narrow(*this, d, s, l); }
Tensor Tensor::select(int64_t d, int64_t i) const { return ember::select(*this, d, i); }
Tensor Tensor::slice(int64_t d, std::optional<int64_t> s, std::optional<int64_t> e, int64_t st) const {
  return ember::slice(*this, d, s, e, st);
}
Tensor Tensor::unfold(int64_t d, int64_t s, int64_t st) const { return ember::unfold(*this, d, s, st); }
Tensor Tensor::diagonal(int64_t o, int64_t a, int64_t b) const { return ember::diagonal(*this, o, a, b); }
Tensor Tensor::as_strided(IntArrayRef sz, IntArrayRef st, std::optional<int64_t> off) const {
  return ember::as_strided(*this, sz, st, off);
}
std::vector<Tensor> Tensor::chunk(int64_t c, int64_t d) const { return ember::chunk(*this, c, d); }
std::vector<Tensor> Tensor::split(int64_t s, int64_t d) const { return ember::split(*this, s, d); }
std::vector<Tensor> Tensor::split(IntArrayRef s, int64_t d) const { return ember::split(*this, s, d); }
std::vector<Tensor> Tensor::split_with_sizes(IntArrayRef s, int64_t d) const { return ember::split_with_sizes(*this, s, d); }
std::vector<Tensor> Tensor::tensor_split(int64_t s, int64_t d) const { return ember::tensor_split(*this, s, d); }
std::vector<Tensor> Tensor::tensor_split(IntArrayRef s, int64_t d) const { return ember::tensor_split(*this, s, d); }
std::vector<Tensor> Tensor::unbind(int64_t d) const { return ember::unbind(*this, d); }
Tensor Tensor::movedim(IntArrayRef s, IntArrayRef d) const { return ember::movedim(*this, s, d); }
Tensor Tensor::movedim(int64_t s, int64_t d) const { return ember::movedim(*this, s, d); }
Tensor Tensor::real() const { return ember::real(*this); }
Tensor Tensor::imag() const { return ember::imag(*this); }
Tensor Tensor::conj() const { return ember::conj(*this); }

// ---- pointwise ----------------------------------------------------------------------
#define EMBER_PW_METHOD(name, op)                                  \
  Tensor Tensor::name() const { return ember::name(*this); }       \
  Tensor& Tensor::name##_() const { return ember::name##_(self()); }
EMBER_FOR_EACH_UNARY_METHOD()
EMBER_PW_METHOD(square, square)
#undef EMBER_PW_METHOD
Tensor Tensor::positive() const { return ember::positive(*this); }
Tensor Tensor::round(int64_t d) const { return ember::round(*this, d); }
Tensor& Tensor::round_(int64_t d) const { return ember::round_(self(), d); }
Tensor Tensor::angle() const { return ember::angle(*this); }
Tensor Tensor::isnan() const { return ember::isnan(*this); }
Tensor Tensor::isinf() const { return ember::isinf(*this); }
Tensor Tensor::isposinf() const { return ember::isposinf(*this); }
Tensor Tensor::isneginf() const { return ember::isneginf(*this); }
Tensor Tensor::isfinite() const { return ember::isfinite(*this); }
Tensor Tensor::isreal() const { return ember::isreal(*this); }
Tensor Tensor::signbit() const { return ember::signbit(*this); }
Tensor Tensor::nan_to_num(std::optional<double> a, std::optional<double> b, std::optional<double> c) const {
  return ember::nan_to_num(*this, a, b, c);
}
Tensor& Tensor::nan_to_num_(std::optional<double> a, std::optional<double> b, std::optional<double> c) const {
  return ember::nan_to_num_(self(), a, b, c);
}
Tensor Tensor::logit(std::optional<double> eps) const { return ember::logit(*this, eps); }
Tensor& Tensor::logit_(std::optional<double> eps) const { return ember::logit_(self(), eps); }
Tensor Tensor::clamp(const std::optional<Scalar>& lo, const std::optional<Scalar>& hi) const { return ember::clamp(*this, lo, hi); }
Tensor Tensor::clamp(const std::optional<Tensor>& lo, const std::optional<Tensor>& hi) const { return ember::clamp(*this, lo, hi); }
Tensor& Tensor::clamp_(const std::optional<Scalar>& lo, const std::optional<Scalar>& hi) const { return ember::clamp_(self(), lo, hi); }
Tensor& Tensor::clamp_(const std::optional<Tensor>& lo, const std::optional<Tensor>& hi) const { return ember::clamp_(self(), lo, hi); }
Tensor Tensor::clamp_min(const Scalar& v) const { return ember::clamp_min(*this, v); }
Tensor& Tensor::clamp_min_(const Scalar& v) const { return ember::clamp_(self(), std::optional<Scalar>(v), std::nullopt); }
Tensor Tensor::clamp_max(const Scalar& v) const { return ember::clamp_max(*this, v); }
Tensor& Tensor::clamp_max_(const Scalar& v) const { return ember::clamp_(self(), std::nullopt, std::optional<Scalar>(v)); }
Tensor Tensor::clamp_min(const Tensor& v) const { return ember::clamp_min(*this, v); }
Tensor& Tensor::clamp_min_(const Tensor& v) const { return ember::clamp_(self(), std::optional<Tensor>(v), std::nullopt); }
Tensor Tensor::clamp_max(const Tensor& v) const { return ember::clamp_max(*this, v); }
Tensor& Tensor::clamp_max_(const Tensor& v) const { return ember::clamp_(self(), std::nullopt, std::optional<Tensor>(v)); }
Tensor Tensor::copysign(const Scalar& v) const { return ember::copysign(*this, v); }
Tensor& Tensor::copysign_(const Scalar& v) const { return copysign_(scalar_to_tensor(v, device())); }
Tensor Tensor::clip(const std::optional<Scalar>& lo, const std::optional<Scalar>& hi) const { return ember::clamp(*this, lo, hi); }
Tensor& Tensor::clip_(const std::optional<Scalar>& lo, const std::optional<Scalar>& hi) const { return ember::clamp_(self(), lo, hi); }

// In-place binary methods go through the out= form with self as the output.
#define EMBER_BINARY_METHOD(name, fn)                                                          \
  Tensor Tensor::name(const Tensor& o) const { return ember::fn(*this, o); }                   \
  Tensor Tensor::name(const Scalar& o) const { return ember::fn(*this, o); }                   \
  Tensor& Tensor::name##_(const Tensor& o) const { return inplace_binary(#name "_", self(), o, &ember::fn##_out); } \
  Tensor& Tensor::name##_(const Scalar& o) const {                                                   \
    return inplace_binary(#name "_", self(), scalar_to_tensor(o), &ember::fn##_out);           \
  }
namespace {
// In-place results keep self's shape: other must broadcast to it.
void check_inplace_shape(const char* name, const Tensor& self, const Tensor& other) {
  check_defined(self, name);
  check_defined(other, name, "other");
  if (other.sizes() == self.sizes()) return;
  DimVector b = infer_size(self.sizes(), other.sizes(), name);
  EMBER_CHECK(IntArrayRef(b) == self.sizes(), name, ": output with shape ", self.sizes(),
              " doesn't match the broadcast shape ", IntArrayRef(b));
}
using OutFn = Tensor& (*)(Tensor&, const Tensor&, const Tensor&);
Tensor& inplace_binary(const char* name, Tensor& self, const Tensor& other, OutFn fn) {
  check_inplace_shape(name, self, other);
  return fn(self, self, other);
}
}  // namespace
EMBER_BINARY_METHOD(mul, mul) EMBER_BINARY_METHOD(multiply, mul) EMBER_BINARY_METHOD(remainder, remainder)
EMBER_BINARY_METHOD(fmod, fmod) EMBER_BINARY_METHOD(floor_divide, floor_divide) EMBER_BINARY_METHOD(pow, pow)
EMBER_BINARY_METHOD(float_power, float_power) EMBER_BINARY_METHOD(true_divide, true_divide)
EMBER_BINARY_METHOD(eq, eq) EMBER_BINARY_METHOD(ne, ne) EMBER_BINARY_METHOD(lt, lt) EMBER_BINARY_METHOD(le, le)
EMBER_BINARY_METHOD(gt, gt) EMBER_BINARY_METHOD(ge, ge) EMBER_BINARY_METHOD(less, lt) EMBER_BINARY_METHOD(greater, gt)
EMBER_BINARY_METHOD(less_equal, le) EMBER_BINARY_METHOD(greater_equal, ge) EMBER_BINARY_METHOD(not_equal, ne)
EMBER_BINARY_METHOD(logical_and, logical_and) EMBER_BINARY_METHOD(logical_or, logical_or)
EMBER_BINARY_METHOD(logical_xor, logical_xor) EMBER_BINARY_METHOD(bitwise_and, bitwise_and)
EMBER_BINARY_METHOD(bitwise_or, bitwise_or) EMBER_BINARY_METHOD(bitwise_xor, bitwise_xor)
EMBER_BINARY_METHOD(bitwise_left_shift, bitwise_left_shift)
EMBER_BINARY_METHOD(bitwise_right_shift, bitwise_right_shift) EMBER_BINARY_METHOD(xlogy, xlogy)
#undef EMBER_BINARY_METHOD
#define EMBER_BINARY_TENSOR_METHOD(name)                                                    \
  Tensor Tensor::name(const Tensor& o) const { return ember::name(*this, o); }              \
  Tensor& Tensor::name##_(const Tensor& o) const { return inplace_binary(#name "_", self(), o, &ember::name##_out); }
EMBER_BINARY_TENSOR_METHOD(atan2) EMBER_BINARY_TENSOR_METHOD(arctan2) EMBER_BINARY_TENSOR_METHOD(hypot)
EMBER_BINARY_TENSOR_METHOD(copysign) EMBER_BINARY_TENSOR_METHOD(nextafter)
#undef EMBER_BINARY_TENSOR_METHOD

Tensor Tensor::add(const Tensor& o, const Scalar& a) const { return ember::add(*this, o, a); }
Tensor Tensor::add(const Scalar& o, const Scalar& a) const { return ember::add(*this, o, a); }
Tensor& Tensor::add_(const Tensor& o, const Scalar& a) const {
  check_inplace_shape("add_", self(), o);
  return ember::add_out(self(), self(), o, a);
}
Tensor& Tensor::add_(const Scalar& o, const Scalar& a) const { return add_(scalar_to_tensor(o, Device(kCPU)), a); }
Tensor Tensor::sub(const Tensor& o, const Scalar& a) const { return ember::sub(*this, o, a); }
Tensor Tensor::sub(const Scalar& o, const Scalar& a) const { return ember::sub(*this, o, a); }
Tensor& Tensor::sub_(const Tensor& o, const Scalar& a) const {
  check_inplace_shape("sub_", self(), o);
  return ember::sub_out(self(), self(), o, a);
}
Tensor& Tensor::sub_(const Scalar& o, const Scalar& a) const { return sub_(scalar_to_tensor(o, Device(kCPU)), a); }
Tensor Tensor::div(const Tensor& o) const { return ember::div(*this, o); }
Tensor Tensor::div(const Scalar& o) const { return ember::div(*this, o); }
Tensor Tensor::div(const Tensor& o, std::optional<std::string_view> m) const { return ember::div(*this, o, m); }
Tensor Tensor::div(const Scalar& o, std::optional<std::string_view> m) const { return ember::div(*this, o, m); }
Tensor& Tensor::div_(const Tensor& o) const { return div_(o, std::nullopt); }
Tensor& Tensor::div_(const Scalar& o) const { return div_(scalar_to_tensor(o, Device(kCPU)), std::nullopt); }
Tensor& Tensor::div_(const Tensor& o, std::optional<std::string_view> m) const {
  check_inplace_shape("div_", self(), o);
  return ember::div_out(self(), self(), o, m);
}
Tensor& Tensor::div_(const Scalar& o, std::optional<std::string_view> m) const { return div_(scalar_to_tensor(o, Device(kCPU)), m); }
Tensor Tensor::maximum(const Tensor& o) const { return ember::maximum(*this, o); }
Tensor Tensor::minimum(const Tensor& o) const { return ember::minimum(*this, o); }
Tensor Tensor::fmax(const Tensor& o) const { return ember::fmax(*this, o); }
Tensor Tensor::fmin(const Tensor& o) const { return ember::fmin(*this, o); }
Tensor Tensor::max(const Tensor& o) const { return ember::maximum(*this, o); }
Tensor Tensor::min(const Tensor& o) const { return ember::minimum(*this, o); }
Tensor Tensor::lerp(const Tensor& e, const Scalar& w) const { return ember::lerp(*this, e, w); }
Tensor Tensor::lerp(const Tensor& e, const Tensor& w) const { return ember::lerp(*this, e, w); }
Tensor& Tensor::lerp_(const Tensor& e, const Scalar& w) const { return copy_(ember::lerp(self(), e, w)); }
Tensor& Tensor::lerp_(const Tensor& e, const Tensor& w) const { return copy_(ember::lerp(self(), e, w)); }
Tensor Tensor::addcmul(const Tensor& a, const Tensor& b, const Scalar& v) const { return ember::addcmul(*this, a, b, v); }
Tensor& Tensor::addcmul_(const Tensor& a, const Tensor& b, const Scalar& v) const { return copy_(ember::addcmul(self(), a, b, v)); }
Tensor Tensor::addcdiv(const Tensor& a, const Tensor& b, const Scalar& v) const { return ember::addcdiv(*this, a, b, v); }
Tensor& Tensor::addcdiv_(const Tensor& a, const Tensor& b, const Scalar& v) const { return copy_(ember::addcdiv(self(), a, b, v)); }
Tensor Tensor::where(const Tensor& c, const Tensor& o) const { return ember::where(c, *this, o); }
Tensor Tensor::where(const Tensor& c, const Scalar& o) const { return ember::where(c, *this, o); }
Tensor Tensor::isclose(const Tensor& o, double r, double a, bool n) const { return ember::isclose(*this, o, r, a, n); }
bool Tensor::allclose(const Tensor& o, double r, double a, bool n) const { return ember::allclose(*this, o, r, a, n); }
bool Tensor::equal(const Tensor& o) const { return ember::equal(*this, o); }

// ---- operators ----------------------------------------------------------------------
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator~(const Tensor& a) { return bitwise_not(a); }
#define EMBER_DEFINE_OPERATOR(op, fn)                                                 \
  Tensor operator op(const Tensor& a, const Tensor& b) { return fn(a, b); }           \
  Tensor operator op(const Tensor& a, const Scalar& b) { return fn(a, b); }           \
  Tensor operator op(const Scalar& a, const Tensor& b) { return fn(scalar_to_tensor(a, Device(kCPU)), b); }
EMBER_DEFINE_OPERATOR(+, add) EMBER_DEFINE_OPERATOR(-, sub) EMBER_DEFINE_OPERATOR(*, mul)
EMBER_DEFINE_OPERATOR(/, div) EMBER_DEFINE_OPERATOR(%, remainder) EMBER_DEFINE_OPERATOR(&, bitwise_and)
EMBER_DEFINE_OPERATOR(|, bitwise_or) EMBER_DEFINE_OPERATOR(^, bitwise_xor)
EMBER_DEFINE_OPERATOR(<<, bitwise_left_shift) EMBER_DEFINE_OPERATOR(>>, bitwise_right_shift)
EMBER_DEFINE_OPERATOR(==, eq) EMBER_DEFINE_OPERATOR(!=, ne) EMBER_DEFINE_OPERATOR(<, lt)
EMBER_DEFINE_OPERATOR(<=, le) EMBER_DEFINE_OPERATOR(>, gt) EMBER_DEFINE_OPERATOR(>=, ge)
#undef EMBER_DEFINE_OPERATOR
Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
Tensor& operator+=(Tensor& a, const Scalar& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
Tensor& operator-=(Tensor& a, const Scalar& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
Tensor& operator*=(Tensor& a, const Scalar& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
Tensor& operator/=(Tensor& a, const Scalar& b) { return a.div_(b); }

// ---- indexing -------------------------------------------------------------------------
Tensor Tensor::operator[](int64_t i) const { return select(0, i); }
Tensor Tensor::operator[](const Tensor& i) const { return index({indexing::TensorIndex(i)}); }
Tensor Tensor::index(std::initializer_list<indexing::TensorIndex> idx) const {
  return index(ArrayRef<indexing::TensorIndex>(idx.begin(), idx.size()));
}
Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> idx, const Tensor& v) const {
  return index_put_(ArrayRef<indexing::TensorIndex>(idx.begin(), idx.size()), v);
}
Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> idx, const Scalar& v) const {
  return index_put_(ArrayRef<indexing::TensorIndex>(idx.begin(), idx.size()), v);
}

}  // namespace ember

namespace ember {

void Tensor::set_data(const Tensor& data) const {
  EMBER_CHECK(defined() && data.defined(), "set_data: both tensors must be defined");
  if (data.is_same(*this)) return;
  TensorImpl* impl = unsafeGetTensorImpl();
  const TensorImpl* src = data.unsafeGetTensorImpl();
  impl->set_storage(src->storage());
  impl->set_device(src->device());
  impl->set_dtype(src->dtype());
  impl->set_sizes_and_strides(src->sizes(), src->strides());
  impl->set_storage_offset(src->storage_offset());
  impl->bump_version();
}



// ---- more of LibTorch's methods ---------------------------------------------------
namespace {
// self's dtype and device where the options leave them unset.
TensorOptions like_self(const Tensor& self, const TensorOptions& o) {
  TensorOptions r = o;
  if (!o.has_dtype()) r = r.dtype(self.scalar_type());
  if (!o.has_device()) r = r.device(self.device());
  return r;
}
}  // namespace
Tensor Tensor::new_empty(IntArrayRef size, const TensorOptions& o) const { return empty(size, like_self(*this, o)); }
Tensor Tensor::new_empty_strided(IntArrayRef size, IntArrayRef stride, const TensorOptions& o) const {
  return empty_strided(size, stride, like_self(*this, o));
}
Tensor Tensor::new_full(IntArrayRef size, const Scalar& v, const TensorOptions& o) const {
  return full(size, v, like_self(*this, o));
}
Tensor Tensor::new_zeros(IntArrayRef size, const TensorOptions& o) const { return zeros(size, like_self(*this, o)); }
Tensor Tensor::new_ones(IntArrayRef size, const TensorOptions& o) const { return ones(size, like_self(*this, o)); }
Tensor Tensor::alias() const { return ember::alias(*this); }
Tensor Tensor::variable_data() const { return detach(); }
Tensor Tensor::tensor_data() const { return detach(); }
Tensor Tensor::to_dense(std::optional<ScalarType> dtype) const { return dtype ? to(*dtype) : *this; }
bool Tensor::is_pinned(std::optional<Device>) const {
  return defined() && is_cpu() && numel() > 0 && cuda::is_pinned(data_ptr());
}
// A contiguous copy in page-locked memory (Note [Pinned host memory]), or the tensor itself
// when it is pinned already.
Tensor Tensor::pin_memory(std::optional<Device>) const {
  EMBER_CHECK(defined(), "pin_memory: undefined tensor");
  EMBER_CHECK(is_cpu(), "pin_memory: cannot pin '", toString(), "': only dense CPU tensors can be pinned");
  if (is_pinned()) return *this;
  const size_t nbytes = size_t(numel()) * element_size();
  DataPtr d = cuda::pinned_host_allocator()->allocate(nbytes);
  auto impl = make_intrusive<TensorImpl>(Storage(make_intrusive<StorageImpl>(std::move(d), nbytes, false)),
                                         scalar_type(), Device(kCPU));
  impl->set_sizes_contiguous(sizes());
  Tensor r(std::move(impl));
  r.copy_(*this);
  return r;
}
bool Tensor::is_set_to(const Tensor& t) const {
  return storage().is_alias_of(t.storage()) && storage_offset() == t.storage_offset() && sizes() == t.sizes() &&
         strides() == t.strides();
}
Tensor Tensor::conj_physical() const { return ember::conj_physical(*this); }
Tensor& Tensor::conj_physical_() const { return copy_(ember::conj_physical(*this)); }
Tensor Tensor::argwhere() const { return ember::argwhere(*this); }
Tensor Tensor::broadcast_to(IntArrayRef size) const { return ember::broadcast_to(*this, size); }
Tensor Tensor::ravel() const { return ember::ravel(*this); }
Tensor Tensor::narrow_copy(int64_t dim, int64_t start, int64_t length) const {
  return ember::narrow_copy(*this, dim, start, length);
}
Tensor Tensor::sum_to_size(IntArrayRef size) const { return ember::sum_to_size(*this, size); }
Tensor Tensor::take_along_dim(const Tensor& indices, std::optional<int64_t> dim) const {
  return ember::take_along_dim(*this, indices, dim);
}
Tensor Tensor::slice_scatter(const Tensor& src, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                             int64_t step) const {
  return ember::slice_scatter(*this, src, dim, start, end, step);
}
Tensor Tensor::select_scatter(const Tensor& src, int64_t dim, int64_t index) const {
  return ember::select_scatter(*this, src, dim, index);
}
Tensor Tensor::diagonal_scatter(const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) const {
  return ember::diagonal_scatter(*this, src, offset, dim1, dim2);
}
std::vector<Tensor> Tensor::hsplit(int64_t s) const { return ember::hsplit(*this, s); }
std::vector<Tensor> Tensor::hsplit(IntArrayRef i) const { return ember::hsplit(*this, i); }
std::vector<Tensor> Tensor::vsplit(int64_t s) const { return ember::vsplit(*this, s); }
std::vector<Tensor> Tensor::vsplit(IntArrayRef i) const { return ember::vsplit(*this, i); }
std::vector<Tensor> Tensor::dsplit(int64_t s) const { return ember::dsplit(*this, s); }
std::vector<Tensor> Tensor::dsplit(IntArrayRef i) const { return ember::dsplit(*this, i); }
std::vector<Tensor> Tensor::unsafe_chunk(int64_t chunks, int64_t dim) const { return chunk(chunks, dim); }
std::vector<Tensor> Tensor::unsafe_split(int64_t size, int64_t dim) const { return split(size, dim); }
std::vector<Tensor> Tensor::unsafe_split_with_sizes(IntArrayRef sizes, int64_t dim) const {
  return split_with_sizes(sizes, dim);
}
Tensor Tensor::msort() const { return ember::msort(*this); }
Tensor Tensor::diagflat(int64_t offset) const { return ember::diagflat(*this, offset); }
Tensor Tensor::logaddexp(const Tensor& o) const { return ember::logaddexp(*this, o); }
Tensor Tensor::logaddexp2(const Tensor& o) const { return ember::logaddexp2(*this, o); }
Tensor Tensor::ldexp(const Tensor& o) const { return ember::ldexp(*this, o); }
Tensor& Tensor::ldexp_(const Tensor& o) const { return ember::ldexp_(self(), o); }
Tensor Tensor::heaviside(const Tensor& v) const { return ember::heaviside(*this, v); }
Tensor& Tensor::heaviside_(const Tensor& v) const { return ember::heaviside_(self(), v); }
Tensor Tensor::gcd(const Tensor& o) const { return ember::gcd(*this, o); }
Tensor& Tensor::gcd_(const Tensor& o) const { return ember::gcd_(self(), o); }
Tensor Tensor::lcm(const Tensor& o) const { return ember::lcm(*this, o); }
Tensor& Tensor::lcm_(const Tensor& o) const { return ember::lcm_(self(), o); }
std::tuple<Tensor, Tensor> Tensor::frexp() const { return ember::frexp(*this); }
Tensor Tensor::dist(const Tensor& o, const Scalar& p) const { return ember::dist(*this, o, p); }
Tensor Tensor::inner(const Tensor& o) const { return ember::inner(*this, o); }
Tensor Tensor::renorm(const Scalar& p, int64_t dim, const Scalar& maxnorm) const {
  return ember::renorm(*this, p, dim, maxnorm);
}
Tensor& Tensor::renorm_(const Scalar& p, int64_t dim, const Scalar& maxnorm) const {
  return ember::renorm_(self(), p, dim, maxnorm);
}
Tensor Tensor::mvlgamma(int64_t p) const { return ember::mvlgamma(*this, p); }
Tensor& Tensor::mvlgamma_(int64_t p) const { return copy_(ember::mvlgamma(*this, p)); }
Tensor Tensor::polygamma(int64_t n) const { return ember::polygamma(n, *this); }
Tensor& Tensor::polygamma_(int64_t n) const { return ember::polygamma_(self(), n); }
Tensor Tensor::igamma(const Tensor& o) const { return ember::igamma(*this, o); }
Tensor& Tensor::igamma_(const Tensor& o) const { return ember::igamma_(self(), o); }
Tensor Tensor::igammac(const Tensor& o) const { return ember::igammac(*this, o); }
Tensor& Tensor::igammac_(const Tensor& o) const { return ember::igammac_(self(), o); }
Tensor Tensor::cov(int64_t correction, const std::optional<Tensor>& fw, const std::optional<Tensor>& aw) const {
  return ember::cov(*this, correction, fw, aw);
}
Tensor Tensor::corrcoef() const { return ember::corrcoef(*this); }
Tensor Tensor::prelu(const Tensor& w) const { return ember::prelu(*this, w); }
Tensor Tensor::logdet() const { return ember::logdet(*this); }
std::tuple<Tensor, Tensor> Tensor::slogdet() const { return linalg::slogdet(*this); }
Tensor Tensor::matrix_exp() const { return ember::matrix_exp(*this); }
Tensor Tensor::matrix_power(int64_t n) const { return ember::matrix_power(*this, n); }
Tensor Tensor::pinverse(double rcond) const { return ember::pinverse(*this, rcond); }
std::tuple<Tensor, Tensor, Tensor> Tensor::svd(bool some, bool compute_uv) const {
  return ember::svd(*this, some, compute_uv);
}
std::tuple<Tensor, Tensor> Tensor::qr(bool some) const { return ember::qr(*this, some); }
std::tuple<Tensor, Tensor> Tensor::triangular_solve(const Tensor& A, bool upper, bool transpose,
                                                    bool unitriangular) const {
  return ember::triangular_solve(*this, A, upper, transpose, unitriangular);
}
Tensor Tensor::cholesky_solve(const Tensor& input2, bool upper) const {
  return ember::cholesky_solve(*this, input2, upper);
}
Tensor Tensor::cholesky_inverse(bool upper) const { return ember::cholesky_inverse(*this, upper); }
Tensor Tensor::stft(int64_t n_fft, std::optional<int64_t> hop, std::optional<int64_t> win,
                    const std::optional<Tensor>& window, bool normalized, std::optional<bool> onesided,
                    std::optional<bool> return_complex) const {
  return ember::stft(*this, n_fft, hop, win, window, normalized, onesided, return_complex);
}
Tensor Tensor::stft(int64_t n_fft, std::optional<int64_t> hop, std::optional<int64_t> win,
                    const std::optional<Tensor>& window, bool center, std::string_view pad_mode, bool normalized,
                    std::optional<bool> onesided, std::optional<bool> return_complex) const {
  return ember::stft(*this, n_fft, hop, win, window, center, pad_mode, normalized, onesided, return_complex);
}
Tensor Tensor::istft(int64_t n_fft, std::optional<int64_t> hop, std::optional<int64_t> win,
                     const std::optional<Tensor>& window, bool center, bool normalized, std::optional<bool> onesided,
                     std::optional<int64_t> length, bool return_complex) const {
  return ember::istft(*this, n_fft, hop, win, window, center, normalized, onesided, length, return_complex);
}

}  // namespace ember

namespace ember {

Tensor& Tensor::index_put_(const List<std::optional<Tensor>>& indices, const Tensor& values, bool accumulate) const {
  const std::vector<std::optional<Tensor>> v = indices.vec();
  return ember::index_put_(self(), ArrayRef<std::optional<Tensor>>(v), values, accumulate);
}
Tensor Tensor::index_put(const List<std::optional<Tensor>>& indices, const Tensor& values, bool accumulate) const {
  const std::vector<std::optional<Tensor>> v = indices.vec();
  return ember::index_put(*this, ArrayRef<std::optional<Tensor>>(v), values, accumulate);
}
std::string Tensor::DeprecatedTypeProperties::toString() const {
  return ember::detail::str_cat(device_type_ == kCUDA ? "CUDA" : device_type_ == kMeta ? "Meta" : "CPU",
                         ember::to_string(scalar_type_), "Type");
}
TensorOptions Tensor::DeprecatedTypeProperties::options() const {
  return TensorOptions().dtype(scalar_type_).device(device_type_);
}

// ---- indexing methods (ember/ops/index_ops.cpp) ----------------------------------------------
Tensor Tensor::index_select(int64_t dim, const Tensor& index) const { return ember::index_select(*this, dim, index); }
Tensor Tensor::gather(int64_t dim, const Tensor& index, bool sg) const { return ember::gather(*this, dim, index, sg); }
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter(*this, dim, index, src);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::scatter(*this, dim, index, value);
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter_add(*this, dim, index, src);
}
Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                              bool include_self) const {
  return ember::scatter_reduce(*this, dim, index, src, reduce, include_self);
}

}  // namespace ember
