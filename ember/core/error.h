// ember::Error and the checks that raise it. EMBER_CHECK is for user errors (bad shapes,
// dtypes, indices): the message names the op and what was expected. EMBER_INTERNAL_ASSERT
// is for ember's own bugs.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

#include "ember/core/macros.h"

namespace ember {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class IndexError : public Error { using Error::Error; };
class TypeError : public Error { using Error::Error; };
class ValueError : public Error { using Error::Error; };
class NotImplementedError : public Error { using Error::Error; };

namespace detail {
template <class... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream ss;
  (ss << ... << args);
  return ss.str();
}
[[noreturn]] void throw_error(const std::string& msg);
[[noreturn]] void throw_index_error(const std::string& msg);
[[noreturn]] void throw_type_error(const std::string& msg);
[[noreturn]] void throw_not_implemented(const std::string& msg);
[[noreturn]] void internal_assert_fail(const char* cond, const char* file, int line,
                                       const std::string& msg);
}  // namespace detail

}  // namespace ember

#define EMBER_CHECK(cond, ...)                                                  \
  do {                                                                          \
    if (EMBER_UNLIKELY(!(cond)))                                                \
      ::ember::detail::throw_error(::ember::detail::str_cat(__VA_ARGS__));      \
  } while (0)
#define EMBER_CHECK_INDEX(cond, ...)                                            \
  do {                                                                          \
    if (EMBER_UNLIKELY(!(cond)))                                                \
      ::ember::detail::throw_index_error(::ember::detail::str_cat(__VA_ARGS__)); \
  } while (0)
#define EMBER_CHECK_TYPE(cond, ...)                                             \
  do {                                                                          \
    if (EMBER_UNLIKELY(!(cond)))                                                \
      ::ember::detail::throw_type_error(::ember::detail::str_cat(__VA_ARGS__));  \
  } while (0)
#define EMBER_ERROR(...) ::ember::detail::throw_error(::ember::detail::str_cat(__VA_ARGS__))
#define EMBER_NOT_IMPLEMENTED(...) \
  ::ember::detail::throw_not_implemented(::ember::detail::str_cat(__VA_ARGS__))
#define EMBER_INTERNAL_ASSERT(cond, ...)                                        \
  do {                                                                          \
    if (EMBER_UNLIKELY(!(cond)))                                                \
      ::ember::detail::internal_assert_fail(#cond, __FILE__, __LINE__,          \
                                            ::ember::detail::str_cat("" __VA_OPT__(, ) __VA_ARGS__)); \
  } while (0)
