// Small formatting helpers for the nn modules' and functions' printouts and messages
// (internal to ember/nn).
#pragma once
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ember/core/array_ref.h"

namespace ember::nn::detail {

// The values separated by `sep`: join({2, 3}, "x") is "2x3".
inline std::string join(IntArrayRef v, const char* sep) {
  std::ostringstream s;
  for (size_t i = 0; i < v.size(); ++i) s << (i ? sep : "") << v[i];
  return s.str();
}

// Python's list form: "[2, 3]"; unset optionals print as None.
inline std::string list(const std::vector<int64_t>& v) { return "[" + join(v, ", ") + "]"; }
inline std::string list(const std::vector<std::optional<int64_t>>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + (v[i] ? std::to_string(*v[i]) : std::string("None"));
  return s + "]";
}
template <class V>
std::string list_of(const V& v) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
  return s.str() + "]";
}

}  // namespace ember::nn::detail
