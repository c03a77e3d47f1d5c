// A CSV column's values within one chunk of the input, converted as they are read: to the
// column's given type, or to the narrowest kind every value so far fits (widened in place as
// values need more). Values go straight into the chunk's slots of the column's final
// buffers; string bytes into a buffer of the chunk's own. Internal to ember/frame/io.
#pragma once
#include <cstdint>
#include <string>

#include "ember/frame/buffer.h"
#include "ember/frame/io/csv_tokenizer.h"

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
// (value_width bytes per row, Date32 at 4) and of its string end offsets (row i's end, local
// to the chunk, at ends[i]).
struct ChunkSlots {
  uint8_t* values = nullptr;
  uint8_t* ends = nullptr;
  int64_t capacity = 0;      // rows
  int64_t string_bytes = 0;  // what the chunk's strings can take (reserved on first use)
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
  Buffer take_data() { return data_.finish(); }
  int64_t data_bytes() const { return data_.size(); }

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
  void append_null();
  void append_string(const char* p, size_t n);
  void put_end();
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
  bool data_reserved_ = false;
  BitmapBuilder validity_, bits_;
  BufferBuilder data_;
};

}  // namespace ember::frame::io::detail
