// Whether a Value can be appended to a column of a given type, without appending it (so a
// row can be checked whole before any of it is written).
#pragma once
#include <string>

#include "ember/frame/dtype.h"
#include "ember/frame/value.h"

namespace ember::frame::detail {

// "" when append_value(v) succeeds on a builder of type t; otherwise why it would fail.
std::string value_error(const DType& t, const Value& v);

}  // namespace ember::frame::detail
