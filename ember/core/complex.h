// ember::Complex<T>: the complex element type for complex32 (T = Half), complex64 and
// complex128 (LibTorch's c10::complex). Layout is {real, imag}. Complex<Half> is a storage
// type: its arithmetic widens to Complex<float>. Transcendentals go through std::complex.
#pragma once
#include <cmath>
#include <complex>
#include <type_traits>
#include <iosfwd>

#include "ember/core/half.h"
#if defined(__CUDACC__)
#include <cuda/std/complex>
#endif

namespace ember {

template <class T>
struct alignas(2 * sizeof(T)) Complex {
  T real_{}, imag_{};
  using value_type = T;
  constexpr Complex() = default;
  EMBER_HD constexpr Complex(T re, T im = T()) : real_(re), imag_(im) {}  // NOLINT
  template <class U>
  EMBER_HD explicit Complex(const Complex<U>& o) : real_(T(o.real_)), imag_(T(o.imag_)) {}
  Complex(const std::complex<T>& c) : real_(c.real()), imag_(c.imag()) {}  // NOLINT
  operator std::complex<T>() const { return {real_, imag_}; }  // NOLINT
  EMBER_HD constexpr T real() const { return real_; }
  EMBER_HD constexpr T imag() const { return imag_; }
  EMBER_HD void real(T v) { real_ = v; }
  EMBER_HD void imag(T v) { imag_ = v; }
};

// Complex<Half> converts to and from Complex<float> for arithmetic.
template <>
struct alignas(4) Complex<Half> {
  Half real_{}, imag_{};
  using value_type = Half;
  Complex() = default;
  EMBER_HD Complex(Half re, Half im = Half()) : real_(re), imag_(im) {}  // NOLINT
  EMBER_HD Complex(float re) : real_(re), imag_(0.f) {}  // NOLINT
  EMBER_HD Complex(const Complex<float>& c) : real_(c.real_), imag_(c.imag_) {}  // NOLINT
  EMBER_HD explicit Complex(const Complex<double>& c) : real_(float(c.real_)), imag_(float(c.imag_)) {}
  EMBER_HD operator Complex<float>() const { return {float(real_), float(imag_)}; }  // NOLINT
  EMBER_HD Half real() const { return real_; }
  EMBER_HD Half imag() const { return imag_; }
};

using ComplexHalf = Complex<Half>;

template <class T> EMBER_HD Complex<T> operator+(Complex<T> a, Complex<T> b) { return {a.real_ + b.real_, a.imag_ + b.imag_}; }
template <class T> EMBER_HD Complex<T> operator-(Complex<T> a, Complex<T> b) { return {a.real_ - b.real_, a.imag_ - b.imag_}; }
template <class T> EMBER_HD Complex<T> operator-(Complex<T> a) { return {-a.real_, -a.imag_}; }
template <class T> EMBER_HD Complex<T> operator*(Complex<T> a, Complex<T> b) {
  return {a.real_ * b.real_ - a.imag_ * b.imag_, a.real_ * b.imag_ + a.imag_ * b.real_};
}
template <class T> EMBER_HD Complex<T> operator/(Complex<T> a, Complex<T> b) {
  // Smith's algorithm: scales by the larger component to avoid overflow.
  T c = b.real_, d = b.imag_;
  if (std::abs(c) >= std::abs(d)) {
    T r = d / c, den = c + d * r;
    return {(a.real_ + a.imag_ * r) / den, (a.imag_ - a.real_ * r) / den};
  }
  T r = c / d, den = d + c * r;
  return {(a.real_ * r + a.imag_) / den, (a.imag_ * r - a.real_) / den};
}
template <class T> EMBER_HD Complex<T> operator*(Complex<T> a, T s) { return {a.real_ * s, a.imag_ * s}; }
template <class T> EMBER_HD Complex<T> operator*(T s, Complex<T> a) { return {a.real_ * s, a.imag_ * s}; }
template <class T> EMBER_HD Complex<T> operator/(Complex<T> a, T s) { return {a.real_ / s, a.imag_ / s}; }
template <class T> EMBER_HD Complex<T>& operator+=(Complex<T>& a, Complex<T> b) { return a = a + b; }
template <class T> EMBER_HD Complex<T>& operator-=(Complex<T>& a, Complex<T> b) { return a = a - b; }
template <class T> EMBER_HD Complex<T>& operator*=(Complex<T>& a, Complex<T> b) { return a = a * b; }
template <class T> EMBER_HD Complex<T>& operator/=(Complex<T>& a, Complex<T> b) { return a = a / b; }
template <class T> EMBER_HD bool operator==(Complex<T> a, Complex<T> b) { return a.real_ == b.real_ && a.imag_ == b.imag_; }
template <class T> EMBER_HD bool operator!=(Complex<T> a, Complex<T> b) { return !(a == b); }

inline Complex<float> operator+(ComplexHalf a, ComplexHalf b) { return Complex<float>(a) + Complex<float>(b); }
inline Complex<float> operator*(ComplexHalf a, ComplexHalf b) { return Complex<float>(a) * Complex<float>(b); }
inline bool operator==(ComplexHalf a, ComplexHalf b) { return a.real_ == b.real_ && a.imag_ == b.imag_; }

template <class T> EMBER_HD T real(Complex<T> a) { return a.real_; }
template <class T> EMBER_HD T imag(Complex<T> a) { return a.imag_; }
template <class T> EMBER_HD Complex<T> conj(Complex<T> a) { return {a.real_, -a.imag_}; }
template <class T> EMBER_HD T abs(Complex<T> a) { return std::hypot(a.real_, a.imag_); }
template <class T> EMBER_HD T arg(Complex<T> a) { return std::atan2(a.imag_, a.real_); }
template <class T> EMBER_HD T norm(Complex<T> a) { return a.real_ * a.real_ + a.imag_ * a.imag_; }

template <class T> EMBER_HD std::complex<T> to_std(Complex<T> a) { return {a.real_, a.imag_}; }

// complex64 transcendentals are evaluated in complex128 and rounded once (libstdc++'s
// float versions lose up to tens of ulp).
template <class T> using WideComplex = std::complex<std::conditional_t<std::is_same_v<T, float>, double, T>>;
// In CUDA device code, libcu++'s ::cuda::std::complex at T's own precision (as PyTorch's
// CUDA kernels compute).
#if defined(__CUDA_ARCH__)
#define EMBER_COMPLEX_VIA_STD(fn)                                                         \
  template <class T> EMBER_HD Complex<T> fn(Complex<T> a) {                               \
    auto r = ::cuda::std::fn(::cuda::std::complex<T>(a.real_, a.imag_));                      \
    return Complex<T>(r.real(), r.imag());                                                \
  }
#else
#define EMBER_COMPLEX_VIA_STD(fn)                                                         \
  template <class T> EMBER_HD Complex<T> fn(Complex<T> a) {                               \
    auto r = std::fn(WideComplex<T>(a.real_, a.imag_));                                   \
    return Complex<T>(T(r.real()), T(r.imag()));                                          \
  }
#endif
EMBER_COMPLEX_VIA_STD(exp) EMBER_COMPLEX_VIA_STD(log) EMBER_COMPLEX_VIA_STD(log10)
EMBER_COMPLEX_VIA_STD(sqrt) EMBER_COMPLEX_VIA_STD(sin) EMBER_COMPLEX_VIA_STD(cos)
EMBER_COMPLEX_VIA_STD(tan) EMBER_COMPLEX_VIA_STD(asin) EMBER_COMPLEX_VIA_STD(acos)
EMBER_COMPLEX_VIA_STD(atan) EMBER_COMPLEX_VIA_STD(sinh) EMBER_COMPLEX_VIA_STD(cosh)
EMBER_COMPLEX_VIA_STD(tanh) EMBER_COMPLEX_VIA_STD(asinh) EMBER_COMPLEX_VIA_STD(acosh)
EMBER_COMPLEX_VIA_STD(atanh)
#undef EMBER_COMPLEX_VIA_STD
template <class T> EMBER_HD Complex<T> pow(Complex<T> a, Complex<T> b) {
#if defined(__CUDA_ARCH__)
  auto r = ::cuda::std::pow(::cuda::std::complex<T>(a.real_, a.imag_), ::cuda::std::complex<T>(b.real_, b.imag_));
  return Complex<T>(r.real(), r.imag());
#else
  return Complex<T>(std::pow(to_std(a), to_std(b)));
#endif
}
template <class T> EMBER_HD Complex<T> polar(T r, T theta) {
#if defined(__CUDA_ARCH__)
  return Complex<T>(r * ::cos(theta), r * ::sin(theta));
#else
  return Complex<T>(std::polar(r, theta));
#endif
}

template <class T> std::ostream& operator<<(std::ostream& os, Complex<T> c);

}  // namespace ember
