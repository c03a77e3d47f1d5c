#include "ember/core/warning.h"

#include <atomic>
#include <iostream>

namespace ember {

void WarningHandler::process(const SourceLocation& loc, const std::string& msg, bool /*verbatim*/) {
  std::cerr << "[W " << loc.file << ":" << loc.line << "] Warning: " << msg << " (function "
            << loc.function << ")" << std::endl;
}

namespace Warning {
namespace {

WarningHandler* default_handler() {
  static WarningHandler handler;
  return &handler;
}
thread_local WarningHandler* current_handler = nullptr;
std::atomic<bool> warn_always{false};

}  // namespace

void warn(const SourceLocation& loc, const std::string& msg, bool verbatim) {
  get_warning_handler()->process(loc, msg, verbatim);
}

void set_warning_handler(WarningHandler* handler) noexcept { current_handler = handler; }

WarningHandler* get_warning_handler() noexcept {
  return current_handler ? current_handler : default_handler();
}

void set_warnAlways(bool setting) noexcept { warn_always.store(setting, std::memory_order_relaxed); }
bool get_warnAlways() noexcept { return warn_always.load(std::memory_order_relaxed); }

}  // namespace Warning
}  // namespace ember
