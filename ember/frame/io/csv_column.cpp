#include "ember/frame/io/csv_column.h"

#include <sys/mman.h>
#include <unistd.h>

#include <charconv>
#include <cmath>

#include "ember/core/error.h"
#include "ember/frame/io/csv_values.h"
#include "ember/frame/utf8.h"

namespace ember::frame::io::detail {

namespace {

constexpr int64_t kPow1000[] = {1, 1000, 1000000, 1000000000};

bool is_int(Kind k) { return k == Kind::Int64 || k == Kind::UInt64; }

}  // namespace

KindInfo join(const KindInfo& a, const KindInfo& b) {
  if (a.kind == Kind::Null) return b;
  if (b.kind == Kind::Null) return a;
  KindInfo r = a;
  r.negative = a.negative || b.negative;
  if (a.kind == b.kind) {
    if (a.kind == Kind::Timestamp) {
      if (a.utc != b.utc) return {Kind::String};
      r.unit = std::max(a.unit, b.unit);
    }
    if (a.kind == Kind::UInt64 && r.negative) r.kind = Kind::Float64;
    return r;
  }
  if (is_int(a.kind) && is_int(b.kind)) {
    r.kind = r.negative ? Kind::Float64 : Kind::UInt64;
    return r;
  }
  if ((is_int(a.kind) || a.kind == Kind::Float64) && (is_int(b.kind) || b.kind == Kind::Float64)) {
    r.kind = Kind::Float64;
    return r;
  }
  if ((a.kind == Kind::Date32 && b.kind == Kind::Timestamp) || (a.kind == Kind::Timestamp && b.kind == Kind::Date32)) {
    const KindInfo& t = a.kind == Kind::Timestamp ? a : b;
    if (t.utc) return {Kind::String};
    return {Kind::Timestamp, t.unit, false, false};
  }
  return {Kind::String};
}

ColumnChunk::ColumnChunk(const ColumnSpec& spec, const ValueSets& sets, const Dialect& dialect, const char* end,
                         KindInfo start, ChunkSlots slots)
    : spec_(spec), sets_(sets), dialect_(dialect), end_(end), slots_(slots), info_(start) {
  if (spec.dictionary) {
    info_ = {Kind::String};
  } else if (spec.forced) {
    strict_ = true;
    switch (spec.forced->id()) {
      case TypeId::Int64: info_ = {Kind::Int64}; break;
      case TypeId::UInt64: info_ = {Kind::UInt64}; break;
      case TypeId::Float64: info_ = {Kind::Float64}; break;
      case TypeId::Bool: info_ = {Kind::Bool}; break;
      case TypeId::Date32: info_ = {Kind::Date32}; break;
      case TypeId::String:
      case TypeId::LargeString:
      case TypeId::Binary:
      case TypeId::LargeBinary: info_ = {Kind::String}; break;
      default: info_ = {Kind::Forced}; break;
    }
  }
  prepare(info_.kind);
}

// Page faults one at a time cost more than their zeroing: a kind's slots are mapped in one
// call (the string bytes are not: a chunk's strings rarely fill its share of the text).
void ColumnChunk::prepare(Kind k) {
  auto populate = [](uint8_t* p, int64_t bytes) {
    static const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));  // 4K, 16K or 64K (Arm)
    const uintptr_t b = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
    const uintptr_t e = (reinterpret_cast<uintptr_t>(p) + uintptr_t(bytes)) & ~(page - 1);
#ifdef MADV_POPULATE_WRITE
    if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_POPULATE_WRITE);  // a hint: failure is harmless
#endif
  };
  if (k == Kind::Null || k == Kind::Bool) return;
  if (k == Kind::String) {
    if (slots_.ends) populate(slots_.ends, slots_.capacity * (spec_.large_offsets ? 8 : 4));
  } else if (slots_.values) {
    populate(slots_.values, slots_.capacity * spec_.value_width);
  }
}

void ColumnChunk::clear() {
  length_ = nulls_ = 0;
  has_validity_ = false;
  validity_ = BitmapBuilder();
  bits_ = BitmapBuilder();
  data_size_ = 0;
  spilled_ = false;
  spill_.resize(0);
}

void ColumnChunk::overflow() const {
  EMBER_ERROR("read_csv: internal: a chunk holds more rows (", length_, ") than its line ends allow");
}

// ---- the general path ---------------------------------------------------------------------

void ColumnChunk::bad_value(const Span& s, const std::string& expected) const {
  std::string v(s.p, std::min<size_t>(s.n, 60));
  if (s.n > 60) v += "...";
  throw ParseFailure{-1, -1, "expected " + expected + ", got '" + v + "'"};
}

void ColumnChunk::append_null() {
  if (spec_.forced && !spec_.forced->nullable())
    throw ParseFailure{-1, -1, "a null (an empty field or a null value) in a column of the non-nullable type " +
                                   spec_.forced->to_string() + " (give it a nullable type)"};
  room();
  if (!has_validity_) {
    validity_.append_n(length_, true);
    has_validity_ = true;
  }
  validity_.append(false);
  ++nulls_;
  switch (info_.kind) {
    case Kind::Null: break;
    case Kind::Bool: bits_.append(false); break;
    case Kind::String: put_end(); break;
    case Kind::Date32: put(int32_t(0)); break;
    case Kind::Forced:
      if (spec_.forced->id() == TypeId::Bool) bits_.append(false);
      else std::memset(slots_.values + int64_t(spec_.value_width) * length_, 0, size_t(spec_.value_width));
      break;
    default: put(int64_t(0)); break;
  }
  ++length_;
}

bool ColumnChunk::add(const Span& s) {
  if (!spec_.nulls_are_text && sets_.nulls.contains(s.p, s.n) && (sets_.quoted_nulls || !s.quoted)) {
    append_null();
    return true;
  }
  switch (info_.kind) {
    case Kind::Int64: {
      int64_t v;
      if (parse_int64(s.p, s.n, &v) == IntParse::Ok) {
        info_.negative |= v < 0;
        push(v);
        return true;
      }
      if (strict_) bad_value(s, spec_.forced->to_string());
      break;
    }
    case Kind::Float64: {
      double v;
      if (parse_double(s.p, s.n, &v)) {
        push(v);
        return true;
      }
      if (strict_) bad_value(s, spec_.forced->to_string());
      break;
    }
    case Kind::String: append_string(s.p, s.n); return true;
    case Kind::UInt64: {
      uint64_t v;
      if (parse_uint64(s.p, s.n, &v)) {
        push(v);
        return true;
      }
      if (strict_) bad_value(s, spec_.forced->to_string());
      break;
    }
    case Kind::Bool: {
      const int b = sets_.boolean(s.p, s.n);
      if (b >= 0) {
        room();
        bits_.append(b == 1);
        valid();
        return true;
      }
      if (strict_) bad_value(s, "bool (one of true_values or false_values)");
      break;
    }
    case Kind::Date32: {
      int32_t d;
      if (parse_date32(s.p, s.n, &d)) {
        push(d);
        return true;
      }
      if (strict_) bad_value(s, "date32 (YYYY-MM-DD)");
      break;
    }
    case Kind::Timestamp: {
      TimestampValue t;
      int64_t v;
      if (parse_timestamp(s.p, s.n, &t) && t.has_offset == info_.utc && timestamp_in_unit(t, info_.unit, &v)) {
        push(v);
        return true;
      }
      break;
    }
    case Kind::Forced: add_forced(s); return true;
    case Kind::Null: break;
  }
  return promote(s);
}

void ColumnChunk::fill_placeholders(const KindInfo& to) {
  switch (to.kind) {
    case Kind::Null: break;
    case Kind::Bool: bits_.append_n(length_, false); break;
    case Kind::String:
      if (length_ > 0) std::memset(slots_.ends, 0, size_t(length_ * (spec_.large_offsets ? 8 : 4)));
      break;
    case Kind::Date32: std::memset(slots_.values, 0, size_t(length_ * 4)); break;
    default: std::memset(slots_.values, 0, size_t(length_ * 8)); break;
  }
}

bool ColumnChunk::retime(int unit) {
  if (info_.kind == Kind::Date32) {
    // int32 days at stride 4 become int64 counts at stride 8, in place from the last one.
    for (int64_t i = length_ - 1; i >= 0; --i) {
      int32_t d;
      std::memcpy(&d, slots_.values + 4 * i, 4);
      int64_t t;
      if (__builtin_mul_overflow(int64_t(d) * 86400, kPow1000[unit], &t)) return false;
      std::memcpy(slots_.values + 8 * i, &t, 8);
    }
    return true;
  }
  const int64_t mult = kPow1000[unit] / kPow1000[info_.unit];
  for (int64_t i = 0; i < length_; ++i) {
    int64_t t;
    std::memcpy(&t, slots_.values + 8 * i, 8);
    if (__builtin_mul_overflow(t, mult, &t)) return false;
    std::memcpy(slots_.values + 8 * i, &t, 8);
  }
  return true;
}

bool ColumnChunk::widen(const KindInfo& to) {
  const Kind from = info_.kind;
  if (strict_ || from == Kind::Forced || (from == to.kind && (from != Kind::Timestamp || info_.unit == to.unit))) {
    info_.negative = to.negative;
    return true;
  }
  if (from == Kind::Null) {
    prepare(to.kind);
    fill_placeholders(to);
  } else if (to.kind == Kind::Float64 && is_int(from)) {
    for (int64_t i = 0; i < length_; ++i) {
      int64_t v;
      std::memcpy(&v, slots_.values + 8 * i, 8);
      const double d = from == Kind::Int64 ? double(v) : double(uint64_t(v));
      std::memcpy(slots_.values + 8 * i, &d, 8);
    }
  } else if (to.kind == Kind::UInt64 && from == Kind::Int64 && !info_.negative) {
    // the same bits
  } else if (to.kind == Kind::Timestamp && (from == Kind::Date32 || from == Kind::Timestamp)) {
    if (!retime(to.unit)) return false;
  } else {
    return false;
  }
  info_ = to;
  return true;
}

KindInfo ColumnChunk::classify(const Span& s) const {
  int64_t v;
  bool neg = false;
  const IntParse r = parse_int64(s.p, s.n, &v, &neg);
  if (r == IntParse::Ok) return {Kind::Int64, 0, false, v < 0};
  uint64_t u;
  if (r == IntParse::Overflow) return !neg && parse_uint64(s.p, s.n, &u) ? KindInfo{Kind::UInt64} : KindInfo{Kind::Float64};
  double d;
  if (parse_double(s.p, s.n, &d)) return {Kind::Float64};
  if (sets_.infer_dates && s.n >= 10) {
    int32_t days;
    if (parse_date32(s.p, s.n, &days)) return {Kind::Date32};
    TimestampValue t;
    if (parse_timestamp(s.p, s.n, &t)) return {Kind::Timestamp, timestamp_unit_for(t), t.has_offset, false};
  }
  if (sets_.boolean(s.p, s.n) >= 0) return {Kind::Bool};
  return {Kind::String};
}

bool ColumnChunk::promote(const Span& s) {
  KindInfo c = classify(s);
  if (c.kind == Kind::Timestamp && info_.kind == Kind::Timestamp && c.utc == info_.utc && c.unit <= info_.unit)
    c = {Kind::String};  // it parsed, so it overflowed the unit: only a string holds it
  const KindInfo to = join(info_, c);
  if ((to.kind != Kind::String || info_.kind == Kind::Null) && widen(to)) return add(s);
  info_ = {Kind::String};
  return false;
}

void ColumnChunk::add_forced(const Span& s) {
  const DType& t = *spec_.forced;
  room();
  switch (t.id()) {
    case TypeId::Int8: case TypeId::Int16: case TypeId::Int32: {
      int64_t v;
      if (parse_int64(s.p, s.n, &v) != IntParse::Ok) bad_value(s, t.to_string());
      const int w = t.byte_width();
      const int64_t lo = -(int64_t(1) << (8 * w - 1)), hi = (int64_t(1) << (8 * w - 1)) - 1;
      if (v < lo || v > hi) bad_value(s, t.to_string() + " (the value is out of its range)");
      std::memcpy(slots_.values + w * length_, &v, size_t(w));  // little-endian: the low bytes
      break;
    }
    case TypeId::UInt8: case TypeId::UInt16: case TypeId::UInt32: {
      uint64_t v;
      if (!parse_uint64(s.p, s.n, &v)) bad_value(s, t.to_string());
      const int w = t.byte_width();
      if (v >= (uint64_t(1) << (8 * w))) bad_value(s, t.to_string() + " (the value is out of its range)");
      std::memcpy(slots_.values + w * length_, &v, size_t(w));
      break;
    }
    case TypeId::Float32: {
      double v;
      if (!parse_double(s.p, s.n, &v)) bad_value(s, t.to_string());
      put(float(v));
      break;
    }
    case TypeId::Timestamp: {
      TimestampValue v;
      int64_t x;
      if (!parse_timestamp(s.p, s.n, &v)) bad_value(s, t.to_string() + " (an ISO 8601 date and time)");
      if (!timestamp_in_unit(v, int(t.unit()), &x))
        bad_value(s, t.to_string() + " (the value does not fit the unit " + to_string(t.unit()) + ")");
      put(x);
      break;
    }
    default: bad_value(s, t.to_string());
  }
  valid();
}

Buffer ColumnChunk::take_validity() {
  if (!has_validity_ || nulls_ == 0) return Buffer();
  return validity_.finish();
}

int64_t ColumnChunk::invalid_utf8_row() const {
  const uint8_t* d = data();
  const int64_t n = data_size_;
  uint64_t high = 0;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, d + i, 8);
    high |= w;
  }
  for (; i < n; ++i) high |= d[i];
  if ((high & 0x8080808080808080ULL) == 0) return -1;  // all ASCII
  int64_t begin = 0;
  for (int64_t r = 0; r < length_; ++r) {
    int64_t end;
    if (spec_.large_offsets) std::memcpy(&end, slots_.ends + 8 * r, 8);
    else {
      int32_t e;
      std::memcpy(&e, slots_.ends + 4 * r, 4);
      end = e;
    }
    if (!utf8::is_valid(d + begin, end - begin)) return r;
    begin = end;
  }
  return -1;
}

}  // namespace ember::frame::io::detail
