// Half and BFloat16: conversions to float for all 65536 bit patterns against PyTorch
// (tests/golden/half.golden), float -> half/bfloat16 round-to-nearest-even against PyTorch and
// against a reference computed from first principles (nearest representable value, ties to
// the even significand), infinities and NaNs kept; the scalar and the tensor (vectorized)
// conversion paths agree.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "test_util.h"

namespace ember::test {
namespace {

const GoldenCase& half_case(const std::string& name) {
  for (const GoldenCase& c : load_golden("half"))
    if (c.name == name) return c;
  throw std::runtime_error("half.golden has no case " + name);
}

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST(Half, ToFloatMatchesPyTorchForAllBitPatterns) {
  const GoldenCase& c = half_case("half_to_float");
  const float* want = c.expect.tensor.contiguous().data_ptr<float>();
  ASSERT_EQ(c.expect.tensor.numel(), 65536);
  int bad = 0;
  for (uint32_t i = 0; i < 65536; ++i) {
    float got = float(Half::from_bits(uint16_t(i)));
    bool ok = std::isnan(want[i]) ? std::isnan(got) : bits_of(got) == bits_of(want[i]);
    if (!ok && bad++ < 10) ADD_FAILURE() << "half bits 0x" << std::hex << i << ": got " << got << ", PyTorch " << want[i];
  }
  EXPECT_EQ(bad, 0);
}

TEST(BFloat16, ToFloatMatchesPyTorchForAllBitPatterns) {
  const GoldenCase& c = half_case("bfloat16_to_float");
  const float* want = c.expect.tensor.contiguous().data_ptr<float>();
  int bad = 0;
  for (uint32_t i = 0; i < 65536; ++i) {
    float got = float(BFloat16::from_bits(uint16_t(i)));
    bool ok = std::isnan(want[i]) ? std::isnan(got) : bits_of(got) == bits_of(want[i]);
    if (!ok && bad++ < 10) ADD_FAILURE() << "bf16 bits 0x" << std::hex << i << ": got " << got << ", PyTorch " << want[i];
  }
  EXPECT_EQ(bad, 0);
}

// The tensor conversion (vectorized kernels) of every bit pattern agrees with the scalar one.
TEST(Half, TensorConversionsOfAllBitPatternsMatchPyTorch) {
  for (const char* name : {"half_to_float", "bfloat16_to_float"}) {
    ScalarType t = std::string(name) == "half_to_float" ? kHalf : kBFloat16;
    Tensor bits = arange(0, 65536, TensorOptions().dtype(kInt)).to(kShort);
    Tensor h = empty({65536}, TensorOptions().dtype(t));
    std::memcpy(h.data_ptr(), bits.data_ptr(), 65536 * 2);
    Tensor f = h.to(kFloat);
    const float* got = f.data_ptr<float>();
    const float* want = half_case(name).expect.tensor.contiguous().data_ptr<float>();
    int bad = 0;
    for (int i = 0; i < 65536; ++i) {
      bool ok = std::isnan(want[i]) ? std::isnan(got[i]) : bits_of(got[i]) == bits_of(want[i]);
      if (!ok && bad++ < 5) ADD_FAILURE() << name << " 0x" << std::hex << i << ": got " << got[i] << ", want " << want[i];
    }
    EXPECT_EQ(bad, 0) << name;
    // and back: float -> storage type reproduces every non-NaN pattern
    Tensor back = f.to(t);
    const uint16_t* bp = static_cast<const uint16_t*>(back.data_ptr());
    int bad_back = 0;
    for (int i = 0; i < 65536; ++i)
      if (!std::isnan(want[i]) && bp[i] != uint16_t(i) && bad_back++ < 5)
        ADD_FAILURE() << name << " round trip 0x" << std::hex << i << " -> 0x" << bp[i];
    EXPECT_EQ(bad_back, 0) << name;
  }
}

void check_from_float(const char* name, ScalarType t) {
  const GoldenCase& c = half_case(name);
  Tensor xs = c.args.at(0).tensor.contiguous();
  Tensor want = c.expect.tensor.contiguous();
  const float* x = xs.data_ptr<float>();
  const uint16_t* w = static_cast<const uint16_t*>(want.data_ptr());
  Tensor vec = xs.to(t);  // the tensor (vectorized) path
  const uint16_t* v = static_cast<const uint16_t*>(vec.data_ptr());
  int bad = 0, bad_vec = 0;
  for (int64_t i = 0; i < xs.numel(); ++i) {
    uint16_t got = t == kHalf ? Half(x[i]).x : BFloat16(x[i]).x;
    bool want_nan = t == kHalf ? (w[i] & 0x7fff) > 0x7c00 : (w[i] & 0x7fff) > 0x7f80;
    bool got_nan = t == kHalf ? (got & 0x7fff) > 0x7c00 : (got & 0x7fff) > 0x7f80;
    bool vec_nan = t == kHalf ? (v[i] & 0x7fff) > 0x7c00 : (v[i] & 0x7fff) > 0x7f80;
    if (!(want_nan ? got_nan : got == w[i]) && bad++ < 10)
      ADD_FAILURE() << name << "(" << x[i] << " = 0x" << std::hex << bits_of(x[i]) << "): got 0x" << got
                    << ", PyTorch 0x" << w[i];
    if (!(want_nan ? vec_nan : v[i] == w[i]) && bad_vec++ < 10)
      ADD_FAILURE() << name << " tensor path (" << x[i] << " = 0x" << std::hex << bits_of(x[i]) << "): got 0x" << v[i]
                    << ", PyTorch 0x" << w[i];
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(bad_vec, 0);
}

TEST(Half, FromFloatMatchesPyTorch) { check_from_float("float_to_half", kHalf); }
TEST(BFloat16, FromFloatMatchesPyTorch) { check_from_float("float_to_bfloat16", kBFloat16); }

// Reference rounding from first principles: the finite values of the format, sorted; a float
// rounds to the nearest, ties to the one whose bit pattern is even; beyond the largest finite
// value by half an ulp or more it overflows to infinity.
struct Format {
  std::vector<double> values;   // non-negative finite values, ascending
  std::vector<uint16_t> bits;   // their bit patterns
  double overflow;              // max + ulp(max)/2: values >= this round to inf
  uint16_t inf_bits;
};
Format make_format(bool half) {
  Format f;
  for (uint32_t b = 0; b < 0x8000; ++b) {
    // decode independently of ember: sign 0, exponent and mantissa fields
    int e, m;
    double v;
    if (half) {
      e = (b >> 10) & 0x1f, m = b & 0x3ff;
      if (e == 0x1f) continue;
      v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
    } else {
      e = (b >> 7) & 0xff, m = b & 0x7f;
      if (e == 0xff) continue;
      v = e == 0 ? std::ldexp(m, -133) : std::ldexp(128 + m, e - 134);
    }
    f.values.push_back(v);
    f.bits.push_back(uint16_t(b));
  }
  double max = f.values.back(), prev = f.values[f.values.size() - 2];
  f.overflow = max + (max - prev) / 2;
  f.inf_bits = half ? 0x7c00 : 0x7f80;
  return f;
}
uint16_t reference_round(const Format& f, double x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  double a = std::fabs(x);
  if (a >= f.overflow) return sign | f.inf_bits;
  size_t hi = std::lower_bound(f.values.begin(), f.values.end(), a) - f.values.begin();
  if (hi < f.values.size() && f.values[hi] == a) return sign | f.bits[hi];
  size_t lo = hi - 1;
  if (hi == f.values.size()) return sign | f.bits[lo];
  double dlo = a - f.values[lo], dhi = f.values[hi] - a;
  size_t pick = dlo < dhi ? lo : dhi < dlo ? hi : ((f.bits[lo] & 1) ? hi : lo);
  return sign | f.bits[pick];
}

// Every midpoint between neighbouring values (the ties), and the floats just either side.
void check_ties_exhaustively(bool half) {
  Format f = make_format(half);
  int bad = 0, checked = 0;
  for (size_t i = 0; i + 1 < f.values.size(); ++i) {
    float mid = float((f.values[i] + f.values[i + 1]) / 2);  // exact: the formats have < 24 bits
    ASSERT_EQ(double(mid), (f.values[i] + f.values[i + 1]) / 2);
    for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f), float(f.values[i])}) {
      for (float s : {x, -x}) {
        uint16_t want = reference_round(f, s);
        uint16_t got = half ? Half(s).x : BFloat16(s).x;
        ++checked;
        if (got != want && bad++ < 10)
          ADD_FAILURE() << (half ? "Half(" : "BFloat16(") << s << " = 0x" << std::hex << bits_of(s) << "): got 0x" << got
                        << ", expected 0x" << want;
      }
    }
  }
  EXPECT_EQ(bad, 0);
  EXPECT_GT(checked, 200000);
}
TEST(Half, RoundsTiesToEvenExhaustively) { check_ties_exhaustively(true); }
TEST(BFloat16, RoundsTiesToEvenExhaustively) { check_ties_exhaustively(false); }

// A sweep through float bit patterns (every 1021st) against the first-principles reference.
TEST(Half, FromFloatSweepMatchesReference) {
  Format fh = make_format(true), fb = make_format(false);
  int bad = 0;
  for (uint64_t u = 0; u < 0x100000000ull; u += 1021) {
    float x = float_of(uint32_t(u));
    if (std::isnan(x)) continue;
    uint16_t wh = reference_round(fh, x), wb = reference_round(fb, x);
    if (Half(x).x != wh && bad++ < 10) ADD_FAILURE() << "Half(" << x << "): got 0x" << std::hex << Half(x).x << ", want 0x" << wh;
    if (BFloat16(x).x != wb && bad++ < 10)
      ADD_FAILURE() << "BFloat16(" << x << "): got 0x" << std::hex << BFloat16(x).x << ", want 0x" << wb;
  }
  EXPECT_EQ(bad, 0);
}

TEST(Half, InfinityAndNanArePreserved) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(Half(inf).x, 0x7c00);
  EXPECT_EQ(Half(-inf).x, 0xfc00);
  EXPECT_TRUE(std::isnan(float(Half(nan))));
  EXPECT_TRUE(std::isnan(float(Half(-nan))));
  EXPECT_EQ(BFloat16(inf).x, 0x7f80);
  EXPECT_EQ(BFloat16(-inf).x, 0xff80);
  EXPECT_TRUE(std::isnan(float(BFloat16(nan))));
  // signalling NaNs stay NaN (do not become infinity by truncation)
  EXPECT_TRUE(std::isnan(float(BFloat16(float_of(0x7f800001u)))));
  EXPECT_TRUE(std::isnan(float(Half(float_of(0x7f800001u)))));
  EXPECT_TRUE(std::isinf(float(Half::from_bits(0x7c00))));
  EXPECT_TRUE(std::isnan(float(Half::from_bits(0x7c01))));
  EXPECT_EQ(bits_of(float(Half(-0.0f))), 0x80000000u);
  EXPECT_EQ(bits_of(float(BFloat16(-0.0f))), 0x80000000u);
}

TEST(Half, RoundingTiesAndOverflow) {
  EXPECT_EQ(float(Half(65504.0f)), 65504.0f);
  EXPECT_EQ(float(Half(65519.99f)), 65504.0f);
  EXPECT_TRUE(std::isinf(float(Half(65520.0f))));   // the tie above the max rounds to inf (odd max)
  EXPECT_EQ(float(Half(1.0f + 1.0f / 2048)), 1.0f);  // tie: stays at the even 1.0
  EXPECT_EQ(float(Half(1.0f + 3.0f / 2048)), 1.0f + 2.0f / 1024);  // tie: up to the even neighbour
  EXPECT_EQ(float(Half(2.9802322387695312e-08f)), 0.0f);  // half the smallest subnormal: tie to 0
  EXPECT_EQ(float(Half(2.9802326e-08f)), 5.9604645e-08f);  // just above: the smallest subnormal
  EXPECT_EQ(float(BFloat16(1.0f + 1.0f / 256)), 1.0f);
  EXPECT_EQ(float(BFloat16(1.0f + 3.0f / 256)), 1.0f + 2.0f / 128);
  EXPECT_TRUE(std::isinf(float(BFloat16(std::numeric_limits<float>::max()))));
  EXPECT_EQ(float(std::numeric_limits<Half>::max()), 65504.0f);
  EXPECT_EQ(float(std::numeric_limits<Half>::lowest()), -65504.0f);
  EXPECT_EQ(float(std::numeric_limits<Half>::epsilon()), 0.0009765625f);
  EXPECT_EQ(float(std::numeric_limits<BFloat16>::epsilon()), 0.0078125f);
  EXPECT_EQ(float(std::numeric_limits<Half>::denorm_min()), 5.9604644775390625e-08f);
}

TEST(Half, ArithmeticRoundsOnce) {
  Half a(1.0f), b(0.00048828125f);  // b is half an ulp of 1: a + b ties to 1
  EXPECT_EQ(float(a + b), 1.0f);
  EXPECT_EQ(float(Half(3.0f) * Half(0.5f)), 1.5f);
  EXPECT_EQ(float(-Half(2.0f)), -2.0f);
  EXPECT_TRUE(Half(1.0f) < Half(2.0f));
  EXPECT_EQ(float(BFloat16(1.0f) / BFloat16(3.0f)), float(BFloat16(1.0f / 3.0f)));
}

}  // namespace
}  // namespace ember::test
