// LibTorch compatibility: c10::str and c10::Join.
#pragma once
#include <sstream>
#include <string>

#include "c10/ember_namespaces.h"

namespace c10 {

// The arguments printed one after another with operator<<.
template <class... Args>
std::string str(const Args&... args) {
  return ::ember::detail::str_cat(args...);
}

// The elements of `v` printed with `delimiter` between them.
template <class Container>
std::string Join(const std::string& delimiter, const Container& v) {
  std::ostringstream out;
  bool first = true;
  for (const auto& x : v) {
    if (!first) out << delimiter;
    out << x;
    first = false;
  }
  return out.str();
}

// The file name of a path without its directories ("a/b/c.cpp" -> "c.cpp").
inline std::string StripBasename(const std::string& full_path) {
  auto pos = full_path.find_last_of('/');
  return pos == std::string::npos ? full_path : full_path.substr(pos + 1);
}
// The path without its last extension ("a/b.c.cpp" -> "a/b.c").
inline std::string ExcludeFileExtension(const std::string& full_path) {
  auto dot = full_path.find_last_of('.');
  auto slash = full_path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return full_path;
  return full_path.substr(0, dot);
}

}  // namespace c10
