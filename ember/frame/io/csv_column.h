// A CSV column's values within one chunk of the input, converted as they are read: to the
// column's given type, or to the narrowest kind every value so far fits (widened in place as
// values need more). Values go straight into the chunk's slots of the column's final
// buffers; string bytes into a buffer of the chunk's own. Internal to ember/frame/io.
#pragma once
#include <cstdint>
#include <string>

#include "ember/frame/buffer.h"
#include "ember/frame/io/csv_tokenizer.h"
#include "ember/frame/io/parse_float.h"

namespace ember::frame::io::detail {

// What a column holds, as far as its values so far show. Timestamp carries a unit (0 s ...
// 3 ns) and whether its values had offsets (they are UTC then). Forced: a given type
// without a kind of its own (int8, float32, timestamps...).
enum class Kind : uint8_t { Null, Int64, UInt64, Float64, Date32, Timestamp, Bool, String, Forced };

struct KindInfo {
  Kind kind = Kind::Null;
  int unit = 0;
  bool utc = false;
  bool negative = false;  // Int64: some value was negative (it cannot widen to uint64)
};

// The narrowest kind that holds the values of both.
KindInfo join(const KindInfo& a, const KindInfo& b);

struct ColumnSpec {
  std::string name;
  const DType* forced = nullptr;  // the given type, or null
  bool dictionary = false;        // Dictionary(int32, string): read as strings, encoded at the end
  bool fast_int = true;           // no null value reads as an integer
  bool fast_float = true;         // no null value reads as a (non-NaN) float
  int value_width = 8;            // bytes per row of its fixed-width slots
  bool large_offsets = false;     // int64 string end offsets
  bool nulls_are_text = false;    // a non-nullable string or binary type: null values are text
};

// Where a chunk puts a column's values: its slice of the column's fixed-width buffer
// (value_width bytes per row, Date32 at 4), of its string end offsets (row i's end, local
// to the chunk, at ends[i]) and of its string bytes (as many as the chunk's text has, which
// its strings fit unless its last record runs past the chunk: then they spill elsewhere).
struct ChunkSlots {
  uint8_t* values = nullptr;
  uint8_t* ends = nullptr;
  uint8_t* bytes = nullptr;
  int64_t capacity = 0;        // rows
  int64_t bytes_capacity = 0;  // string bytes
};

class ColumnChunk {
 public:
  ColumnChunk(const ColumnSpec& spec, const ValueSets& sets, const Dialect& dialect, const char* end, KindInfo start,
              ChunkSlots slots);
  ColumnChunk(ColumnChunk&&) = default;

  const KindInfo& info() const { return info_; }
  int64_t length() const { return length_; }
  int64_t nulls() const { return nulls_; }
  bool large() const { return spec_.large_offsets; }
  const ChunkSlots& slots() const { return slots_; }

  // Drops the values, keeping the kind (the chunk starts over).
  void clear();

  // The common cases straight from the text: an unquoted integer, float or string field
  // at p, in a column of that kind. Returns where the field ends, or nullptr to leave the
  // field to add().
  const char* fast(const char* p) {
    switch (info_.kind) {
      case Kind::Int64: return spec_.fast_int ? fast_int(p) : nullptr;
      case Kind::Float64: return spec_.fast_float ? fast_float(p) : nullptr;
      case Kind::String: return fast_string(p);
      default: return nullptr;
    }
  }
  // Any field. False when the column must start over as strings (the kind is String then).
  // A value that does not parse as the given type throws ParseFailure.
  bool add(const Span& s);

  // This chunk's values widened in place to `to`. False when the chunk must be parsed
  // again (to strings).
  bool widen(const KindInfo& to);

  // The first string that is not valid UTF-8, or -1.
  int64_t invalid_utf8_row() const;
  // Hands over the validity bitmap (undefined without nulls), the bits of a Bool column and
  // the string bytes.
  Buffer take_validity();
  Buffer take_bits() { return bits_.finish(); }
  // The string bytes: in the slots, or where they spilled.
  const uint8_t* data() const { return spilled_ ? spill_.data() : slots_.bytes; }
  int64_t data_bytes() const { return data_size_; }
  bool spilled() const { return spilled_; }

 private:
  const char* fast_int(const char* p);
  const char* fast_float(const char* p);
  const char* fast_string(const char* p);

  void room() {
    if (length_ >= slots_.capacity) overflow();
  }
  [[noreturn]] void overflow() const;
  template <class T>
  void put(T v) {
    std::memcpy(slots_.values + int64_t(sizeof(T)) * length_, &v, sizeof(T));
  }
  void valid() {
    if (has_validity_) validity_.append(true);
    ++length_;
  }
  // A valid value appended to the fixed-width slots.
  template <class T>
  void push(T v) {
    room();
    put(v);
    valid();
  }
  void append_null();
  // padded: p is readable 16 bytes on (the text, not the tokenizer's scratch copy).
  void append_string(const char* p, size_t n, bool padded = false);
  void put_end();
  void prepare(Kind k);
  void fill_placeholders(const KindInfo& to);
  bool retime(int unit);
  KindInfo classify(const Span& s) const;
  bool promote(const Span& s);
  void add_forced(const Span& s);
  [[noreturn]] void bad_value(const Span& s, const std::string& expected) const;

  const ColumnSpec& spec_;
  const ValueSets& sets_;
  const Dialect& dialect_;
  const char* end_;  // of the text (the sentinel sits there)
  ChunkSlots slots_;
  KindInfo info_;
  bool strict_ = false;  // the given type: a value that does not fit is an error
  int64_t length_ = 0, nulls_ = 0;
  bool has_validity_ = false;
  bool spilled_ = false;
  int64_t data_size_ = 0;
  BitmapBuilder validity_, bits_;
  BufferBuilder spill_;
};

// ---- fast paths, inline into the reader's loop ---------------------------------------------

inline const char* ColumnChunk::fast_int(const char* p) {
  const char* q = p;
  const bool neg = *q == '-';
  q += neg;
  const char* digits = q;
  uint64_t v = 0;
  for (unsigned d; (d = unsigned(*q - '0')) <= 9; ++q) v = v * 10 + d;  // the sentinel '\n' stops it
  const int64_t nd = q - digits;
  if (nd == 0 || nd > 18 || !dialect_.ends_field[(unsigned char)*q]) return nullptr;
  const int64_t x = neg ? -int64_t(v) : int64_t(v);
  info_.negative |= x < 0;
  push(x);
  return q;
}

inline const char* ColumnChunk::fast_float(const char* p) {
  if (dialect_.ends_field[(unsigned char)*p]) return nullptr;  // empty: a null, perhaps
  double v;
  // NaN and inf spellings, and a field past the number, take the full parser (NaN spellings
  // are null values by default).
  const char* q = parse_decimal(p, &v);
  if (q == nullptr || !dialect_.ends_field[(unsigned char)*q]) return nullptr;
  push(v);
  return q;
}

inline const char* ColumnChunk::fast_string(const char* p) {
  if ((dialect_.quoting && *p == dialect_.quote) || (dialect_.skipinitialspace && *p == ' ')) return nullptr;
  const char* q = dialect_.scan_unquoted(p);
  if (dialect_.esc && *q == dialect_.esc && q < end_) return nullptr;
  const size_t n = size_t(q - p);
  if (!spec_.nulls_are_text && sets_.nulls.contains(p, n)) return nullptr;
  append_string(p, n, /*padded=*/true);  // the reader's text is padded past its end
  return q;
}

inline void ColumnChunk::append_string(const char* p, size_t n, bool padded) {
  room();
  if (padded && n <= 16 && !spilled_ && data_size_ + 16 <= slots_.bytes_capacity) {
    // A short string as one 16-byte copy: the source is readable that far, and the slot
    // bytes past this string are the chunk's own.
    std::memcpy(slots_.bytes + data_size_, p, 16);
  } else if (!spilled_ && data_size_ + int64_t(n) <= slots_.bytes_capacity) {
    if (n > 0) std::memcpy(slots_.bytes + data_size_, p, n);
  } else {
    if (!spilled_) {
      spill_.append(slots_.bytes, data_size_);
      spilled_ = true;
    }
    spill_.append(p, int64_t(n));
  }
  data_size_ += int64_t(n);
  put_end();
  valid();
}

inline void ColumnChunk::put_end() {
  const int64_t n = data_size_;
  if (spec_.large_offsets) {
    std::memcpy(slots_.ends + 8 * length_, &n, 8);
  } else {
    if (n > INT32_MAX) throw ParseFailure{-1, -1, "a chunk holds more than 2 GiB of strings"};
    const int32_t e = int32_t(n);
    std::memcpy(slots_.ends + 4 * length_, &e, 4);
  }
}

}  // namespace ember::frame::io::detail
