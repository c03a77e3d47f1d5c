#include "ember/frame/io/csv_values.h"

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string>

namespace ember::frame::io::detail {

namespace {

inline void trim(const char*& p, const char*& e) {
  while (p < e && (*p == ' ' || *p == '\t')) ++p;
  while (e > p && (e[-1] == ' ' || e[-1] == '\t')) --e;
}

inline bool digits(const char* p, int n, int* out) {
  int v = 0;
  for (int i = 0; i < n; ++i) {
    const unsigned d = unsigned(p[i] - '0');
    if (d > 9) return false;
    v = v * 10 + int(d);
  }
  *out = v;
  return true;
}

constexpr int64_t kPow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};

}  // namespace

IntParse parse_int64(const char* p, size_t n, int64_t* out, bool* negative) {
  const char* e = p + n;
  trim(p, e);
  bool neg = false;
  if (p < e && (*p == '-' || *p == '+')) neg = *p++ == '-';
  if (negative) *negative = neg;
  if (p == e) return IntParse::NotInt;
  uint64_t v = 0;
  bool overflow = false;
  for (; p < e; ++p) {
    const unsigned d = unsigned(*p - '0');
    if (d > 9) return IntParse::NotInt;
    overflow |= __builtin_mul_overflow(v, uint64_t(10), &v);
    overflow |= __builtin_add_overflow(v, uint64_t(d), &v);
  }
  if (overflow) return IntParse::Overflow;
  if (neg) {
    if (v > uint64_t(INT64_MAX) + 1) return IntParse::Overflow;
    *out = int64_t(0 - v);
  } else {
    if (v > uint64_t(INT64_MAX)) return IntParse::Overflow;
    *out = int64_t(v);
  }
  return IntParse::Ok;
}

bool parse_uint64(const char* p, size_t n, uint64_t* out) {
  const char* e = p + n;
  trim(p, e);
  if (p < e && *p == '+') ++p;
  if (p == e) return false;
  uint64_t v = 0;
  bool overflow = false;
  for (; p < e; ++p) {
    const unsigned d = unsigned(*p - '0');
    if (d > 9) return false;
    overflow |= __builtin_mul_overflow(v, uint64_t(10), &v);
    overflow |= __builtin_add_overflow(v, uint64_t(d), &v);
  }
  if (overflow) return false;
  *out = v;
  return true;
}

bool parse_double(const char* p, size_t n, double* out) {
  const char* e = p + n;
  trim(p, e);
  if (p < e && *p == '+') {
    ++p;
    if (p < e && *p == '-') return false;
  }
  if (p == e) return false;
  const auto r = std::from_chars(p, e, *out, std::chars_format::general);
  if (r.ptr != e) return false;
  if (r.ec == std::errc()) return true;
  if (r.ec != std::errc::result_out_of_range) return false;
  // from_chars leaves the value unset when it is out of range; strtod gives +-inf or +-0.
  const std::string s(p, e);
  *out = std::strtod(s.c_str(), nullptr);
  return true;
}

int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = unsigned(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + int64_t(doe) - 719468;
}

namespace {

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// YYYY-MM-DD at p (10 bytes available).
bool date_at(const char* p, int64_t* days) {
  int y, m, d;
  if (p[4] != '-' || p[7] != '-' || !digits(p, 4, &y) || !digits(p + 5, 2, &m) || !digits(p + 8, 2, &d)) return false;
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1) return false;
  if (d > kDays[m - 1] + (m == 2 && leap(y) ? 1 : 0)) return false;
  *days = days_from_civil(y, unsigned(m), unsigned(d));
  return true;
}

}  // namespace

bool parse_date32(const char* p, size_t n, int32_t* days) {
  const char* e = p + n;
  trim(p, e);
  int64_t d;
  if (e - p != 10 || !date_at(p, &d)) return false;
  *days = int32_t(d);
  return true;
}

bool parse_timestamp(const char* p, size_t n, TimestampValue* out) {
  const char* e = p + n;
  trim(p, e);
  int64_t days;
  if (e - p < 10 || !date_at(p, &days)) return false;
  TimestampValue v;
  v.seconds = days * 86400;
  p += 10;
  if (p == e) {
    *out = v;
    return true;
  }
  if ((*p != 'T' && *p != ' ') || e - p < 6) return false;
  ++p;
  int hh, mm, ss = 0;
  if (p[2] != ':' || !digits(p, 2, &hh) || !digits(p + 3, 2, &mm) || hh > 23 || mm > 59) return false;
  p += 5;
  if (p < e && *p == ':') {
    if (e - p < 3 || !digits(p + 1, 2, &ss) || ss > 59) return false;
    p += 3;
    if (p < e && (*p == '.' || *p == ',')) {
      ++p;
      int nd = 0;
      int64_t frac = 0;
      while (p < e && unsigned(*p - '0') <= 9) {
        if (nd == 9) return false;  // finer than nanoseconds
        frac = frac * 10 + (*p - '0');
        ++nd, ++p;
      }
      if (nd == 0) return false;
      v.nanos = int32_t(frac * kPow10[9 - nd]);
      v.fraction_digits = int8_t(nd);
    }
  }
  v.has_time = true;
  v.seconds += hh * 3600 + mm * 60 + ss;
  if (p < e) {
    if (*p == 'Z') {
      ++p;
    } else if (*p == '+' || *p == '-') {
      const int sign = *p == '-' ? -1 : 1;
      ++p;
      int oh = 0, om = 0;
      if (e - p < 2 || !digits(p, 2, &oh) || oh > 23) return false;
      p += 2;
      if (p < e && *p == ':') ++p;
      if (p < e) {
        if (e - p < 2 || !digits(p, 2, &om) || om > 59) return false;
        p += 2;
      }
      v.seconds -= sign * (oh * 3600 + om * 60);
    } else {
      return false;
    }
    v.has_offset = true;
  }
  if (p != e) return false;
  *out = v;
  return true;
}

bool timestamp_in_unit(const TimestampValue& v, int unit, int64_t* out) {
  const int64_t mult = kPow10[3 * unit];
  const int64_t per = kPow10[9 - 3 * unit];  // nanoseconds per unit
  if (v.nanos % per != 0) return false;
  int64_t r;
  if (__builtin_mul_overflow(v.seconds, mult, &r) || __builtin_add_overflow(r, int64_t(v.nanos / per), &r)) return false;
  *out = r;
  return true;
}

}  // namespace ember::frame::io::detail
