#include "ember/frame/dataframe.h"

#include <algorithm>
#include <cctype>
#include <unordered_set>

#include "ember/core/error.h"
#include "ember/frame/builder.h"
#include "ember/frame/detail/value_check.h"

namespace ember::frame {

namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string s;
  const size_t shown = std::min<size_t>(names.size(), 20);
  for (size_t i = 0; i < shown; ++i) s += (i ? ", '" : "'") + names[i] + "'";
  if (shown < names.size()) s += ", ... (" + std::to_string(names.size()) + " in all)";
  return s.empty() ? "none" : s;
}

}  // namespace

DataFrame::DataFrame(std::initializer_list<std::pair<std::string, Column>> columns)
    : DataFrame(std::vector<std::pair<std::string, Column>>(columns)) {}

DataFrame::DataFrame(std::vector<std::pair<std::string, Column>> columns) {
  for (auto& [name, col] : columns) {
    EMBER_CHECK(!has_column(name), "DataFrame: the column name '", name, "' appears twice");
    set_column(name, std::move(col));
  }
}

DataFrame DataFrame::from_struct(const Column& c) {
  EMBER_CHECK_TYPE(c.dtype().id() == TypeId::Struct, "DataFrame.from_struct: the column's dtype is ",
                   c.dtype().to_string(), "; expected a struct");
  EMBER_CHECK(c.null_count() == 0, "DataFrame.from_struct: the struct column has ", c.null_count(),
              " null rows; a frame's rows cannot be null");
  DataFrame df;
  df.num_rows_ = c.size();
  for (int64_t i = 0; i < c.num_fields(); ++i) {
    const std::string& name = c.dtype().fields()[size_t(i)].name;
    EMBER_CHECK(!df.has_column(name), "DataFrame.from_struct: the field name '", name, "' appears twice");
    df.names_.push_back(name);
    df.columns_.push_back(c.field(i));
  }
  return df;
}

Column DataFrame::to_struct() const {
  std::vector<Field> fields;
  std::vector<ArrayDataPtr> children;
  for (size_t i = 0; i < columns_.size(); ++i) {
    fields.push_back({names_[i], columns_[i].dtype()});
    children.push_back(columns_[i].data());
  }
  return Column::from_data_unchecked(
      ArrayData::make(dtypes::Struct(std::move(fields)), num_rows_, {Buffer()}, std::move(children), 0));
}

std::vector<DType> DataFrame::dtypes() const {
  std::vector<DType> out;
  for (const Column& c : columns_) out.push_back(c.dtype());
  return out;
}

DType DataFrame::dtype() const {
  std::vector<Field> fields;
  for (size_t i = 0; i < columns_.size(); ++i) fields.push_back({names_[i], columns_[i].dtype()});
  return dtypes::Struct(std::move(fields));
}

int64_t DataFrame::column_index(std::string_view name) const {
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return int64_t(i);
  return -1;
}

const Column& DataFrame::operator[](std::string_view name) const {
  const int64_t i = column_index(name);
  if (i >= 0) return columns_[size_t(i)];
  const std::string* best = nullptr;
  size_t best_d = 0;
  for (const std::string& n : names_) {
    const size_t d = edit_distance(name, n);
    if (!best || d < best_d) best = &n, best_d = d;
  }
  const bool close = best && best_d <= std::max<size_t>(2, std::max(name.size(), best->size()) / 2);
  EMBER_CHECK_INDEX(false, "DataFrame: no column named '", name, "'",
                    close ? "; did you mean '" + *best + "'?" : std::string(), " (columns: ", quoted_list(names_), ")");
  return columns_[0];  // unreachable
}

const Column& DataFrame::column(int64_t i) const {
  EMBER_CHECK_INDEX(i >= 0 && i < num_columns(), "DataFrame.column: index ", i, " is out of range for a frame of ",
                    num_columns(), " columns");
  return columns_[size_t(i)];
}

void DataFrame::set_column(const std::string& name, Column c) {
  EMBER_CHECK(c.defined(), "DataFrame.set_column: column '", name, "' is undefined");
  if (columns_.empty()) num_rows_ = c.size();
  EMBER_CHECK(c.size() == num_rows_, "DataFrame.set_column: column '", name, "' has length ", c.size(),
              " but the frame has ", num_rows_, " rows");
  const int64_t i = column_index(name);
  if (i >= 0) {
    columns_[size_t(i)] = std::move(c);
  } else {
    names_.push_back(name);
    columns_.push_back(std::move(c));
  }
}

void DataFrame::drop_column(std::string_view name) {
  (*this)[name];  // the error for unknown names
  const size_t i = size_t(column_index(name));
  names_.erase(names_.begin() + i);
  columns_.erase(columns_.begin() + i);
}

DataFrame DataFrame::select(const std::vector<std::string>& names) const {
  DataFrame out;
  out.num_rows_ = num_rows_;
  for (const std::string& n : names) {
    const Column& c = (*this)[n];
    EMBER_CHECK(!out.has_column(n), "DataFrame.select: the column '", n, "' is selected twice");
    out.names_.push_back(n);
    out.columns_.push_back(c);
  }
  return out;
}

DataFrame DataFrame::slice(int64_t offset, int64_t length) const {
  EMBER_CHECK_INDEX(offset >= 0 && length >= 0 && offset <= num_rows_ && length <= num_rows_ - offset,
                    "DataFrame.slice: rows [", offset, ", ", offset, " + ", length, ") are outside a frame of ",
                    num_rows_, " rows");
  DataFrame out;
  out.names_ = names_;
  out.num_rows_ = length;
  for (const Column& c : columns_) out.columns_.push_back(c.slice(offset, length));
  return out;
}

DataFrame DataFrame::head(int64_t n) const {
  const int64_t k = n >= 0 ? std::min(n, num_rows_) : std::max<int64_t>(0, num_rows_ + n);
  return slice(0, k);
}

DataFrame DataFrame::tail(int64_t n) const {
  const int64_t k = n >= 0 ? std::min(n, num_rows_) : std::max<int64_t>(0, num_rows_ + n);
  return slice(num_rows_ - k, k);
}

std::vector<Value> DataFrame::row(int64_t i) const {
  EMBER_CHECK_INDEX(i >= 0 && i < num_rows_, "DataFrame.row: row ", i, " is out of range for a frame of ", num_rows_,
                    " rows");
  std::vector<Value> out;
  for (const Column& c : columns_) out.push_back(c.get_value(i));
  return out;
}

bool DataFrame::equals(const DataFrame& o) const {
  if (names_ != o.names_ || num_rows_ != o.num_rows_) return false;
  for (size_t i = 0; i < columns_.size(); ++i)
    if (!columns_[i].equals(o.columns_[i])) return false;
  return true;
}

// ---- DataFrameBuilder -----------------------------------------------------------------

DataFrameBuilder::DataFrameBuilder(std::vector<Field> schema) : DataFrameBuilder(dtypes::Struct(std::move(schema))) {}

DataFrameBuilder::DataFrameBuilder(const DType& struct_type) : type_(struct_type) {
  EMBER_CHECK_TYPE(type_.id() == TypeId::Struct, "DataFrameBuilder: the schema must be a struct type, got ",
                   type_.to_string());
  std::unordered_set<std::string> seen;
  for (const Field& f : type_.fields())
    EMBER_CHECK(seen.insert(f.name).second, "DataFrameBuilder: the column name '", f.name, "' appears twice");
  builder_ = std::make_unique<StructBuilder>(type_.with_nullable(false));
}

DataFrameBuilder::~DataFrameBuilder() = default;
DataFrameBuilder::DataFrameBuilder(DataFrameBuilder&&) noexcept = default;

void DataFrameBuilder::append_row(const std::vector<Value>& row) {
  const auto& fields = type_.fields();
  EMBER_CHECK(row.size() == fields.size(), "DataFrameBuilder.append_row: row ", num_rows(), " has ", row.size(),
              " values for ", fields.size(), " columns");
  // Check every value first, so that a bad row leaves the builder unchanged.
  for (size_t c = 0; c < fields.size(); ++c) {
    const std::string err = detail::value_error(fields[c].dtype, row[c]);
    EMBER_CHECK(err.empty(), "DataFrameBuilder.append_row: row ", num_rows(), ", column '", fields[c].name, "' (",
                fields[c].dtype.to_string(), "): ", err);
  }
  for (size_t c = 0; c < fields.size(); ++c) builder_->field(int64_t(c)).append_value(row[c]);
  builder_->append();
}

ColumnBuilder& DataFrameBuilder::column(int64_t i) { return builder_->field(i); }
ColumnBuilder& DataFrameBuilder::column(std::string_view name) { return builder_->field(name); }
int64_t DataFrameBuilder::num_rows() const { return builder_->length(); }

DataFrame DataFrameBuilder::finish() {
  // Columns appended through column(i) count as rows too, as long as they agree.
  const int64_t n = builder_->num_fields() > 0 ? builder_->field(0).length() : builder_->length();
  while (builder_->length() < n) builder_->append();
  return DataFrame::from_struct(builder_->finish());
}

DataFrame dataframe(const std::vector<std::vector<Value>>& rows, const DType& struct_type) {
  DataFrameBuilder b(struct_type);
  for (const auto& r : rows) b.append_row(r);
  return b.finish();
}

}  // namespace ember::frame
