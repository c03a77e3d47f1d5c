// Accuracy of the vectorized float kernels over a sweep of every 256th float bit pattern
// (16.7 million values, both signs, subnormals to infinity) plus NaN and signed zeros,
// against the correctly rounded double-precision result: ember's own tanh polynomial
// (ember/ops/cpu/vec_math.h, fast_tanhf) must stay within 2 ulps, as SLEEF's u10 functions do.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ember/ember.h"

namespace ember {
namespace {

// Distance in ulps between two finite floats (-0 and +0 coincide).
int64_t finite_ulps(float a, float b) {
  auto ordered = [](float v) {
    int32_t i;
    std::memcpy(&i, &v, 4);
    return i < 0 ? int64_t(INT32_MIN) - i : int64_t(i);
  };
  return std::abs(ordered(a) - ordered(b));
}

struct Sweep {
  std::vector<float> x;
  Sweep() {
    for (uint64_t bits = 0; bits < (uint64_t(1) << 32); bits += 256) {
      float v;
      const uint32_t b = uint32_t(bits) | 0x5Bu;  // low bits set too, not only round patterns
      std::memcpy(&v, &b, 4);
      if (!std::isnan(v)) x.push_back(v);
    }
    for (float v : {0.0f, -0.0f, 0.625f, -0.625f, std::nextafter(0.625f, 0.0f), 9.0f, 1e-30f,
                    std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::denorm_min()})
      x.push_back(v);
  }
};

TEST(VecMath, TanhWithinTwoUlpsOfDoubleEverywhere) {
  const Sweep s;
  const Tensor in = from_blob(const_cast<float*>(s.x.data()), {int64_t(s.x.size())}, kFloat);
  const Tensor out = in.tanh();
  const float* y = out.data_ptr<float>();
  int64_t worst = 0, bad = 0;
  float worst_x = 0;
  for (size_t i = 0; i < s.x.size(); ++i) {
    const float want = float(std::tanh(double(s.x[i])));
    const int64_t d = finite_ulps(y[i], want);
    if (d > worst) worst = d, worst_x = s.x[i];
    bad += d > 2 || std::signbit(y[i]) != std::signbit(want);
  }
  EXPECT_EQ(bad, 0) << "worst " << worst << " ulps at x = " << worst_x;
  EXPECT_LE(worst, 2);
  // NaN stays NaN; tanh(-0) is -0.
  const Tensor special = tensor({std::numeric_limits<float>::quiet_NaN(), -0.0f}).tanh();
  EXPECT_TRUE(std::isnan(special[0].item<float>()));
  EXPECT_TRUE(std::signbit(special[1].item<float>()));
}

}  // namespace
}  // namespace ember
