// Out-of-line throw helpers keep the EMBER_CHECK fast path small.
#include "ember/core/error.h"

#include <cstring>
#include <ostream>

namespace ember {

std::string errno_text(int err) { return std::strerror(err); }

std::ostream& operator<<(std::ostream& out, const SourceLocation& loc) {
  return out << loc.function << " at " << loc.file << ":" << loc.line;
}

Error::Error(std::string msg) : std::runtime_error(msg), msg_(std::move(msg)), what_(msg_) {}

Error::Error(SourceLocation loc, std::string msg)
    : Error(ember::detail::str_cat(msg, " (raised in ", loc, ")")) {}

Error::Error(std::string msg, std::string backtrace, const void* caller)
    : Error(std::move(msg)) {
  backtrace_ = std::move(backtrace);
  caller_ = caller;
}

// One piece of context folds into the message's line, more go one per line (c10::Error's format).
void Error::add_context(std::string msg) {
  context_.push_back(std::move(msg));
  what_ = msg_;
  if (context_.size() == 1) {
    what_ += " (" + context_[0] + ")";
  } else {
    for (const auto& c : context_) what_ += "\n  " + c;
  }
}

}  // namespace ember

namespace ember::detail {

void throw_error(const std::string& msg) { throw Error(msg); }
void throw_index_error(const std::string& msg) { throw IndexError(msg); }
void throw_type_error(const std::string& msg) { throw TypeError(msg); }
void throw_not_implemented(const std::string& msg) { throw NotImplementedError(msg); }
void internal_assert_fail(const char* cond, const char* file, int line, const std::string& msg) {
  throw Error(str_cat("ember internal assert failed: ", cond, " at ", file, ":", line,
                      msg.empty() ? "" : ": ", msg,
                      " (this is a bug in ember; please report it)"));
}

}  // namespace ember::detail
