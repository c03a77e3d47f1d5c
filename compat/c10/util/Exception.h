// LibTorch compatibility: c10::Error (ember::Error) and its subclasses, c10::Warning's handlers,
// and the TORCH_CHECK / TORCH_WARN family of macros.
#pragma once
#include "c10/ember_namespaces.h"
#include "c10/util/StringUtil.h"

namespace c10 {
// LibTorch 2.x spells c10::Warning's functions c10::WarningUtils::...
namespace WarningUtils = ::ember::Warning;
}  // namespace c10

#define C10_THROW_ERROR(err_type, msg) throw ::c10::err_type({__func__, __FILE__, static_cast<uint32_t>(__LINE__)}, msg)

namespace c10::compat_detail {
// The message of a failed check: the arguments concatenated, or, without any, which condition
// failed (as LibTorch says it).
inline std::string check_message(const char* cond, std::string msg) {
  if (!msg.empty()) return msg;
  return ::ember::detail::str_cat("Expected ", cond,
                                  " to be true, but got false.  (Could this error message be "
                                  "improved?  If so, please report an enhancement request to "
                                  "PyTorch.)");
}
}  // namespace c10::compat_detail

#define TORCH_CHECK_WITH(error_t, cond, ...)                                  \
  do {                                                                        \
    if (EMBER_UNLIKELY(!(cond)))                                              \
      throw ::c10::error_t(::c10::compat_detail::check_message(                      \
          #cond, ::ember::detail::str_cat("" __VA_OPT__(, ) __VA_ARGS__)));   \
  } while (0)
#define TORCH_CHECK_WITH_MSG(error_t, cond, type, ...) TORCH_CHECK_WITH(error_t, cond, __VA_ARGS__)
#define TORCH_CHECK_MSG(cond, type, ...) TORCH_CHECK_WITH(Error, cond, __VA_ARGS__)
#define TORCH_CHECK(cond, ...) TORCH_CHECK_WITH(Error, cond, __VA_ARGS__)
#define TORCH_CHECK_INDEX(cond, ...) TORCH_CHECK_WITH(IndexError, cond, __VA_ARGS__)
#define TORCH_CHECK_VALUE(cond, ...) TORCH_CHECK_WITH(ValueError, cond, __VA_ARGS__)
#define TORCH_CHECK_TYPE(cond, ...) TORCH_CHECK_WITH(TypeError, cond, __VA_ARGS__)
#define TORCH_CHECK_LINALG(cond, ...) TORCH_CHECK_WITH(LinAlgError, cond, __VA_ARGS__)
#define TORCH_CHECK_NOT_IMPLEMENTED(cond, ...) TORCH_CHECK_WITH(NotImplementedError, cond, __VA_ARGS__)
#define TORCH_CHECK_ARG(cond, argN, ...) TORCH_CHECK(cond, "invalid argument ", argN, ": ", __VA_ARGS__)
#define TORCH_INTERNAL_ASSERT(cond, ...) EMBER_INTERNAL_ASSERT(cond __VA_OPT__(, ) __VA_ARGS__)
#ifdef NDEBUG
#define TORCH_INTERNAL_ASSERT_DEBUG_ONLY(...) \
  while (false) EMBER_INTERNAL_ASSERT(__VA_ARGS__)
#else
#define TORCH_INTERNAL_ASSERT_DEBUG_ONLY(...) EMBER_INTERNAL_ASSERT(__VA_ARGS__)
#endif
#define AT_ASSERT(cond, ...) EMBER_INTERNAL_ASSERT(cond __VA_OPT__(, ) __VA_ARGS__)
#define AT_ASSERTM(cond, ...) EMBER_INTERNAL_ASSERT(cond __VA_OPT__(, ) __VA_ARGS__)
#define AT_ERROR(...) throw ::c10::Error(::ember::detail::str_cat("" __VA_OPT__(, ) __VA_ARGS__))
// Adds context to a c10::Error being handled and throws it on.
#define TORCH_RETHROW(e, ...)                                             \
  do {                                                                    \
    e.add_context(::ember::detail::str_cat("" __VA_OPT__(, ) __VA_ARGS__)); \
    throw;                                                                \
  } while (false)

#define TORCH_WARN(...) EMBER_WARN(__VA_ARGS__)
#define TORCH_WARN_ONCE(...) EMBER_WARN_ONCE(__VA_ARGS__)
