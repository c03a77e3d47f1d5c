// Text forms of element values, shared by Value, Column and DataFrame printing: Python's
// repr for numbers and strings (what TorchArrow and pandas show) and ISO dates and times.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace ember::frame {
enum class TimeUnit : uint8_t;
namespace detail {

// Python's repr(float): "0.1", "1.0", "1e+16", "nan", "-inf".
void format_double(std::string& out, double v);
// The shortest text that reads back as the same float32 (in the same style).
void format_float(std::string& out, float v);
// Python's repr(str) of UTF-8 text: 'abc', "it's", 'a\nb'.
void format_quoted(std::string& out, std::string_view s);
// Python's repr(bytes): b'a\x00'.
void format_bytes(std::string& out, std::string_view s);
// 1970-01-01 plus `days`, as YYYY-MM-DD (proleptic Gregorian).
void format_date(std::string& out, int64_t days);
// `count` units since the epoch as "YYYY-MM-DD HH:MM:SS[.fff...]" (UTC).
void format_timestamp(std::string& out, int64_t count, TimeUnit unit);

}  // namespace detail
}  // namespace ember::frame
