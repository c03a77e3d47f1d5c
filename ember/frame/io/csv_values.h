// Parsers of CSV field values (numbers, ISO dates and timestamps), shared by the CSV reader's
// inference and its typed conversion. Internal to ember/frame/io. Each takes the field's
// bytes [p, p + n) and succeeds only when the whole field (surrounding spaces and tabs
// aside) is the value.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ember::frame::io::detail {

enum class IntParse : uint8_t { Ok, NotInt, Overflow };

// [+-]digits. Overflow: an integer outside int64 (*negative tells its sign).
IntParse parse_int64(const char* p, size_t n, int64_t* out, bool* negative = nullptr);
// [+]digits within uint64.
bool parse_uint64(const char* p, size_t n, uint64_t* out);
// What strtod reads (decimal or exponent forms, inf, infinity, nan; a leading + or -), with
// the result correctly rounded; out-of-range values give +-inf or +-0 as strtod does.
bool parse_double(const char* p, size_t n, double* out);

// Days since 1970-01-01 of a proleptic Gregorian date.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d);
// YYYY-MM-DD.
bool parse_date32(const char* p, size_t n, int32_t* days);

// An ISO 8601 timestamp: YYYY-MM-DD, then optionally [T or space]HH:MM[:SS[.fraction]] and
// Z or an offset (+HH:MM, +HHMM, +HH), converted to UTC when one is given.
struct TimestampValue {
  int64_t seconds = 0;  // since the epoch
  int32_t nanos = 0;    // the fraction, in nanoseconds
  int8_t fraction_digits = 0;
  bool has_time = false;
  bool has_offset = false;
};
bool parse_timestamp(const char* p, size_t n, TimestampValue* out);
// The coarsest unit that holds the value's fraction: 0 s, 1 ms, 2 us, 3 ns.
inline int timestamp_unit_for(const TimestampValue& v) {
  return v.fraction_digits == 0 ? 0 : v.fraction_digits <= 3 ? 1 : v.fraction_digits <= 6 ? 2 : 3;
}
// The value as a count of `unit` (0 s ... 3 ns); false on overflow or when the unit cannot
// hold the fraction.
bool timestamp_in_unit(const TimestampValue& v, int unit, int64_t* out);

}  // namespace ember::frame::io::detail
