// Padding (constant_pad_nd and nn::functional-style pad with constant, reflect, replicate
// and circular modes), one_hot, bincount and histc. Non-constant padding gathers each
// padded dim through an index vector, so every mode works for every dtype and layout.
#include <cmath>
#include <limits>

#include "ember/autograd/record.h"
#include "ember/ops/autocast.h"
#include "ember/ops/dispatch.h"
#include "ember/ops/functions.h"
#include "ember/ops/index_kernels.h"
#include "ember/ops/indexing.h"

namespace ember {

// ---- constant_pad_nd / pad -----------------------------------------------------------------------
Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  EMBER_CHECK(pad.size() % 2 == 0, "constant_pad_nd: Length of pad must be even but instead it equals ", pad.size());
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    // The gradient crops what the padding added (and zero-fills what a negative pad cut).
    DimVector back;
    for (int64_t p : pad) back.push_back(-p);
    return autograd::differentiable(
        "constant_pad_nd", {&self}, [&] { return constant_pad_nd(self, pad, value); },
        [back](const autograd::VjpCtx& c) { return autograd::variable_list{constant_pad_nd(c.grad(), back, 0)}; },
        [&](const auto& t, const Tensor&) { return constant_pad_nd(t(0), pad, 0); });
  }
  int64_t nd = self.dim(), k = int64_t(pad.size()) / 2;
  EMBER_CHECK(k <= nd, "Length of pad should be no more than twice the number of dimensions of the input. Pad length is ",
              pad.size(), " while the input has ", nd, " dimensions.");
  DimVector shape(self.sizes());
  for (int64_t i = 0; i < k; ++i) {
    int64_t d = nd - 1 - i, l = pad[2 * i], r = pad[2 * i + 1];
    int64_t n = self.size(d) + l + r;
    EMBER_CHECK(n >= 0, "constant_pad_nd: The input size ", self.size(d), ", plus negative padding ", l, " and ", r,
                " resulted in a negative output size, which is invalid. Check dimension ", d, " of your input.");
    shape[d] = n;
  }
  Tensor out = empty(shape, self.options(), self.suggest_memory_format());
  if (out.is_meta() || out.numel() == 0) return out;
  out.fill_(value);
  Tensor dst = out, src = self;
  for (int64_t i = 0; i < k; ++i) {
    int64_t d = nd - 1 - i, l = pad[2 * i], r = pad[2 * i + 1];
    int64_t in_start = std::max<int64_t>(-l, 0), in_len = self.size(d) - in_start - std::max<int64_t>(-r, 0);
    if (in_len <= 0) return out;
    src = src.narrow(d, in_start, in_len);
    dst = dst.narrow(d, std::max<int64_t>(l, 0), in_len);
  }
  dst.copy_(src);
  return out;
}

namespace {
Tensor index_vector(const std::vector<int64_t>& v) {
  Tensor t = empty({int64_t(v.size())}, dtype(kLong));
  std::copy(v.begin(), v.end(), t.data_ptr<int64_t>());
  return t;
}
}  // namespace

Tensor pad(const Tensor& self, IntArrayRef pad, std::string_view mode, std::optional<double> value) {
  EMBER_CHECK(pad.size() % 2 == 0, "pad: Padding length must be divisible by 2");
  int64_t nd = self.dim(), k = int64_t(pad.size()) / 2;
  EMBER_CHECK(k <= nd, "pad: Padding length too large (", pad.size(), " values for a tensor of ", nd, " dimensions)");
  if (mode == "constant") return constant_pad_nd(self, pad, value.value_or(0.0));
  // Autocast: reflection_pad1d/2d and replication_pad1d/2d/3d, one policy for all five
  // (ember/ops/autocast_list.h, asserted there); PyTorch 1.13 lists neither reflection_pad3d
  // nor circular padding.
  if (mode == "replicate" || (mode == "reflect" && k <= 2)) {
    EMBER_AUTOCAST(replication_pad1d, ember::pad(_ac[0], pad, mode, value), &self);
  }
  if (mode != "reflect" && mode != "replicate" && mode != "circular")
    EMBER_NOT_IMPLEMENTED("pad: Unrecognised padding mode ", mode);
  EMBER_CHECK(value.value_or(0.0) == 0, "pad: Padding mode \"", mode, "\" doesn't take in value argument");
  if (!((k == 1 && (nd == 2 || nd == 3)) || (k == 2 && (nd == 3 || nd == 4)) || (k == 3 && (nd == 4 || nd == 5))))
    EMBER_NOT_IMPLEMENTED("pad: Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now (got ",
                          pad.size(), " padding values for a ", nd, "-D input in mode ", mode, ")");
  // PyTorch 1.13's circular padding needs the batch and channel dims.
  EMBER_CHECK(mode != "circular" || nd == k + 2, "pad: Invalid padding size, expected ", 2 * (nd - 2), " but got ",
              pad.size(), " (circular padding of a ", nd, "-D input pads its last ", nd - 2, " dims)");
  bool batched = nd == k + 2;
  for (int64_t d = batched ? 1 : 0; d < nd; ++d)
    EMBER_CHECK(self.size(d) > 0, "pad: Expected ", k + 1, "D or ", k + 2, "D (batch mode) tensor with possibly 0 batch "
                "size and other non-zero dimensions for input, but got: ", self.sizes());
  // One gather over all padded dims: index vectors shaped to broadcast as an outer product.
  std::vector<Tensor> indices(k);
  for (int64_t i = 0; i < k; ++i) {
    int64_t d = nd - 1 - i, l = pad[2 * i], r = pad[2 * i + 1], n = self.size(d);
    int64_t out_len = n + l + r;
    EMBER_CHECK(out_len > 0, "pad: input of shape ", self.sizes(), " is too small for padding (", l, ", ", r,
                ") at dimension ", d, ": the output size would be ", out_len);
    std::vector<int64_t> idx(out_len);
    if (mode == "reflect") {
      EMBER_CHECK(l < n && r < n, "pad: Argument #", 4 + 2 * i, ": Padding size should be less than the corresponding "
                  "input dimension, but got: padding (", l, ", ", r, ") at dimension ", d, " of input ", self.sizes());
      for (int64_t o = 0; o < out_len; ++o) {
        int64_t j = o - l;
        if (j < 0) j = -j;
        if (j >= n) j = 2 * (n - 1) - j;
        idx[o] = j;
      }
    } else if (mode == "replicate") {
      for (int64_t o = 0; o < out_len; ++o) idx[o] = std::clamp<int64_t>(o - l, 0, n - 1);
    } else {  // circular: pads with the (possibly cropped) content, as PyTorch's _pad_circular
      EMBER_CHECK(l <= n && r <= n, "pad: Padding value causes wrapping around more than once.");
      int64_t c0 = std::max<int64_t>(-l, 0), m = n - c0 - std::max<int64_t>(-r, 0);
      for (int64_t o = 0; o < out_len; ++o) {
        int64_t q = o - std::max<int64_t>(l, 0);
        if (q < 0) q += m;
        else if (q >= m) q -= m;
        EMBER_CHECK(m > 0 && q >= 0 && q < m, "pad: Padding value causes wrapping around more than once.");
        idx[o] = c0 + q;
      }
    }
    DimVector shape(k, 1);
    shape[k - 1 - i] = out_len;
    indices[k - 1 - i] = index_vector(idx).view(shape);
  }
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    // the same gather through index(), which has a derivative
    std::vector<std::optional<Tensor>> full(size_t(nd - k));
    for (const Tensor& t : indices) full.emplace_back(t);
    return index(self, full);
  }
  return index_dims(self, nd - k, indices, {IndexErrorStyle::Advanced, "pad"});
}

// ---- one_hot ---------------------------------------------------------------------------------------
namespace {
// min and max of a non-empty int64 tensor.
std::pair<int64_t, int64_t> long_minmax(const Tensor& t) {
  Tensor c = t.contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  int64_t lo = p[0], hi = p[0];
  for (int64_t i = 1, n = c.numel(); i < n; ++i) {
    lo = std::min(lo, p[i]);
    hi = std::max(hi, p[i]);
  }
  return {lo, hi};
}
}  // namespace

Tensor one_hot(const Tensor& self, int64_t num_classes) {
  EMBER_CHECK(self.scalar_type() == kLong, "one_hot is only applicable to index tensor (got dtype ", self.scalar_type(),
              ", expected Long).");
  if (num_classes == -1) {
    EMBER_CHECK(self.numel() > 0, "one_hot: Can not infer total number of classes from empty tensor.");
    auto [lo, hi] = long_minmax(self);
    EMBER_CHECK(lo >= 0, "one_hot: Class values must be non-negative.");
    num_classes = hi + 1;
  } else {
    EMBER_CHECK(num_classes >= 0, "one_hot: num_classes should be -1 or non-negative, got ", num_classes);
    if (self.numel() > 0) {
      auto [lo, hi] = long_minmax(self);
      EMBER_CHECK(lo >= 0, "one_hot: Class values must be non-negative.");
      EMBER_CHECK(hi < num_classes, "one_hot: Class values must be smaller than num_classes.");
    }
  }
  DimVector shape(self.sizes());
  shape.push_back(num_classes);
  Tensor out = zeros(shape, self.options().dtype(kLong));
  if (self.numel() > 0) out.scatter_(-1, self.unsqueeze(-1), 1);
  return out;
}

// ---- bincount / histc ----------------------------------------------------------------------------------
Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  EMBER_CHECK_TYPE(isIntegralType(self.scalar_type(), false), "bincount: not implemented for dtype ",
                   self.scalar_type(), " (expected an integral tensor)");
  EMBER_CHECK(self.dim() == 1, "bincount only supports 1-d non-negative integral inputs.");
  EMBER_CHECK(minlength >= 0, "bincount: minlength should be >= 0");
  bool has_w = weights && weights->defined();
  if (has_w)
    EMBER_CHECK(weights->dim() == 1 && weights->size(0) == self.size(0),
                "bincount: weights should be 1-d and have the same length as input");
  Tensor x = self.to(kLong).contiguous();
  const int64_t* p = x.data_ptr<int64_t>();
  int64_t n = x.numel(), nbins = minlength;
  for (int64_t i = 0; i < n; ++i) {
    EMBER_CHECK(p[i] >= 0, "bincount only supports 1-d non-negative integral inputs.");
    nbins = std::max(nbins, p[i] + 1);
  }
  if (!has_w) {
    Tensor out = zeros({nbins}, self.options().dtype(kLong));
    int64_t* o = out.data_ptr<int64_t>();
    for (int64_t i = 0; i < n; ++i) ++o[p[i]];
    return out;
  }
  // PyTorch: float weights give float counts, any other weight dtype gives double.
  ScalarType wt = weights->scalar_type() == kFloat ? kFloat : kDouble;
  Tensor w = weights->to(wt).contiguous();
  Tensor out = zeros({nbins}, self.options().dtype(wt));
  visit_dtype<DtypeSet{kFloat, kDouble}>(wt, "bincount", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* wp = w.data_ptr<T>();
    T* o = out.data_ptr<T>();
    for (int64_t i = 0; i < n; ++i) o[p[i]] += wp[i];
  });
  return out;
}
Tensor Tensor::bincount(const std::optional<Tensor>& w, int64_t minlength) const {
  return ember::bincount(*this, w, minlength);
}

Tensor histc(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  EMBER_CHECK_TYPE(isFloatingType(self.scalar_type()), "torch.histc: input tensor dtype must be floating point, got ",
                   self.scalar_type());
  EMBER_CHECK(bins > 0, "torch.histc(): bins must be > 0, but got ", bins, " for dimension 0");
  double lo = min.toDouble(), hi = max.toDouble();
  Tensor x = self.to(kDouble).contiguous();
  const double* p = x.data_ptr<double>();
  int64_t n = x.numel();
  if (lo == hi && n > 0) {
    // The data's range (NaN-free elements).
    double mn = std::numeric_limits<double>::infinity(), mx = -mn;
    bool any = false;
    for (int64_t i = 0; i < n; ++i) {
      if (std::isnan(p[i])) continue;
      mn = std::min(mn, p[i]);
      mx = std::max(mx, p[i]);
      any = true;
    }
    if (any) lo = mn, hi = mx;
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  EMBER_CHECK(lo < hi, "torch.histc: max must be larger than min");
  EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histc: range of [", lo, ", ", hi, "] is not finite");
  std::vector<double> counts(bins, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    double v = p[i];
    if (!(v >= lo && v <= hi)) continue;  // outside the range, or NaN
    int64_t b = int64_t((v - lo) * double(bins) / (hi - lo));
    if (b >= bins) b = bins - 1;
    counts[b] += 1;
  }
  Tensor out = empty({bins}, dtype(kDouble));
  std::copy(counts.begin(), counts.end(), out.data_ptr<double>());
  return out.to(self.scalar_type());
}
Tensor Tensor::histc(int64_t bins, const Scalar& min, const Scalar& max) const {
  return ember::histc(*this, bins, min, max);
}

}  // namespace ember
