#include "ember/frame/builder.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "ember/core/error.h"
#include "ember/frame/detail/physical.h"
#include "ember/frame/detail/value_check.h"
#include "ember/frame/utf8.h"

namespace ember::frame {

using detail::physical_matches;

// ---- ColumnBuilder --------------------------------------------------------------------

void ColumnBuilder::append_null() {
  EMBER_CHECK(type_.nullable(), "append_null: the column type ", type_.to_string(),
              " is not nullable (use dtypes::...(true) for a nullable type)");
  append_placeholder();
  validity_.append(false);
}

void ColumnBuilder::append_nulls(int64_t n) {
  for (int64_t i = 0; i < n; ++i) append_null();
}

void ColumnBuilder::append_empty() {
  if (type_.nullable()) return append_null();
  append_placeholder();
  validity_.append(true);
}

Column ColumnBuilder::finish() {
  check_finish();
  const int64_t length = validity_.length();
  const int64_t nulls = validity_.count_unset();
  Buffer validity = validity_.finish();
  if (nulls == 0) validity = Buffer();
  return Column::from_data_unchecked(finish_data(std::move(validity), length, nulls));
}

void ColumnBuilder::check_type(const Column& src, const char* op) const {
  EMBER_CHECK_TYPE(src.dtype().equals(type_, false), op, ": the builder's type is ", type_.to_string(),
                   " but the source column's is ", src.dtype().to_string());
}

void ColumnBuilder::check_value(const Value& v) const {
  const std::string err = detail::value_error(type_, v);
  EMBER_CHECK(err.empty(), "append_value: ", err);
}

void ColumnBuilder::bad_value(const Value& v) const {
  EMBER_CHECK_TYPE(false, "append_value: cannot store ", v.to_string(), " (a ", to_string(v.kind()),
                   ") in a column of type ", type_.to_string());
  std::abort();  // unreachable
}

// ---- NumericBuilder -------------------------------------------------------------------

template <class T>
NumericBuilder<T>::NumericBuilder(DType type) : ColumnBuilder(std::move(type)) {
  EMBER_CHECK_TYPE((physical_matches<T>(type_.id()) && !std::is_same_v<T, bool>), "NumericBuilder<",
                   detail::element_type_name<T>(), ">: cannot build a column of type ", type_.to_string());
}

template <class T>
void NumericBuilder<T>::append_values(const T* v, int64_t n) {
  data_.append(v, n * int64_t(sizeof(T)));
  validity_.append_n(n, true);
}

template <class T>
void NumericBuilder<T>::reserve(int64_t n) {
  ColumnBuilder::reserve(n);
  data_.reserve(n * int64_t(sizeof(T)));
}

template <class T>
void NumericBuilder<T>::append_value(const Value& v) {
  if (v.is_null()) return append_null();
  if constexpr (std::is_floating_point_v<T>) {
    if (v.is_double() || v.is_integer()) return append(T(v.as_double()));
  } else {
    if (v.is_integer()) {
      if constexpr (std::is_signed_v<T>) {
        const bool fits = v.kind() == Value::Kind::Int && v.as_int() >= std::numeric_limits<T>::min() &&
                          v.as_int() <= std::numeric_limits<T>::max();
        EMBER_CHECK(fits, "append_value: ", v.to_string(), " is out of range for ", type_.to_string());
        return append(T(v.as_int()));
      } else {
        const bool fits = (v.kind() == Value::Kind::UInt || v.as_int() >= 0) &&
                          v.as_uint() <= uint64_t(std::numeric_limits<T>::max());
        EMBER_CHECK(fits, "append_value: ", v.to_string(), " is out of range for ", type_.to_string());
        return append(T(v.as_uint()));
      }
    }
  }
  bad_value(v);
}

template <class T>
void NumericBuilder<T>::append_from(const Column& src, int64_t i) {
  check_type(src, "append_from");
  if (!src.is_valid(i)) return append_null();
  append(src.values<T>()[i]);
}

template <class T>
ArrayDataPtr NumericBuilder<T>::finish_data(Buffer validity, int64_t length, int64_t null_count) {
  return ArrayData::make(type_, length, {std::move(validity), data_.finish()}, {}, null_count);
}

template class NumericBuilder<int8_t>;
template class NumericBuilder<int16_t>;
template class NumericBuilder<int32_t>;
template class NumericBuilder<int64_t>;
template class NumericBuilder<uint8_t>;
template class NumericBuilder<uint16_t>;
template class NumericBuilder<uint32_t>;
template class NumericBuilder<uint64_t>;
template class NumericBuilder<float>;
template class NumericBuilder<double>;

// ---- BooleanBuilder -------------------------------------------------------------------

BooleanBuilder::BooleanBuilder(DType type) : ColumnBuilder(std::move(type)) {
  EMBER_CHECK_TYPE(type_.id() == TypeId::Bool, "BooleanBuilder: cannot build a column of type ", type_.to_string());
}

void BooleanBuilder::append_value(const Value& v) {
  if (v.is_null()) return append_null();
  if (v.is_bool()) return append(v.as_bool());
  bad_value(v);
}

void BooleanBuilder::append_from(const Column& src, int64_t i) {
  check_type(src, "append_from");
  append(src.get<bool>(i));
}

ArrayDataPtr BooleanBuilder::finish_data(Buffer validity, int64_t length, int64_t null_count) {
  return ArrayData::make(type_, length, {std::move(validity), bits_.finish()}, {}, null_count);
}

// ---- BinaryBuilder --------------------------------------------------------------------

BinaryBuilder::BinaryBuilder(DType type) : ColumnBuilder(std::move(type)) {
  EMBER_CHECK_TYPE(type_.is_binary_like(), "BinaryBuilder: cannot build a column of type ", type_.to_string());
}

void BinaryBuilder::append(std::string_view s) {
  if (type_.is_string()) {
    int64_t bad = 0;
    EMBER_CHECK(utf8::is_valid(s, &bad), "append: element ", length(), " of a ", type_.to_string(),
                " column is not valid UTF-8 (byte ", bad, " of ", s.size(), "); use a binary column for bytes");
  }
  data_.append(s.data(), int64_t(s.size()));
  offsets_.push_back(data_.size());
  validity_.append(true);
}

void BinaryBuilder::reserve(int64_t n) {
  ColumnBuilder::reserve(n);
  offsets_.reserve(size_t(n) + 1);
}

void BinaryBuilder::append_value(const Value& v) {
  if (v.is_null()) return append_null();
  if (v.is_string()) return append(v.as_string());
  bad_value(v);
}

void BinaryBuilder::append_from(const Column& src, int64_t i) {
  check_type(src, "append_from");
  append(src.get_string(i));
}

void BinaryBuilder::check_finish() const {
  EMBER_CHECK(type_.has_large_offsets() || data_.size() <= std::numeric_limits<int32_t>::max(), "finish: a ",
              type_.to_string(), " column holds ", data_.size(),
              " bytes, more than 32-bit offsets reach; use large_string or large_binary");
}

ArrayDataPtr BinaryBuilder::finish_data(Buffer validity, int64_t length, int64_t null_count) {
  BufferBuilder offsets;
  if (type_.has_large_offsets()) {
    offsets.append(offsets_.data(), int64_t(offsets_.size() * sizeof(int64_t)));
  } else {
    offsets.reserve(int64_t(offsets_.size() * sizeof(int32_t)));
    for (int64_t o : offsets_) offsets.append_value(int32_t(o));
  }
  offsets_.assign(1, 0);
  return ArrayData::make(type_, length, {std::move(validity), offsets.finish(), data_.finish()}, {}, null_count);
}

// ---- ListBuilder ----------------------------------------------------------------------

ListBuilder::ListBuilder(DType type) : ColumnBuilder(std::move(type)) {
  EMBER_CHECK_TYPE(type_.is_list_like(), "ListBuilder: cannot build a column of type ", type_.to_string());
  values_ = make_builder(child_type(type_, 0));
}

void ListBuilder::begin_list() {
  EMBER_CHECK(!open_, "begin_list: element ", length(), " of the ", type_.to_string(), " column is still open");
  open_ = true;
}

void ListBuilder::end_list() {
  EMBER_CHECK(open_, "end_list: no begin_list() for element ", length(), " of the ", type_.to_string(), " column");
  open_ = false;
  offsets_.push_back(values_->length());
  validity_.append(true);
}

void ListBuilder::append_placeholder() {
  EMBER_CHECK(!open_, "append_null: element ", length(), " of the ", type_.to_string(), " column is still open");
  offsets_.push_back(values_->length());
}

void ListBuilder::append_value(const Value& v) {
  if (v.is_null()) return append_null();
  if (!v.is_list()) bad_value(v);
  check_value(v);
  begin_list();
  for (const Value& item : v.as_list()) values_->append_value(item);
  end_list();
}

void ListBuilder::append_from(const Column& src, int64_t i) {
  check_type(src, "append_from");
  if (!src.is_valid(i)) return append_null();
  auto [b, e] = src.list_range(i);
  const Column child = src.list_values();
  begin_list();
  for (int64_t k = b; k < e; ++k) values_->append_from(child, k);
  end_list();
}

void ListBuilder::check_finish() const {
  EMBER_CHECK(!open_, "finish: element ", length(), " of the ", type_.to_string(), " column is still open (no end_list)");
  EMBER_CHECK(type_.has_large_offsets() || offsets_.back() <= std::numeric_limits<int32_t>::max(), "finish: a ",
              type_.to_string(), " column holds ", offsets_.back(), " values, more than 32-bit offsets reach; use LargeList");
  values_->check_finish();
}

ArrayDataPtr ListBuilder::finish_data(Buffer validity, int64_t length, int64_t null_count) {
  BufferBuilder offsets;
  if (type_.has_large_offsets()) {
    offsets.append(offsets_.data(), int64_t(offsets_.size() * sizeof(int64_t)));
  } else {
    for (int64_t o : offsets_) offsets.append_value(int32_t(o));
  }
  offsets_.assign(1, 0);
  ArrayDataPtr child = values_->finish().data();
  return ArrayData::make(type_, length, {std::move(validity), offsets.finish()}, {std::move(child)}, null_count);
}

// ---- MapBuilder -----------------------------------------------------------------------

MapBuilder::MapBuilder(DType type) : ListBuilder(std::move(type)) {
  EMBER_CHECK_TYPE(type_.id() == TypeId::Map, "MapBuilder: cannot build a column of type ", type_.to_string());
}

ColumnBuilder& MapBuilder::keys() { return static_cast<StructBuilder&>(*values_).field(0); }
ColumnBuilder& MapBuilder::items() { return static_cast<StructBuilder&>(*values_).field(1); }

void MapBuilder::end_map() {
  EMBER_CHECK(open_, "end_map: no begin_map() for element ", length(), " of the ", type_.to_string(), " column");
  auto& entries = static_cast<StructBuilder&>(*values_);
  const int64_t nk = entries.field(0).length(), ni = entries.field(1).length();
  EMBER_CHECK(nk == ni, "end_map: ", nk, " keys but ", ni, " items were appended to element ", length(), " of the ",
              type_.to_string(), " column");
  // The entries struct has no nulls: one valid slot per appended pair.
  while (entries.length() < nk) entries.append();
  end_list();
}

void MapBuilder::append_value(const Value& v) {
  if (v.is_null()) return append_null();
  if (!v.is_list()) bad_value(v);
  check_value(v);
  begin_map();
  for (const Value& kv : v.as_list()) {
    EMBER_CHECK_TYPE(kv.is_list() && kv.as_list().size() == 2, "append_value: a map entry must be a {key, value} pair, got ",
                     kv.to_string(), " for a column of type ", type_.to_string());
    EMBER_CHECK(!kv.as_list()[0].is_null(), "append_value: map keys cannot be null (column type ", type_.to_string(), ")");
    keys().append_value(kv.as_list()[0]);
    items().append_value(kv.as_list()[1]);
  }
  end_map();
}

// ---- StructBuilder --------------------------------------------------------------------

StructBuilder::StructBuilder(DType type) : ColumnBuilder(std::move(type)) {
  EMBER_CHECK_TYPE(type_.id() == TypeId::Struct, "StructBuilder: cannot build a column of type ", type_.to_string());
  for (const Field& f : type_.fields()) fields_.push_back(make_builder(f.dtype));
}

ColumnBuilder& StructBuilder::field(int64_t i) {
  EMBER_CHECK_INDEX(i >= 0 && i < num_fields(), "StructBuilder.field: index ", i, " is out of range for ",
                    type_.to_string());
  return *fields_[size_t(i)];
}

ColumnBuilder& StructBuilder::field(std::string_view name) {
  const int64_t i = type_.field_index(name);
  EMBER_CHECK_INDEX(i >= 0, "StructBuilder.field: no field named '", name, "' in ", type_.to_string());
  return *fields_[size_t(i)];
}

void StructBuilder::append() { validity_.append(true); }

void StructBuilder::append_placeholder() {
  for (auto& f : fields_) f->append_empty();
}

void StructBuilder::append_value(const Value& v) {
  if (v.is_null()) return append_null();
  if (!v.is_list()) bad_value(v);
  check_value(v);
  const auto& items = v.as_list();
  EMBER_CHECK(int64_t(items.size()) == num_fields(), "append_value: ", items.size(), " values for the ", num_fields(),
              " fields of ", type_.to_string());
  for (size_t k = 0; k < items.size(); ++k) fields_[k]->append_value(items[k]);
  append();
}

void StructBuilder::append_from(const Column& src, int64_t i) {
  check_type(src, "append_from");
  if (!src.is_valid(i)) return append_null();
  for (size_t k = 0; k < fields_.size(); ++k) fields_[k]->append_from(src.field(int64_t(k)), i);
  append();
}

void StructBuilder::check_finish() const {
  for (size_t k = 0; k < fields_.size(); ++k) {
    EMBER_CHECK(fields_[k]->length() == length(), "finish: field '", type_.fields()[k].name, "' of ", type_.to_string(),
                " has ", fields_[k]->length(), " values for ", length(), " struct elements");
    fields_[k]->check_finish();
  }
}

ArrayDataPtr StructBuilder::finish_data(Buffer validity, int64_t length, int64_t null_count) {
  std::vector<ArrayDataPtr> children;
  for (auto& f : fields_) children.push_back(f->finish().data());
  return ArrayData::make(type_, length, {std::move(validity)}, std::move(children), null_count);
}

// ---- DictionaryBuilder ----------------------------------------------------------------

DictionaryBuilder::DictionaryBuilder(DType type)
    : ColumnBuilder(std::move(type)), dict_(type_.id() == TypeId::Dictionary ? type_.value_type() : dtypes::string) {
  EMBER_CHECK_TYPE(type_.id() == TypeId::Dictionary && type_.value_type().is_binary_like() &&
                       type_.index_type().is_signed_integer(),
                   "DictionaryBuilder: builds dictionaries of strings or bytes with signed integer indices, not ",
                   type_.to_string());
}

void DictionaryBuilder::append(std::string_view s) {
  auto it = memo_.find(s);
  int64_t index;
  if (it != memo_.end()) {
    index = it->second;
  } else {
    index = dict_.length();
    dict_.append(s);
    memo_.emplace(std::string(s), index);
  }
  indices_.append_value(index);
  validity_.append(true);
}

void DictionaryBuilder::append_value(const Value& v) {
  if (v.is_null()) return append_null();
  if (v.is_string()) return append(v.as_string());
  bad_value(v);
}

void DictionaryBuilder::append_from(const Column& src, int64_t i) {
  EMBER_CHECK_TYPE(src.dtype().equals(type_, false) || src.dtype().equals(type_.value_type(), false),
                   "append_from: the builder's type is ", type_.to_string(), " but the source column's is ",
                   src.dtype().to_string());
  if (!src.is_valid(i)) return append_null();
  append(*src.get_string(i));
}

void DictionaryBuilder::check_finish() const {
  const int64_t n = dict_.length();
  const int width = type_.index_type().byte_width();
  const int64_t max_index = width == 8 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (8 * width - 1)) - 1;
  EMBER_CHECK(n == 0 || n - 1 <= max_index, "finish: ", n, " distinct values do not fit ", type_.index_type().to_string(),
              " indices");
}

ArrayDataPtr DictionaryBuilder::finish_data(Buffer validity, int64_t length, int64_t null_count) {
  const int width = type_.index_type().byte_width();
  const int64_t* src = reinterpret_cast<const int64_t*>(indices_.data());
  BufferBuilder out;
  out.reserve(length * width);
  for (int64_t i = 0; i < length; ++i) {
    switch (width) {
      case 1: out.append_value(int8_t(src[i])); break;
      case 2: out.append_value(int16_t(src[i])); break;
      case 4: out.append_value(int32_t(src[i])); break;
      default: out.append_value(src[i]); break;
    }
  }
  indices_.resize(0);
  memo_.clear();
  ArrayDataPtr dict = dict_.finish().data();
  return ArrayData::make(type_, length, {std::move(validity), out.finish()}, {}, null_count, 0, std::move(dict));
}

// ---- make_builder ---------------------------------------------------------------------

std::unique_ptr<ColumnBuilder> make_builder(const DType& t) {
  switch (t.id()) {
    case TypeId::Bool: return std::make_unique<BooleanBuilder>(t);
    case TypeId::Int8: return std::make_unique<NumericBuilder<int8_t>>(t);
    case TypeId::Int16: return std::make_unique<NumericBuilder<int16_t>>(t);
    case TypeId::Int32:
    case TypeId::Date32: return std::make_unique<NumericBuilder<int32_t>>(t);
    case TypeId::Int64:
    case TypeId::Timestamp: return std::make_unique<NumericBuilder<int64_t>>(t);
    case TypeId::UInt8: return std::make_unique<NumericBuilder<uint8_t>>(t);
    case TypeId::UInt16: return std::make_unique<NumericBuilder<uint16_t>>(t);
    case TypeId::UInt32: return std::make_unique<NumericBuilder<uint32_t>>(t);
    case TypeId::UInt64: return std::make_unique<NumericBuilder<uint64_t>>(t);
    case TypeId::Float32: return std::make_unique<NumericBuilder<float>>(t);
    case TypeId::Float64: return std::make_unique<NumericBuilder<double>>(t);
    case TypeId::String:
    case TypeId::LargeString:
    case TypeId::Binary:
    case TypeId::LargeBinary: return std::make_unique<BinaryBuilder>(t);
    case TypeId::List:
    case TypeId::LargeList: return std::make_unique<ListBuilder>(t);
    case TypeId::Map: return std::make_unique<MapBuilder>(t);
    case TypeId::Struct: return std::make_unique<StructBuilder>(t);
    case TypeId::Dictionary: return std::make_unique<DictionaryBuilder>(t);
  }
  EMBER_ERROR("make_builder: unsupported type ", t.to_string());
}

}  // namespace ember::frame
