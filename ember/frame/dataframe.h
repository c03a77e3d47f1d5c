// DataFrame: ordered, uniquely named columns of equal length (a struct array without
// top-level nulls, as in TorchArrow), and DataFrameBuilder for building one row by row.
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/frame/column.h"

namespace ember::frame {

class ColumnBuilder;
class DataFrame;
class StructBuilder;

// ---- relational (ember/frame/relational) ----------------------------------------------
// Types of the relational members below, defined in ember/frame/relational/relational.h
// (included at the end of this header).
class GroupBy;
struct JoinOptions;
// ---- end relational -------------------------------------------------------------------

// ---- io (ember/frame/io) --------------------------------------------------------------
// Options of the io members below, defined in ember/frame/io/csv.h and ipc.h.
struct CsvWriteOptions;
struct IpcWriteOptions;
// ---- end io ---------------------------------------------------------------------------

// One argument of DataFrame::select (TorchArrow's select(*args, **kwargs)): a column name,
// "*" for every column, "-name" to leave a column out, or a computed column: a name with a
// Column of the frame's length, or with a function of the frame (TorchArrow's `me`:
// {"d", [](const DataFrame& me) { return me["b"] + me["c"]; }}).
class ColumnSelection {
 public:
  ColumnSelection(const char* name) : name_(name) {}          // NOLINT: implicit, as in select({"a", "b"})
  ColumnSelection(std::string name) : name_(std::move(name)) {}  // NOLINT
  ColumnSelection(std::string name, Column value);
  ColumnSelection(std::string name, std::function<Column(const DataFrame&)> compute);

  const std::string& name() const { return name_; }
  bool computed() const { return computed_; }
  // The computed column for `df` (a computed selection only).
  Column value(const DataFrame& df) const;

 private:
  std::string name_;
  bool computed_ = false;
  std::shared_ptr<const Column> value_;
  std::function<Column(const DataFrame&)> compute_;
};

struct PrintOptions {
  // Frames longer than this show their first and last max_rows / 2 rows around a "..." row.
  int64_t max_rows = 20;
};

class DataFrame {
 public:
  DataFrame() = default;  // no columns, no rows
  // ta.dataframe({"a": col, "b": col}): columns in order; names unique, lengths equal.
  DataFrame(std::initializer_list<std::pair<std::string, Column>> columns);
  explicit DataFrame(std::vector<std::pair<std::string, Column>> columns);
  // The fields of a struct column without nulls (a record batch), sharing its memory.
  static DataFrame from_struct(const Column& c);
  // This frame as a non-nullable struct column over the same memory.
  Column to_struct() const;

  int64_t num_rows() const { return num_rows_; }
  int64_t num_columns() const { return int64_t(columns_.size()); }
  int64_t length() const { return num_rows_; }  // len(df) in TorchArrow
  std::pair<int64_t, int64_t> shape() const { return {num_rows_, num_columns()}; }
  const std::vector<std::string>& columns() const { return names_; }  // the column names
  std::vector<DType> dtypes() const;
  DType dtype() const;  // Struct([Field(name, dtype)...])
  bool has_column(std::string_view name) const { return column_index(name) >= 0; }
  int64_t column_index(std::string_view name) const;  // -1 when absent

  // The column `name`; an unknown name raises an error suggesting the closest one.
  const Column& operator[](std::string_view name) const;
  const Column& column(int64_t i) const;
  // Adds a column at the end, or replaces the column of that name in place. Its length must
  // be num_rows() (any length for a frame without columns).
  void set_column(const std::string& name, Column c);
  // Removes the column `name` (unknown names are an error).
  void drop_column(std::string_view name);

  // A frame with the named columns in the given order (zero-copy).
  DataFrame select(const std::vector<std::string>& names) const;
  DataFrame slice(int64_t offset, int64_t length) const;  // zero-copy
  DataFrame head(int64_t n = 5) const;  // pandas: a negative n drops the last -n rows
  DataFrame tail(int64_t n = 5) const;  // pandas: a negative n drops the first -n rows
  // Row i: one Value per column.
  std::vector<Value> row(int64_t i) const;

  // Same names, dtypes and values.
  bool equals(const DataFrame& o) const;
  bool operator==(const DataFrame& o) const { return equals(o); }

  // An aligned table like TorchArrow's: an index column, a header, nulls as None, strings
  // quoted, long frames elided in the middle; then the dtype, count and null count.
  std::string to_string(const PrintOptions& options = {}) const;

  // ---- relational (ember/frame/relational): see Note [Relational semantics] there ------
  // TorchArrow's select: df.select({"*", "-b", {"d", df["b"] + df["c"]}}). Names are kept in
  // the order given ("*" adds the columns not selected yet, in frame order; "-name" leaves
  // `name` out wherever it appears); computed columns follow their place in the list, and
  // one named like a selected column replaces it there. Functions see this frame.
  DataFrame select(std::initializer_list<ColumnSelection> items) const;
  DataFrame select(const std::vector<ColumnSelection>& items) const;
  // A copy with column `name` added at the end or replaced (pandas' assign); the second
  // form computes it from this frame (pandas' assign(name=lambda df: ...)).
  DataFrame assign(const std::string& name, const Column& c) const;
  DataFrame assign(const std::string& name, const std::function<Column(const DataFrame&)>& compute) const;
  DataFrame drop(const std::vector<std::string>& names) const;
  DataFrame rename(const std::vector<std::pair<std::string, std::string>>& mapping) const;  // {{"old", "new"}}
  DataFrame reorder(const std::vector<std::string>& names) const;  // exactly these columns (TorchArrow)
  // The rows where the boolean `mask` is true (a null drops the row), as TorchArrow's where.
  DataFrame where(const Column& mask) const;
  DataFrame append(const std::vector<std::vector<Value>>& rows) const;  // rows of Values
  DataFrame append(const DataFrame& other) const;
  // Stable sort by several keys; `ascending` and `nulls_first` have one flag per key, or one
  // for all (default: ascending, nulls last).
  DataFrame sort(const std::vector<std::string>& by, const std::vector<bool>& ascending = {},
                 const std::vector<bool>& nulls_first = {}) const;
  // sort: groups in key order (pandas' default) or in order of first appearance; dropna:
  // leave out rows with a null key.
  GroupBy groupby(const std::vector<std::string>& keys, bool sort = true, bool dropna = true) const;
  // how: "inner", "left", "right" or "outer" (pandas' merge on `on`).
  DataFrame join(const DataFrame& right, const std::vector<std::string>& on, std::string_view how = "inner",
                 const std::pair<std::string, std::string>& suffixes = {"_x", "_y"}) const;
  DataFrame join(const DataFrame& right, const JoinOptions& options) const;
  // keep: "first", "last" or "none" (pandas' keep=False); an empty subset means all columns.
  DataFrame drop_duplicates(const std::vector<std::string>& subset = {}, std::string_view keep = "first") const;
  // count, mean, std, min, the percentiles, max of each numeric column (pandas' describe).
  DataFrame describe(const std::vector<double>& percentiles = {0.25, 0.5, 0.75}) const;
  // ---- end relational -----------------------------------------------------------------

  // ---- io (ember/frame/io): pandas' df.to_csv and df.to_feather (write_csv, write_feather) -
  void to_csv(const std::string& path) const;
  void to_csv(const std::string& path, const CsvWriteOptions& options) const;
  void to_feather(const std::string& path) const;
  void to_feather(const std::string& path, const IpcWriteOptions& options) const;
  // ---- end io ---------------------------------------------------------------------------

 private:
  std::vector<std::string> names_;
  std::vector<Column> columns_;  // each already sliced to this frame's rows
  int64_t num_rows_ = 0;
};

std::ostream& operator<<(std::ostream& os, const DataFrame& df);

// Builds a DataFrame row by row (or column by column through column(i)).
class DataFrameBuilder {
 public:
  explicit DataFrameBuilder(std::vector<Field> schema);
  explicit DataFrameBuilder(const DType& struct_type);
  ~DataFrameBuilder();
  DataFrameBuilder(DataFrameBuilder&&) noexcept;

  // One Value per column, in order. On an error (a value of the wrong type, say) nothing
  // of the row is kept.
  void append_row(const std::vector<Value>& row);
  ColumnBuilder& column(int64_t i);
  ColumnBuilder& column(std::string_view name);
  int64_t num_rows() const;
  // The frame built so far; the builder is empty afterwards.
  DataFrame finish();

 private:
  DType type_;
  std::unique_ptr<StructBuilder> builder_;
};

// ta.dataframe(rows, dtype=Struct(...)): a frame from rows of Values.
DataFrame dataframe(const std::vector<std::vector<Value>>& rows, const DType& struct_type);

}  // namespace ember::frame

// ---- relational (ember/frame/relational): GroupBy, JoinOptions, concat -----------------
#include "ember/frame/relational/relational.h"
// ---- end relational -------------------------------------------------------------------
