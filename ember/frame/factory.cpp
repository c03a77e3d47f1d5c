#include "ember/frame/factory.h"

#include "ember/core/error.h"
#include "ember/frame/detail/physical.h"

namespace ember::frame {

namespace detail {

Column fixed_width_column(const DType& type, const void* data, int64_t n) {
  EMBER_CHECK(n >= 0, "column: negative length ", n);
  Buffer values = Buffer::copy_of(data, n * type.byte_width());
  return Column::from_data_unchecked(ArrayData::make(type, n, {Buffer(), std::move(values)}, {}, 0));
}

}  // namespace detail

Column column_from_values(const std::vector<Value>& values, const DType& dtype) {
  auto b = make_builder(dtype);
  b->reserve(int64_t(values.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    try {
      b->append_value(values[i]);
    } catch (const Error& e) {
      EMBER_ERROR("column_from_values: element ", i, ": ", e.what());
    }
  }
  return b->finish();
}

// ---- dictionaries ---------------------------------------------------------------------

Column Column::dictionary_encode() const {
  const DType& t = dtype();
  EMBER_CHECK_TYPE(t.is_binary_like(), "Column.dictionary_encode: the column's dtype is ", t.to_string(),
                   "; expected string, large_string, binary or large_binary");
  DictionaryBuilder b(dtypes::Dictionary(dtypes::int32, t.with_nullable(false), t.nullable()));
  b.reserve(size());
  for (int64_t i = 0; i < size(); ++i) {
    if (data_->is_valid(i)) b.append(*get_string(i));
    else b.append_null();
  }
  return b.finish();
}

Column Column::dictionary_decode() const {
  const DType& t = dtype();
  EMBER_CHECK_TYPE(t.id() == TypeId::Dictionary, "Column.dictionary_decode: the column's dtype is ", t.to_string(),
                   "; expected a dictionary");
  auto b = make_builder(t.value_type().with_nullable(t.nullable() || t.value_type().nullable()));
  b->reserve(size());
  const Column dict = dictionary();
  for (int64_t i = 0; i < size(); ++i) {
    if (data_->is_valid(i)) b->append_from(dict, detail::dict_index(*data_, i));
    else b->append_null();
  }
  return b->finish();
}

}  // namespace ember::frame
