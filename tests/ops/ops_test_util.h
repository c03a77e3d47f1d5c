// Shared by the ops tests: infinity and NaN, and small tensors written out in the tests.
#pragma once
#include <initializer_list>
#include <limits>
#include <vector>

#include "test_util.h"

namespace ember::test {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

inline Tensor longs(const TensorDataContainer& d) { return tensor(d, dtype(kLong)); }

// A 2-d float tensor, row by row.
inline Tensor f32(std::initializer_list<std::initializer_list<double>> v) {
  std::vector<Tensor> rows;
  for (auto r : v) rows.push_back(tensor(std::vector<double>(r), dtype(kFloat)));
  return stack(rows);
}

// 0, 1, 2, ... laid out in `shape`.
inline Tensor ar(IntArrayRef shape, ScalarType t = kLong) {
  return arange(checked_numel(shape, "test"), dtype(t)).view(shape);
}

}  // namespace ember::test
