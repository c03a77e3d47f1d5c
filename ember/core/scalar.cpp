// Scalar conversions. Converting a complex with a non-zero imaginary part to a real type,
// or a non-integral value where integers are needed, is allowed as in LibTorch (it truncates);
// ops that must refuse it check the Scalar's tag.
#include "ember/core/scalar.h"

#include <cmath>
#include <ostream>

namespace ember {

ScalarType Scalar::type() const {
  switch (tag_) {
    case Tag::Bool: return kBool;
    case Tag::Int: return kLong;
    case Tag::Double: return kDouble;
    case Tag::Complex: return kComplexDouble;
  }
  return kDouble;
}

double Scalar::toDouble() const {
  switch (tag_) {
    case Tag::Bool: case Tag::Int: return static_cast<double>(v_.i);
    case Tag::Double: return v_.d;
    case Tag::Complex: return v_.z[0];
  }
  return 0;
}

int64_t Scalar::toLong() const {
  switch (tag_) {
    case Tag::Bool: case Tag::Int: return v_.i;
    case Tag::Double:
    case Tag::Complex: {
      // [-2^63, 2^63): what int64 holds (NaN fails both comparisons).
      const double d = tag_ == Tag::Double ? v_.d : v_.z[0];
      EMBER_CHECK(d >= -9223372036854775808.0 && d < 9223372036854775808.0,
                  "Scalar: value ", d, " cannot be converted to an integer without overflow");
      return static_cast<int64_t>(d);
    }
  }
  return 0;
}

bool Scalar::toBool() const {
  switch (tag_) {
    case Tag::Bool: case Tag::Int: return v_.i != 0;
    case Tag::Double: return v_.d != 0;
    case Tag::Complex: return v_.z[0] != 0 || v_.z[1] != 0;
  }
  return false;
}

Complex<double> Scalar::toComplexDouble() const {
  if (tag_ == Tag::Complex) return {v_.z[0], v_.z[1]};
  return {toDouble(), 0.0};
}

Scalar Scalar::operator-() const {
  switch (tag_) {
    case Tag::Bool: EMBER_ERROR("Scalar: negation of a bool is not supported");
    case Tag::Int: return Scalar(-v_.i);
    case Tag::Double: return Scalar(-v_.d);
    case Tag::Complex: return Scalar(Complex<double>(-v_.z[0], -v_.z[1]));
  }
  return *this;
}

bool Scalar::equal(const Scalar& o) const {
  if (isComplex() || o.isComplex()) return toComplexDouble() == o.toComplexDouble();
  if (isFloatingPoint() || o.isFloatingPoint()) return toDouble() == o.toDouble();
  return toLong() == o.toLong();
}

std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  switch (s.tag()) {
    case Scalar::Tag::Bool: return os << (s.toBool() ? "true" : "false");
    case Scalar::Tag::Int: return os << s.toLong();
    case Scalar::Tag::Double: return os << s.toDouble();
    case Scalar::Tag::Complex: {
      auto z = s.toComplexDouble();
      return os << z.real() << (z.imag() < 0 ? "-" : "+") << std::abs(z.imag()) << "j";
    }
  }
  return os;
}

}  // namespace ember
