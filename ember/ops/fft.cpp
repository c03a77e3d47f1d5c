// torch::fft on ember's FFT core: the three differentiable primitives (c2c, r2c, c2r) run
// plans along each transformed dim of a contiguous tensor, and the user-facing functions
// follow PyTorch 1.13's SpectralOps.cpp (argument checks, promotion, resizing, norm modes).
#include "ember/ops/fft.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ember/autograd/record.h"
#include "ember/core/parallel.h"
#include "ember/ops/fft_device.h"
#include "ember/ops/fft_plan.h"
#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"
#include "ember/ops/op_def.h"

namespace ember {

namespace fft_detail {
namespace {
thread_local const DeviceFft* cpu_stand_in = nullptr;
}
ScopedDeviceFftForCpu::ScopedDeviceFftForCpu(const DeviceFft* table) : previous_(cpu_stand_in) {
  cpu_stand_in = table;
}
ScopedDeviceFftForCpu::~ScopedDeviceFftForCpu() { cpu_stand_in = previous_; }
}  // namespace fft_detail

namespace {

using fft_detail::get_plan;

// Dims of a contiguous tensor as [outer, n, inner]: transform i of block o starts at
// o * n * inner + i and steps by inner.
struct Line {
  int64_t outer, n, inner;
};
Line line_of(IntArrayRef sizes, int64_t d) {
  Line l{1, sizes[size_t(d)], 1};
  for (int64_t i = 0; i < d; ++i) l.outer *= sizes[size_t(i)];
  for (size_t i = size_t(d) + 1; i < sizes.size(); ++i) l.inner *= sizes[i];
  return l;
}

// Runs f(o, i0, count) over every block o and runs of `count` consecutive lines from i0, in
// parallel, about `grain` elements of work per task.
template <class F>
void for_lines(const Line& l, const F& f) {
  constexpr int64_t kRun = 16;  // lines per task inside a block (columns of a row-major matrix)
  const int64_t runs = (l.inner + kRun - 1) / kRun;
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, l.n * kRun));
  parallel_for(0, l.outer * runs, grain, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / runs, i0 = (t % runs) * kRun;
      f(o, i0, std::min(kRun, l.inner - i0));
    }
  });
}

// In place along dim d of a contiguous complex tensor.
template <class T>
void c2c_along(Tensor& x, int64_t d, bool forward) {
  const Line l = line_of(x.sizes(), d);
  if (l.n <= 1 || x.numel() == 0) return;
  auto plan = get_plan<T>(l.n);
  auto* data = reinterpret_cast<std::complex<T>*>(x.data_ptr());
  for_lines(l, [&](int64_t o, int64_t i0, int64_t count) {
    std::complex<T>* p = data + o * l.n * l.inner + i0;
    plan->execute_many(count, p, l.inner, 1, p, l.inner, 1, !forward);
  });
}

template <class T>
void r2c_along(const Tensor& in, Tensor& out, int64_t d) {
  const Line l = line_of(in.sizes(), d);
  const int64_t half = l.n / 2 + 1;
  auto plan = get_plan<T>(l.n);
  const T* src = in.data_ptr<T>();
  auto* dst = reinterpret_cast<std::complex<T>*>(out.data_ptr());
  for_lines(l, [&](int64_t o, int64_t i0, int64_t count) {
    plan->r2c_many(count, src + o * l.n * l.inner + i0, l.inner, 1, dst + o * half * l.inner + i0, l.inner, 1);
  });
}

template <class T>
void c2r_along(const Tensor& in, Tensor& out, int64_t d) {
  const Line l = line_of(out.sizes(), d);  // n: the real length
  const int64_t half = l.n / 2 + 1;
  auto plan = get_plan<T>(l.n);
  const auto* src = reinterpret_cast<const std::complex<T>*>(in.data_ptr());
  T* dst = out.data_ptr<T>();
  for_lines(l, [&](int64_t o, int64_t i0, int64_t count) {
    plan->c2r_many(count, src + o * half * l.inner + i0, l.inner, 1, dst + o * l.n * l.inner + i0, l.inner, 1);
  });
}

// Scales by the norm mode for a signal of `n` points.
void normalize_(Tensor& x, int64_t normalization, double n) {
  if (normalization == 1) x.mul_(1.0 / std::sqrt(n));
  else if (normalization == 2) x.mul_(1.0 / n);
}

double signal_size(IntArrayRef sizes, IntArrayRef dims) {
  double n = 1;
  for (int64_t d : dims) n *= double(sizes[size_t(d)]);
  return n;
}

std::vector<int64_t> wrapped(IntArrayRef dims, int64_t ndim, const char* op) {
  std::vector<int64_t> out;
  for (int64_t d : dims) out.push_back(maybe_wrap_dim(d, ndim, op));
  return out;
}

void check_fft_dtype(const Tensor& t, bool complex, const char* op) {
  const ScalarType want_real = complex ? toRealValueType(t.scalar_type()) : t.scalar_type();
  EMBER_CHECK_TYPE(complex ? t.is_complex() : !t.is_complex(), op, ": expects a ", complex ? "complex" : "real",
                   " input, got ", t.scalar_type());
  EMBER_CHECK_TYPE(want_real == kFloat || want_real == kDouble, op, ": Unsupported dtype ", t.scalar_type());
}

// ---- the device path (Note [Device FFTs], fft_device.h) ----------------------------------------

bool on_device_fft(const Tensor& t) { return !t.is_cpu() || fft_detail::cpu_stand_in != nullptr; }

const DeviceFft& device_fft(const Tensor& t, const char* op) {
  if (t.is_cpu() && fft_detail::cpu_stand_in) return *fft_detail::cpu_stand_in;
  const auto fn = reinterpret_cast<DeviceFftFn>(lookup_kernel("device_fft", t.device().type()));
  EMBER_CHECK(fn != nullptr, op, ": FFTs on ", t.device(), " are not supported");
  return *fn();
}

constexpr size_t kDeviceFftMaxRank = 3;

// The permutation that moves `dims` (in their order) after the other dims, and its inverse.
struct Moved {
  std::vector<int64_t> perm, inverse;
};
Moved dims_last(int64_t ndim, const std::vector<int64_t>& dims) {
  std::vector<bool> picked(size_t(ndim), false);
  for (int64_t d : dims) picked[size_t(d)] = true;
  Moved m;
  for (int64_t i = 0; i < ndim; ++i)
    if (!picked[size_t(i)]) m.perm.push_back(i);
  m.perm.insert(m.perm.end(), dims.begin(), dims.end());
  m.inverse.resize(size_t(ndim));
  for (int64_t i = 0; i < ndim; ++i) m.inverse[size_t(m.perm[size_t(i)])] = i;
  return m;
}

// The unnormalised complex transform of x along `dims`, the last three first; x itself when
// `dims` is empty. Never writes x.
Tensor device_c2c(Tensor x, std::vector<int64_t> dims, bool forward, const char* op) {
  while (!dims.empty()) {
    const size_t r = std::min(kDeviceFftMaxRank, dims.size());
    const std::vector<int64_t> group(dims.end() - r, dims.end());
    dims.resize(dims.size() - r);
    const Moved mv = dims_last(x.dim(), group);
    Tensor y = x.permute(mv.perm).clone(MemoryFormat::Contiguous).resolve_conj();
    if (y.numel() > 0) device_fft(x, op).c2c(y, int64_t(r), forward);
    x = y.permute(mv.inverse);
  }
  return x;
}

// The real dims of r2c / c2r: the last (up to three) transformed dims go to the real
// transform, the others to complex ones.
std::pair<std::vector<int64_t>, std::vector<int64_t>> head_and_tail(const std::vector<int64_t>& dims) {
  const size_t r = std::min(kDeviceFftMaxRank, dims.size());
  return {std::vector<int64_t>(dims.begin(), dims.end() - r), std::vector<int64_t>(dims.end() - r, dims.end())};
}

// r2c along `dims` (dims.back() halved), unnormalised.
Tensor device_r2c(const Tensor& self, const std::vector<int64_t>& dims, ScalarType complex_type) {
  const auto [head, tail] = head_and_tail(dims);
  const Moved mv = dims_last(self.dim(), tail);
  Tensor x = self.permute(mv.perm).contiguous();
  // cuFFT reads real input aligned as complex: a view at an odd offset is copied.
  if (reinterpret_cast<uintptr_t>(x.data_ptr()) % (2 * x.element_size()) != 0) x = x.clone();
  std::vector<int64_t> half(x.sizes().begin(), x.sizes().end());
  half.back() = half.back() / 2 + 1;
  Tensor y = empty(half, self.options().dtype(complex_type));
  if (x.numel() > 0) device_fft(self, "_fft_r2c").r2c(x, y, int64_t(tail.size()));
  return device_c2c(y.permute(mv.inverse), head, true, "_fft_r2c");
}

// c2r along `dims` to last_dim_size points on dims.back(), unnormalised.
Tensor device_c2r(const Tensor& self, const std::vector<int64_t>& dims, int64_t last_dim_size) {
  const auto [head, tail] = head_and_tail(dims);
  const Tensor z = device_c2c(self, head, false, "_fft_c2r");
  const Moved mv = dims_last(self.dim(), tail);
  Tensor x = z.permute(mv.perm).clone(MemoryFormat::Contiguous).resolve_conj();  // c2r may overwrite it
  std::vector<int64_t> sizes(x.sizes().begin(), x.sizes().end());
  sizes.back() = last_dim_size;
  Tensor y = empty(sizes, self.options().dtype(toRealValueType(self.scalar_type())));
  if (y.numel() > 0) device_fft(self, "_fft_c2r").c2r(x, y, int64_t(tail.size()));
  return y.permute(mv.inverse);
}

// ---- the primitives, below autograd -------------------------------------------------------------

Tensor c2c_impl(const Tensor& self, const std::vector<int64_t>& dims, int64_t normalization, bool forward) {
  check_fft_dtype(self, true, "_fft_c2c");
  if (on_device_fft(self)) {
    Tensor out = dims.empty() ? self.clone().resolve_conj() : device_c2c(self, dims, forward, "_fft_c2c");
    normalize_(out, normalization, signal_size(out.sizes(), dims));
    return out;
  }
  Tensor out = self.clone(MemoryFormat::Contiguous).resolve_conj();
  for (int64_t d : dims) {
    if (out.scalar_type() == kComplexFloat) c2c_along<float>(out, d, forward);
    else c2c_along<double>(out, d, forward);
  }
  normalize_(out, normalization, signal_size(out.sizes(), dims));
  return out;
}

Tensor r2c_impl(const Tensor& self, const std::vector<int64_t>& dims, int64_t normalization, bool onesided) {
  check_fft_dtype(self, false, "_fft_r2c");
  EMBER_CHECK(!dims.empty(), "_fft_r2c: must transform at least one dim");
  const bool on_device = on_device_fft(self);
  const Tensor in = on_device ? self : self.contiguous();
  const int64_t last = dims.back(), n = in.size(last);
  const ScalarType ct = in.scalar_type() == kFloat ? kComplexFloat : kComplexDouble;
  Tensor out;
  if (on_device) {
    out = device_r2c(self, dims, ct);
  } else {
    std::vector<int64_t> half_sizes(in.sizes().begin(), in.sizes().end());
    half_sizes[size_t(last)] = n / 2 + 1;
    out = empty(half_sizes, TensorOptions().dtype(ct));
    if (in.numel() > 0) {
      if (ct == kComplexFloat) r2c_along<float>(in, out, last);
      else r2c_along<double>(in, out, last);
      for (size_t i = 0; i + 1 < dims.size(); ++i) {
        if (ct == kComplexFloat) c2c_along<float>(out, dims[i], true);
        else c2c_along<double>(out, dims[i], true);
      }
    }
  }
  normalize_(out, normalization, signal_size(in.sizes(), dims));
  if (onesided || n <= 2) return out;  // n <= 2: the half spectrum is the whole spectrum
  // The whole spectrum of a one-dim real transform: X[n - k] = conj(X[k]).
  EMBER_CHECK(dims.size() == 1, "_fft_r2c: a two-sided transform takes one dim");
  const int64_t mirrored = n - (n / 2 + 1);
  Tensor rest = out.narrow(last, 1, mirrored).flip({last}).conj();
  return cat({out, rest}, last);
}

Tensor c2r_impl(const Tensor& self, const std::vector<int64_t>& dims, int64_t normalization, int64_t last_dim_size) {
  check_fft_dtype(self, true, "_fft_c2r");
  EMBER_CHECK(!dims.empty(), "_fft_c2r: must transform at least one dim");
  EMBER_CHECK(last_dim_size >= 1, "_fft_c2r: Invalid number of data points (", last_dim_size, ") specified");
  const int64_t last = dims.back();
  EMBER_CHECK(self.size(last) == last_dim_size / 2 + 1, "_fft_c2r: expected ", last_dim_size / 2 + 1,
              " bins along dim ", last, " for ", last_dim_size, " points, got ", self.size(last));
  if (on_device_fft(self)) {
    Tensor out = device_c2r(self, dims, last_dim_size);
    normalize_(out, normalization, signal_size(out.sizes(), dims));
    return out;
  }
  Tensor in = self.clone(MemoryFormat::Contiguous).resolve_conj();
  const bool single = in.scalar_type() == kComplexFloat;
  for (size_t i = 0; i + 1 < dims.size(); ++i) {
    if (single) c2c_along<float>(in, dims[i], false);
    else c2c_along<double>(in, dims[i], false);
  }
  std::vector<int64_t> sizes(in.sizes().begin(), in.sizes().end());
  sizes[size_t(last)] = last_dim_size;
  Tensor out = empty(sizes, TensorOptions().dtype(single ? kFloat : kDouble));
  if (out.numel() > 0) {
    if (single) c2r_along<float>(in, out, last);
    else c2r_along<double>(in, out, last);
  }
  normalize_(out, normalization, signal_size(out.sizes(), dims));
  return out;
}

}  // namespace

// ---- differentiable primitives ------------------------------------------------------------------

Tensor _fft_c2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward) {
  check_defined(self, "_fft_c2c");
  const std::vector<int64_t> dims = wrapped(dim, self.dim(), "_fft_c2c");
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    // Linear: the adjoint of a transform is the opposite transform, same normalization.
    return autograd::differentiable(
        "_fft_c2c", {&self}, [&] { return c2c_impl(self, dims, normalization, forward); },
        [dims, normalization, forward](const autograd::VjpCtx& c) {
          return autograd::variable_list{_fft_c2c(c.grad(), dims, normalization, !forward)};
        },
        [&](const auto& t, const Tensor&) { return _fft_c2c(t(0), dims, normalization, forward); });
  }
  return c2c_impl(self, dims, normalization, forward);
}

Tensor _fft_r2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided) {
  check_defined(self, "_fft_r2c");
  const std::vector<int64_t> dims = wrapped(dim, self.dim(), "_fft_r2c");
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    const int64_t last = dims.back(), last_size = self.size(last);
    return autograd::differentiable(
        "_fft_r2c", {&self}, [&] { return r2c_impl(self, dims, normalization, onesided); },
        [dims, normalization, onesided, last, last_size](const autograd::VjpCtx& c) {
          // The half spectrum's gradient, zero-padded to the full length, transformed back;
          // the input is real, so is its gradient.
          Tensor g = c.grad();
          if (onesided && g.size(last) < last_size) {
            std::vector<int64_t> pad_shape(g.sizes().begin(), g.sizes().end());
            pad_shape[size_t(last)] = last_size - g.size(last);
            g = cat({g, zeros(pad_shape, g.options())}, last);
          }
          return autograd::variable_list{real(_fft_c2c(g, dims, normalization, false))};
        },
        [&](const auto& t, const Tensor&) { return _fft_r2c(t(0), dims, normalization, onesided); });
  }
  return r2c_impl(self, dims, normalization, onesided);
}

Tensor _fft_c2r(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  check_defined(self, "_fft_c2r");
  const std::vector<int64_t> dims = wrapped(dim, self.dim(), "_fft_c2r");
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    return autograd::differentiable(
        "_fft_c2r", {&self}, [&] { return c2r_impl(self, dims, normalization, last_dim_size); },
        [dims, normalization](const autograd::VjpCtx& c) {
          // The real transform of the gradient; bins that stand for two (k and n - k) count twice.
          Tensor gi = _fft_r2c(c.grad(), dims, normalization, true);
          const int64_t last = dims.back();
          const int64_t doubled = c.grad().size(last) - gi.size(last);
          if (doubled > 0) {
            std::vector<int64_t> shape(size_t(gi.dim()), 1);
            shape[size_t(last)] = gi.size(last);
            Tensor w = ones(shape, gi.options().dtype(toRealValueType(gi.scalar_type())));
            w.narrow(last, 1, doubled).fill_(2);
            gi = gi.mul(w);
          }
          return autograd::variable_list{gi};
        },
        [&](const auto& t, const Tensor&) { return _fft_c2r(t(0), dims, normalization, last_dim_size); });
  }
  return c2r_impl(self, dims, normalization, last_dim_size);
}

// ---- torch::fft ---------------------------------------------------------------------------------

namespace {

// PyTorch's promote_type_fft: integers become the default float dtype; only float and
// double (and their complex types) transform on the CPU.
Tensor promote(const Tensor& t, bool require_complex, const char* op) {
  ScalarType st = t.scalar_type();
  if (!isComplexType(st)) {
    if (!isFloatingType(st)) st = get_default_dtype();
    EMBER_CHECK_TYPE(st == kFloat || st == kDouble, op, ": Unsupported dtype ", st);
    if (require_complex) st = st == kFloat ? kComplexFloat : kComplexDouble;
  } else {
    EMBER_CHECK_TYPE(st == kComplexFloat || st == kComplexDouble, op, ": Unsupported dtype ", st);
  }
  return st == t.scalar_type() ? t : t.to(st);
}

// norm_from_string: none, by_root_n (1) or by_n (2) for this direction.
int64_t norm_mode(const OptionalNorm& norm, bool forward, const char* op) {
  if (!norm || *norm == "backward") return forward ? 0 : 2;
  if (*norm == "forward") return forward ? 2 : 0;
  if (*norm == "ortho") return 1;
  EMBER_CHECK(false, op, ": Invalid normalization mode: \"", std::string(*norm), "\"");
  return 0;
}

// Truncates or zero-pads each dim to its size (-1 keeps it).
Tensor resize_input(Tensor x, IntArrayRef dims, IntArrayRef sizes) {
  bool pad = false;
  std::vector<int64_t> amount(size_t(x.dim()) * 2, 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = dims[i], want = sizes[i];
    if (want == -1) continue;
    if (x.size(d) < want) {
      pad = true;
      amount[amount.size() - 2 * size_t(d) - 1] = want - x.size(d);
    }
    if (x.size(d) > want) x = x.slice(d, 0, want);
  }
  return pad ? constant_pad_nd(x, amount) : x;
}

Tensor c2c(const char* op, Tensor input, std::optional<int64_t> n_opt, int64_t dim, const OptionalNorm& norm,
           bool forward) {
  EMBER_CHECK_TYPE(input.is_complex(), op, ": expects a complex input tensor, but got ", input.scalar_type());
  const int64_t d = maybe_wrap_dim(dim, input.dim(), op);
  const int64_t n = n_opt.value_or(input.size(d));
  EMBER_CHECK(n >= 1, op, ": Invalid number of data points (", n, ") specified");
  if (n_opt) input = resize_input(input, {d}, {n});
  return _fft_c2c(input, {d}, norm_mode(norm, forward, op), forward);
}

Tensor r2c(const char* op, Tensor input, std::optional<int64_t> n_opt, int64_t dim, const OptionalNorm& norm,
           bool forward, bool onesided) {
  EMBER_CHECK_TYPE(!input.is_complex(), op, ": expects a real input tensor, but got ", input.scalar_type());
  input = promote(input, false, op);
  const int64_t d = maybe_wrap_dim(dim, input.dim(), op);
  const int64_t n = n_opt.value_or(input.size(d));
  EMBER_CHECK(n >= 1, op, ": Invalid number of data points (", n, ") specified");
  if (n_opt) input = resize_input(input, {d}, {n});
  Tensor r = _fft_r2c(input, {d}, norm_mode(norm, forward, op), onesided);
  return forward ? r : r.conj();
}

Tensor c2r(const char* op, Tensor input, std::optional<int64_t> n_opt, int64_t dim, const OptionalNorm& norm,
           bool forward) {
  input = promote(input, true, op);
  const int64_t d = maybe_wrap_dim(dim, input.dim(), op);
  const int64_t n = n_opt.value_or(2 * (input.size(d) - 1));
  EMBER_CHECK(n >= 1, op, ": Invalid number of data points (", n, ") specified");
  if (n_opt) input = resize_input(input, {d}, {n / 2 + 1});
  if (forward) input = input.conj();
  return _fft_c2r(input, {d}, norm_mode(norm, forward, op), n);
}

// canonicalize_fft_shape_and_dim_args: the transformed dims and their signal sizes.
struct ShapeAndDims {
  std::vector<int64_t> shape, dim;
};
ShapeAndDims shape_and_dims(const Tensor& input, OptionalIntArrayRef shape, OptionalIntArrayRef dim, const char* op) {
  const int64_t nd = input.dim();
  ShapeAndDims r;
  if (dim) {
    r.dim = wrapped(*dim, nd, op);
    std::vector<int64_t> sorted = r.dim;
    std::sort(sorted.begin(), sorted.end());
    EMBER_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), op, ": FFT dims must be unique");
  }
  if (shape) {
    EMBER_CHECK(!dim || dim->size() == shape->size(), op,
                ": When given, dim and shape arguments must have the same length");
    EMBER_CHECK(int64_t(shape->size()) <= nd, op, ": Got shape with ", shape->size(),
                " values but input tensor only has ", nd, " dimensions.");
    const int64_t k = int64_t(shape->size());
    if (!dim) {
      r.dim.resize(size_t(k));
      std::iota(r.dim.begin(), r.dim.end(), nd - k);
    }
    for (int64_t i = 0; i < k; ++i) {
      const int64_t n = (*shape)[size_t(i)];
      r.shape.push_back(n == -1 ? input.size(r.dim[size_t(i)]) : n);
    }
  } else if (!dim) {
    r.dim.resize(size_t(nd));
    std::iota(r.dim.begin(), r.dim.end(), int64_t(0));
    r.shape.assign(input.sizes().begin(), input.sizes().end());
  } else {
    for (int64_t d : r.dim) r.shape.push_back(input.size(d));
  }
  for (int64_t n : r.shape) EMBER_CHECK(n > 0, op, ": Invalid number of data points (", n, ") specified");
  return r;
}

// canonicalize_fft_c2r_shape_and_dim_args: the last dim's signal size is the real output's.
ShapeAndDims c2r_shape_and_dims(const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim, const char* op,
                                int64_t& last_dim_size) {
  ShapeAndDims r = shape_and_dims(self, s, dim, op);
  EMBER_CHECK(!r.shape.empty(), op, ": must transform at least one axis");
  last_dim_size = (!s || s->back() == -1) ? 2 * (self.size(r.dim.back()) - 1) : r.shape.back();
  EMBER_CHECK(last_dim_size >= 1, op, ": Invalid number of data points (", last_dim_size, ") specified");
  r.shape.back() = last_dim_size / 2 + 1;
  return r;
}

Tensor fftn_c2c(const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim, const OptionalNorm& norm,
                bool forward, const char* op) {
  const ShapeAndDims desc = shape_and_dims(self, s, dim, op);
  const Tensor x = resize_input(promote(self, true, op), desc.dim, desc.shape);
  return _fft_c2c(x, desc.dim, norm_mode(norm, forward, op), forward);
}

std::vector<int64_t> all_dims(const Tensor& x, OptionalIntArrayRef dim, const char* op) {
  if (dim) return wrapped(*dim, x.dim(), op);
  std::vector<int64_t> d(size_t(x.dim()));
  std::iota(d.begin(), d.end(), int64_t(0));
  return d;
}

}  // namespace

namespace fft {

// fft_fft ... fft_irfftn are on PyTorch's float32 autocast list: half/bfloat16 inputs are
// computed in float32 under autocast (outside it, they are refused as PyTorch does).
#define EMBER_FFT_AUTOCAST(fn, ...) EMBER_AUTOCAST(fft_##fn, fn(_ac[0], __VA_ARGS__), &self)

Tensor fft(const Tensor& self, std::optional<int64_t> n, int64_t dim, OptionalNorm norm) {
  check_defined(self, "fft");
  EMBER_FFT_AUTOCAST(fft, n, dim, norm);
  return self.is_complex() ? c2c("fft", self, n, dim, norm, true) : r2c("fft", self, n, dim, norm, true, false);
}
Tensor ifft(const Tensor& self, std::optional<int64_t> n, int64_t dim, OptionalNorm norm) {
  check_defined(self, "ifft");
  EMBER_FFT_AUTOCAST(ifft, n, dim, norm);
  return self.is_complex() ? c2c("ifft", self, n, dim, norm, false) : r2c("ifft", self, n, dim, norm, false, false);
}
Tensor rfft(const Tensor& self, std::optional<int64_t> n, int64_t dim, OptionalNorm norm) {
  check_defined(self, "rfft");
  EMBER_FFT_AUTOCAST(rfft, n, dim, norm);
  return r2c("rfft", self, n, dim, norm, true, true);
}
Tensor irfft(const Tensor& self, std::optional<int64_t> n, int64_t dim, OptionalNorm norm) {
  check_defined(self, "irfft");
  EMBER_FFT_AUTOCAST(irfft, n, dim, norm);
  return c2r("irfft", self, n, dim, norm, false);
}
Tensor hfft(const Tensor& self, std::optional<int64_t> n, int64_t dim, OptionalNorm norm) {
  check_defined(self, "hfft");
  EMBER_FFT_AUTOCAST(hfft, n, dim, norm);
  return c2r("hfft", self, n, dim, norm, true);
}
Tensor ihfft(const Tensor& self, std::optional<int64_t> n, int64_t dim, OptionalNorm norm) {
  check_defined(self, "ihfft");
  EMBER_FFT_AUTOCAST(ihfft, n, dim, norm);
  return r2c("ihfft", self, n, dim, norm, false, true);
}

Tensor fftn(const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim, OptionalNorm norm) {
  check_defined(self, "fftn");
  EMBER_FFT_AUTOCAST(fftn, s, dim, norm);
  return fftn_c2c(self, s, dim, norm, true, "fftn");
}
Tensor ifftn(const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim, OptionalNorm norm) {
  check_defined(self, "ifftn");
  EMBER_FFT_AUTOCAST(ifftn, s, dim, norm);
  return fftn_c2c(self, s, dim, norm, false, "ifftn");
}
Tensor rfftn(const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim, OptionalNorm norm) {
  check_defined(self, "rfftn");
  EMBER_FFT_AUTOCAST(rfftn, s, dim, norm);
  EMBER_CHECK_TYPE(!self.is_complex(), "rfftn expects a real-valued input tensor, but got ", self.scalar_type());
  const ShapeAndDims desc = shape_and_dims(self, s, dim, "rfftn");
  EMBER_CHECK(!desc.shape.empty(), "rfftn must transform at least one axis");
  const Tensor x = resize_input(promote(self, false, "rfftn"), desc.dim, desc.shape);
  return _fft_r2c(x, desc.dim, norm_mode(norm, true, "rfftn"), true);
}
Tensor irfftn(const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim, OptionalNorm norm) {
  check_defined(self, "irfftn");
  EMBER_FFT_AUTOCAST(irfftn, s, dim, norm);
  int64_t last = 0;
  const ShapeAndDims desc = c2r_shape_and_dims(self, s, dim, "irfftn", last);
  const Tensor x = resize_input(promote(self, true, "irfftn"), desc.dim, desc.shape);
  return _fft_c2r(x, desc.dim, norm_mode(norm, false, "irfftn"), last);
}
Tensor hfftn(const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim, OptionalNorm norm) {
  check_defined(self, "hfftn");
  int64_t last = 0;
  const ShapeAndDims desc = c2r_shape_and_dims(self, s, dim, "hfftn", last);
  const Tensor x = resize_input(promote(self, true, "hfftn"), desc.dim, desc.shape);
  const int64_t mode = norm_mode(norm, true, "hfftn");
  Tensor tmp = x;
  if (desc.dim.size() > 1)
    tmp = _fft_c2c(x, IntArrayRef(desc.dim).slice(0, desc.dim.size() - 1), mode, true);
  return _fft_c2r(tmp.conj(), {desc.dim.back()}, mode, last);
}
Tensor ihfftn(const Tensor& self, OptionalIntArrayRef s, OptionalIntArrayRef dim, OptionalNorm norm) {
  check_defined(self, "ihfftn");
  const ShapeAndDims desc = shape_and_dims(self, s, dim, "ihfftn");
  EMBER_CHECK(!desc.shape.empty(), "ihfftn must transform at least one axis");
  const Tensor x = resize_input(promote(self, false, "ihfftn"), desc.dim, desc.shape);
  const int64_t mode = norm_mode(norm, false, "ihfftn");
  Tensor tmp = _fft_r2c(x, {desc.dim.back()}, mode, true);
  if (desc.dim.size() == 1) return tmp.conj();
  return _fft_c2c(tmp.conj(), IntArrayRef(desc.dim).slice(0, desc.dim.size() - 1), mode, false);
}

#undef EMBER_FFT_AUTOCAST

Tensor fft2(const Tensor& self, OptionalIntArrayRef s, IntArrayRef dim, OptionalNorm norm) {
  return fftn(self, s, dim, norm);
}
Tensor ifft2(const Tensor& self, OptionalIntArrayRef s, IntArrayRef dim, OptionalNorm norm) {
  return ifftn(self, s, dim, norm);
}
Tensor rfft2(const Tensor& self, OptionalIntArrayRef s, IntArrayRef dim, OptionalNorm norm) {
  return rfftn(self, s, dim, norm);
}
Tensor irfft2(const Tensor& self, OptionalIntArrayRef s, IntArrayRef dim, OptionalNorm norm) {
  return irfftn(self, s, dim, norm);
}
Tensor hfft2(const Tensor& self, OptionalIntArrayRef s, IntArrayRef dim, OptionalNorm norm) {
  return hfftn(self, s, dim, norm);
}
Tensor ihfft2(const Tensor& self, OptionalIntArrayRef s, IntArrayRef dim, OptionalNorm norm) {
  return ihfftn(self, s, dim, norm);
}

Tensor fftfreq(int64_t n, double d, const TensorOptions& options) {
  const ScalarType dt = options.dtype();
  EMBER_CHECK_TYPE(isFloatingType(dt) || isComplexType(dt), "fftfreq requires a floating point or complex dtype");
  EMBER_CHECK(n >= 0, "fftfreq: n must be non-negative, got ", n);
  // [0, 1, ..., (n - 1) / 2, -(n / 2), ..., -1] / (n * d)
  Tensor k = cat({arange((n + 1) / 2, TensorOptions().dtype(kLong)), arange(-(n / 2), 0, 1, TensorOptions().dtype(kLong))});
  return k.to(options.dtype(dt)).mul_(1.0 / (double(n) * d));
}
Tensor fftfreq(int64_t n, const TensorOptions& options) { return fftfreq(n, 1.0, options); }
Tensor rfftfreq(int64_t n, double d, const TensorOptions& options) {
  const ScalarType dt = options.dtype();
  EMBER_CHECK_TYPE(isFloatingType(dt) || isComplexType(dt), "rfftfreq requires a floating point or complex dtype");
  EMBER_CHECK(n >= 0, "rfftfreq: n must be non-negative, got ", n);
  return arange(n / 2 + 1, TensorOptions().dtype(kLong)).to(options.dtype(dt)).mul_(1.0 / (double(n) * d));
}
Tensor rfftfreq(int64_t n, const TensorOptions& options) { return rfftfreq(n, 1.0, options); }

Tensor fftshift(const Tensor& x, OptionalIntArrayRef dim) {
  check_defined(x, "fftshift");
  const std::vector<int64_t> dims = all_dims(x, dim, "fftshift");
  std::vector<int64_t> shift;
  for (int64_t d : dims) shift.push_back(x.size(d) / 2);
  return roll(x, shift, dims);
}
Tensor ifftshift(const Tensor& x, OptionalIntArrayRef dim) {
  check_defined(x, "ifftshift");
  const std::vector<int64_t> dims = all_dims(x, dim, "ifftshift");
  std::vector<int64_t> shift;
  for (int64_t d : dims) shift.push_back((x.size(d) + 1) / 2);
  return roll(x, shift, dims);
}

}  // namespace fft
}  // namespace ember
