// Random sampling. Element i of an op draws from Philox counter (offset + i), where the
// op reserved [offset, offset + numel) from the generator: results do not depend on the
// thread count (Note [Counter-based random streams]).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ember/core/parallel.h"
#include "ember/ops/functions.h"

namespace ember {

namespace {
Generator& gen_or_default(OptGen& g) { return g ? *g : default_generator(); }

// Fills a contiguous double buffer of n values with f(words, i) in parallel, then copies
// into self (any dtype, any layout).
template <class F>
void fill_with(Tensor& self, OptGen g, const F& f) {
  int64_t n = self.numel();
  if (n == 0 || self.is_meta()) return;
  auto [seed, offset] = gen_or_default(g).reserve(uint64_t(n));
  Tensor buf = empty({n}, dtype(kDouble));
  double* p = buf.data_ptr<double>();
  parallel_for(0, n, 8192, [&, seed = seed, offset = offset](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) p[i] = f(Philox4x32::draw(seed, offset + uint64_t(i)));
  });
  self.copy_(buf.view(self.sizes()));
}

double uniform01(const std::array<uint32_t, 4>& w) { return uniform_double(w[0], w[1]); }
double normal01(const std::array<uint32_t, 4>& w) {
  // Box-Muller on two 53-bit uniforms; u1 in (0, 1].
  double u1 = 1.0 - uniform_double(w[0], w[1]), u2 = uniform_double(w[2], w[3]);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}
void check_float(const Tensor& t, const char* op) {
  EMBER_CHECK_TYPE(t.is_floating_point(), op, ": expected a floating point tensor, got ", t.scalar_type());
}
}  // namespace

Tensor& uniform_(Tensor& self, double from, double to, OptGen g) {
  EMBER_CHECK(from <= to, "uniform_: expects to return a [from, to) range, but found from=", from, " > to=", to);
  if (self.is_complex()) {  // as PyTorch: the real and imaginary parts are independent uniforms
    Tensor parts = view_as_real(self);
    uniform_(parts, from, to, g);
    return self;
  }
  check_float(self, "uniform_");
  double span = to - from;
  fill_with(self, g, [&](const auto& w) { return from + span * uniform01(w); });
  // Rounding to a narrow dtype can hit `to`; PyTorch keeps the range half-open.
  if (self.scalar_type() != kDouble && span > 0) {
    Tensor hit = self.ge(to);
    if (hit.any().item<bool>()) self.masked_fill_(hit, from);
  }
  return self;
}
Tensor& normal_(Tensor& self, double mean, double std, OptGen g) {
  EMBER_CHECK(std >= 0, "normal_: expects std >= 0.0, but found std ", std);
  if (self.is_complex()) {
    // As PyTorch: a complex normal with variance std^2 has independent real and imaginary
    // parts of variance std^2 / 2 (the mean goes into both parts).
    Tensor parts = view_as_real(self);
    normal_(parts, mean, std * M_SQRT1_2, g);
    return self;
  }
  check_float(self, "normal_");
  fill_with(self, g, [&](const auto& w) { return mean + std * normal01(w); });
  return self;
}
Tensor& bernoulli_(Tensor& self, double p, OptGen g) {
  EMBER_CHECK(p >= 0 && p <= 1, "bernoulli_: expects p to be in [0, 1], but got p=", p);
  fill_with(self, g, [&](const auto& w) { return uniform01(w) < p ? 1.0 : 0.0; });
  return self;
}
Tensor& exponential_(Tensor& self, double lambd, OptGen g) {
  EMBER_CHECK(lambd > 0, "exponential_: expects lambda > 0.0, but found lambda=", lambd);
  check_float(self, "exponential_");
  fill_with(self, g, [&](const auto& w) { return -std::log1p(-uniform01(w)) / lambd; });
  return self;
}
Tensor& random_(Tensor& self, int64_t from, std::optional<int64_t> to, OptGen g) {
  int64_t hi = to.value_or(0);
  if (!to) {
    // [0, 2^mantissa] for floating types, the type's range for integers
    switch (self.scalar_type()) {
      case kBool: hi = 2; break;
      case kByte: hi = 256; break;
      case kChar: hi = 128; break;
      case kShort: hi = 32768; break;
      case kInt: hi = int64_t(1) << 31; break;
      case kHalf: hi = (1 << 11) + 1; break;
      case kBFloat16: hi = (1 << 8) + 1; break;
      case kFloat: hi = (int64_t(1) << 24) + 1; break;
      default: hi = int64_t(1) << 53; break;
    }
  }
  EMBER_CHECK(from < hi, "random_: expects 'from' to be less than 'to', but got from=", from, " >= to=", hi);
  uint64_t range = uint64_t(hi - from);
  int64_t n = self.numel();
  if (n == 0) return self;
  auto [seed, offset] = gen_or_default(g).reserve(uint64_t(n));
  Tensor buf = empty({n}, dtype(kLong));
  int64_t* p = buf.data_ptr<int64_t>();
  parallel_for(0, n, 8192, [&, seed = seed, offset = offset](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      auto w = Philox4x32::draw(seed, offset + uint64_t(i));
      uint64_t r = (uint64_t(w[0]) << 32) | w[1];
      p[i] = from + int64_t(r % range);
    }
  });
  self.copy_(buf.view(self.sizes()));
  return self;
}

Tensor rand(IntArrayRef size, const TensorOptions& o) { return rand(size, std::nullopt, o); }
Tensor rand(IntArrayRef size, OptGen g, const TensorOptions& o) {
  Tensor t = empty(size, o.requires_grad(false));
  uniform_(t, 0, 1, g);
  if (o.requires_grad()) t.requires_grad_(true);
  return t;
}
Tensor randn(IntArrayRef size, const TensorOptions& o) { return randn(size, std::nullopt, o); }
Tensor randn(IntArrayRef size, OptGen g, const TensorOptions& o) {
  Tensor t = empty(size, o.requires_grad(false));
  normal_(t, 0, 1, g);
  if (o.requires_grad()) t.requires_grad_(true);
  return t;
}
Tensor randint(int64_t high, IntArrayRef size, const TensorOptions& o) { return randint(0, high, size, std::nullopt, o); }
Tensor randint(int64_t low, int64_t high, IntArrayRef size, const TensorOptions& o) {
  return randint(low, high, size, std::nullopt, o);
}
Tensor randint(int64_t low, int64_t high, IntArrayRef size, OptGen g, const TensorOptions& o) {
  EMBER_CHECK(low < high, "randint: expects 'low' to be less than 'high', but got low=", low, " >= high=", high);
  Tensor t = empty(size, o.has_dtype() ? o : o.dtype(kLong));
  random_(t, low, high, g);
  return t;
}
Tensor rand_like(const Tensor& t, const TensorOptions& o) {
  Tensor r = empty_like(t, o);
  return uniform_(r, 0, 1);
}
Tensor randn_like(const Tensor& t, const TensorOptions& o) {
  Tensor r = empty_like(t, o);
  return normal_(r, 0, 1);
}
Tensor randint_like(const Tensor& t, int64_t high, const TensorOptions& o) { return randint_like(t, 0, high, o); }
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const TensorOptions& o) {
  EMBER_CHECK(low < high, "randint_like: expects 'low' to be less than 'high', but got low=", low, " >= high=", high);
  Tensor r = empty_like(t, o);
  return random_(r, low, high);
}

Tensor randperm(int64_t n, const TensorOptions& o) { return randperm(n, std::nullopt, o); }
Tensor randperm(int64_t n, OptGen g, const TensorOptions& o) {
  EMBER_CHECK(n >= 0, "randperm: n must be non-negative, got ", n);
  Tensor idx = empty({n}, dtype(kLong));
  int64_t* p = idx.data_ptr<int64_t>();
  std::iota(p, p + n, int64_t(0));
  if (n > 1) {
    auto [seed, offset] = gen_or_default(g).reserve(uint64_t(n));
    for (int64_t i = n - 1; i > 0; --i) {
      auto w = Philox4x32::draw(seed, offset + uint64_t(i));
      uint64_t r = ((uint64_t(w[0]) << 32) | w[1]) % uint64_t(i + 1);
      std::swap(p[i], p[r]);
    }
  }
  return idx.to(o.has_dtype() ? o.dtype() : kLong);
}

Tensor normal(double mean, double std, IntArrayRef size, OptGen g, const TensorOptions& o) {
  Tensor t = empty(size, o);
  return normal_(t, mean, std, g);
}
Tensor normal(const Tensor& mean, const Tensor& std, OptGen g) {
  EMBER_CHECK(!std.lt(0).any().item<bool>(), "normal: expects all elements of std >= 0.0");
  DimVector shape = DimVector(broadcast_shapes(mean.sizes(), std.sizes()));
  Tensor z = empty(shape, mean.options());
  normal_(z, 0, 1, g);
  return z.mul(std).add(mean);
}
Tensor normal(const Tensor& mean, double std, OptGen g) {
  EMBER_CHECK(std >= 0, "normal: expects std >= 0.0, but found std ", std);
  Tensor z = empty_like(mean, {}, MemoryFormat::Contiguous);
  normal_(z, 0, 1, g);
  return z.mul(std).add(mean);
}
Tensor normal(double mean, const Tensor& std, OptGen g) {
  EMBER_CHECK(!std.lt(0).any().item<bool>(), "normal: expects all elements of std >= 0.0");
  Tensor z = empty_like(std, {}, MemoryFormat::Contiguous);
  normal_(z, 0, 1, g);
  return z.mul(std).add(mean);
}

Tensor bernoulli(const Tensor& p, OptGen g) {
  check_float(p, "bernoulli");
  EMBER_CHECK(p.ge(0).logical_and(p.le(1)).all().item<bool>(), "bernoulli: expects 0 <= p <= 1");
  Tensor u = empty_like(p, dtype(kDouble), MemoryFormat::Contiguous);
  uniform_(u, 0, 1, g);
  return u.lt(p).to(p.scalar_type());
}
Tensor bernoulli(const Tensor& self, double p, OptGen g) {
  Tensor r = empty_like(self);
  return bernoulli_(r, p, g);
}

Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement, OptGen g) {
  EMBER_CHECK(probs.dim() == 1 || probs.dim() == 2, "multinomial: prob_dist must be 1 or 2 dim, got ", probs.dim());
  EMBER_CHECK_TYPE(probs.is_floating_point(), "multinomial: only supports floating-point dtypes for input, got ",
                   probs.scalar_type());
  EMBER_CHECK(num_samples > 0, "multinomial: cannot sample n_sample <= 0 samples");
  int64_t ncat = probs.size(-1);
  EMBER_CHECK(replacement || num_samples <= ncat, "multinomial: cannot sample n_sample > prob_dist.size(-1) samples "
              "without replacement (", num_samples, " > ", ncat, ")");
  Tensor p2 = (probs.dim() == 1 ? probs.unsqueeze(0) : probs).to(kDouble).contiguous();
  EMBER_CHECK(p2.isfinite().all().item<bool>() && !p2.lt(0).any().item<bool>(),
              "multinomial: probability tensor contains either `inf`, `nan` or element < 0");
  int64_t rows = p2.size(0);
  Tensor out = empty({rows, num_samples}, dtype(kLong));
  const double* pp = p2.data_ptr<double>();
  int64_t* op = out.data_ptr<int64_t>();
  auto [seed, offset] = gen_or_default(g).reserve(uint64_t(rows * std::max(num_samples, ncat)));
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = pp + r * ncat;
    double total = 0;
    int64_t nonzero = 0;
    for (int64_t c = 0; c < ncat; ++c) { total += row[c]; nonzero += row[c] > 0; }
    EMBER_CHECK(total > 0, "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
    EMBER_CHECK(replacement || nonzero >= num_samples, "multinomial: invalid multinomial distribution "
                "(with replacement=False, not enough non-negative category to sample)");
    uint64_t base = offset + uint64_t(r * std::max(num_samples, ncat));
    if (replacement) {
      std::vector<double> cdf(ncat);
      double acc = 0;
      for (int64_t c = 0; c < ncat; ++c) cdf[c] = (acc += row[c] / total);
      for (int64_t s = 0; s < num_samples; ++s) {
        double u = uniform01(Philox4x32::draw(seed, base + uint64_t(s)));
        int64_t c = std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
        if (c >= ncat) {  // u beyond the rounded cdf: take the last category with mass
          c = ncat - 1;
          while (row[c] == 0) --c;
        }
        op[r * num_samples + s] = c;
      }
    } else {
      // Sampling without replacement: the k largest p_c / E_c with E_c ~ Exp(1).
      std::vector<std::pair<double, int64_t>> keys(ncat);
      for (int64_t c = 0; c < ncat; ++c) {
        double e = -std::log1p(-uniform01(Philox4x32::draw(seed, base + uint64_t(c))));
        keys[c] = {row[c] > 0 ? row[c] / e : -1.0, c};
      }
      std::partial_sort(keys.begin(), keys.begin() + num_samples, keys.end(),
                        [](const auto& a, const auto& b) { return a.first > b.first; });
      for (int64_t s = 0; s < num_samples; ++s) op[r * num_samples + s] = keys[s].second;
    }
  }
  return probs.dim() == 1 ? out.squeeze(0) : out;
}

}  // namespace ember
