// Column builders: append values (or nulls) one at a time, then finish() into an immutable
// Column. make_builder(dtype) gives the builder for any DType; the typed builders below add
// fast appends. A builder for a non-nullable type rejects nulls.
#pragma once
#include <cstdint>
#include <memory>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ember/frame/column.h"

namespace ember::frame {

class ColumnBuilder {
 public:
  virtual ~ColumnBuilder() = default;
  ColumnBuilder(const ColumnBuilder&) = delete;
  ColumnBuilder& operator=(const ColumnBuilder&) = delete;

  const DType& dtype() const { return type_; }
  int64_t length() const { return validity_.length(); }
  int64_t null_count() const { return validity_.count_unset(); }

  // A null element; an error for a non-nullable type.
  void append_null();
  void append_nulls(int64_t n);
  // A null when the type is nullable, else the type's empty value (0, false, "", [], a
  // struct of empty values): what a struct's null slot puts in its children.
  void append_empty();
  // Appends `v` converted to this column's type (see value.h); a null Value appends a null.
  // Integers must fit the column's type; a float goes only into a float column.
  virtual void append_value(const Value& v) = 0;
  // Appends element i of `src`, a column of this builder's type (nullable flags aside).
  virtual void append_from(const Column& src, int64_t i) = 0;
  virtual void reserve(int64_t n) { validity_.reserve(n); }
  // Raises the error finish() would, without changing anything.
  virtual void check_finish() const {}
  // The column built so far; the builder is empty (and reusable) afterwards. On an error
  // (a list left open, struct fields of different lengths...) nothing changes.
  Column finish();

 protected:
  explicit ColumnBuilder(DType type) : type_(std::move(type)) {}
  // A placeholder value for a null or empty slot (zeros, an empty string or list...).
  virtual void append_placeholder() = 0;
  virtual ArrayDataPtr finish_data(Buffer validity, int64_t length, int64_t null_count) = 0;
  void check_type(const Column& src, const char* op) const;
  [[noreturn]] void bad_value(const Value& v) const;
  // Raises append_value's error for `v` (a nested value checked whole before appending).
  void check_value(const Value& v) const;

  DType type_;
  BitmapBuilder validity_;
};

// The builder for any type (nested types get builders for their children).
std::unique_ptr<ColumnBuilder> make_builder(const DType& type);

// bool ... double, date32 (int32_t), timestamp (int64_t).
template <class T>
class NumericBuilder final : public ColumnBuilder {
 public:
  explicit NumericBuilder(DType type);
  void append(T v) {
    data_.append_value(v);
    validity_.append(true);
  }
  void append(const std::optional<T>& v) {
    if (v) append(*v);
    else append_null();
  }
  void append_values(const T* v, int64_t n);
  void append_value(const Value& v) override;
  void append_from(const Column& src, int64_t i) override;
  void reserve(int64_t n) override;

 private:
  void append_placeholder() override { data_.append_value(T{}); }
  ArrayDataPtr finish_data(Buffer validity, int64_t length, int64_t null_count) override;
  BufferBuilder data_;
};

class BooleanBuilder final : public ColumnBuilder {
 public:
  explicit BooleanBuilder(DType type = DType(TypeId::Bool));
  void append(bool v) {
    bits_.append(v);
    validity_.append(true);
  }
  void append(const std::optional<bool>& v) {
    if (v) append(*v);
    else append_null();
  }
  void append_value(const Value& v) override;
  void append_from(const Column& src, int64_t i) override;

 private:
  void append_placeholder() override { bits_.append(false); }
  ArrayDataPtr finish_data(Buffer validity, int64_t length, int64_t null_count) override;
  BitmapBuilder bits_;
};

// string, large_string (UTF-8 is checked on append), binary, large_binary.
class BinaryBuilder final : public ColumnBuilder {
 public:
  explicit BinaryBuilder(DType type = DType(TypeId::String));
  void append(std::string_view s);
  void append(const std::string& s) { append(std::string_view(s)); }
  void append(const char* s) { append(std::string_view(s)); }
  void append(const std::optional<std::string_view>& s) {
    if (s) append(*s);
    else append_null();
  }
  void append_value(const Value& v) override;
  void append_from(const Column& src, int64_t i) override;
  void reserve(int64_t n) override;
  int64_t data_bytes() const { return data_.size(); }

 private:
  void append_placeholder() override { offsets_.push_back(data_.size()); }
  void check_finish() const override;
  ArrayDataPtr finish_data(Buffer validity, int64_t length, int64_t null_count) override;
  BufferBuilder data_;
  std::vector<int64_t> offsets_{0};  // narrowed to int32 for string/binary at finish
};
using StringBuilder = BinaryBuilder;

// list, large_list, and (through MapBuilder) map. An element is begin_list(), appends to
// values(), end_list().
class ListBuilder : public ColumnBuilder {
 public:
  explicit ListBuilder(DType type);
  ColumnBuilder& values() { return *values_; }
  void begin_list();
  void end_list();
  // One whole element: begin_list(), v appended to values() one by one, end_list().
  void append_value(const Value& v) override;
  void append_from(const Column& src, int64_t i) override;

 protected:
  void append_placeholder() override;
  void check_finish() const override;
  ArrayDataPtr finish_data(Buffer validity, int64_t length, int64_t null_count) override;
  std::unique_ptr<ColumnBuilder> values_;
  std::vector<int64_t> offsets_{0};
  bool open_ = false;
};

class StructBuilder;

// map<K, V>: begin_map(), then for each entry keys().append(..) and items().append(..),
// then end_map(). As a Value, a map is a list of {key, value} lists.
class MapBuilder final : public ListBuilder {
 public:
  explicit MapBuilder(DType type);
  ColumnBuilder& keys();
  ColumnBuilder& items();
  void begin_map() { begin_list(); }
  void end_map();
  void append_value(const Value& v) override;
};

// struct: append() opens a valid element whose fields the caller then appends, one value
// to each field builder; append_null() fills every field with append_empty().
class StructBuilder final : public ColumnBuilder {
 public:
  explicit StructBuilder(DType type);
  int64_t num_fields() const { return int64_t(fields_.size()); }
  ColumnBuilder& field(int64_t i);
  ColumnBuilder& field(std::string_view name);
  void append();
  // A Value with one entry per field, in order.
  void append_value(const Value& v) override;
  void append_from(const Column& src, int64_t i) override;

 private:
  void append_placeholder() override;
  void check_finish() const override;
  ArrayDataPtr finish_data(Buffer validity, int64_t length, int64_t null_count) override;
  std::vector<std::unique_ptr<ColumnBuilder>> fields_;
};

// dictionary<int8/16/32/64, string/large_string/binary/large_binary>: each distinct value
// is stored once, in order of first appearance.
class DictionaryBuilder final : public ColumnBuilder {
 public:
  explicit DictionaryBuilder(DType type);
  void append(std::string_view s);
  void append_value(const Value& v) override;
  void append_from(const Column& src, int64_t i) override;

 private:
  void append_placeholder() override { indices_.append_value(int64_t(0)); }
  void check_finish() const override;
  ArrayDataPtr finish_data(Buffer validity, int64_t length, int64_t null_count) override;
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  BufferBuilder indices_;  // int64 while building, narrowed at finish
  BinaryBuilder dict_;
  std::unordered_map<std::string, int64_t, Hash, std::equal_to<>> memo_;  // value -> index
};

using Int8Builder = NumericBuilder<int8_t>;
using Int16Builder = NumericBuilder<int16_t>;
using Int32Builder = NumericBuilder<int32_t>;
using Int64Builder = NumericBuilder<int64_t>;
using UInt8Builder = NumericBuilder<uint8_t>;
using UInt16Builder = NumericBuilder<uint16_t>;
using UInt32Builder = NumericBuilder<uint32_t>;
using UInt64Builder = NumericBuilder<uint64_t>;
using Float32Builder = NumericBuilder<float>;
using Float64Builder = NumericBuilder<double>;
#define EMBER_FRAME_DECLARE_BUILDER(T) extern template class NumericBuilder<T>;
EMBER_FRAME_DECLARE_BUILDER(int8_t) EMBER_FRAME_DECLARE_BUILDER(int16_t) EMBER_FRAME_DECLARE_BUILDER(int32_t)
EMBER_FRAME_DECLARE_BUILDER(int64_t) EMBER_FRAME_DECLARE_BUILDER(uint8_t) EMBER_FRAME_DECLARE_BUILDER(uint16_t)
EMBER_FRAME_DECLARE_BUILDER(uint32_t) EMBER_FRAME_DECLARE_BUILDER(uint64_t) EMBER_FRAME_DECLARE_BUILDER(float)
EMBER_FRAME_DECLARE_BUILDER(double)
#undef EMBER_FRAME_DECLARE_BUILDER

}  // namespace ember::frame
