// Warnings: ember::Warning::warn(location, message) hands each warning to the calling thread's
// WarningHandler (by default one that prints "[W file:line] Warning: message (function f)" to
// standard error, as LibTorch does). A program or test captures warnings by installing its own
// handler with Warning::WarningHandlerGuard; EMBER_WARN / EMBER_WARN_ONCE raise them (TORCH_WARN
// and TORCH_WARN_ONCE in the LibTorch compatibility layer). The names are c10's (LibTorch 1.13).
#pragma once
#include <string>

#include "ember/core/error.h"

namespace ember {

class WarningHandler {
 public:
  virtual ~WarningHandler() = default;
  // The default prints to standard error. `verbatim`: the message already says where it comes
  // from, so a handler should not add context (c10's Note [Verbatim Warnings]).
  virtual void process(const SourceLocation& loc, const std::string& msg, bool verbatim);
};

namespace Warning {

// Hands the warning to the current thread's handler.
void warn(const SourceLocation& loc, const std::string& msg, bool verbatim = false);
// The handler of the calling thread (each thread starts with the default one); the caller
// keeps `handler` alive while it is installed. nullptr restores the default.
void set_warning_handler(WarningHandler* handler) noexcept;
WarningHandler* get_warning_handler() noexcept;

// Installs a handler for its lifetime, then puts the previous one back.
class WarningHandlerGuard {
 public:
  explicit WarningHandlerGuard(WarningHandler* handler) : previous_(get_warning_handler()) {
    set_warning_handler(handler);
  }
  ~WarningHandlerGuard() { set_warning_handler(previous_); }
  WarningHandlerGuard(const WarningHandlerGuard&) = delete;
  WarningHandlerGuard& operator=(const WarningHandlerGuard&) = delete;

 private:
  WarningHandler* previous_;
};

// With warn_always set (for every thread), EMBER_WARN_ONCE warns every time, so tests can
// observe it.
void set_warnAlways(bool setting) noexcept;
bool get_warnAlways() noexcept;
class WarnAlways {
 public:
  explicit WarnAlways(bool setting = true) : previous_(get_warnAlways()) { set_warnAlways(setting); }
  ~WarnAlways() { set_warnAlways(previous_); }
  WarnAlways(const WarnAlways&) = delete;
  WarnAlways& operator=(const WarnAlways&) = delete;

 private:
  bool previous_;
};

}  // namespace Warning
}  // namespace ember

#define EMBER_WARN(...)                                                                  \
  ::ember::Warning::warn({__func__, __FILE__, static_cast<uint32_t>(__LINE__)},          \
                         ::ember::detail::str_cat("" __VA_OPT__(, ) __VA_ARGS__), false)
// Once per call site and process (every time while Warning::get_warnAlways()).
#define EMBER_WARN_ONCE(...)                                                   \
  do {                                                                         \
    if (::ember::Warning::get_warnAlways()) {                                  \
      EMBER_WARN(__VA_ARGS__);                                                 \
    } else {                                                                   \
      [[maybe_unused]] static const bool ember_warned_once_ = [&] {            \
        EMBER_WARN(__VA_ARGS__);                                               \
        return true;                                                           \
      }();                                                                     \
    }                                                                          \
  } while (0)
