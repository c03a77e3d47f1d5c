// What the optimizer and scheduler tests share: tests/golden/optim_extra.json (written by
// tests/golden/gen_optim_extra.py from PyTorch 1.13) and its 1e-6 relative tolerance.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "test_util.h"

namespace ember::test::optim_golden {

inline const Json& golden() { return Json::golden("optim_extra.json"); }

inline std::vector<double> doubles(const Json& list) {
  std::vector<double> r;
  for (const Json& x : list.items()) r.push_back(x.as_double());
  return r;
}

// The 1e-6 relative tolerance of the golden comparisons.
inline void expect_close(double actual, double expected, const std::string& what) {
  EXPECT_NEAR(actual, expected, 1e-6 * std::abs(expected) + 1e-12) << what;
}

}  // namespace ember::test::optim_golden
