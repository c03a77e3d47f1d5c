#include "ember/frame/detail/format.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "ember/frame/dtype.h"

namespace ember::frame::detail {

namespace {

// Rewrites the shortest scientific form ("1.5e-05") in Python's repr style: positional
// notation when the exponent is in [-4, 16), with ".0" for integral values.
void python_float_style(std::string& out, const char* sci, size_t n) {
  std::string_view s(sci, n);
  const size_t e = s.find('e');
  std::string_view mant = s.substr(0, e);
  const int exp = std::atoi(std::string(s.substr(e + 1)).c_str());
  if (exp < -4 || exp >= 16) {
    out.append(s);
    return;
  }
  bool neg = false;
  if (!mant.empty() && mant[0] == '-') {
    neg = true;
    mant.remove_prefix(1);
  }
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  std::string r;
  if (exp >= 0) {
    if (int(digits.size()) <= exp + 1) {
      r = digits + std::string(size_t(exp + 1 - int(digits.size())), '0') + ".0";
    } else {
      r = digits.substr(0, size_t(exp + 1)) + "." + digits.substr(size_t(exp + 1));
    }
  } else {
    r = "0." + std::string(size_t(-exp - 1), '0') + digits;
  }
  if (neg) out += '-';
  out += r;
}

template <class F>
void format_floating(std::string& out, F v) {
  if (std::isnan(v)) { out += "nan"; return; }
  if (std::isinf(v)) { out += v < 0 ? "-inf" : "inf"; return; }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  python_float_style(out, buf, size_t(r.ptr - buf));
}

void append_2(std::string& out, int64_t v) {
  out += char('0' + v / 10);
  out += char('0' + v % 10);
}

// Days since 1970-01-01 to a civil date (era-based arithmetic on 400-year cycles).
void civil_from_days(int64_t z, int64_t& y, int64_t& m, int64_t& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;                                  // [0, 146096]
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);           // [0, 365]
  const int64_t mp = (5 * doy + 2) / 153;                                // [0, 11]
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = yoe + era * 400 + (m <= 2);
}

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

void format_double(std::string& out, double v) { format_floating(out, v); }
void format_float(std::string& out, float v) { format_floating(out, v); }

void format_quoted(std::string& out, std::string_view s) {
  const bool dq = s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos;
  const char q = dq ? '"' : '\'';
  out += q;
  for (unsigned char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == q) { out += '\\'; out += char(c); }
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  out += q;
}

void format_bytes(std::string& out, std::string_view s) {
  out += "b'";
  for (unsigned char c : s) {
    if (c == '\\' || c == '\'') { out += '\\'; out += char(c); }
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  out += '\'';
}

void format_date(std::string& out, int64_t days) {
  int64_t y, m, d;
  civil_from_days(days, y, m, d);
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%04lld-", static_cast<long long>(y));
  out += buf;
  append_2(out, m);
  out += '-';
  append_2(out, d);
}

void format_timestamp(std::string& out, int64_t count, TimeUnit unit) {
  int64_t per_sec = 1, digits = 0;
  switch (unit) {
    case TimeUnit::Second: break;
    case TimeUnit::Milli: per_sec = 1000, digits = 3; break;
    case TimeUnit::Micro: per_sec = 1000000, digits = 6; break;
    case TimeUnit::Nano: per_sec = 1000000000, digits = 9; break;
  }
  const int64_t secs = floor_div(count, per_sec);
  const int64_t frac = count - secs * per_sec;
  const int64_t days = floor_div(secs, 86400);
  const int64_t sod = secs - days * 86400;
  format_date(out, days);
  out += ' ';
  append_2(out, sod / 3600);
  out += ':';
  append_2(out, sod / 60 % 60);
  out += ':';
  append_2(out, sod % 60);
  if (digits > 0 && frac != 0) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), ".%0*lld", int(digits), static_cast<long long>(frac));
    out += buf;
  }
}

}  // namespace ember::frame::detail
