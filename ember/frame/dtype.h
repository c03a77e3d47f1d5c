// Column types of ember::frame: a cheap-to-copy DType value for each Arrow type the frame
// supports, each with TorchArrow's `nullable` flag, and TorchArrow-style factories in
// ember::frame::dtypes (`dtypes::Int64(true)`, `dtypes::List(dtypes::string)`).
#pragma once
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ember::frame {

// One entry per supported Arrow type. The physical layout of each is in frame.h.
enum class TypeId : uint8_t {
  Bool,
  Int8, Int16, Int32, Int64,
  UInt8, UInt16, UInt32, UInt64,
  Float32, Float64,
  String,       // utf8, int32 offsets
  LargeString,  // utf8, int64 offsets
  Binary,       // bytes, int32 offsets
  LargeBinary,  // bytes, int64 offsets
  Date32,       // int32 days since 1970-01-01
  Timestamp,    // int64 counts of `unit` since the epoch, with an optional timezone
  List,         // int32 offsets into one child
  LargeList,    // int64 offsets into one child
  Struct,       // one child per field
  Map,          // a list of struct<key, value> entries; keys are never null
  Dictionary,   // integer indices into a dictionary array of the value type
};
const char* to_string(TypeId id);

enum class TimeUnit : uint8_t { Second, Milli, Micro, Nano };
const char* to_string(TimeUnit unit);  // "s", "ms", "us", "ns"

struct Field;
namespace detail { struct TypeParams; }

// A column type: its id, its nullable flag (TorchArrow's: false means the column holds no
// nulls, and validate() enforces it) and, for parametric and nested types, a shared,
// immutable parameter block. Copying a DType copies at most one shared_ptr.
class DType {
 public:
  // A type without parameters (bool, integers, floats, strings, binaries, date32); use the
  // dtypes:: factories for the others.
  constexpr explicit DType(TypeId id, bool nullable = false) : id_(id), nullable_(nullable) {
    if (id >= TypeId::Timestamp) needs_parameters(id);
  }

  TypeId id() const { return id_; }
  bool nullable() const { return nullable_; }
  // The same type with another nullable flag (TorchArrow's with_null).
  DType with_nullable(bool nullable = true) const;

  // Parameters; each raises an error on a type that does not have it.
  const DType& value_type() const;  // list, large_list and map items, dictionary values
  const DType& key_type() const;    // map keys
  const DType& index_type() const;  // dictionary indices
  const std::vector<Field>& fields() const;  // struct
  // The index of the struct field `name`, or -1.
  int64_t field_index(std::string_view name) const;
  TimeUnit unit() const;                 // timestamp
  const std::string& timezone() const;   // timestamp; "" when naive
  bool keys_sorted() const;              // map
  bool ordered() const;                  // dictionary
  // A map's child type: non-nullable struct<key: K (not null), value: V>.
  DType map_entries_type() const;

  bool is_integer() const { return id_ >= TypeId::Int8 && id_ <= TypeId::UInt64; }
  bool is_signed_integer() const { return id_ >= TypeId::Int8 && id_ <= TypeId::Int64; }
  bool is_unsigned_integer() const { return id_ >= TypeId::UInt8 && id_ <= TypeId::UInt64; }
  bool is_floating() const { return id_ == TypeId::Float32 || id_ == TypeId::Float64; }
  bool is_numeric() const { return is_integer() || is_floating(); }
  // bool, numbers, date32, timestamp: one validity bitmap and one data buffer.
  bool is_fixed_width() const { return id_ <= TypeId::Float64 || id_ == TypeId::Date32 || id_ == TypeId::Timestamp; }
  bool is_string() const { return id_ == TypeId::String || id_ == TypeId::LargeString; }
  // string, large_string, binary, large_binary: validity, offsets, bytes.
  bool is_binary_like() const { return id_ >= TypeId::String && id_ <= TypeId::LargeBinary; }
  bool has_large_offsets() const {
    return id_ == TypeId::LargeString || id_ == TypeId::LargeBinary || id_ == TypeId::LargeList;
  }
  // list, large_list, map: validity, offsets, one child.
  bool is_list_like() const { return id_ == TypeId::List || id_ == TypeId::LargeList || id_ == TypeId::Map; }
  bool is_nested() const { return is_list_like() || id_ == TypeId::Struct; }
  // Bits per element of a fixed-width type (1 for bool), 0 for any other type.
  int bit_width() const;
  // Bytes per element of a fixed-width type other than bool, 0 otherwise.
  int byte_width() const { return id_ == TypeId::Bool ? 0 : bit_width() / 8; }
  // The number of buffers of its Arrow layout (validity included).
  int num_buffers() const;

  // TorchArrow's spelling: "int64", "Int64(nullable=True)", "List(string)",
  // "Struct([Field('a', int64)])", "Map(string, float64)", "Timestamp(us, 'UTC')".
  std::string to_string() const;
  // The Arrow C Data Interface format string of this type: "l", "u", "+l", "tsu:UTC"; a
  // dictionary type gives its index type's format (its values are a separate schema).
  std::string arrow_format() const;

  // Structural equality: ids, parameters, field names and every nullable flag.
  bool operator==(const DType& o) const { return equals(o, true); }
  bool equals(const DType& o, bool check_nullable) const;

 private:
  DType(TypeId id, bool nullable, std::shared_ptr<const detail::TypeParams> params)
      : id_(id), nullable_(nullable), params_(std::move(params)) {}
  const detail::TypeParams& params(const char* what) const;
  [[noreturn]] static void needs_parameters(TypeId id);
  friend struct DTypeFactory;

  TypeId id_;
  bool nullable_;
  std::shared_ptr<const detail::TypeParams> params_;  // null for types without parameters
};

// A named child of a struct (a DataFrame's column).
struct Field {
  std::string name;
  DType dtype;
  bool operator==(const Field& o) const { return name == o.name && dtype == o.dtype; }
  std::string to_string() const;  // "Field('a', int64)"
};

std::ostream& operator<<(std::ostream& os, const DType& t);
std::ostream& operator<<(std::ostream& os, const Field& f);

// TorchArrow's torcharrow.dtypes: `namespace dt = ember::frame::dtypes;`
namespace dtypes {
DType Boolean(bool nullable = false);
DType Int8(bool nullable = false);
DType Int16(bool nullable = false);
DType Int32(bool nullable = false);
DType Int64(bool nullable = false);
DType UInt8(bool nullable = false);
DType UInt16(bool nullable = false);
DType UInt32(bool nullable = false);
DType UInt64(bool nullable = false);
DType Float32(bool nullable = false);
DType Float64(bool nullable = false);
DType String(bool nullable = false);
DType LargeString(bool nullable = false);
DType Binary(bool nullable = false);
DType LargeBinary(bool nullable = false);
DType Date32(bool nullable = false);
DType Timestamp(TimeUnit unit, std::string timezone = "", bool nullable = false);
DType List(DType item, bool nullable = false);
DType LargeList(DType item, bool nullable = false);
DType Struct(std::vector<Field> fields, bool nullable = false);
// Keys must be a non-nullable type (Arrow's rule).
DType Map(DType key, DType item, bool nullable = false, bool keys_sorted = false);
// `index` must be an integer type; `nullable` is the column's (the indices'), not the values'.
DType Dictionary(DType index, DType value, bool nullable = false, bool ordered = false);

// The non-nullable instances, as in TorchArrow (dt.int64, dt.string ...).
inline constinit const DType boolean{TypeId::Bool};
inline constinit const DType int8{TypeId::Int8};
inline constinit const DType int16{TypeId::Int16};
inline constinit const DType int32{TypeId::Int32};
inline constinit const DType int64{TypeId::Int64};
inline constinit const DType uint8{TypeId::UInt8};
inline constinit const DType uint16{TypeId::UInt16};
inline constinit const DType uint32{TypeId::UInt32};
inline constinit const DType uint64{TypeId::UInt64};
inline constinit const DType float32{TypeId::Float32};
inline constinit const DType float64{TypeId::Float64};
inline constinit const DType string{TypeId::String};
inline constinit const DType large_string{TypeId::LargeString};
inline constinit const DType binary{TypeId::Binary};
inline constinit const DType large_binary{TypeId::LargeBinary};
inline constinit const DType date32{TypeId::Date32};
}  // namespace dtypes

}  // namespace ember::frame
