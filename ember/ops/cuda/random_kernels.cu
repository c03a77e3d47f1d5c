// CUDA samplers (Note [Device sampling] in ember/ops/random_device.h): one kernel per dtype,
// the distribution chosen at run time; each element draws its own Philox counter.
#include "ember/core/generator.h"
#include "ember/ops/cuda/loops.cuh"
#include "ember/ops/random_device.h"

namespace ember::cuda {
namespace {

// Bool and the real types: what orders (a named constant: nvcc's host pass rejects the
// expression as a template argument in some contexts).
constexpr DtypeSet kOrderedTypes = kBoolType | kRealTypes;

// Uniform in [0, 1) from the top `digits` bits of a 32-bit number (the mantissa of T).
__device__ __forceinline__ float unit_float(uint32_t x, int digits) {
  return float(x >> (32 - digits)) * ::ldexpf(1.0f, -digits);
}
// Uniform in [0, 1) with 53 bits.
__device__ __forceinline__ double unit_double(uint32_t hi, uint32_t lo) {
  return double(((uint64_t(hi) << 32) | lo) >> 11) * 0x1p-53;
}

__device__ __forceinline__ float cos_pi(float x) { return ::cospif(x); }
__device__ __forceinline__ double cos_pi(double x) { return ::cospi(x); }

template <class T>
constexpr int kDigits = std::is_same_v<T, Half> ? 11 : std::is_same_v<T, BFloat16> ? 8 : 24;

using Words = std::array<uint32_t, 4>;

struct SampleDesc {
  DeviceSampler kind;
  double a, b;
  uint64_t range;
  int64_t base;
  const void* p;
  bool p_double;
  uint64_t seed, offset;
};

template <class T>
__device__ __forceinline__ T from_int64(int64_t v) {
  if constexpr (std::is_same_v<T, bool>) return v != 0;
  else if constexpr (std::is_integral_v<T>) return T(v);
  else return convert<T>(compute_t<T>(v));
}

template <class T>
__device__ T sample_one(const SampleDesc& d, const Words& r, int64_t i) {
  constexpr bool kFloating = !std::is_integral_v<T>;
  switch (d.kind) {
    case DeviceSampler::Bernoulli:
      return from_int64<T>(unit_double(r[0], r[1]) < d.a);
    case DeviceSampler::BernoulliTensor:
      if (d.p_double) return from_int64<T>(unit_double(r[0], r[1]) < static_cast<const double*>(d.p)[i]);
      return from_int64<T>(unit_float(r[0], 24) < static_cast<const float*>(d.p)[i]);
    case DeviceSampler::Random: {
      uint64_t v;
      if (d.range == 0) v = (uint64_t(r[0]) << 32) | r[1];
      else if (d.range < (uint64_t(1) << 32)) v = uint64_t(r[0]) % d.range + uint64_t(d.base);
      else v = ((uint64_t(r[0]) << 32) | r[1]) % d.range + uint64_t(d.base);
      return from_int64<T>(int64_t(v));
    }
    default:
      break;
  }
  if constexpr (kFloating) {
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    // Two uniforms: u in [0, 1), and w in (0, 1] for logarithms; uniform_ takes u with the
    // dtype's mantissa width (as the CPU), the transforms 24 bits (half and bfloat16 too:
    // 8 bits would put a visible share of normal draws exactly on the mean).
    C u, w;
    if constexpr (std::is_same_v<C, double>) {
      u = unit_double(r[0], r[1]);
      w = 1.0 - unit_double(r[2], r[3]);
    } else {
      u = unit_float(r[0], d.kind == DeviceSampler::Uniform ? kDigits<T> : 24);
      w = 1.0f - unit_float(r[2], 24);
    }
    const C a = C(d.a), b = C(d.b);
    C v;
    switch (d.kind) {
      case DeviceSampler::Uniform:
        v = a + u * (b - a);
        break;
      case DeviceSampler::Normal:
      case DeviceSampler::LogNormal: {
        // Box-Muller: w in (0, 1] keeps the logarithm finite.
        v = a + b * ::sqrt(C(-2) * ::log(w)) * cos_pi(C(2) * u);
        if (d.kind == DeviceSampler::LogNormal) v = ::exp(v);
        break;
      }
      case DeviceSampler::Exponential:
        v = -::log(w) / a;
        break;
      case DeviceSampler::Cauchy:
        v = a + b * ::tan(C(3.14159265358979323846) * (u - C(0.5)));
        break;
      case DeviceSampler::Geometric:
        v = ::ceil(::log(w) / ::log1p(-a));
        if (v < C(1)) v = C(1);
        break;
      default:
        v = C(0);
    }
    const T out = convert<T>(compute_t<T>(v));
    // [a, b): a value that rounded up to b (in C or in T) is taken as a.
    if (d.kind == DeviceSampler::Uniform && b > a && !(compute_t<T>(out) < compute_t<T>(convert<T>(compute_t<T>(b)))))
      return convert<T>(compute_t<T>(a));
    return out;
  } else {
    if (d.kind == DeviceSampler::Geometric) {
      const double w = 1.0 - unit_double(r[2], r[3]);
      const double v = ::ceil(::log(w) / ::log1p(-d.a));
      return T(v < 1 ? 1 : v);
    }
    return T(0);
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) sample_kernel(T* out, int64_t n, SampleDesc d) {
  for (int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads)
    out[i] = sample_one<T>(d, Philox4x32::draw(d.seed, d.offset + uint64_t(i)), i);
}

void sample(const Tensor& out, const DeviceSampleArgs& args) {
  EMBER_INTERNAL_ASSERT(out.is_contiguous(), "device sampler: expected a contiguous output");
  const int64_t n = out.numel();
  if (n == 0) return;
  const Device dev = out.device();
  CUDAGuard guard(dev.index());
  cudaStream_t stream = getCurrentCUDAStream(dev.index()).stream();
  SampleDesc d{args.kind, args.a, args.b, args.range, args.base, nullptr, false, args.seed, args.offset};
  if (args.kind == DeviceSampler::BernoulliTensor) {
    EMBER_INTERNAL_ASSERT(args.p.is_contiguous() && args.p.numel() == n && args.p.device() == dev &&
                          (args.p.scalar_type() == kFloat || args.p.scalar_type() == kDouble));
    d.p = args.p.data_ptr();
    d.p_double = args.p.scalar_type() == kDouble;
  }
  visit_dtype<kOrderedTypes>(out.scalar_type(), "random sampling", [&](auto tag) {
    using T = typename decltype(tag)::type;
    sample_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(static_cast<T*>(out.data_ptr()), n, d);
    EMBER_CUDA_CHECK(cudaGetLastError());
  });
}

const KernelRegistrar<DeviceSampleFn> sample_reg("device_sample", kCUDA, CpuCapability::Default, &sample);

}  // namespace
}  // namespace ember::cuda
