// cast(): numbers and bools among themselves (with optional overflow and truncation checks),
// to and from strings (pyarrow's text forms), dates and timestamps, string and binary
// variants, dictionaries and lists of castable items.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "ember/frame/builder.h"
#include "ember/frame/compute/compute.h"
#include "ember/frame/compute/kernels.h"
#include "ember/frame/utf8.h"

namespace ember::frame {

using namespace compute_detail;

namespace {

constexpr int64_t kSecondsPerDay = 86400;

int64_t units_per_second(TimeUnit u) {
  switch (u) {
    case TimeUnit::Second: return 1;
    case TimeUnit::Milli: return 1000;
    case TimeUnit::Micro: return 1000000;
    case TimeUnit::Nano: return 1000000000;
  }
  return 1;
}

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Days since 1970-01-01 of a proleptic Gregorian date (month 1..12), and back.
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = floor_div(y, 400);
  const int64_t yoe = y - era * 400;
  const int64_t mp = (m + 9) % 12;
  const int64_t doy = (153 * mp + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void civil_from_days(int64_t z, int64_t& y, int64_t& m, int64_t& d) {
  z += 719468;
  const int64_t era = floor_div(z, 146097);
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = yoe + era * 400 + (m <= 2);
}

bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
int64_t days_in_month(int64_t y, int64_t m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

// ---- formatting -------------------------------------------------------------------------

void append_int(std::string& out, int64_t v, int width = 0) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  for (int k = int(r.ptr - buf); k < width; ++k) out += '0';
  out.append(buf, r.ptr);
}

void format_date(std::string& out, int64_t days) {
  int64_t y, m, d;
  civil_from_days(days, y, m, d);
  if (y < 0) {
    out += '-';
    append_int(out, -y, 4);
  } else {
    append_int(out, y, 4);
  }
  out += '-';
  append_int(out, m, 2);
  out += '-';
  append_int(out, d, 2);
}

// pyarrow's text of a timestamp: "YYYY-MM-DD HH:MM:SS" and all the unit's fraction digits;
// a zoned timestamp is written in UTC with a "Z".
void format_timestamp(std::string& out, int64_t count, TimeUnit unit, bool zoned) {
  const int64_t per = units_per_second(unit);
  const int digits = unit == TimeUnit::Second ? 0 : unit == TimeUnit::Milli ? 3 : unit == TimeUnit::Micro ? 6 : 9;
  const int64_t secs = floor_div(count, per);
  const int64_t frac = count - secs * per;
  const int64_t days = floor_div(secs, kSecondsPerDay);
  const int64_t sod = secs - days * kSecondsPerDay;
  format_date(out, days);
  out += ' ';
  append_int(out, sod / 3600, 2);
  out += ':';
  append_int(out, sod / 60 % 60, 2);
  out += ':';
  append_int(out, sod % 60, 2);
  if (digits > 0) {
    out += '.';
    append_int(out, frac, digits);
  }
  if (zoned) out += 'Z';
}

// pyarrow's (double-conversion's) shortest text of a float: the shortest digits that read
// back as the same value, in fixed notation for decimal exponents -6..9, else d.ddde+XX.
template <class T>
void format_float(std::string& out, T v) {
  if (std::isnan(v)) return void(out += "nan");
  if (std::isinf(v)) return void(out += v < 0 ? "-inf" : "inf");
  if (v == 0) return void(out += std::signbit(v) ? "-0" : "0");
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string_view s(buf, size_t(r.ptr - buf));
  bool negative = false;
  if (s[0] == '-') negative = true, s.remove_prefix(1);
  const size_t e = s.find('e');
  std::string digits;
  for (char ch : s.substr(0, e))
    if (ch != '.') digits += ch;
  const int exp10 = std::atoi(std::string(s.substr(e + 1)).c_str());
  if (negative) out += '-';
  if (exp10 >= -6 && exp10 <= 9) {
    if (exp10 < 0) {
      out += "0.";
      out.append(size_t(-exp10 - 1), '0');
      out += digits;
    } else if (int(digits.size()) <= exp10 + 1) {
      out += digits;
      out.append(size_t(exp10 + 1 - int(digits.size())), '0');
    } else {
      out.append(digits, 0, size_t(exp10 + 1));
      out += '.';
      out.append(digits, size_t(exp10 + 1));
    }
    return;
  }
  out += digits[0];
  if (digits.size() > 1) {
    out += '.';
    out.append(digits, 1);
  }
  out += 'e';
  out += exp10 < 0 ? '-' : '+';
  append_int(out, exp10 < 0 ? -exp10 : exp10);
}

// ---- parsing -----------------------------------------------------------------------------

[[noreturn]] void parse_error(std::string_view s, int64_t row, const DType& to, const char* why = nullptr) {
  EMBER_ERROR("cast: cannot parse '", s, "' at row ", row, " as ", to.to_string(), why ? std::string(" (") + why + ")" : "");
}

template <class T>
T parse_number(std::string_view s, int64_t row, const DType& to) {
  const char* b = s.data();
  const char* e = s.data() + s.size();
  T v{};
  if constexpr (std::is_floating_point_v<T>) {
    if (b != e && *b == '+' && b + 1 != e && b[1] != '-' && b[1] != '+') ++b;
    auto r = std::from_chars(b, e, v);
    if (r.ec == std::errc::result_out_of_range && r.ptr == e) {
      const std::string copy(b, e);  // overflow reads as +-inf, underflow as 0 (strtod's values)
      return T(std::strtod(copy.c_str(), nullptr));
    }
    if (r.ec != std::errc() || r.ptr != e) parse_error(s, row, to);
  } else {
    auto r = std::from_chars(b, e, v);
    if (r.ec == std::errc::result_out_of_range) parse_error(s, row, to, "out of range");
    if (r.ec != std::errc() || r.ptr != e || b == e) parse_error(s, row, to);
  }
  return v;
}

bool parse_bool(std::string_view s, int64_t row, const DType& to) {
  auto iequals = [](std::string_view x, std::string_view y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(x[i])) != y[i]) return false;
    return true;
  };
  if (iequals(s, "true") || s == "1") return true;
  if (iequals(s, "false") || s == "0") return false;
  parse_error(s, row, to, "expected true, false, 1 or 0");
}

// Reads `n` digits at s[pos]; false when they are not all digits.
bool digits(std::string_view s, size_t pos, size_t n, int64_t& v) {
  if (pos + n > s.size()) return false;
  v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  return true;
}

// YYYY-MM-DD at the start of s; the days since the epoch.
bool parse_date_prefix(std::string_view s, int64_t& days) {
  int64_t y, m, d;
  if (!digits(s, 0, 4, y) || s.size() < 10 || s[4] != '-' || !digits(s, 5, 2, m) || s[7] != '-' ||
      !digits(s, 8, 2, d))
    return false;
  if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, m)) return false;
  days = days_from_civil(y, m, d);
  return true;
}

int64_t parse_date(std::string_view s, int64_t row, const DType& to) {
  int64_t days;
  if (s.size() != 10 || !parse_date_prefix(s, days)) parse_error(s, row, to, "expected YYYY-MM-DD");
  return days;
}

// YYYY-MM-DD[( |T)HH:MM[:SS[.fraction]]], no zone.
int64_t parse_timestamp(std::string_view s, int64_t row, const DType& to) {
  int64_t days;
  if (!parse_date_prefix(s, days)) parse_error(s, row, to, "expected YYYY-MM-DD[ HH:MM[:SS[.fraction]]]");
  const int64_t per = units_per_second(to.unit());
  int64_t secs = days * kSecondsPerDay, frac = 0;
  size_t pos = 10;
  if (pos < s.size()) {
    int64_t hh, mm, ss = 0;
    if ((s[pos] != ' ' && s[pos] != 'T') || !digits(s, pos + 1, 2, hh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !digits(s, pos + 4, 2, mm) || hh > 23 || mm > 59)
      parse_error(s, row, to, "expected YYYY-MM-DD[ HH:MM[:SS[.fraction]]]");
    pos += 6;
    if (pos < s.size() && s[pos] == ':') {
      if (!digits(s, pos + 1, 2, ss) || ss > 59) parse_error(s, row, to, "bad seconds");
      pos += 3;
      if (pos < s.size() && s[pos] == '.') {
        ++pos;
        int64_t scale = per, nd = 0;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
          scale /= 10;
          if (scale == 0) {
            if (s[pos] != '0') parse_error(s, row, to, "more fraction digits than the unit holds");
          } else {
            frac += (s[pos] - '0') * scale;
          }
          ++pos, ++nd;
        }
        if (nd == 0) parse_error(s, row, to, "empty fraction");
      }
    }
    if (pos != s.size()) parse_error(s, row, to, "a zone offset or trailing text is not supported");
    secs += hh * 3600 + mm * 60 + ss;
  }
  int64_t count;
  EMBER_CHECK(!__builtin_mul_overflow(secs, per, &count) && !__builtin_add_overflow(count, frac, &count), "cast: '",
              s, "' at row ", row, " is out of range for ", to.to_string());
  return count;
}

// ---- kernels -------------------------------------------------------------------------------

// Row i of a (for messages and checks): valid?
struct Rows {
  const ArrayData& a;
  bool valid(int64_t i) const { return a.is_valid(i); }
};

template <class S, class D>
Column numeric_to_numeric(const Column& c, const DType& out_type, bool safe) {
  const ArrayData& a = *c.data();
  const int64_t n = a.length;
  const S* src = values_of<S>(a);
  MutableBuffer out = allocate(n * int64_t(sizeof(D)));
  D* o = out.as<D>();
  const Rows rows{a};
  if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
    const double lo = std::is_signed_v<D> ? -std::ldexp(1.0, std::numeric_limits<D>::digits) : 0.0;
    const double hi = std::ldexp(1.0, std::numeric_limits<D>::digits);
    for (int64_t i = 0; i < n; ++i) {
      const double x = double(src[i]);
      const double t = std::trunc(x);
      if (!(t >= lo && t < hi) || (safe && t != x)) {
        if (!rows.valid(i)) {
          o[i] = D{};
          continue;
        }
        EMBER_CHECK(!std::isnan(x), "cast: NaN at row ", i, " cannot be cast to ", out_type.to_string());
        EMBER_CHECK(t >= lo && t < hi, "cast: value ", x, " at row ", i, " is out of range for ", out_type.to_string());
        EMBER_ERROR("cast: value ", x, " at row ", i, " would be truncated casting to ", out_type.to_string(),
                    " (CastOptions::safe)");
      }
      o[i] = D(t);
    }
  } else {
    if constexpr (std::is_integral_v<S> && std::is_integral_v<D>) {
      const bool always_fits = std::in_range<D>(std::numeric_limits<S>::min()) && std::in_range<D>(std::numeric_limits<S>::max());
      if (safe && !always_fits) {
        for (int64_t i = 0; i < n; ++i)
          EMBER_CHECK(std::in_range<D>(src[i]) || !rows.valid(i), "cast: value ", +src[i], " at row ", i,
                      " is out of range for ", out_type.to_string(), " (", +std::numeric_limits<D>::min(), " to ",
                      +std::numeric_limits<D>::max(), ")");
      }
    }
    if constexpr (std::is_integral_v<S> && std::is_floating_point_v<D>) {
      // pyarrow's safe rule: integers beyond the float's contiguous range (2^24, 2^53).
      constexpr int digits = std::numeric_limits<D>::digits;
      if constexpr (std::numeric_limits<S>::digits > digits) {
        const S lim = S(S(1) << digits);
        for (int64_t i = 0; safe && i < n; ++i) {
          const bool fits = std::is_signed_v<S> ? (src[i] >= S(-lim) && src[i] <= lim) : src[i] <= lim;
          EMBER_CHECK(fits || !rows.valid(i), "cast: value ", +src[i], " at row ", i, " is out of range for ",
                      out_type.to_string(), " (-", +lim, " to ", +lim, ", where every integer is exact; CastOptions::safe)");
        }
      }
    }
    parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = static_cast<D>(src[i]);
    });
  }
  return make_fixed(out_type, n, out.buffer, validity_of(a));
}

Column bool_to_numeric(const Column& c, const DType& out_type) {
  return visit_primitive(out_type.id(), [&](auto tag) -> Column {
    using D = decltype(tag);
    if constexpr (std::is_same_v<D, bool>) {
      return Column();
    } else {
      Converted<D> v = convert_values<D>(*c.data());
      const int64_t n = c.size();
      Buffer values = v.keep.defined() ? v.keep : Buffer::copy_of(v.data, n * int64_t(sizeof(D)));
      return make_fixed(out_type, n, values, validity_of(*c.data()));
    }
  });
}

Column numeric_to_bool(const Column& c, const DType& out_type) {
  const ArrayData& a = *c.data();
  const int64_t n = a.length;
  MutableBuffer out = allocate(num_words(n) * 8);
  uint64_t* w = out.as<uint64_t>();
  visit_primitive(a.type.id(), [&](auto tag) {
    using S = decltype(tag);
    if constexpr (!std::is_same_v<S, bool>) {
      const S* src = values_of<S>(a);
      for (int64_t k = 0; k < num_words(n); ++k) {
        uint64_t x = 0;
        for (int64_t j = 0; j < 64 && k * 64 + j < n; ++j) x |= uint64_t(src[k * 64 + j] != S(0)) << j;
        w[k] = x;
      }
    }
  });
  return make_bool(n, out.buffer, validity_of(a), out_type.nullable());
}

Column to_string(const Column& c, const DType& out_type) {
  const ArrayData& a = *c.data();
  const DType& t = a.type;
  const int64_t n = a.length;
  if (t.is_binary_like()) {
    const StringAccess s = string_access(a);
    if (out_type.is_string() && !t.is_string()) {
      for (int64_t i = 0; i < n; ++i) {
        int64_t at = 0;
        if (a.is_valid(i) && !utf8::is_valid(s.get(i), &at))
          EMBER_ERROR("cast: row ", i, " is not valid UTF-8 (byte ", at, ") and cannot be cast to ", out_type.to_string());
      }
    }
    return build_strings("cast", out_type, n, [&](int64_t i, std::string& out) {
      if (!a.is_valid(i)) return false;
      out.append(s.get(i));
      return true;
    });
  }
  if (t.id() == TypeId::Bool) {
    const uint8_t* bm = a.buffers[1].data();
    return build_strings("cast", out_type, n, [&](int64_t i, std::string& out) {
      if (!a.is_valid(i)) return false;
      out += bits::get(bm, a.offset + i) ? "true" : "false";
      return true;
    });
  }
  if (t.id() == TypeId::Date32) {
    const int32_t* p = values_of<int32_t>(a);
    return build_strings("cast", out_type, n, [&](int64_t i, std::string& out) {
      if (!a.is_valid(i)) return false;
      format_date(out, p[i]);
      return true;
    });
  }
  if (t.id() == TypeId::Timestamp) {
    const int64_t* p = values_of<int64_t>(a);
    const bool zoned = !t.timezone().empty();
    return build_strings("cast", out_type, n, [&](int64_t i, std::string& out) {
      if (!a.is_valid(i)) return false;
      format_timestamp(out, p[i], t.unit(), zoned);
      return true;
    });
  }
  return visit_primitive(t.id(), [&](auto tag) -> Column {
    using S = decltype(tag);
    if constexpr (std::is_same_v<S, bool>) {
      return Column();
    } else {
      const S* p = values_of<S>(a);
      return build_strings("cast", out_type, n, [&](int64_t i, std::string& out) {
        if (!a.is_valid(i)) return false;
        if constexpr (std::is_floating_point_v<S>) {
          format_float(out, p[i]);
        } else {
          char buf[32];
          auto r = std::to_chars(buf, buf + sizeof(buf), p[i]);
          out.append(buf, r.ptr);
        }
        return true;
      });
    }
  });
}

Column from_string(const Column& c, const DType& out_type) {
  const ArrayData& a = *c.data();
  const int64_t n = a.length;
  const StringAccess s = string_access(a);
  const Validity v = validity_of(a);
  if (out_type.id() == TypeId::Bool) {
    MutableBuffer out = allocate_zeroed(num_words(n) * 8);
    for (int64_t i = 0; i < n; ++i)
      if (a.is_valid(i) && parse_bool(s.get(i), i, out_type)) bits::set(out.data, i);
    return make_bool(n, out.buffer, v, out_type.nullable());
  }
  return visit_primitive(out_type.id(), [&](auto tag) -> Column {
    using D = decltype(tag);
    if constexpr (std::is_same_v<D, bool>) {
      return Column();
    } else {
      MutableBuffer out = allocate(n * int64_t(sizeof(D)));
      D* o = out.as<D>();
      for (int64_t i = 0; i < n; ++i) {
        if (!a.is_valid(i)) {
          o[i] = D{};
        } else if (out_type.id() == TypeId::Date32) {
          const int64_t d = parse_date(s.get(i), i, out_type);
          EMBER_CHECK(std::in_range<int32_t>(d), "cast: '", s.get(i), "' at row ", i, " is out of range for date32");
          o[i] = D(d);
        } else if (out_type.id() == TypeId::Timestamp) {
          o[i] = D(parse_timestamp(s.get(i), i, out_type));
        } else {
          o[i] = parse_number<D>(s.get(i), i, out_type);
        }
      }
      return make_fixed(out_type, n, out.buffer, v);
    }
  });
}

// Dates and timestamps among themselves.
Column temporal_cast(const Column& c, const DType& out_type, bool safe) {
  const ArrayData& a = *c.data();
  const DType& t = a.type;
  const int64_t n = a.length;
  const Validity v = validity_of(a);
  if (t.id() == TypeId::Date32 && out_type.id() == TypeId::Timestamp) {
    const int64_t per_day = units_per_second(out_type.unit()) * kSecondsPerDay;
    const int32_t* p = values_of<int32_t>(a);
    MutableBuffer out = allocate(n * 8);
    for (int64_t i = 0; i < n; ++i) {
      int64_t r = 0;
      EMBER_CHECK(!__builtin_mul_overflow(int64_t(p[i]), per_day, &r) || !a.is_valid(i), "cast: date ", p[i],
                  " at row ", i, " is out of range for ", out_type.to_string());
      out.as<int64_t>()[i] = r;
    }
    return make_fixed(out_type, n, out.buffer, v);
  }
  const int64_t* p = values_of<int64_t>(a);
  const int64_t from_per = units_per_second(t.unit());
  if (out_type.id() == TypeId::Date32) {
    const int64_t per_day = from_per * kSecondsPerDay;
    MutableBuffer out = allocate(n * 4);
    for (int64_t i = 0; i < n; ++i) out.as<int32_t>()[i] = int32_t(floor_div(p[i], per_day));
    return make_fixed(out_type, n, out.buffer, v);
  }
  const int64_t to_per = units_per_second(out_type.unit());
  MutableBuffer out = allocate(n * 8);
  int64_t* o = out.as<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    if (to_per >= from_per) {
      EMBER_CHECK(!__builtin_mul_overflow(p[i], to_per / from_per, &o[i]) || !a.is_valid(i), "cast: timestamp ", p[i],
                  " at row ", i, " is out of range for ", out_type.to_string());
    } else {
      const int64_t f = from_per / to_per;
      EMBER_CHECK(!safe || p[i] % f == 0 || !a.is_valid(i), "cast: timestamp ", p[i], " at row ", i,
                  " would lose data casting from ", t.to_string(), " to ", out_type.to_string(), " (CastOptions::safe)");
      o[i] = p[i] / f;
    }
  }
  return make_fixed(out_type, n, out.buffer, v);
}

// The same buffers under another (physically identical) type.
Column retype(const Column& c, const DType& t) {
  const ArrayData& a = *c.data();
  return Column::from_data_unchecked(
      std::make_shared<ArrayData>(t, a.length, a.buffers, a.children, a.known_null_count(), a.offset, a.dictionary));
}

bool is_number_or_bool(const DType& t) { return t.is_numeric() || t.id() == TypeId::Bool; }

}  // namespace

Column cast(const Column& col, const DType& dtype, const CastOptions& options) {
  const DType& from0 = col.dtype();
  const DType out_type = dtype.with_nullable(dtype.nullable() || from0.nullable());
  if (dtype.id() == TypeId::Dictionary) {
    const Column values = cast(decoded(col), dtype.value_type().with_nullable(true), options);
    EMBER_CHECK_TYPE(values.dtype().is_binary_like(), "cast: cannot cast ", from0.to_string(), " to ", dtype.to_string(),
                     " (dictionaries hold strings or binaries)");
    const Column enc = values.dictionary_encode();
    const Column idx = cast(enc.indices(), dtype.index_type().with_nullable(out_type.nullable()), options);
    return dictionary_column(idx, enc.dictionary(), dtype.ordered());
  }
  const Column c = decoded(col);
  const DType& from = c.dtype();
  if (from.equals(dtype, false)) return retype(c, out_type);
  auto fail = [&]() {
    ::ember::detail::throw_type_error(::ember::detail::str_cat("cast: cannot cast ", from0.to_string(), " to ", dtype.to_string()));
  };
  const TypeId f = from.id(), t = dtype.id();
  // Integers and the temporal types that store them.
  if ((f == TypeId::Date32 && t == TypeId::Int32) || (f == TypeId::Int32 && t == TypeId::Date32) ||
      (f == TypeId::Timestamp && t == TypeId::Int64) || (f == TypeId::Int64 && t == TypeId::Timestamp))
    return retype(c, out_type);
  if ((f == TypeId::Date32 || f == TypeId::Timestamp) && (t == TypeId::Date32 || t == TypeId::Timestamp))
    return temporal_cast(c, out_type, options.safe);
  if (is_number_or_bool(from) && (t == TypeId::Date32 || t == TypeId::Timestamp) && from.is_integer())
    return retype(cast(c, t == TypeId::Date32 ? dtypes::Int32(out_type.nullable()) : dtypes::Int64(out_type.nullable()),
                       options),
                  out_type);
  if ((f == TypeId::Date32 || f == TypeId::Timestamp) && dtype.is_integer())
    return cast(retype(c, f == TypeId::Date32 ? dtypes::Int32(from.nullable()) : dtypes::Int64(from.nullable())),
                dtype, options);
  if (is_number_or_bool(from) && is_number_or_bool(dtype)) {
    if (f == TypeId::Bool) return bool_to_numeric(c, out_type);
    if (t == TypeId::Bool) return numeric_to_bool(c, out_type);
    return visit_primitive(f, [&](auto stag) -> Column {
      using S = decltype(stag);
      return visit_primitive(t, [&](auto dtag) -> Column {
        using D = decltype(dtag);
        if constexpr (std::is_same_v<S, bool> || std::is_same_v<D, bool>) return Column();
        else return numeric_to_numeric<S, D>(c, out_type, options.safe);
      });
    });
  }
  if (dtype.is_binary_like()) {
    if (from.is_binary_like() || is_number_or_bool(from) || f == TypeId::Date32 || f == TypeId::Timestamp)
      return to_string(c, out_type);
    fail();
  }
  if (from.is_binary_like()) {
    if (is_number_or_bool(dtype) || t == TypeId::Date32 || t == TypeId::Timestamp) return from_string(c, out_type);
    fail();
  }
  if ((f == TypeId::List || f == TypeId::LargeList) && (t == TypeId::List || t == TypeId::LargeList)) {
    const ArrayData& a = *c.data();
    const Column child = cast(Column::from_data_unchecked(a.children[0]), dtype.value_type(), options);
    const DType list_type = t == TypeId::List ? dtypes::List(child.dtype(), out_type.nullable())
                                              : dtypes::LargeList(child.dtype(), out_type.nullable());
    if (f != t) {
      const int64_t n = a.length;
      MutableBuffer o = allocate((n + 1) * (t == TypeId::LargeList ? 8 : 4));
      for (int64_t i = 0; i <= n; ++i) {
        const int64_t x = f == TypeId::LargeList ? a.buffers[1].data_as<int64_t>()[a.offset + i]
                                                 : a.buffers[1].data_as<int32_t>()[a.offset + i];
        EMBER_CHECK(t == TypeId::LargeList || x <= std::numeric_limits<int32_t>::max(), "cast: list offsets of ",
                    from.to_string(), " do not fit int32; cast to a large_list");
        if (t == TypeId::LargeList) o.as<int64_t>()[i] = x;
        else o.as<int32_t>()[i] = int32_t(x);
      }
      const Validity v = validity_of(a);
      return Column::from_data_unchecked(ArrayData::make(
          list_type, n, {v.null_count > 0 ? v.buffer : Buffer(), o.buffer}, {child.data()}, v.null_count, 0));
    }
    return Column::from_data_unchecked(std::make_shared<ArrayData>(list_type, a.length, a.buffers,
                                                                   std::vector<ArrayDataPtr>{child.data()},
                                                                   a.known_null_count(), a.offset));
  }
  if (f == TypeId::Struct && t == TypeId::Struct && from.fields().size() == dtype.fields().size()) {
    const ArrayData& a = *c.data();
    std::vector<ArrayDataPtr> children;
    std::vector<Field> fields;
    for (size_t k = 0; k < dtype.fields().size(); ++k) {
      const Column child = cast(Column::from_data_unchecked(a.children[k]), dtype.fields()[k].dtype, options);
      children.push_back(child.data());
      fields.push_back({dtype.fields()[k].name, child.dtype()});
    }
    return Column::from_data_unchecked(std::make_shared<ArrayData>(dtypes::Struct(std::move(fields), out_type.nullable()),
                                                                   a.length, a.buffers, std::move(children),
                                                                   a.known_null_count(), a.offset));
  }
  fail();
  return Column();
}

}  // namespace ember::frame
