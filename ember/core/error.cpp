// Out-of-line throw helpers keep the EMBER_CHECK fast path small.
#include "ember/core/error.h"

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
