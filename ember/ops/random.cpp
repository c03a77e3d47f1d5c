// Random sampling on the CPU. Every sampler draws PyTorch's stream (Note [PyTorch's CPU
// stream]): one element after another, in the order PyTorch's samplers visit the tensor
// (Note [Sampling order]), with the generator's lock held, turning bits into values with
// PyTorch's transformations (ember/ops/random_transforms.h). A seeded LibTorch program thus
// draws the same numbers here, which tests/ops/random_golden_test checks against PyTorch.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ember/autograd/record.h"
#include "ember/core/warning.h"
#include "ember/ops/dispatch.h"
#include "ember/ops/functions.h"
#include "ember/ops/op_def.h"
#include "ember/ops/random_device.h"
#include "ember/ops/random_transforms.h"
#include "ember/cuda/cuda.h"

namespace ember {

namespace {

GeneratorImpl& gen_of(const OptGen& g, const char* op) {
  GeneratorImpl& impl = (g && g->defined()) ? *g->impl() : *default_generator().impl();
  EMBER_CHECK(impl.device().is_cpu(), op, ": expected a CPU generator, got one for ", impl.device());
  return impl;
}

// Note [Sampling order]
// PyTorch's CPU samplers are serial loops over a TensorIterator, which visits the output in
// memory order: dimensions sorted by stride, the largest outermost. A transposed or
// channels-last tensor is therefore filled in the order its bytes lie, not in index order.
std::vector<int64_t> memory_order(const Tensor& t) {
  std::vector<int64_t> perm(size_t(t.dim()));
  std::iota(perm.begin(), perm.end(), int64_t(0));
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    if (t.size(a) == 1 || t.size(b) == 1) return false;  // size-1 dims order nothing
    return t.stride(a) > t.stride(b);
  });
  return perm;
}

// Writes next() into every element of self (of C++ type T) in PyTorch's order.
template <class T, class Next>
void fill_in_order(const Tensor& self, Next&& next) {
  const int64_t n = self.numel();
  if (self.is_contiguous()) {
    T* p = self.data_ptr<T>();
    for (int64_t i = 0; i < n; ++i) p[i] = next();
    return;
  }
  Tensor order = self.permute(memory_order(self));
  Tensor buf = empty(order.sizes(), self.options().requires_grad(false));
  T* p = buf.data_ptr<T>();
  for (int64_t i = 0; i < n; ++i) p[i] = next();
  autograd::BelowAutogradGuard below;
  order.copy_(buf);
}

// The generator of a device tensor: `g`, which must be of that device type, or the device's
// default generator.
GeneratorImpl& device_gen_of(const OptGen& g, Device d, const char* op) {
  if (g && g->defined()) {
    EMBER_CHECK(g->impl()->device().type() == d.type(), op, ": expected a '", d.type(),
                "' device type for generator but found '", g->impl()->device().type(), "'");
    return *g->impl();
  }
  EMBER_CHECK(d.is_cuda(), op, ": sampling on ", d, " is not supported");
  return *cuda::default_cuda_generator(d.index()).impl();
}

// Note [Device sampling]: reserves the counters and runs the device's sampler, through a
// contiguous temporary when self is not contiguous.
void sample_on_device(Tensor& self, const OptGen& g, const char* op, const DeviceSampleArgs* args) {
  EMBER_CHECK(args != nullptr, op, ": sampling on ", self.device(), " is not supported yet");
  // A device-only kernel (no CPU one, so not an op of the table), found by name.
  const auto fn = reinterpret_cast<DeviceSampleFn>(lookup_kernel("device_sample", self.device().type()));
  EMBER_CHECK(fn != nullptr, op, ": no sampler for device ", self.device());
  GeneratorImpl& gen = device_gen_of(g, self.device(), op);
  DeviceSampleArgs a = *args;
  {
    std::lock_guard<std::mutex> lock(gen.mutex_);
    std::tie(a.seed, a.offset) = gen.reserve_philox(uint64_t(self.numel()));
  }
  if (self.is_contiguous()) return fn(self, a);
  Tensor tmp = empty(self.sizes(), self.options().requires_grad(false));
  fn(tmp, a);
  autograd::BelowAutogradGuard below;
  self.copy_(tmp);
}

// The frame shared by the in-place samplers: checks, autograd (the old value gets no gradient),
// the lock, and the version bump. `draw(gen)` writes every element on the CPU; `on_device`
// says what a device sampler draws (null: not on devices yet).
template <class Draw>
Tensor& sample_(Tensor& self, const OptGen& g, const char* op, Draw&& draw, const DeviceSampleArgs* on_device) {
  check_defined(self, op);
  auto write = [&] {
    if (self.is_meta() || self.numel() == 0) return;
    if (!self.is_cpu()) return sample_on_device(self, g, op, on_device);
    GeneratorImpl& gen = gen_of(g, op);
    std::lock_guard<std::mutex> lock(gen.mutex_);
    draw(gen);
  };
  if (!autograd::overwrite_recorded(self, op, write)) write();
  self.bump_version();
  return self;
}

constexpr DtypeSet kSampledFloats = kFloatingTypes;

void check_floating(const Tensor& t, const char* op) {
  EMBER_CHECK_TYPE(t.is_floating_point(), op, ": expected a floating point tensor, got ", t.scalar_type());
}

// uniform_'s from/to must be finite values of the dtype (PyTorch: check_uniform_bounds).
template <class T>
void check_uniform_bounds(double& from, double& to, ScalarType dt) {
  const double lo = double(std::numeric_limits<T>::lowest()), hi = double(std::numeric_limits<T>::max());
  EMBER_CHECK(from >= lo && from <= hi, "uniform_: from is out of bounds for ", dt);
  EMBER_CHECK(to >= lo && to <= hi, "uniform_: to is out of bounds for ", dt);
  EMBER_CHECK(from <= to, "uniform_: expects to return a [from, to) range, but found from=", from, " > to=", to);
  EMBER_CHECK(to - from <= hi, "uniform_: expects to-from <= std::numeric_limits<", dt, ">::max(), but found to=",
              to, " and from=", from, " which result in to-from to exceed the limit");
}

}  // namespace

// ---- uniform and normal -------------------------------------------------------------------
namespace {
// uniform_ on contiguous memory, in the stream's order: a block's bits are drawn first, then
// transformed in a separate loop. The fused transform is compiled for AVX2+FMA (which
// fused_like_pytorch() requires on x86), so its std::fma is an instruction the loop can
// vectorise, not a libm call per element.
template <class T, bool kFused>
void uniform_block(const uint64_t* bits, T* p, int64_t m, T lo, T hi) {
  for (int64_t j = 0; j < m; ++j) p[j] = T(sampling::uniform_from_bits<T>(bits[j], lo, hi, kFused));
}
#if defined(__x86_64__)
template <class T>
__attribute__((target("avx2,fma"))) void uniform_block_fma(const uint64_t* bits, T* p, int64_t m, T lo, T hi) {
  for (int64_t j = 0; j < m; ++j) p[j] = T(sampling::uniform_from_bits<T>(bits[j], lo, hi, true));
}
#else
template <class T>
void uniform_block_fma(const uint64_t* bits, T* p, int64_t m, T lo, T hi) {
  uniform_block<T, true>(bits, p, m, lo, hi);
}
#endif
template <class T>
void uniform_contiguous(GeneratorImpl& gen, T* p, int64_t n, T lo, T hi, bool fused) {
  constexpr int64_t kBlock = 512;
  uint64_t bits[kBlock];
  for (int64_t c = 0; c < n; c += kBlock) {
    const int64_t m = std::min(kBlock, n - c);
    for (int64_t j = 0; j < m; ++j) bits[j] = std::is_same_v<T, double> ? gen.random64() : gen.random();
    if (fused) {
      uniform_block_fma<T>(bits, p + c, m, lo, hi);
    } else {
      uniform_block<T, false>(bits, p + c, m, lo, hi);
    }
  }
}
}  // namespace


Tensor& uniform_(Tensor& self, double from, double to, OptGen g) {
  check_defined(self, "uniform_");
  if (self.is_complex()) {  // the real and imaginary parts are independent uniforms
    Tensor parts = view_as_real(self);
    uniform_(parts, from, to, g);
    self.bump_version();
    return self;
  }
  check_floating(self, "uniform_");
  visit_dtype<kSampledFloats>(self.scalar_type(), "uniform_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    check_uniform_bounds<T>(from, to, self.scalar_type());
  });
  const bool fused = sampling::fused_like_pytorch();
  const DeviceSampleArgs dev{DeviceSampler::Uniform, from, to};
  return sample_(self, g, "uniform_", [&](GeneratorImpl& gen) {
    visit_dtype<kSampledFloats>(self.scalar_type(), "uniform_", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T lo = T(from), hi = T(to);
      if (self.is_contiguous()) {
        uniform_contiguous<T>(gen, self.data_ptr<T>(), self.numel(), lo, hi, fused);
      } else {
        fill_in_order<T>(self, [&] { return T(sampling::uniform_real<T>(gen, lo, hi, fused)); });
      }
    });
  }, &dev);
}

namespace {
// PyTorch's normal_kernel: contiguous tensors of 16 or more elements take the 16-at-a-time
// Box-Muller (all uniforms first, then the transform; a ragged tail redraws the last 16), the
// rest the scalar normal_distribution<double>, element by element.
template <class T>
void normal_fill(GeneratorImpl& gen, T* data, int64_t n, T mean, T std, bool fused) {
  // PyTorch's AVX2 build transforms floats with vector log and sincos (the CPU kernel).
  sampling::NormalFill16Fn avx2 = nullptr;
  if constexpr (std::is_same_v<T, float>)
    if (fused) avx2 = reinterpret_cast<sampling::NormalFill16Fn>(lookup_kernel("normal_fill16_avx2", kCPU));
  auto transform = [&](T* p, int64_t blocks) {
    if constexpr (std::is_same_v<T, float>) {
      if (avx2) return avx2(p, blocks, mean, std);
    }
    for (int64_t b = 0; b < blocks; ++b) sampling::normal_fill16<T>(p + 16 * b, mean, std, fused);
  };
  for (int64_t i = 0; i < n; ++i) data[i] = T(sampling::uniform_real<T>(gen, T(0), T(1), fused));
  transform(data, n / 16);
  if (n % 16 != 0) {
    T* tail = data + n - 16;
    for (int i = 0; i < 16; ++i) tail[i] = T(sampling::uniform_real<T>(gen, T(0), T(1), fused));
    transform(tail, 1);
  }
}
}  // namespace

Tensor& normal_(Tensor& self, double mean, double std, OptGen g) {
  check_defined(self, "normal_");
  EMBER_CHECK(std >= 0.0, "normal_: expects std >= 0.0, but found std ", std);
  if (self.is_complex()) {
    // A complex normal with variance std^2 has independent real and imaginary parts of
    // variance std^2 / 2 (the mean goes into both parts).
    Tensor parts = view_as_real(self);
    normal_(parts, mean, std / std::sqrt(2.0), g);
    self.bump_version();
    return self;
  }
  check_floating(self, "normal_");
  const bool fused = sampling::fused_like_pytorch();
  const DeviceSampleArgs dev{DeviceSampler::Normal, mean, std};
  return sample_(self, g, "normal_", [&](GeneratorImpl& gen) {
    visit_dtype<kSampledFloats>(self.scalar_type(), "normal_", [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (self.numel() >= 16 && self.is_contiguous()) {
        normal_fill<T>(gen, self.data_ptr<T>(), self.numel(), T(mean), T(std), fused);
      } else {
        fill_in_order<T>(self, [&] { return T(sampling::normal_double(gen, mean, std, fused)); });
      }
    });
  }, &dev);
}

Tensor& log_normal_(Tensor& self, double mean, double std, OptGen g) {
  check_defined(self, "log_normal_");
  EMBER_CHECK(std > 0.0, "log_normal_: expects std > 0.0, but found std=", std);
  check_floating(self, "log_normal_");
  const bool fused = sampling::fused_like_pytorch();
  const DeviceSampleArgs dev{DeviceSampler::LogNormal, mean, std};
  return sample_(self, g, "log_normal_", [&](GeneratorImpl& gen) {
    visit_dtype<kSampledFloats>(self.scalar_type(), "log_normal_", [&](auto tag) {
      using T = typename decltype(tag)::type;
      fill_in_order<T>(self, [&] { return T(std::exp(sampling::normal_double(gen, mean, std, fused))); });
    });
  }, &dev);
}

// ---- exponential, Cauchy, geometric, Bernoulli ------------------------------------------------

Tensor& exponential_(Tensor& self, double lambd, OptGen g) {
  check_defined(self, "exponential_");
  EMBER_CHECK(lambd >= 0.0, "exponential_: expects lambda >= 0.0, but found lambda=", lambd);
  check_floating(self, "exponential_");
  const DeviceSampleArgs dev{DeviceSampler::Exponential, lambd};
  return sample_(self, g, "exponential_", [&](GeneratorImpl& gen) {
    visit_dtype<kSampledFloats>(self.scalar_type(), "exponential_", [&](auto tag) {
      using T = typename decltype(tag)::type;
      fill_in_order<T>(self, [&] { return T(sampling::exponential(gen, lambd)); });
    });
  }, &dev);
}

Tensor& cauchy_(Tensor& self, double median, double sigma, OptGen g) {
  check_defined(self, "cauchy_");
  check_floating(self, "cauchy_");
  const DeviceSampleArgs dev{DeviceSampler::Cauchy, median, sigma};
  return sample_(self, g, "cauchy_", [&](GeneratorImpl& gen) {
    visit_dtype<kSampledFloats>(self.scalar_type(), "cauchy_", [&](auto tag) {
      using T = typename decltype(tag)::type;
      fill_in_order<T>(self, [&] { return T(sampling::cauchy(gen, median, sigma)); });
    });
  }, &dev);
}

Tensor& geometric_(Tensor& self, double p, OptGen g) {
  check_defined(self, "geometric_");
  EMBER_CHECK(p > 0 && p < 1, "geometric_: expects p to be in (0, 1), but got p=", p);
  EMBER_CHECK_TYPE(!self.is_complex() && self.scalar_type() != kBool, "geometric_: not implemented for ",
                   self.scalar_type());
  const DeviceSampleArgs dev{DeviceSampler::Geometric, p};
  return sample_(self, g, "geometric_", [&](GeneratorImpl& gen) {
    visit_dtype<kRealTypes>(self.scalar_type(), "geometric_", [&](auto tag) {
      using T = typename decltype(tag)::type;
      fill_in_order<T>(self, [&] { return T(sampling::geometric(gen, p)); });
    });
  }, &dev);
}

Tensor& bernoulli_(Tensor& self, double p, OptGen g) {
  check_defined(self, "bernoulli_");
  EMBER_CHECK(p >= 0 && p <= 1, "bernoulli_: expects p to be in [0, 1], but got p=", p);
  EMBER_CHECK_TYPE(!self.is_complex() && (self.scalar_type() != kHalf || !self.is_cpu()),
                   "bernoulli_: not implemented for ", self.scalar_type(), " on ", self.device());
  const DeviceSampleArgs dev{DeviceSampler::Bernoulli, p};
  return sample_(self, g, "bernoulli_", [&](GeneratorImpl& gen) {
    visit_dtype<kRealTypes | kBoolType>(self.scalar_type(), "bernoulli_", [&](auto tag) {
      using T = typename decltype(tag)::type;
      fill_in_order<T>(self, [&] { return T(sampling::uniform01(gen) < p); });
    });
  }, &dev);
}

Tensor& bernoulli_(Tensor& self, const Tensor& p, OptGen g) {
  check_defined(self, "bernoulli_");
  check_defined(p, "bernoulli_", "p");
  EMBER_CHECK_TYPE(p.is_floating_point(), "bernoulli_: expected a floating point probability tensor, got ",
                   p.scalar_type());
  EMBER_CHECK_TYPE(!self.is_complex() && (self.scalar_type() != kHalf || !self.is_cpu()),
                   "bernoulli_: not implemented for ", self.scalar_type(), " on ", self.device());
  EMBER_CHECK_TYPE(p.scalar_type() != kHalf || !self.is_cpu(),
                   "bernoulli_: a Half probability tensor is not supported on the CPU");
  bool expandable = p.dim() <= self.dim();
  for (int64_t i = 1; expandable && i <= p.dim(); ++i)
    expandable = p.size(-i) == 1 || p.size(-i) == self.size(-i);
  EMBER_CHECK(expandable, "bernoulli_: the probability tensor of shape ", p.sizes(),
              " cannot be expanded to the shape of self ", self.sizes());
  // The probabilities in self's memory order; a float64 p is compared in double, others in
  // float, each drawing as at::bernoulli_distribution of that precision does.
  const bool wide = p.scalar_type() == kDouble;
  Tensor probs;
  {
    autograd::BelowAutogradGuard below;
    probs = p.detach().expand(self.sizes());
    // The CPU draws in memory order; a device sampler writes a contiguous temporary.
    if (self.is_cpu() && !self.is_contiguous()) probs = probs.permute(memory_order(self));
    probs = probs.to(self.device(), wide ? kDouble : kFloat).contiguous();
  }
  EMBER_CHECK(!probs.lt(0).logical_or(probs.gt(1)).any().item<bool>(),
              "bernoulli_: expects all probabilities in [0, 1]");
  const bool fused = sampling::fused_like_pytorch();
  DeviceSampleArgs dev{DeviceSampler::BernoulliTensor};
  if (!self.is_cpu()) dev.p = probs;
  return sample_(self, g, "bernoulli_", [&](GeneratorImpl& gen) {
    visit_dtype<kRealTypes | kBoolType>(self.scalar_type(), "bernoulli_", [&](auto tag) {
      using T = typename decltype(tag)::type;
      int64_t i = 0;
      if (wide) {
        const double* pp = probs.data_ptr<double>();
        fill_in_order<T>(self, [&] { return T(sampling::uniform01(gen) < pp[i++]); });
      } else {
        const float* pp = probs.data_ptr<float>();
        fill_in_order<T>(self, [&] { return T(sampling::uniform_real<float>(gen, 0.0f, 1.0f, fused) < pp[i++]); });
      }
    });
  }, &dev);
}

Tensor bernoulli(const Tensor& p, OptGen g) {
  check_defined(p, "bernoulli", "p");
  Tensor r = empty_like(p, TensorOptions().requires_grad(false), MemoryFormat::Contiguous);
  return bernoulli_(r, p, g);
}
Tensor bernoulli(const Tensor& self, double p, OptGen g) {
  check_defined(self, "bernoulli");
  Tensor r = empty_like(self, TensorOptions().requires_grad(false), MemoryFormat::Contiguous);
  return bernoulli_(r, p, g);
}

// ---- integers ------------------------------------------------------------------------------

namespace {
template <class T> constexpr int kDigitsOf() { return sampling::kDigits<T>; }
template <class T> constexpr bool kIsFloat = std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
                                             std::is_same_v<T, BFloat16>;
// An int64 as PyTorch converts it to T (c10's Half and BFloat16 convert through float).
template <class T> T from_int64(int64_t v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) return T(float(v));
  else return static_cast<T>(v);
}
template <class T> int64_t to_int64(T v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) return int64_t(float(v));
  else return static_cast<int64_t>(v);
}
// PyTorch's update_from / update_to: a bound a floating dtype cannot hold exactly moves inward
// to one it can.
template <class T> int64_t representable_from(int64_t from) {
  const int64_t up = to_int64(from_int64<T>(from + 1));
  if (up < from) {
    int64_t a = std::abs(from + 1);
    int n = 0;
    while (a >>= 1) ++n;
    from = up + (int64_t(1) << (n - kDigitsOf<T>() + 1));
  }
  return from;
}
template <class T> int64_t representable_to(int64_t to) {
  const int64_t down = to_int64(from_int64<T>(to - 1));
  if (down >= to) {
    int64_t a = std::abs(to - 1);
    int n = 0;
    while (a >>= 1) ++n;
    to = down - (int64_t(1) << (n - kDigitsOf<T>() + 1));
  }
  return to;
}

// from and to - 1 must be values of the dtype (PyTorch: check_from_to_in_range).
template <class T> void check_from_to(int64_t from, int64_t to_inc, ScalarType dt) {
  if constexpr (kIsFloat<T>) {
    const double lo = double(std::numeric_limits<T>::lowest()), hi = double(std::numeric_limits<T>::max());
    EMBER_CHECK(double(from) >= lo && double(from) <= hi, "random_: from is out of bounds for ", dt);
    EMBER_CHECK(double(to_inc) >= lo && double(to_inc) <= hi, "random_: to - 1 is out of bounds for ", dt);
    const int64_t limit = int64_t(1) << kDigitsOf<T>();
    for (int64_t v : {from, to_inc})
      if (v < -limit || v > limit)
        EMBER_WARN("random_: ", v == from ? "from" : "to - 1", " is out of bounds [-(2^", kDigitsOf<T>(), "), 2^",
                   kDigitsOf<T>(), "]. Due to precision limitations ", dt,
                   " can support discrete uniform distribution only within this range.");
  } else {
    const int64_t lo = std::is_same_v<T, bool> ? 0 : int64_t(std::numeric_limits<T>::lowest());
    const int64_t hi = std::is_same_v<T, bool> ? 1 : int64_t(std::numeric_limits<T>::max());
    EMBER_CHECK(from >= lo && from <= hi, "random_: from is out of bounds for ", dt);
    EMBER_CHECK(to_inc >= lo && to_inc <= hi, "random_: to - 1 is out of bounds for ", dt);
  }
}
}  // namespace

Tensor& random_(Tensor& self, int64_t from, std::optional<int64_t> to, OptGen g) {
  check_defined(self, "random_");
  EMBER_CHECK_TYPE(!self.is_complex(), "random_: not implemented for ", self.scalar_type());
  constexpr DtypeSet kTypes = kRealTypes | kBoolType;
  // {range, base}, or range 0 for the full 64-bit range (from = INT64_MIN without to).
  uint64_t range = 0;
  visit_dtype<kTypes>(self.scalar_type(), "random_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const ScalarType dt = self.scalar_type();
    if (to) {
      int64_t hi = *to;
      EMBER_CHECK(from < hi, "random_: expects 'from' to be less than 'to', but got from=", from, " >= to=", hi);
      if constexpr (kIsFloat<T>) {
        from = representable_from<T>(from);
        hi = representable_to<T>(hi);
        EMBER_CHECK(from < hi, "random_: expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                    "but got from=", from, " >= to=", hi);
      }
      check_from_to<T>(from, hi - 1, dt);
      range = uint64_t(hi) - uint64_t(from);
    } else if (from != std::numeric_limits<int64_t>::lowest()) {
      int64_t to_inc;
      if constexpr (kIsFloat<T>) {
        to_inc = int64_t(1) << kDigitsOf<T>();
        from = representable_from<T>(from);
        EMBER_CHECK(from < to_inc, "random_: expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                    "casted to dtype, but got from=", from, " > to_inc=", to_inc);
      } else if constexpr (std::is_same_v<T, bool>) {
        to_inc = 1;
      } else {
        to_inc = int64_t(std::numeric_limits<T>::max());
      }
      check_from_to<T>(from, to_inc, dt);
      range = uint64_t(to_inc) - uint64_t(from) + 1;
    } else {
      EMBER_CHECK_TYPE((std::is_same_v<T, int64_t> || std::is_same_v<T, double> || std::is_same_v<T, float> ||
                        std::is_same_v<T, BFloat16>),
                       "random_: the full 64-bit range handles only int64, double, float and bfloat16, got ", dt);
    }
  });
  DeviceSampleArgs dev{DeviceSampler::Random};
  dev.range = range;
  dev.base = from;
  return sample_(self, g, "random_", [&](GeneratorImpl& gen) {
    visit_dtype<kTypes>(self.scalar_type(), "random_", [&](auto tag) {
      using T = typename decltype(tag)::type;
      constexpr bool kWide = std::is_same_v<T, int64_t> || std::is_same_v<T, double> || std::is_same_v<T, float> ||
                             std::is_same_v<T, BFloat16>;
      auto cast = [](uint64_t v) { return from_int64<T>(int64_t(v)); };
      if (range == 0) {
        fill_in_order<T>(self, [&] { return cast(gen.random64()); });
      } else if (kWide && range >= (uint64_t(1) << 32)) {
        fill_in_order<T>(self, [&] { return cast(gen.random64() % range + uint64_t(from)); });
      } else {
        fill_in_order<T>(self, [&] { return cast(uint64_t(gen.random()) % range + uint64_t(from)); });
      }
    });
  }, &dev);
}

// ---- factories ------------------------------------------------------------------------------

namespace {
// A fresh tensor filled by `fill`, which must not record autograd; requires_grad applies after.
template <class Fill>
Tensor sampled(IntArrayRef size, const TensorOptions& o, Fill&& fill) {
  Tensor t = empty(size, o.requires_grad(false));
  fill(t);
  if (o.requires_grad()) t.requires_grad_(true);
  return t;
}
}  // namespace

Tensor rand(IntArrayRef size, const TensorOptions& o) { return rand(size, std::nullopt, o); }
Tensor rand(IntArrayRef size, OptGen g, const TensorOptions& o) {
  return sampled(size, o, [&](Tensor& t) { uniform_(t, 0, 1, g); });
}
Tensor randn(IntArrayRef size, const TensorOptions& o) { return randn(size, std::nullopt, o); }
Tensor randn(IntArrayRef size, OptGen g, const TensorOptions& o) {
  return sampled(size, o, [&](Tensor& t) { normal_(t, 0, 1, g); });
}
Tensor randint(int64_t high, IntArrayRef size, const TensorOptions& o) {
  return randint(0, high, size, std::nullopt, o);
}
Tensor randint(int64_t high, IntArrayRef size, OptGen g, const TensorOptions& o) {
  return randint(0, high, size, g, o);
}
Tensor randint(int64_t low, int64_t high, IntArrayRef size, const TensorOptions& o) {
  return randint(low, high, size, std::nullopt, o);
}
Tensor randint(int64_t low, int64_t high, IntArrayRef size, OptGen g, const TensorOptions& o) {
  EMBER_CHECK(low < high, "randint: expects 'low' to be less than 'high', but got low=", low, " >= high=", high);
  return sampled(size, o.has_dtype() ? o : o.dtype(kLong), [&](Tensor& t) { random_(t, low, high, g); });
}
Tensor rand_like(const Tensor& t, const TensorOptions& o) {
  Tensor r = empty_like(t, o.requires_grad(false));
  uniform_(r, 0, 1);
  return o.requires_grad() ? r.requires_grad_(true) : r;
}
Tensor randn_like(const Tensor& t, const TensorOptions& o) {
  Tensor r = empty_like(t, o.requires_grad(false));
  normal_(r, 0, 1);
  return o.requires_grad() ? r.requires_grad_(true) : r;
}
Tensor randint_like(const Tensor& t, int64_t high, const TensorOptions& o) { return randint_like(t, 0, high, o); }
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const TensorOptions& o) {
  EMBER_CHECK(low < high, "randint_like: expects 'low' to be less than 'high', but got low=", low, " >= high=", high);
  Tensor r = empty_like(t, o.requires_grad(false));
  return random_(r, low, high);
}

// PyTorch's randperm on the CPU: for i = 0 .. n-2, swap r[i] with r[i + random() % (n - i)].
Tensor randperm(int64_t n, const TensorOptions& o) { return randperm(n, std::nullopt, o); }
Tensor randperm(int64_t n, OptGen g, const TensorOptions& o) {
  EMBER_CHECK(n >= 0, "randperm: n must be non-negative, got ", n);
  const ScalarType dt = o.dtype_opt().value_or(kLong);
  EMBER_CHECK_TYPE(!isComplexType(dt) && dt != kBool, "randperm: not implemented for ", dt);
  visit_dtype<kRealTypes>(dt, "randperm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloat<T>) {
      EMBER_CHECK(n <= (int64_t(1) << kDigitsOf<T>()) + 1, "randperm: n is too large for result tensor type: '",
                  dt, "'");
    } else {
      EMBER_CHECK(uint64_t(n) <= uint64_t(std::numeric_limits<T>::max()) + 1,
                  "randperm: n is too large for result tensor type: '", dt, "'");
    }
  });
  Tensor idx = empty({n}, dtype(kLong));
  int64_t* p = idx.data_ptr<int64_t>();
  std::iota(p, p + n, int64_t(0));
  if (n > 1) {
    GeneratorImpl& gen = gen_of(g, "randperm");
    std::lock_guard<std::mutex> lock(gen.mutex_);
    for (int64_t i = 0; i < n - 1; ++i) std::swap(p[i], p[i + int64_t(gen.random()) % (n - i)]);
  }
  // Shuffled on the CPU by the generator, then moved: the same permutation on every device.
  Tensor r = idx.to(o.device(), dt);
  if (o.requires_grad()) r.requires_grad_(true);
  return r;
}

Tensor normal(double mean, double std, IntArrayRef size, OptGen g, const TensorOptions& o) {
  return sampled(size, o, [&](Tensor& t) { normal_(t, mean, std, g); });
}

namespace {
void check_std_tensor(const Tensor& std) {
  EMBER_CHECK_TYPE(!std.is_complex(), "normal: expects standard deviation to be non-complex");
  EMBER_CHECK(std.numel() == 0 || std.is_meta() || !std.lt(0).any().item<bool>(),
              "normal: expects all elements of std >= 0.0");
}
}  // namespace

// As PyTorch's normal_out_impl: standard normals in a contiguous result, then scaled and moved.
Tensor normal(const Tensor& mean, const Tensor& std, OptGen g) {
  check_defined(mean, "normal", "mean");
  check_defined(std, "normal", "std");
  check_std_tensor(std);
  Tensor z = empty(broadcast_shapes(mean.sizes(), std.sizes()), mean.options().requires_grad(false));
  normal_(z, 0, 1, g);
  return z.mul_(std).add_(mean);
}
Tensor normal(const Tensor& mean, double std, OptGen g) {
  check_defined(mean, "normal", "mean");
  EMBER_CHECK(std >= 0.0, "normal: expects std >= 0.0, but found std ", std);
  Tensor z = empty_like(mean, TensorOptions().requires_grad(false), MemoryFormat::Contiguous);
  normal_(z, 0, std, g);
  return z.add_(mean);
}
Tensor normal(double mean, const Tensor& std, OptGen g) {
  check_defined(std, "normal", "std");
  check_std_tensor(std);
  Tensor z = empty_like(std, TensorOptions().requires_grad(false), MemoryFormat::Contiguous);
  normal_(z, 0, 1, g);
  return z.mul_(std).add_(full({}, mean, z.options()));
}

// ---- multinomial ----------------------------------------------------------------------------

namespace {
// With replacement (PyTorch's multinomial_with_replacement_apply): per row, the cumulative
// distribution in the input's precision (float for bfloat16), normalized, its last entry set
// to 1; each sample a binary search for one double uniform.
template <class T>
void multinomial_with_replacement(const Tensor& probs, int64_t n_sample, GeneratorImpl& gen, int64_t* out) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const int64_t rows = probs.size(0), ncat = probs.size(1);
  const T* p = probs.data_ptr<T>();
  std::vector<C> cdf(static_cast<size_t>(ncat));
  for (int64_t r = 0; r < rows; ++r) {
    C sum = 0;
    for (int64_t c = 0; c < ncat; ++c) {
      const C v = C(p[r * ncat + c]);
      EMBER_CHECK(v >= 0, "multinomial: invalid multinomial distribution (encountering probability entry < 0)");
      EMBER_CHECK(std::isfinite(v),
                  "multinomial: invalid multinomial distribution (encountering probability entry = infinity or NaN)");
      sum += v;
      cdf[size_t(c)] = sum;
    }
    EMBER_CHECK(sum > 0, "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
    for (C& v : cdf) v /= sum;
    cdf.back() = 1;
    for (int64_t s = 0; s < n_sample; ++s) {
      const double u = sampling::uniform01(gen);
      int64_t left = 0, right = ncat;
      while (right - left > 0) {
        const int64_t mid = left + (right - left) / 2;
        if (double(cdf[size_t(mid)]) < u) left = mid + 1;
        else right = mid;
      }
      out[r * n_sample + s] = left;
    }
  }
}
}  // namespace

Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement, OptGen g) {
  check_defined(probs, "multinomial");
  EMBER_CHECK(probs.dim() == 1 || probs.dim() == 2, "multinomial: prob_dist must be 1 or 2 dim, got ", probs.dim());
  EMBER_CHECK_TYPE(probs.is_floating_point(), "multinomial: only supports floating-point dtypes for input, got: ",
                   probs.scalar_type());
  EMBER_CHECK(num_samples > 0, "multinomial: cannot sample n_sample <= 0 samples");
  const int64_t ncat = probs.size(-1);
  EMBER_CHECK(replacement || num_samples <= ncat, "multinomial: cannot sample n_sample > prob_dist.size(-1) "
              "samples without replacement (", num_samples, " > ", ncat, ")");
  EMBER_CHECK(ncat <= (int64_t(1) << 24), "multinomial: number of categories cannot exceed 2^24");
  EMBER_CHECK_TYPE(probs.scalar_type() != kHalf, "multinomial: not implemented for half on CPU");
  NoGradGuard no_grad;
  const Tensor p2 = (probs.dim() == 1 ? probs.unsqueeze(0) : probs).detach();
  const int64_t rows = p2.size(0);
  if (rows == 0) return empty(probs.dim() == 1 ? DimVector{num_samples} : DimVector{0, num_samples}, dtype(kLong));
  if (!replacement) {
    // Sampling without replacement (PyTorch's fast path): the k largest p / q, q ~ Exp(1).
    EMBER_CHECK(p2.isfinite().all().item<bool>() && !p2.lt(0).any().item<bool>(),
                "multinomial: probability tensor contains either `inf`, `nan` or element < 0");
    EMBER_CHECK(!p2.sum(1).eq(0).any().item<bool>(),
                "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
    Tensor q = empty_like(probs, TensorOptions().requires_grad(false));
    exponential_(q, 1, g);
    q = probs.div(q);
    Tensor idx = num_samples == 1 ? q.argmax(-1, true) : std::get<1>(q.topk(num_samples));
    return idx;
  }
  Tensor out = empty({rows, num_samples}, dtype(kLong));
  const Tensor pc = p2.contiguous();
  GeneratorImpl& gen = gen_of(g, "multinomial");
  std::lock_guard<std::mutex> lock(gen.mutex_);
  visit_dtype<kFloatingTypes>(pc.scalar_type(), "multinomial", [&](auto tag) {
    using T = typename decltype(tag)::type;
    multinomial_with_replacement<T>(pc, num_samples, gen, out.data_ptr<int64_t>());
  });
  return probs.dim() == 1 ? out.squeeze(0) : out;
}

// ---- which formulas PyTorch's kernels use here ----------------------------------------------

namespace sampling {

bool fused_like_pytorch() {
#if defined(__x86_64__)
  static const bool fused = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return fused;
#elif defined(__aarch64__)
  return true;  // every AArch64 CPU has FMA, and GCC contracts there by default (CMakeLists.txt)
#else
  return false;
#endif
}

}  // namespace sampling

}  // namespace ember
