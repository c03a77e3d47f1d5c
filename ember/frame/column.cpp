#include "ember/frame/column.h"

#include <cmath>
#include <cstring>
#include <ostream>
#include <type_traits>

#include "ember/core/error.h"
#include "ember/frame/detail/physical.h"

namespace ember::frame {

using detail::dict_index;
using detail::element_type_name;
using detail::physical_matches;

Column::Column(ArrayDataPtr data) {
  EMBER_CHECK(data != nullptr, "Column: null ArrayData");
  data->validate();
  data_ = std::move(data);
}

Column Column::from_data_unchecked(ArrayDataPtr data) {
  EMBER_CHECK(data != nullptr, "Column: null ArrayData");
  return wrap(std::move(data));
}

const ArrayDataPtr& Column::data() const {
  EMBER_CHECK(data_ != nullptr, "Column: the column is undefined (default-constructed)");
  return data_;
}

void Column::check_index(int64_t i, const char* op) const {
  EMBER_CHECK_INDEX(i >= 0 && i < size(), "Column.", op, ": index ", i, " is out of range for a column of length ",
                    size());
}

bool Column::is_valid(int64_t i) const {
  check_index(i, "is_valid");
  return data_->is_valid(i);
}

template <class T>
std::optional<T> Column::get(int64_t i) const {
  check_index(i, "get");
  const ArrayData& a = *data_;
  if (a.type.id() == TypeId::Dictionary) {
    if (!a.is_valid(i)) return std::nullopt;
    return dictionary().get<T>(dict_index(a, i));
  }
  EMBER_CHECK_TYPE(physical_matches<T>(a.type.id()), "Column.get<", element_type_name<T>(), ">: the column's dtype is ",
                   a.type.to_string());
  if (!a.is_valid(i)) return std::nullopt;
  if constexpr (std::is_same_v<T, bool>) {
    return bits::get(a.buffers[1].data(), a.offset + i);
  } else {
    return a.buffers[1].data_as<T>()[a.offset + i];
  }
}

template <class T>
const T* Column::values() const {
  const ArrayData& a = *data();
  EMBER_CHECK_TYPE((!std::is_same_v<T, bool> && physical_matches<T>(a.type.id())), "Column.values<",
                   element_type_name<T>(), ">: the column's dtype is ", a.type.to_string(),
                   (std::is_same_v<T, bool> ? " (a boolean column is a bitmap)" : ""));
  return a.buffers[1].data_as<T>() + a.offset;
}

#define EMBER_FRAME_INSTANTIATE_GET(T)                           \
  template std::optional<T> Column::get<T>(int64_t) const; \
  template const T* Column::values<T>() const;
EMBER_FRAME_FORALL_ELEMENT_TYPES(EMBER_FRAME_INSTANTIATE_GET)
#undef EMBER_FRAME_INSTANTIATE_GET

std::optional<std::string_view> Column::get_string(int64_t i) const {
  check_index(i, "get_string");
  const ArrayData& a = *data_;
  if (a.type.id() == TypeId::Dictionary) {
    if (!a.is_valid(i)) return std::nullopt;
    return dictionary().get_string(dict_index(a, i));
  }
  EMBER_CHECK_TYPE(a.type.is_binary_like(), "Column.get_string: the column's dtype is ", a.type.to_string(),
                   "; expected string, large_string, binary or large_binary");
  if (!a.is_valid(i)) return std::nullopt;
  return detail::binary_at(a, i);
}

std::pair<int64_t, int64_t> Column::list_range(int64_t i) const {
  check_index(i, "list_range");
  EMBER_CHECK_TYPE(dtype().is_list_like(), "Column.list_range: the column's dtype is ", dtype().to_string(),
                   "; expected a list, large_list or map");
  return detail::list_range(*data_, i);
}

std::optional<Column> Column::get_list(int64_t i) const {
  check_index(i, "get_list");
  EMBER_CHECK_TYPE(dtype().is_list_like(), "Column.get_list: the column's dtype is ", dtype().to_string(),
                   "; expected a list, large_list or map");
  if (!data_->is_valid(i)) return std::nullopt;
  auto [b, e] = detail::list_range(*data_, i);
  return wrap(data_->children[0]->slice(b, e - b));
}

Value Column::get_value(int64_t i) const {
  check_index(i, "get_value");
  return detail::value_at(*data_, i);
}

std::vector<Value> Column::to_values() const {
  std::vector<Value> out;
  out.reserve(size_t(size()));
  for (int64_t i = 0; i < size(); ++i) out.push_back(detail::value_at(*data_, i));
  return out;
}

Column Column::list_values() const {
  EMBER_CHECK_TYPE(dtype().is_list_like(), "Column.list_values: the column's dtype is ", dtype().to_string(),
                   "; expected a list, large_list or map");
  return wrap(data_->children[0]);
}

int64_t Column::num_fields() const {
  EMBER_CHECK_TYPE(dtype().id() == TypeId::Struct, "Column.num_fields: the column's dtype is ", dtype().to_string(),
                   "; expected a struct");
  return int64_t(data_->children.size());
}

Column Column::field(int64_t i) const {
  const int64_t n = num_fields();
  EMBER_CHECK_INDEX(i >= 0 && i < n, "Column.field: field index ", i, " is out of range for ", dtype().to_string());
  const ArrayDataPtr& c = data_->children[size_t(i)];
  if (data_->offset == 0 && c->length == data_->length) return wrap(c);
  return wrap(c->slice(data_->offset, data_->length));
}

Column Column::field(std::string_view name) const {
  num_fields();  // type check
  const int64_t i = dtype().field_index(name);
  if (i < 0) {
    std::string names;
    for (const Field& f : dtype().fields()) names += (names.empty() ? "'" : ", '") + f.name + "'";
    EMBER_CHECK_INDEX(false, "Column.field: no field named '", name, "' in ", dtype().to_string(), " (fields: ",
                      names, ")");
  }
  return field(i);
}

Column Column::map_keys() const {
  EMBER_CHECK_TYPE(dtype().id() == TypeId::Map, "Column.map_keys: the column's dtype is ", dtype().to_string(),
                   "; expected a map");
  return wrap(data_->children[0]->children[0]);
}

Column Column::map_values() const {
  EMBER_CHECK_TYPE(dtype().id() == TypeId::Map, "Column.map_values: the column's dtype is ", dtype().to_string(),
                   "; expected a map");
  return wrap(data_->children[0]->children[1]);
}

Column Column::dictionary() const {
  EMBER_CHECK_TYPE(dtype().id() == TypeId::Dictionary, "Column.dictionary: the column's dtype is ",
                   dtype().to_string(), "; expected a dictionary");
  return wrap(data_->dictionary);
}

Column Column::indices() const {
  EMBER_CHECK_TYPE(dtype().id() == TypeId::Dictionary, "Column.indices: the column's dtype is ", dtype().to_string(),
                   "; expected a dictionary");
  const ArrayData& a = *data_;
  return wrap(ArrayData::make(a.type.index_type().with_nullable(a.type.nullable()), a.length,
                              {a.buffers[0], a.buffers[1]}, {}, a.known_null_count(), a.offset));
}

Column Column::slice(int64_t offset, int64_t length) const { return wrap(data()->slice(offset, length)); }

Column Column::head(int64_t n) const {
  const int64_t len = size();
  const int64_t k = n >= 0 ? std::min(n, len) : std::max<int64_t>(0, len + n);
  return slice(0, k);
}

Column Column::tail(int64_t n) const {
  const int64_t len = size();
  const int64_t k = n >= 0 ? std::min(n, len) : std::max<int64_t>(0, len + n);
  return slice(len - k, k);
}

bool Column::equals(const Column& o) const {
  const ArrayData& a = *data();
  const ArrayData& b = *o.data();
  if (!(a.type == b.type) || a.length != b.length) return false;
  for (int64_t i = 0; i < a.length; ++i)
    if (!detail::elements_equal(a, i, b, i)) return false;
  return true;
}

std::ostream& operator<<(std::ostream& os, const Column& c) { return os << c.to_string(); }

Column struct_column(const std::vector<std::pair<std::string, Column>>& fields) {
  std::vector<Field> fs;
  std::vector<ArrayDataPtr> children;
  int64_t length = -1;
  for (const auto& [name, col] : fields) {
    EMBER_CHECK(col.defined(), "struct_column: field '", name, "' is an undefined column");
    if (length < 0) length = col.size();
    EMBER_CHECK(col.size() == length, "struct_column: field '", name, "' has length ", col.size(), " but field '",
                fields[0].first, "' has length ", length);
    fs.push_back({name, col.dtype()});
    children.push_back(col.data());
  }
  return Column::from_data_unchecked(
      ArrayData::make(dtypes::Struct(std::move(fs)), std::max<int64_t>(length, 0), {Buffer()}, std::move(children), 0));
}

Column dictionary_column(const Column& indices, const Column& dictionary, bool ordered) {
  EMBER_CHECK_TYPE(indices.dtype().is_integer(), "dictionary_column: indices must be integers, got ",
                   indices.dtype().to_string());
  const ArrayData& ix = *indices.data();
  DType t = dtypes::Dictionary(ix.type, dictionary.dtype(), ix.type.nullable(), ordered);
  return Column(ArrayData::make(std::move(t), ix.length, {ix.buffers[0], ix.buffers[1]}, {}, ix.known_null_count(),
                                ix.offset, dictionary.data()));
}

}  // namespace ember::frame
