// ember::Error and the checks that raise it. EMBER_CHECK is for user errors (bad shapes,
// dtypes, indices): the message names the op and what was expected. EMBER_INTERNAL_ASSERT
// is for ember's own bugs.
#pragma once
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ember/core/macros.h"

namespace ember {

// Where a warning or an error was raised: {__func__, __FILE__, __LINE__} (c10::SourceLocation).
struct SourceLocation {
  const char* function;
  const char* file;
  uint32_t line;
};
std::ostream& operator<<(std::ostream& out, const SourceLocation& loc);

// The error every check raises. what() is the message followed by any context added while the
// error propagated (one line each), as c10::Error's is; ember keeps no backtrace, so
// what_without_backtrace() is what() and backtrace() is empty.
class Error : public std::runtime_error {
 public:
  explicit Error(std::string msg);
  explicit Error(const char* msg) : Error(std::string(msg)) {}
  // c10::Error(SourceLocation, msg): the message, then where it was raised.
  Error(SourceLocation loc, std::string msg);
  // c10::Error(msg, backtrace, caller).
  Error(std::string msg, std::string backtrace, const void* caller = nullptr);

  const char* what() const noexcept override { return what_.c_str(); }
  const char* what_without_backtrace() const noexcept { return what_.c_str(); }
  // The message alone, without the context.
  const std::string& msg() const { return msg_; }
  const std::vector<std::string>& context() const { return context_; }
  const std::string& backtrace() const { return backtrace_; }
  const void* caller() const noexcept { return caller_; }
  // Adds context to what() (TORCH_RETHROW's way of saying where an error passed).
  void add_context(std::string msg);

 private:
  std::string msg_;
  std::vector<std::string> context_;
  std::string backtrace_;
  std::string what_;
  const void* caller_ = nullptr;
};
class IndexError : public Error { using Error::Error; };
class TypeError : public Error { using Error::Error; };
class ValueError : public Error { using Error::Error; };
class NotImplementedError : public Error { using Error::Error; };
class LinAlgError : public Error { using Error::Error; };
class OutOfMemoryError : public Error { using Error::Error; };
class EnforceFiniteError : public Error { using Error::Error; };

// strerror(err) as a string, for messages about failed system calls.
std::string errno_text(int err);

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
