// Order-statistic reductions: median/nanmedian (lower median; with a dim they also return
// the index of the chosen element), mode, and quantile/nanquantile. Each line of the input
// along the reduced dim is copied out (with its indices) and partially sorted
// (std::nth_element) or sorted; lines are processed in parallel.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "ember/autograd/record.h"
#include "ember/core/parallel.h"
#include "ember/ops/autocast.h"
#include "ember/ops/dispatch.h"
#include "ember/ops/functions.h"
#include "ember/ops/reduce.h"
#include "ember/ops/type_promotion.h"

namespace ember {

namespace {
constexpr DtypeSet kSelectTypes = kRealTypes;

template <class C> bool is_nan(C v) {
  if constexpr (std::is_floating_point_v<C>) return std::isnan(v);
  else return false;
}

// These ops read the data on the host: CPU tensors only (meta tensors just get shapes).
void check_host(const Tensor& self, const char* name) {
  EMBER_CHECK(self.is_cpu() || self.is_meta(), name, "(): only CPU tensors are supported, got a tensor on ",
              self.device());
}

// The lines of `self` along `dim` as a contiguous [rows, len] tensor (dim moved last).
Tensor lines_along(const Tensor& self, int64_t dim) {
  if (self.dim() == 0) return self.reshape({1, 1});
  Tensor x = self.movedim(dim, -1).contiguous();
  return x.reshape({-1, self.size(dim)});
}

// Writes, for each line, the (nan)median value and the index it came from.
template <class S>
void median_lines(const Tensor& lines, S* values, int64_t* indices, bool ignore_nan) {
  using C = compute_t<S>;
  int64_t rows = lines.size(0), len = lines.size(1);
  const S* data = lines.data_ptr<S>();
  parallel_for(0, rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(len, 1)), [&](int64_t b, int64_t e) {
    std::vector<int64_t> idx;
    for (int64_t r = b; r < e; ++r) {
      const S* x = data + r * len;
      idx.clear();
      int64_t first_nan = -1;
      for (int64_t i = 0; i < len; ++i) {
        if (is_nan(C(x[i]))) {
          if (first_nan < 0) first_nan = i;
        } else {
          idx.push_back(i);
        }
      }
      int64_t pick;
      if (first_nan >= 0 && (!ignore_nan || idx.empty())) {
        pick = first_nan;  // a NaN result: the first NaN (index 0 for an all-NaN nanmedian line)
      } else {
        auto mid = idx.begin() + (int64_t(idx.size()) - 1) / 2;
        std::nth_element(idx.begin(), mid, idx.end(), [x](int64_t a, int64_t c) { return C(x[a]) < C(x[c]); });
        pick = *mid;
      }
      values[r] = x[pick];
      if (indices) indices[r] = pick;
    }
  });
}

Tensor median_all(const Tensor& self, bool ignore_nan, const char* name) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    // Shared evenly among the elements equal to the median, as PyTorch.
    return autograd::differentiable(
        name, {&self}, [&] { return median_all(self, ignore_nan, name); },
        [](const autograd::VjpCtx& c) {
          Tensor x = c.saved_tensor(0), y = c.saved_tensor(1);
          Tensor mask = x.eq(y).to(x.scalar_type());
          return autograd::variable_list{c.grad().mul(mask.div(mask.sum()))};
        },
        [&](const auto& t, const Tensor& y) {
          Tensor mask = self.eq(y).to(self.scalar_type());
          return t(0).mul(mask.div(mask.sum())).sum();
        },
        {{self}}, /*save_result=*/true);
  }
  EMBER_CHECK_TYPE(!self.is_complex() && self.scalar_type() != kBool, name, "(): not implemented for dtype ",
                   self.scalar_type());
  check_host(self, name);
  if (self.is_meta()) return empty({}, self.options());
  if (self.numel() == 0) {
    EMBER_CHECK(self.is_floating_point(), name, "(): the median of an empty ", self.scalar_type(),
                " tensor is NaN, which that dtype cannot hold");
    return full(IntArrayRef(), std::nan(""), self.options());
  }
  Tensor lines = self.reshape({1, -1}).contiguous();
  Tensor out = empty({}, self.options());
  visit_dtype<kSelectTypes>(self.scalar_type(), name, [&](auto tag) {
    using S = typename decltype(tag)::type;
    median_lines<S>(lines, out.data_ptr<S>(), nullptr, ignore_nan);
  });
  return out;
}

std::tuple<Tensor, Tensor> median_dim(const Tensor& self, int64_t dim, bool keepdim, bool ignore_nan, const char* name) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self)))
    return autograd::differentiable_select(name, self, dim, keepdim,
                                           [&] { return median_dim(self, dim, keepdim, ignore_nan, name); });
  EMBER_CHECK_TYPE(!self.is_complex() && self.scalar_type() != kBool, name, "(): not implemented for dtype ",
                   self.scalar_type());
  int64_t d = maybe_wrap_dim(dim, self.dim(), name);
  DimMask mask;
  mask.set(d);
  check_nonempty_reduction(self, mask, name);
  DimVector shape = reduced_shape(self.sizes(), mask, keepdim);
  Tensor values = empty(shape, self.options()), indices = empty(shape, self.options().dtype(kLong));
  check_host(self, name);
  if (values.numel() == 0 || self.is_meta()) return {values, indices};
  Tensor lines = lines_along(self, d);
  visit_dtype<kSelectTypes>(self.scalar_type(), name, [&](auto tag) {
    using S = typename decltype(tag)::type;
    median_lines<S>(lines, values.data_ptr<S>(), indices.data_ptr<int64_t>(), ignore_nan);
  });
  return {values, indices};
}
}  // namespace

Tensor median(const Tensor& self) { return median_all(self, false, "median"); }
std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim) {
  return median_dim(self, dim, keepdim, false, "median");
}
Tensor nanmedian(const Tensor& self) { return median_all(self, true, "nanmedian"); }
std::tuple<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim) {
  return median_dim(self, dim, keepdim, true, "nanmedian");
}

// ---- mode -----------------------------------------------------------------------------------
// The most frequent value of each line; ties go to the smallest value, and the index is that
// of its last occurrence (as PyTorch's CPU kernel).
std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim, bool keepdim) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self)))
    return autograd::differentiable_select("mode", self, dim, keepdim, [&] { return mode(self, dim, keepdim); });
  EMBER_CHECK_TYPE(!self.is_complex(), "mode(): not implemented for dtype ", self.scalar_type());
  int64_t d = maybe_wrap_dim(dim, self.dim(), "mode");
  DimMask mask;
  mask.set(d);
  check_nonempty_reduction(self, mask, "mode");
  DimVector shape = reduced_shape(self.sizes(), mask, keepdim);
  Tensor values = empty(shape, self.options()), indices = empty(shape, self.options().dtype(kLong));
  check_host(self, "mode");
  if (values.numel() == 0 || self.is_meta()) return {values, indices};
  Tensor lines = lines_along(self, d);
  visit_dtype<kSelectTypes | kBoolType>(self.scalar_type(), "mode", [&](auto tag) {
    using S = typename decltype(tag)::type;
    using C = compute_t<S>;
    int64_t rows = lines.size(0), len = lines.size(1);
    const S* data = lines.data_ptr<S>();
    S* vout = values.data_ptr<S>();
    int64_t* iout = indices.data_ptr<int64_t>();
    parallel_for(0, rows, std::max<int64_t>(1, 2048 / len), [&](int64_t b, int64_t e) {
      std::vector<int64_t> idx(len);
      for (int64_t r = b; r < e; ++r) {
        const S* x = data + r * len;
        std::iota(idx.begin(), idx.end(), 0);
        std::sort(idx.begin(), idx.end(), [x](int64_t a, int64_t c) {
          C va = C(x[a]), vc = C(x[c]);
          if (va < vc) return true;
          if (vc < va) return false;
          return a < c;
        });
        int64_t best_count = 0, best_idx = 0;
        for (int64_t i = 0; i < len;) {
          int64_t j = i + 1;
          while (j < len && !(C(x[idx[i]]) < C(x[idx[j]])) && !(C(x[idx[j]]) < C(x[idx[i]]))) ++j;
          if (j - i > best_count) {
            best_count = j - i;
            best_idx = idx[j - 1];
          }
          i = j;
        }
        vout[r] = x[best_idx];
        iout[r] = best_idx;
      }
    });
  });
  return {values, indices};
}

// ---- quantile, nanquantile -----------------------------------------------------------------------
namespace {
enum class Interp { Linear, Lower, Higher, Midpoint, Nearest };

Interp parse_interpolation(std::string_view s) {
  if (s == "linear") return Interp::Linear;
  if (s == "lower") return Interp::Lower;
  if (s == "higher") return Interp::Higher;
  if (s == "midpoint") return Interp::Midpoint;
  EMBER_CHECK(s == "nearest", "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got ", s);
  return Interp::Nearest;
}

template <class T>
T lerp(T a, T b, T w) {
  return w < T(0.5) ? a + w * (b - a) : b - (b - a) * (T(1) - w);
}

Tensor quantile_impl(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                     std::string_view interpolation, bool ignore_nan) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    // The value from the kernel; the derivatives from the same quantile written with
    // sort (which scatters gradients back) and linear interpolation of neighbours.
    Tensor exact;
    {
      autograd::BelowAutogradGuard below;
      exact = quantile_impl(self, q, dim, keepdim, interpolation, ignore_nan);
    }
    bool has_nan;
    {
      autograd::BelowAutogradGuard below;
      has_nan = self.isnan().any().item<bool>();
    }
    EMBER_CHECK(!has_nan, ignore_nan ? "nanquantile" : "quantile", ": the derivative with NaN inputs is not implemented");
    const Interp mode = parse_interpolation(interpolation);
    Tensor lines = dim ? lines_along(self, maybe_wrap_dim(*dim, self.dim(), "quantile")) : self.reshape({1, -1});
    Tensor sorted = std::get<0>(lines.sort(1));
    const int64_t len = lines.size(1);
    Tensor qd = q.to(kDouble).reshape({-1});
    std::vector<Tensor> parts;
    for (int64_t k = 0; k < qd.numel(); ++k) {
      const double rank = qd[k].item<double>() * double(len - 1);
      int64_t lo = int64_t(std::floor(rank)), hi = int64_t(std::ceil(rank));
      double w = rank - double(lo);
      if (mode == Interp::Lower) hi = lo, w = 0;
      if (mode == Interp::Higher) lo = hi, w = 0;
      if (mode == Interp::Nearest) lo = hi = int64_t(std::nearbyint(rank)), w = 0;
      if (mode == Interp::Midpoint) w = lo == hi ? 0 : 0.5;
      parts.push_back(sorted.select(1, lo).mul(1 - w).add(sorted.select(1, hi).mul(w)));
    }
    Tensor composite = stack(parts, 0).reshape(exact.sizes());
    return exact.add(composite.sub(composite.detach()));
  }
  check_host(self, "quantile");
  check_host(q, "quantile");
  EMBER_CHECK(self.numel() > 0, "quantile() input tensor must be non-empty");
  EMBER_CHECK(q.dim() <= 1, "quantile() q must be a scalar or 1D tensor");
  EMBER_CHECK_TYPE(self.scalar_type() == kFloat || self.scalar_type() == kDouble,
                   "quantile() input tensor must be either float or double dtype");
  EMBER_CHECK_TYPE(self.scalar_type() == q.scalar_type(), "quantile() q tensor must be same dtype as the input tensor");
  Interp mode = parse_interpolation(interpolation);
  int64_t nq = q.numel();
  std::vector<double> qv(nq);
  if (!q.is_meta()) {
    Tensor qd = q.to(kDouble).contiguous().reshape({-1});
    std::copy(qd.data_ptr<double>(), qd.data_ptr<double>() + nq, qv.begin());
  }
  for (int64_t i = 0; i < nq; ++i)
    EMBER_CHECK(qv[i] >= 0 && qv[i] <= 1, "quantile() q values must be in the range [0, 1]");

  // Lines to reduce, and the result's shape.
  Tensor lines;
  DimVector shape;
  if (q.dim() == 1) shape.push_back(nq);
  if (!dim) {
    lines = self.reshape({1, -1});
    if (keepdim)
      for (int64_t d = 0; d < self.dim(); ++d) shape.push_back(1);
  } else {
    int64_t d = maybe_wrap_dim(*dim, self.dim(), "quantile");
    DimMask mask;
    mask.set(d);
    for (int64_t s : reduced_shape(self.sizes(), mask, keepdim)) shape.push_back(s);
    lines = lines_along(self, d);
  }
  Tensor out = empty(shape, self.options());
  if (out.numel() == 0 || self.is_meta()) return out;
  lines = lines.contiguous();
  int64_t rows = lines.size(0), len = lines.size(1);
  visit_dtype<DtypeSet{kFloat, kDouble}>(self.scalar_type(), "quantile", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* data = lines.data_ptr<T>();
    T* o = out.data_ptr<T>();
    parallel_for(0, rows, std::max<int64_t>(1, 2048 / len), [&](int64_t b, int64_t e) {
      std::vector<T> v(len);
      for (int64_t r = b; r < e; ++r) {
        std::copy(data + r * len, data + (r + 1) * len, v.begin());
        // NaN sorts last.
        std::sort(v.begin(), v.end(), [](T a, T c) { return a < c || (std::isnan(c) && !std::isnan(a)); });
        int64_t valid = len;
        while (valid > 0 && std::isnan(v[valid - 1])) --valid;
        for (int64_t k = 0; k < nq; ++k) {
          T rank;
          if (ignore_nan) rank = std::max(T(0), T(qv[k]) * T(valid - 1));
          else rank = valid < len ? T(len - 1) : T(qv[k]) * T(len - 1);
          T res;
          switch (mode) {
            case Interp::Lower: res = v[int64_t(std::floor(rank))]; break;
            case Interp::Higher: res = v[int64_t(std::ceil(rank))]; break;
            case Interp::Nearest: res = v[int64_t(std::nearbyint(rank))]; break;
            default: {
              int64_t lo = int64_t(std::floor(rank)), hi = int64_t(std::ceil(rank));
              T w = mode == Interp::Midpoint ? T(0.5) : rank - T(lo);
              res = lerp(v[lo], v[hi], w);
            }
          }
          o[k * rows + r] = res;
        }
      }
    });
  });
  return out;
}

Tensor scalar_q(const Tensor& self, double q) {
  EMBER_CHECK(q >= 0 && q <= 1, "quantile() q must be in the range [0, 1] but got ", q);
  return scalar_tensor(q, self.options());
}
}  // namespace

// Autocast runs the quantiles in float32 (a scalar q is made in the cast input's dtype).
Tensor quantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim, std::string_view interpolation) {
  EMBER_AUTOCAST(quantile, quantile(_ac[0], q, dim, keepdim, interpolation), &self);
  return quantile_impl(self, scalar_q(self, q), dim, keepdim, interpolation, false);
}
Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                std::string_view interpolation) {
  EMBER_AUTOCAST(quantile, quantile(_ac[0], _ac[1], dim, keepdim, interpolation), &self, &q);
  return quantile_impl(self, q, dim, keepdim, interpolation, false);
}
Tensor nanquantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  EMBER_AUTOCAST(nanquantile, nanquantile(_ac[0], q, dim, keepdim, interpolation), &self);
  return quantile_impl(self, scalar_q(self, q), dim, keepdim, interpolation, true);
}
Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  EMBER_AUTOCAST(nanquantile, nanquantile(_ac[0], _ac[1], dim, keepdim, interpolation), &self, &q);
  return quantile_impl(self, q, dim, keepdim, interpolation, true);
}

// ---- Tensor methods ---------------------------------------------------------------------------
Tensor Tensor::median() const { return ember::median(*this); }
std::tuple<Tensor, Tensor> Tensor::median(int64_t dim, bool keepdim) const { return ember::median(*this, dim, keepdim); }
Tensor Tensor::nanmedian() const { return ember::nanmedian(*this); }
std::tuple<Tensor, Tensor> Tensor::nanmedian(int64_t dim, bool keepdim) const {
  return ember::nanmedian(*this, dim, keepdim);
}
std::tuple<Tensor, Tensor> Tensor::mode(int64_t dim, bool keepdim) const { return ember::mode(*this, dim, keepdim); }
Tensor Tensor::quantile(double q, std::optional<int64_t> dim, bool keepdim, std::string_view interpolation) const {
  return ember::quantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::quantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim, std::string_view interpolation) const {
  return ember::quantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::nanquantile(double q, std::optional<int64_t> dim, bool keepdim, std::string_view interpolation) const {
  return ember::nanquantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::nanquantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                           std::string_view interpolation) const {
  return ember::nanquantile(*this, q, dim, keepdim, interpolation);
}

}  // namespace ember
