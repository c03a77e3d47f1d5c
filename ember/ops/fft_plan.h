// Internal: ember's own FFT core behind torch::fft (fft, ifft, rfft, irfft, fft2, fftn, hfft...).
// A Plan is one transform length: complex <-> complex and real <-> half-spectrum, float and
// double, strided and batched, unnormalized (the caller scales). get_plan() caches plans.
#pragma once
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

namespace ember::fft_detail {

template <typename T>
class Engine;  // fft_plan.cpp: the complex transform of one length (mixed radix or Bluestein)
template <typename T>
class RealEngine;  // fft_plan.cpp: the packed half-length real transform of an even length

// Conventions (Note [FFT conventions]):
//  - forward:  out[k] = sum_j in[j] * exp(-2*pi*i*j*k/n)
//  - backward: out[k] = sum_j in[j] * exp(+2*pi*i*j*k/n)   (no 1/n: callers normalize)
//  - r2c is forward on real input and writes the n/2+1 non-redundant bins (numpy's rfft);
//    c2r is backward from those n/2+1 bins to n real values (numpy's irfft times n). c2r
//    reads the imaginary part of bin 0 and, for even n, of bin n/2 as zero, like pocketfft.
//  - Strides and distances count elements of the pointed-to type (T for real arrays,
//    std::complex<T> for complex ones) and may be negative.
//  - One transform may run in place: in == out with the same stride; any other overlap of
//    one transform's input and output is also fine (each call reads all input before it
//    writes). The *_many helpers run transform b on in + b*in_dist and out + b*out_dist in
//    order b = 0, 1, ...; in place needs the same layout on both sides.
// A Plan is immutable after construction apart from a lazily built real-transform part
// (guarded by std::call_once), so one plan may run from many threads at once; each call
// takes its scratch memory from a thread_local buffer (small sizes) or allocates it.
template <typename T>
class Plan {
 public:
  using Complex = std::complex<T>;

  // Throws std::invalid_argument (message names fft and n) unless n >= 1.
  explicit Plan(int64_t n);
  ~Plan();
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  int64_t size() const { return n_; }
  // True when the complex transform of this length uses Bluestein's algorithm (n has a
  // prime factor too large for a direct radix pass); for tests and benchmarks.
  bool uses_bluestein() const;

  // One complex transform of length n: in[j * in_stride] -> out[k * out_stride].
  void execute(const Complex* in, int64_t in_stride, Complex* out, int64_t out_stride,
               bool inverse) const;
  // howmany transforms; transform b reads in + b * in_dist and writes out + b * out_dist.
  void execute_many(int64_t howmany, const Complex* in, int64_t in_stride, int64_t in_dist,
                    Complex* out, int64_t out_stride, int64_t out_dist, bool inverse) const;

  // Forward real-to-complex: n reals in[j * in_stride] -> n/2+1 bins out[k * out_stride].
  void r2c(const T* in, int64_t in_stride, Complex* out, int64_t out_stride) const;
  void r2c_many(int64_t howmany, const T* in, int64_t in_stride, int64_t in_dist, Complex* out,
                int64_t out_stride, int64_t out_dist) const;

  // Backward complex-to-real: n/2+1 bins in[k * in_stride] -> n reals out[j * out_stride].
  void c2r(const Complex* in, int64_t in_stride, T* out, int64_t out_stride) const;
  void c2r_many(int64_t howmany, const Complex* in, int64_t in_stride, int64_t in_dist, T* out,
                int64_t out_stride, int64_t out_dist) const;

 private:
  const RealEngine<T>* real_engine() const;  // builds real_ on first use (even n >= 2)

  int64_t n_;
  std::unique_ptr<const Engine<T>> engine_;  // never null
  mutable std::once_flag real_once_;
  mutable std::unique_ptr<const RealEngine<T>> real_;  // set once by real_engine(); odd n: null
};

extern template class Plan<float>;
extern template class Plan<double>;

// The plan cache: the kPlanCacheCapacity most recently used plans, keyed by length and
// precision. Thread-safe; a plan stays alive while a caller holds it, even once evicted.
// Throws like Plan(n) for n < 1.
inline constexpr size_t kPlanCacheCapacity = 64;
template <typename T>
std::shared_ptr<const Plan<T>> get_plan(int64_t n);
size_t plan_cache_size();
void clear_plan_cache();

}  // namespace ember::fft_detail
