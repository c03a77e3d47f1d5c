// Shared by the DataPipes tests (datapipes_iter_test.cpp, datapipes_loader_test.cpp): ranges, expected errors.
#pragma once
#include <exception>
#include <numeric>
#include <string>
#include <vector>

namespace ember::test {

inline std::vector<int> range(int n, int start = 0) {
  std::vector<int> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), start);
  return v;
}

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

using V = std::vector<int>;

}  // namespace ember::test
