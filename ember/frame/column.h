// Column: a cheap handle over an immutable ArrayData (copies share memory, slices share
// buffers), with typed element access, nested access, equality and printing.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/frame/array_data.h"
#include "ember/frame/value.h"

namespace ember::frame {

// ---- compute (ember/frame/compute) ----------------------------------------------------
// Options of the compute members below; include ember/frame/compute/compute.h to call the
// members that return accessors (str(), list(), struct_()) or take callables (map, transform).
class StringMethods;
class ListMethods;
class StructMethods;
struct SortOptions {
  bool ascending = true;
  bool nulls_first = false;  // TorchArrow's na_position="first"
};
struct CastOptions {
  // Raise an error (naming the row) for integers that do not fit the target type and for
  // floats with a fractional part cast to an integer; otherwise integers wrap and floats
  // truncate toward zero. NaN, infinities and floats out of the target's range are always
  // an error when cast to an integer.
  bool safe = false;
};
// ---- end compute -------------------------------------------------------------------------

class Column {
 public:
  Column() = default;  // undefined; every accessor raises an error
  // Wraps `data` after data->validate() (UTF-8 not checked), so a hand-made array that
  // breaks an invariant is rejected here instead of read out of bounds later.
  explicit Column(ArrayDataPtr data);
  // Wraps `data` without checks; the caller guarantees that validate() would pass
  // (builders, slices, kernels that derive layouts from valid inputs).
  static Column from_data_unchecked(ArrayDataPtr data);

  bool defined() const { return data_ != nullptr; }
  const ArrayDataPtr& data() const;
  const DType& dtype() const { return data().get()->type; }
  int64_t size() const { return data()->length; }
  int64_t length() const { return size(); }
  int64_t null_count() const { return data()->null_count(); }
  // Bounds-checked (IndexError past the end).
  bool is_valid(int64_t i) const;
  bool is_null(int64_t i) const { return !is_valid(i); }

  // ---- elements ----------------------------------------------------------------------
  // Element i, or nullopt for a null. T must be the column's C++ element type: bool,
  // int8_t ... uint64_t, float, double; int32_t for date32 (days since 1970-01-01) and
  // int64_t for timestamps (units since the epoch). Dictionary columns give their values.
  template <class T> std::optional<T> get(int64_t i) const;
  // Element i of a string, large_string, binary or large_binary column (or a dictionary of
  // one): a view into the column's buffer, valid while the column's memory lives.
  std::optional<std::string_view> get_string(int64_t i) const;
  // Element i of a list, large_list or map column: its values (for a map, its entries
  // struct), a zero-copy slice of the child.
  std::optional<Column> get_list(int64_t i) const;
  // Element i of any type as a Value (see value.h for how nested types look).
  Value get_value(int64_t i) const;
  std::vector<Value> to_values() const;

  // ---- nested columns ------------------------------------------------------------------
  // The whole child of a list, large_list or map column (unsliced: offsets index into it).
  Column list_values() const;
  // Element i of a list-like column spans [first, second) of list_values().
  std::pair<int64_t, int64_t> list_range(int64_t i) const;
  // Struct fields, aligned with this column (element i of field(k) is field k of element i).
  // As in Arrow, a field keeps its own nulls only: a null struct element does not make its
  // fields null (their slots hold the builders' empty values).
  int64_t num_fields() const;
  Column field(int64_t i) const;
  Column field(std::string_view name) const;
  // A map column's keys and values (children of list_values(), unsliced).
  Column map_keys() const;
  Column map_values() const;
  // A dictionary column's dictionary, and its indices as an integer column.
  Column dictionary() const;
  Column indices() const;

  // ---- raw layout, for kernels ---------------------------------------------------------
  int64_t offset() const { return data()->offset; }
  // The validity bitmap (bit offset() + i is element i), or nullptr when there are no nulls.
  const uint8_t* validity_bitmap() const { return data()->validity(); }
  // A fixed-width column's values, already advanced to element 0 (not for bool: it is a
  // bitmap, read it with bits::get(data()->buffers[1].data(), offset() + i)).
  template <class T> const T* values() const;

  // ---- derived columns (zero-copy unless said) -------------------------------------------
  Column slice(int64_t offset, int64_t length) const;
  Column head(int64_t n = 5) const;
  Column tail(int64_t n = 5) const;
  // A string, large_string, binary or large_binary column as Dictionary(int32, its type):
  // distinct values in order of first appearance; nulls stay nulls (in the indices). Copies.
  Column dictionary_encode() const;
  // A dictionary column's values, materialized as a column of the value type. Copies.
  Column dictionary_decode() const;

  // Same dtype, length and values, nulls in the same places, whatever the offsets and
  // buffers. Floats compare by value, and NaN equals NaN.
  bool equals(const Column& o) const;
  bool operator==(const Column& o) const { return equals(o); }

  // TorchArrow's layout: one "index  value" line per element (nulls as None), then
  // "dtype: ..., length: ..., null_count: ...". Long columns elide their middle.
  std::string to_string(int64_t max_rows = 20) const;

  // ---- compute (ember/frame/compute): members forwarding to compute.h's free functions ----
  Column is_null() const;  // element-wise, non-nullable booleans (TorchArrow isnull)
  Column is_valid() const;
  Column isnull() const { return is_null(); }
  Column notnull() const { return is_valid(); }
  Column fill_null(const Value& value) const;
  Column drop_null() const;
  Column cast(const DType& dtype, const CastOptions& options = {}) const;
  Column isin(const std::vector<Value>& values) const;
  Column abs() const;
  Column ceil() const;
  Column floor() const;
  Column round(int decimals = 0) const;
  Column log() const;
  Column exp() const;
  Column sqrt() const;
  Column pow(const Value& exponent) const;
  Column where(const Column& mask) const;  // the rows where mask is true (TorchArrow)
  Column filter(const Column& mask) const;
  Column take(const Column& indices) const;
  template <class F> Column map(F&& fn, const std::optional<DType>& dtype = std::nullopt) const;
  template <class F> Column transform(F&& fn, int64_t batch_size = 0) const;
  Value sum() const;
  double mean() const;
  Value min() const;
  Value max() const;
  double std(int64_t ddof = 1) const;
  double var(int64_t ddof = 1) const;
  double median() const;
  double quantile(double q) const;
  int64_t count() const;  // non-null elements
  bool any() const;
  bool all() const;
  int64_t argmin() const;
  int64_t argmax() const;
  Column cumsum() const;
  Column unique() const;
  Column value_counts(bool dropna = true) const;
  int64_t nunique(bool dropna = true) const;
  Column sort(const SortOptions& options = {}) const;
  Column argsort(const SortOptions& options = {}) const;
  StringMethods str() const;
  ListMethods list() const;
  StructMethods struct_() const;
  // ---- end compute ----------------------------------------------------------------------

 private:
  static Column wrap(ArrayDataPtr d) {
    Column c;
    c.data_ = std::move(d);
    return c;
  }
  void check_index(int64_t i, const char* op) const;
  ArrayDataPtr data_;
};

std::ostream& operator<<(std::ostream& os, const Column& c);

// ---- compute (ember/frame/compute): element-wise operators ----------------------------
// Arithmetic and comparisons between columns or a column and a scalar (nulls propagate;
// PyTorch-like promotion: see Note [Compute semantics] in compute/compute.h). == and !=
// between two Columns stay whole-column equality (a bool); use eq()/ne() for element-wise.
#define EMBER_FRAME_DECLARE_OPERATOR(op)                    \
  Column operator op(const Column& a, const Column& b);    \
  Column operator op(const Column& a, const Value& b);     \
  Column operator op(const Value& a, const Column& b);
EMBER_FRAME_DECLARE_OPERATOR(+)
EMBER_FRAME_DECLARE_OPERATOR(-)
EMBER_FRAME_DECLARE_OPERATOR(*)
EMBER_FRAME_DECLARE_OPERATOR(/)
EMBER_FRAME_DECLARE_OPERATOR(%)
EMBER_FRAME_DECLARE_OPERATOR(<)
EMBER_FRAME_DECLARE_OPERATOR(<=)
EMBER_FRAME_DECLARE_OPERATOR(>)
EMBER_FRAME_DECLARE_OPERATOR(>=)
#undef EMBER_FRAME_DECLARE_OPERATOR
Column operator==(const Column& a, const Value& b);
Column operator==(const Value& a, const Column& b);
Column operator!=(const Column& a, const Value& b);
Column operator!=(const Value& a, const Column& b);
Column operator-(const Column& a);
// Logic on boolean columns (Kleene logic for nulls).
Column operator&(const Column& a, const Column& b);
Column operator|(const Column& a, const Column& b);
Column operator^(const Column& a, const Column& b);
Column operator~(const Column& a);
// ---- end compute ----------------------------------------------------------------------

// A non-nullable struct column over child columns of equal length, sharing their memory.
Column struct_column(const std::vector<std::pair<std::string, Column>>& fields);
// A dictionary column from integer indices and a dictionary (validated).
Column dictionary_column(const Column& indices, const Column& dictionary, bool ordered = false);

#define EMBER_FRAME_FORALL_ELEMENT_TYPES(_) \
  _(bool) _(int8_t) _(int16_t) _(int32_t) _(int64_t) _(uint8_t) _(uint16_t) _(uint32_t) _(uint64_t) _(float) _(double)
#define EMBER_FRAME_DECLARE_GET(T)                                   \
  extern template std::optional<T> Column::get<T>(int64_t) const; \
  extern template const T* Column::values<T>() const;
EMBER_FRAME_FORALL_ELEMENT_TYPES(EMBER_FRAME_DECLARE_GET)
#undef EMBER_FRAME_DECLARE_GET

}  // namespace ember::frame
