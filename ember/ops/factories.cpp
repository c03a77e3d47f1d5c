// Tensor factories: empty, zeros, ones, full, arange, linspace, logspace, eye, *_like,
// from_blob. Random factories live in ops/random.cpp.
#include <cmath>

#include "ember/core/tracing_call.h"
#include "ember/ops/functions.h"
#include "ember/ops/type_promotion.h"

namespace ember {

namespace {
void check_factory_options(const TensorOptions& o, const char* op) {
  EMBER_CHECK(!o.requires_grad() || isFloatingType(o.dtype()) || isComplexType(o.dtype()), op,
              ": only Tensors of floating point and complex dtype can require gradients (got ", o.dtype().toScalarType(), ")");
}
Tensor finish(Tensor t, const TensorOptions& o) {
  if (o.requires_grad()) t.requires_grad_(true);
  return t;
}
}  // namespace

namespace {
thread_local Device t_default_device{kCPU};
}  // namespace

void set_default_device(Device device) { t_default_device = device; }
Device get_default_device() { return t_default_device; }

Tensor empty(IntArrayRef size, const TensorOptions& options, std::optional<MemoryFormat> memory_format) {
  check_factory_options(options, "empty");
  int64_t n = checked_numel(size, "empty");
  ScalarType dt = options.dtype();
  Device dev = options.has_device() ? options.device() : t_default_device;
  MemoryFormat f = memory_format.value_or(options.memory_format_opt().value_or(MemoryFormat::Contiguous));
  EMBER_CHECK(f != MemoryFormat::Preserve, "empty: memory format Preserve is not supported here");
  size_t nbytes = 0;
  EMBER_CHECK(!__builtin_mul_overflow(size_t(n), element_size(dt), &nbytes), "empty: size ", size,
              " of dtype ", dt, " overflows the addressable byte count");
  Storage storage = Storage::allocate(nbytes, dev);
  if (dev.is_cuda()) dev = storage.device();  // "cuda" means the current device: name it
  auto impl = make_intrusive<TensorImpl>(std::move(storage), dt, dev);
  impl->set_sizes_contiguous(size, f);
  return finish(Tensor(std::move(impl)), options);
}

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, const TensorOptions& options) {
  EMBER_CHECK(size.size() == stride.size(), "empty_strided: got ", size.size(), " sizes but ",
              stride.size(), " strides");
  checked_numel(size, "empty_strided");
  int64_t extent = 1;  // 1 + max offset
  bool empty_tensor = false;
  for (size_t d = 0; d < size.size(); ++d) {
    EMBER_CHECK(stride[d] >= 0, "empty_strided: negative stride ", stride[d], " in ", stride);
    if (size[d] == 0) empty_tensor = true;
    extent += (size[d] - 1) * stride[d];
  }
  if (empty_tensor) extent = 0;
  ScalarType dt = options.dtype();
  Device dev = options.has_device() ? options.device() : t_default_device;
  Storage storage = Storage::allocate(size_t(extent) * element_size(dt), dev);
  if (dev.is_cuda()) dev = storage.device();
  auto impl = make_intrusive<TensorImpl>(std::move(storage), dt, dev);
  impl->set_sizes_and_strides(size, stride);
  return finish(Tensor(std::move(impl)), options);
}

// Traced factories (Note [Tracing hooks]): zeros, ones and full record one "full" node with no
// inputs (constant folding makes it a constant), zeros_like, ones_like and full_like a
// "full_like" node reading the tensor whose shape and layout they copy. The dtype recorded is
// the result's, so running the node again never depends on the default dtype of that time.
namespace {
TensorOptions traced_options(const tracing::Attrs& a, std::string_view op) {
  TensorOptions o = TensorOptions().dtype(tracing::dtype_attr(a, "dtype", op));
  if (tracing::has_attr(a, "device")) o = o.device(Device(tracing::string_attr(a, "device", op)));
  if (tracing::has_attr(a, "requires_grad")) o = o.requires_grad(tracing::bool_attr(a, "requires_grad", op));
  return o;
}
const tracing::TracedOpDef full_traced{{"full", tracing::Fusion::Opaque,
    [](const tracing::TracedOp&, const std::vector<Tensor>&, const tracing::Attrs& a) -> std::vector<Tensor> {
      return {full(tracing::ints_attr(a, "size", "full"), tracing::scalar_attr(a, "value", "full"), traced_options(a, "full"))};
    }}};
const tracing::TracedOpDef full_like_traced{{"full_like", tracing::Fusion::Pointwise,
    [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
      const auto f = tracing::optional_int_attr(a, "memory_format", "full_like");
      return {full_like(in.at(0), tracing::scalar_attr(a, "value", "full_like"), traced_options(a, "full_like"),
                        f ? std::optional<MemoryFormat>(MemoryFormat(*f)) : std::nullopt)};
    }}};
tracing::Attrs factory_attrs(const Tensor& r, const TensorOptions& o) {
  tracing::Attrs a{{"dtype", r.scalar_type()}};
  if (o.has_device()) a.emplace_back("device", r.device().str());
  if (o.requires_grad()) a.emplace_back("requires_grad", Scalar(true));
  return a;
}
Tensor traced_full(IntArrayRef size, const Scalar& v, const TensorOptions& options, Tensor (*make)(IntArrayRef, const TensorOptions&, const Scalar&)) {
  tracing::OpScope scope;
  Tensor r = make(size, options, v);
  tracing::Attrs a = factory_attrs(r, options);
  a.emplace_back("size", tracing::ints(size));
  a.emplace_back("value", v);
  scope.record(full_traced, {}, std::move(a), {r});
  return r;
}
Tensor traced_full_like(const Tensor& t, const Scalar& v, const TensorOptions& options, std::optional<MemoryFormat> f,
                        Tensor (*make)(const Tensor&, const Scalar&, const TensorOptions&, std::optional<MemoryFormat>)) {
  tracing::OpScope scope;
  Tensor r = make(t, v, options, f);
  tracing::Attrs a = factory_attrs(r, options);
  a.emplace_back("value", v);
  const std::optional<MemoryFormat> format = f ? f : options.memory_format_opt();
  if (format) a.emplace_back("memory_format", Scalar(int64_t(*format)));
  scope.record(full_like_traced, {t}, std::move(a), {r});
  return r;
}
}  // namespace

Tensor zeros(IntArrayRef size, const TensorOptions& options) {
  if (tracing::active())
    return traced_full(size, 0, options, [](IntArrayRef s, const TensorOptions& o, const Scalar&) { return zeros(s, o); });
  checked_numel(size, "zeros");
  Tensor t = empty(size, options.requires_grad(false));  // default float dtype unless given
  if (!t.is_meta()) t.zero_();
  return finish(t, options);
}
Tensor ones(IntArrayRef size, const TensorOptions& options) {
  return full(size, 1, options.has_dtype() ? options : options.dtype(get_default_dtype()));
}

Tensor full(IntArrayRef size, const Scalar& v, const TensorOptions& options) {
  if (tracing::active())
    return traced_full(size, v, options, [](IntArrayRef s, const TensorOptions& o, const Scalar& x) { return full(s, x, o); });
  checked_numel(size, "full");
  TensorOptions o = options;
  if (!o.has_dtype()) {
    ScalarType t = v.isBoolean() ? kBool : v.isIntegral(false) ? kLong
                 : v.isComplex() ? get_default_complex_dtype().toScalarType()
                                 : get_default_dtype().toScalarType();
    o = o.dtype(t);
  }
  Tensor t = empty(size, o.requires_grad(false));
  if (!t.is_meta()) t.fill_(v);
  return finish(t, options);
}

namespace {
// arange's element count, with PyTorch's checks.
int64_t arange_size(double start, double end, double step, bool integral) {
  EMBER_CHECK(step != 0, "arange: step must be nonzero");
  EMBER_CHECK(std::isfinite(start) && std::isfinite(end), "arange: unsupported range: ", start, " -> ", end);
  EMBER_CHECK((step > 0 && end >= start) || (step < 0 && end <= start),
              "arange: upper bound and larger bound inconsistent with step sign (start=", start,
              ", end=", end, ", step=", step, ")");
  double n = integral ? std::ceil((end - start) / step) : std::ceil((end - start) / step);
  EMBER_CHECK(n >= 0 && n <= double(std::numeric_limits<int64_t>::max()),
              "arange: invalid size, possible overflow? (start=", start, ", end=", end, ", step=", step, ")");
  return int64_t(n);
}
}  // namespace

Tensor arange(const Scalar& end, const TensorOptions& options) { return arange(0, end, 1, options); }
Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options) {
  return arange(start, end, 1, options);
}
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, const TensorOptions& options) {
  bool all_int = start.isIntegral(true) && end.isIntegral(true) && step.isIntegral(true);
  TensorOptions o = options.has_dtype() ? options : options.dtype(all_int ? kLong : get_default_dtype().toScalarType());
  ScalarType dt = o.dtype();
  int64_t n;
  if (all_int) {
    int64_t s = start.toLong(), e = end.toLong(), st = step.toLong();
    EMBER_CHECK(st != 0, "arange: step must be nonzero");
    EMBER_CHECK((st > 0 && e >= s) || (st < 0 && e <= s),
                "arange: upper bound and larger bound inconsistent with step sign (start=", s, ", end=", e,
                ", step=", st, ")");
    n = (e - s + st + (st > 0 ? -1 : 1)) / st;
  } else {
    n = arange_size(start.toDouble(), end.toDouble(), step.toDouble(), false);
  }
  Tensor r = empty({n}, o.requires_grad(false));
  if (r.is_meta() || n == 0) return finish(r, options);
  // Values are start + i * step, computed in double (or int64 for integer types).
  if (isIntegralType(dt, true) && all_int) {
    Tensor tmp = empty({n}, dtype(kLong));
    int64_t* p = tmp.data_ptr<int64_t>();
    int64_t s = start.toLong(), st = step.toLong();
    for (int64_t i = 0; i < n; ++i) p[i] = s + i * st;
    r.copy_(tmp);
  } else {
    Tensor tmp = empty({n}, dtype(kDouble));
    double* p = tmp.data_ptr<double>();
    double s = start.toDouble(), st = step.toDouble();
    for (int64_t i = 0; i < n; ++i) p[i] = s + double(i) * st;
    r.copy_(tmp);
  }
  return finish(r, options);
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, const TensorOptions& options) {
  EMBER_CHECK(steps >= 0, "linspace: number of steps must be non-negative, got ", steps);
  TensorOptions o = options.has_dtype() ? options : options.dtype(get_default_dtype());
  Tensor r = empty({steps}, o.requires_grad(false));
  if (steps == 0 || r.is_meta()) return finish(r, options);
  if (steps == 1) {  // the start value, as PyTorch (not the end the symmetric formula gives)
    r.fill_(start);
    return finish(r, options);
  }
  bool cplx = isComplexType(o.dtype());
  if (cplx) {
    Complex<double> s = start.toComplexDouble(), e = end.toComplexDouble();
    Tensor tmp = empty({steps}, dtype(kComplexDouble));
    auto* p = tmp.data_ptr<Complex<double>>();
    Complex<double> step = steps > 1 ? (e - s) / Complex<double>(double(steps - 1)) : Complex<double>(0);
    int64_t half = steps / 2;
    for (int64_t i = 0; i < steps; ++i)
      p[i] = i < half ? s + step * Complex<double>(double(i)) : e - step * Complex<double>(double(steps - 1 - i));
    r.copy_(tmp);
  } else {
    double s = start.toDouble(), e = end.toDouble();
    double step = steps > 1 ? (e - s) / double(steps - 1) : 0;
    Tensor tmp = empty({steps}, dtype(kDouble));
    double* p = tmp.data_ptr<double>();
    // symmetric evaluation from both ends, as PyTorch
    int64_t half = steps / 2;
    for (int64_t i = 0; i < steps; ++i) p[i] = i < half ? s + step * double(i) : e - step * double(steps - 1 - i);
    if (isIntegralType(o.dtype(), false)) tmp = tmp.trunc();
    r.copy_(tmp);
  }
  return finish(r, options);
}

Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base, const TensorOptions& options) {
  TensorOptions o = options.has_dtype() ? options : options.dtype(get_default_dtype());
  ScalarType compute = isComplexType(o.dtype()) ? kComplexDouble : kDouble;
  Tensor e = linspace(start, end, steps, dtype(compute));
  Tensor r = pow(scalar_tensor(base, dtype(compute)), e);
  return finish(r.to(o.dtype()), options);
}

Tensor eye(int64_t n, const TensorOptions& options) { return eye(n, n, options); }
Tensor eye(int64_t n, int64_t m, const TensorOptions& options) {
  EMBER_CHECK(n >= 0 && m >= 0, "eye: n and m must be non-negative, got n=", n, ", m=", m);
  Tensor r = zeros({n, m}, options.requires_grad(false));
  if (!r.is_meta() && n > 0 && m > 0) r.diagonal().fill_(1);
  return finish(r, options);
}

Tensor empty_like(const Tensor& t, const TensorOptions& options, std::optional<MemoryFormat> memory_format) {
  TensorOptions o = options.merge_in(t.options());
  MemoryFormat f = memory_format.value_or(options.memory_format_opt().value_or(MemoryFormat::Preserve));
  if (f == MemoryFormat::Preserve) {
    if (t.is_non_overlapping_and_dense()) {
      // keep the exact strides of a dense input (channels-last, transposed...)
      return empty_strided(t.sizes(), t.strides(), o.memory_format(std::nullopt));
    }
    f = t.suggest_memory_format();
  }
  return empty(t.sizes(), o.memory_format(std::nullopt), f);
}
Tensor zeros_like(const Tensor& t, const TensorOptions& options, std::optional<MemoryFormat> f) {
  check_defined(t, "zeros_like");
  if (tracing::active())
    return traced_full_like(t, 0, options, f, [](const Tensor& x, const Scalar&, const TensorOptions& o, std::optional<MemoryFormat> m) {
      return zeros_like(x, o, m);
    });
  Tensor r = empty_like(t, options.requires_grad(false), f);
  if (!r.is_meta()) r.zero_();
  return finish(r, options);
}
Tensor ones_like(const Tensor& t, const TensorOptions& options, std::optional<MemoryFormat> f) {
  return full_like(t, 1, options, f);
}
Tensor full_like(const Tensor& t, const Scalar& v, const TensorOptions& options, std::optional<MemoryFormat> f) {
  check_defined(t, "full_like");
  if (tracing::active())
    return traced_full_like(t, v, options, f, [](const Tensor& x, const Scalar& w, const TensorOptions& o, std::optional<MemoryFormat> m) {
      return full_like(x, w, o, m);
    });
  Tensor r = empty_like(t, options.requires_grad(false), f);
  if (!r.is_meta()) r.fill_(v);
  return finish(r, options);
}

Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options) {
  return from_blob(data, sizes, contiguous_strides(sizes), Deleter(), options);
}
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options) {
  return from_blob(data, sizes, strides, Deleter(), options);
}
Tensor from_blob(void* data, IntArrayRef sizes, const Deleter& deleter, const TensorOptions& options) {
  return from_blob(data, sizes, contiguous_strides(sizes), deleter, options);
}
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const Deleter& deleter,
                 const TensorOptions& options) {
  EMBER_CHECK(sizes.size() == strides.size(), "from_blob: got ", sizes.size(), " sizes but ", strides.size(), " strides");
  checked_numel(sizes, "from_blob");
  int64_t extent = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) { extent = 0; break; }
    extent += (sizes[d] - 1) * strides[d];
  }
  ScalarType dt = options.dtype();
  Device dev = options.device();
  EMBER_CHECK(data != nullptr || extent == 0, "from_blob: data pointer is null for a non-empty tensor");
  auto impl = make_intrusive<TensorImpl>(Storage::from_blob(data, size_t(extent) * element_size(dt), dev, deleter), dt, dev);
  impl->set_sizes_and_strides(sizes, strides);
  return finish(Tensor(std::move(impl)), options);
}

}  // namespace ember
