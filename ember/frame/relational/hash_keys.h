// Hashing of key columns and factorization of rows into groups: the core of groupby, join,
// drop_duplicates and dictionary unification. Keys are one or more columns of a primitive
// type (bool, integers, floats, date32, timestamp), strings/binaries, or dictionaries of
// those (read through their values). Floats compare by value with -0.0 == 0.0 and every NaN
// equal to every other NaN. Internal to ember/frame/relational.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ember/frame/column.h"
#include "ember/frame/relational/util.h"

namespace ember::frame::relational {

// The key columns of one frame, read straight from their buffers.
class KeyColumns {
 public:
  // `names` label the columns in errors; `op` names the caller. Columns must have equal lengths.
  KeyColumns(const std::vector<Column>& columns, const std::vector<std::string>& names, const char* op);

  int64_t num_rows() const { return rows_; }
  size_t num_keys() const { return cols_.size(); }
  const std::vector<Column>& columns() const { return columns_; }
  // Whether any key column has nulls.
  bool has_nulls() const { return has_nulls_; }
  bool row_has_null(int64_t i) const;
  // The hash of each row of [begin, end), written to out[0 .. end - begin).
  void hash(int64_t begin, int64_t end, uint64_t* out) const;
  // Row i of this equals row j of `o` (keys of the same types), nulls equal to nulls.
  bool equal(int64_t i, const KeyColumns& o, int64_t j) const;
  // A single key of a fixed-width type: its values as normalized 64-bit patterns (equal
  // patterns if and only if equal values), read with bits(i).
  bool single_fixed() const { return cols_.size() == 1 && cols_[0].kind != Kind::Bin32 && cols_[0].kind != Kind::Bin64; }
  uint64_t bits(int64_t i) const { return fixed_bits(cols_[0], i); }
  // A single key of a string or binary type; str(i) is its element i (valid rows only).
  bool single_binary() const { return cols_.size() == 1 && (cols_[0].kind == Kind::Bin32 || cols_[0].kind == Kind::Bin64); }
  std::string_view str(int64_t i) const { return binary_view(cols_[0], i); }
  // A single integer key's element i as an int64 (the caller checked int_range()).
  int64_t int_value(int64_t i) const;
  // The columns' dtypes agree with `o`'s (nullable flags aside).
  bool same_types(const KeyColumns& o) const;
  // For a single key of an integer type (dates and timestamps too): the least and greatest
  // valid values, when there is one and both fit int64.
  bool int_range(int64_t* lo, int64_t* hi) const;
  // A single integer key's type id, its values (element 0 first), validity and offset.
  TypeId int_type() const { return cols_[0].type; }
  const void* int_values() const { return cols_[0].values + cols_[0].offset * cols_[0].width; }
  const uint8_t* validity() const { return cols_[0].validity; }
  int64_t offset() const { return cols_[0].offset; }

 private:
  enum class Kind : uint8_t { U8, U16, U32, U64, F32, F64, Bool, Bin32, Bin64 };
  struct Col {
    Kind kind;
    TypeId type;  // the (decoded) column's type id
    int width;    // bytes per value of a fixed-width type
    bool is_int;  // an integer, date32 or timestamp
    const uint8_t* validity;  // null when there are no nulls
    int64_t offset;
    const uint8_t* values;    // fixed-width values / bool bits / binary offsets
    const uint8_t* bytes;     // binary data
    bool valid(int64_t i) const { return validity == nullptr || ((validity[(offset + i) >> 3] >> ((offset + i) & 7)) & 1); }
  };
  static uint64_t fixed_bits(const Col& c, int64_t i);
  // Element i of a string or binary column.
  static std::string_view binary_view(const Col& c, int64_t i) {
    const int64_t s = c.offset + i;
    int64_t lo, hi;
    if (c.kind == Kind::Bin32) {
      const int32_t* o = reinterpret_cast<const int32_t*>(c.values);
      lo = o[s], hi = o[s + 1];
    } else {
      const int64_t* o = reinterpret_cast<const int64_t*>(c.values);
      lo = o[s], hi = o[s + 1];
    }
    return std::string_view(reinterpret_cast<const char*>(c.bytes) + lo, size_t(hi - lo));
  }
  static uint64_t hash_col(const Col& c, int64_t i);
  std::vector<Column> columns_;  // keeps the buffers alive (dictionaries decoded)
  std::vector<Col> cols_;
  int64_t rows_ = 0;
  bool has_nulls_ = false;
};

// Rows grouped by key: ids[i] is row i's group, numbered in order of first appearance, or -1
// for a row left out (a null key, when nulls are dropped). first[g] is group g's first row.
struct Groups {
  Vec<int32_t> ids;
  std::vector<int64_t> first;
  int64_t num_groups() const { return int64_t(first.size()); }
};

// Groups of equal keys. With drop_nulls, rows with a null in any key get id -1; otherwise a
// null key is a key like any other (nulls equal nulls). Frames of 2^31 rows or more are refused.
Groups factorize(const KeyColumns& keys, bool drop_nulls, const char* op);

// The keys of two frames in one id space, for joins: build's rows are factorized (null keys
// dropped: they match nothing); each probe row gets the id of the build group with its key,
// or -1 when there is none or its key has a null. With add_probe_keys, a probe key that build
// lacks gets a new id (after build's groups, in order of first appearance in probe), so that
// every non-null key of either side has an id.
struct JoinIds {
  Vec<int32_t> build_ids, probe_ids;
  std::vector<int64_t> build_first;  // first build row of groups [0, build_first.size())
  std::vector<int64_t> probe_first;  // first probe row of the later groups
  int64_t num_groups = 0;
};
JoinIds join_ids(const KeyColumns& build, const KeyColumns& probe, bool add_probe_keys, const char* op);

}  // namespace ember::frame::relational
