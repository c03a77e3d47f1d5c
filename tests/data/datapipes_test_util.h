// Shared by the DataPipes tests (datapipes_iter_test.cpp, datapipes_loader_test.cpp, file_pipes_test.cpp): ranges,
// expected errors, a pipe's elements.
#pragma once
#include <exception>
#include <numeric>
#include <string>
#include <vector>

#include "ember/data/datapipes.h"

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

// Every element of one pass over `p`.
template <class T>
std::vector<T> collect(const data::datapipes::IterDataPipe<T>& p) {
  std::vector<T> out;
  for (auto& x : p) out.push_back(x);
  return out;
}

}  // namespace ember::test
