#include "ember/frame/dtype.h"

#include <ostream>

#include "ember/core/error.h"

namespace ember::frame {

namespace detail {
// The parameters of a parametric or nested type; immutable once made.
struct TypeParams {
  std::vector<DType> types;   // list/large_list: {item}; map: {key, item}; dictionary: {index, value}
  std::vector<Field> fields;  // struct
  TimeUnit unit = TimeUnit::Second;
  std::string timezone;
  bool flag = false;  // map: keys_sorted; dictionary: ordered
};
}  // namespace detail

struct DTypeFactory {
  static DType make(TypeId id, bool nullable, detail::TypeParams p) {
    return DType(id, nullable, std::make_shared<const detail::TypeParams>(std::move(p)));
  }
};

const char* to_string(TypeId id) {
  switch (id) {
    case TypeId::Bool: return "boolean";
    case TypeId::Int8: return "int8";
    case TypeId::Int16: return "int16";
    case TypeId::Int32: return "int32";
    case TypeId::Int64: return "int64";
    case TypeId::UInt8: return "uint8";
    case TypeId::UInt16: return "uint16";
    case TypeId::UInt32: return "uint32";
    case TypeId::UInt64: return "uint64";
    case TypeId::Float32: return "float32";
    case TypeId::Float64: return "float64";
    case TypeId::String: return "string";
    case TypeId::LargeString: return "large_string";
    case TypeId::Binary: return "binary";
    case TypeId::LargeBinary: return "large_binary";
    case TypeId::Date32: return "date32";
    case TypeId::Timestamp: return "Timestamp";
    case TypeId::List: return "List";
    case TypeId::LargeList: return "LargeList";
    case TypeId::Struct: return "Struct";
    case TypeId::Map: return "Map";
    case TypeId::Dictionary: return "Dictionary";
  }
  return "?";
}

const char* to_string(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::Second: return "s";
    case TimeUnit::Milli: return "ms";
    case TimeUnit::Micro: return "us";
    case TimeUnit::Nano: return "ns";
  }
  return "?";
}

namespace {

bool has_params(TypeId id) { return id >= TypeId::Timestamp; }

// The capitalized name used for nullable primitive types: "Int64(nullable=True)".
const char* title_name(TypeId id) {
  switch (id) {
    case TypeId::Bool: return "Boolean";
    case TypeId::Int8: return "Int8";
    case TypeId::Int16: return "Int16";
    case TypeId::Int32: return "Int32";
    case TypeId::Int64: return "Int64";
    case TypeId::UInt8: return "UInt8";
    case TypeId::UInt16: return "UInt16";
    case TypeId::UInt32: return "UInt32";
    case TypeId::UInt64: return "UInt64";
    case TypeId::Float32: return "Float32";
    case TypeId::Float64: return "Float64";
    case TypeId::String: return "String";
    case TypeId::LargeString: return "LargeString";
    case TypeId::Binary: return "Binary";
    case TypeId::LargeBinary: return "LargeBinary";
    case TypeId::Date32: return "Date32";
    default: return to_string(id);
  }
}

}  // namespace

const detail::TypeParams& DType::params(const char* what) const {
  EMBER_CHECK_TYPE(params_ != nullptr, "DType.", what, ": type ", to_string(), " has no ", what);
  return *params_;
}

void DType::needs_parameters(TypeId id) {
  EMBER_ERROR("DType: type ", frame::to_string(id), " has parameters; make it with dtypes::", frame::to_string(id), "(...)");
}

DType DType::with_nullable(bool nullable) const {
  DType t = *this;
  t.nullable_ = nullable;
  return t;
}

const DType& DType::value_type() const {
  EMBER_CHECK_TYPE(is_list_like() || id_ == TypeId::Dictionary, "DType.value_type: type ", to_string(),
                   " is not a list, map or dictionary type");
  const auto& p = params("value_type");
  return id_ == TypeId::List || id_ == TypeId::LargeList ? p.types[0] : p.types[1];
}

const DType& DType::key_type() const {
  EMBER_CHECK_TYPE(id_ == TypeId::Map, "DType.key_type: type ", to_string(), " is not a map type");
  return params("key_type").types[0];
}

const DType& DType::index_type() const {
  EMBER_CHECK_TYPE(id_ == TypeId::Dictionary, "DType.index_type: type ", to_string(), " is not a dictionary type");
  return params("index_type").types[0];
}

const std::vector<Field>& DType::fields() const {
  EMBER_CHECK_TYPE(id_ == TypeId::Struct, "DType.fields: type ", to_string(), " is not a struct type");
  return params("fields").fields;
}

int64_t DType::field_index(std::string_view name) const {
  const auto& f = fields();
  for (size_t i = 0; i < f.size(); ++i)
    if (f[i].name == name) return int64_t(i);
  return -1;
}

TimeUnit DType::unit() const {
  EMBER_CHECK_TYPE(id_ == TypeId::Timestamp, "DType.unit: type ", to_string(), " is not a timestamp type");
  return params("unit").unit;
}

const std::string& DType::timezone() const {
  EMBER_CHECK_TYPE(id_ == TypeId::Timestamp, "DType.timezone: type ", to_string(), " is not a timestamp type");
  return params("timezone").timezone;
}

bool DType::keys_sorted() const {
  EMBER_CHECK_TYPE(id_ == TypeId::Map, "DType.keys_sorted: type ", to_string(), " is not a map type");
  return params("keys_sorted").flag;
}

bool DType::ordered() const {
  EMBER_CHECK_TYPE(id_ == TypeId::Dictionary, "DType.ordered: type ", to_string(), " is not a dictionary type");
  return params("ordered").flag;
}

DType DType::map_entries_type() const {
  EMBER_CHECK_TYPE(id_ == TypeId::Map, "DType.map_entries_type: type ", to_string(), " is not a map type");
  return dtypes::Struct({{"key", key_type()}, {"value", value_type()}}, false);
}

int DType::bit_width() const {
  switch (id_) {
    case TypeId::Bool: return 1;
    case TypeId::Int8: case TypeId::UInt8: return 8;
    case TypeId::Int16: case TypeId::UInt16: return 16;
    case TypeId::Int32: case TypeId::UInt32: case TypeId::Float32: case TypeId::Date32: return 32;
    case TypeId::Int64: case TypeId::UInt64: case TypeId::Float64: case TypeId::Timestamp: return 64;
    default: return 0;
  }
}

int DType::num_buffers() const {
  if (is_binary_like()) return 3;
  if (id_ == TypeId::Struct) return 1;
  return 2;  // fixed width, list-like, dictionary (validity + indices)
}

std::string DType::to_string() const {
  const std::string null_suffix = nullable_ ? ", nullable=True" : "";
  switch (id_) {
    case TypeId::Timestamp: {
      std::string s = std::string("Timestamp(") + frame::to_string(unit());
      if (!timezone().empty()) s += ", '" + timezone() + "'";
      return s + null_suffix + ")";
    }
    case TypeId::List:
    case TypeId::LargeList:
      return std::string(frame::to_string(id_)) + "(" + value_type().to_string() + null_suffix + ")";
    case TypeId::Struct: {
      std::string s = "Struct([";
      for (size_t i = 0; i < fields().size(); ++i) s += (i ? ", " : "") + fields()[i].to_string();
      return s + "]" + null_suffix + ")";
    }
    case TypeId::Map:
      return "Map(" + key_type().to_string() + ", " + value_type().to_string() + null_suffix +
             (keys_sorted() ? ", keys_sorted=True" : "") + ")";
    case TypeId::Dictionary:
      return "Dictionary(" + index_type().to_string() + ", " + value_type().to_string() + null_suffix +
             (ordered() ? ", ordered=True" : "") + ")";
    default:
      return nullable_ ? std::string(title_name(id_)) + "(nullable=True)" : frame::to_string(id_);
  }
}

std::string DType::arrow_format() const {
  switch (id_) {
    case TypeId::Bool: return "b";
    case TypeId::Int8: return "c";
    case TypeId::Int16: return "s";
    case TypeId::Int32: return "i";
    case TypeId::Int64: return "l";
    case TypeId::UInt8: return "C";
    case TypeId::UInt16: return "S";
    case TypeId::UInt32: return "I";
    case TypeId::UInt64: return "L";
    case TypeId::Float32: return "f";
    case TypeId::Float64: return "g";
    case TypeId::String: return "u";
    case TypeId::LargeString: return "U";
    case TypeId::Binary: return "z";
    case TypeId::LargeBinary: return "Z";
    case TypeId::Date32: return "tdD";
    case TypeId::Timestamp: return std::string("ts") + frame::to_string(unit())[0] + ":" + timezone();
    case TypeId::List: return "+l";
    case TypeId::LargeList: return "+L";
    case TypeId::Struct: return "+s";
    case TypeId::Map: return "+m";
    case TypeId::Dictionary: return index_type().arrow_format();
  }
  return "?";
}

bool DType::equals(const DType& o, bool check_nullable) const {
  if (id_ != o.id_ || (check_nullable && nullable_ != o.nullable_)) return false;
  if (!has_params(id_) || params_ == o.params_) return true;
  const auto& a = *params_;
  const auto& b = *o.params_;
  if (a.unit != b.unit || a.timezone != b.timezone || a.flag != b.flag) return false;
  if (a.types.size() != b.types.size() || a.fields.size() != b.fields.size()) return false;
  for (size_t i = 0; i < a.types.size(); ++i)
    if (!a.types[i].equals(b.types[i], check_nullable)) return false;
  for (size_t i = 0; i < a.fields.size(); ++i)
    if (a.fields[i].name != b.fields[i].name || !a.fields[i].dtype.equals(b.fields[i].dtype, check_nullable))
      return false;
  return true;
}

std::string Field::to_string() const { return "Field('" + name + "', " + dtype.to_string() + ")"; }

std::ostream& operator<<(std::ostream& os, const DType& t) { return os << t.to_string(); }
std::ostream& operator<<(std::ostream& os, const Field& f) { return os << f.to_string(); }

namespace dtypes {

DType Boolean(bool nullable) { return DType(TypeId::Bool, nullable); }
DType Int8(bool nullable) { return DType(TypeId::Int8, nullable); }
DType Int16(bool nullable) { return DType(TypeId::Int16, nullable); }
DType Int32(bool nullable) { return DType(TypeId::Int32, nullable); }
DType Int64(bool nullable) { return DType(TypeId::Int64, nullable); }
DType UInt8(bool nullable) { return DType(TypeId::UInt8, nullable); }
DType UInt16(bool nullable) { return DType(TypeId::UInt16, nullable); }
DType UInt32(bool nullable) { return DType(TypeId::UInt32, nullable); }
DType UInt64(bool nullable) { return DType(TypeId::UInt64, nullable); }
DType Float32(bool nullable) { return DType(TypeId::Float32, nullable); }
DType Float64(bool nullable) { return DType(TypeId::Float64, nullable); }
DType String(bool nullable) { return DType(TypeId::String, nullable); }
DType LargeString(bool nullable) { return DType(TypeId::LargeString, nullable); }
DType Binary(bool nullable) { return DType(TypeId::Binary, nullable); }
DType LargeBinary(bool nullable) { return DType(TypeId::LargeBinary, nullable); }
DType Date32(bool nullable) { return DType(TypeId::Date32, nullable); }

DType Timestamp(TimeUnit unit, std::string timezone, bool nullable) {
  detail::TypeParams p;
  p.unit = unit;
  p.timezone = std::move(timezone);
  return DTypeFactory::make(TypeId::Timestamp, nullable, std::move(p));
}

DType List(DType item, bool nullable) {
  detail::TypeParams p;
  p.types = {std::move(item)};
  return DTypeFactory::make(TypeId::List, nullable, std::move(p));
}

DType LargeList(DType item, bool nullable) {
  detail::TypeParams p;
  p.types = {std::move(item)};
  return DTypeFactory::make(TypeId::LargeList, nullable, std::move(p));
}

DType Struct(std::vector<Field> fields, bool nullable) {
  detail::TypeParams p;
  p.fields = std::move(fields);
  return DTypeFactory::make(TypeId::Struct, nullable, std::move(p));
}

DType Map(DType key, DType item, bool nullable, bool keys_sorted) {
  EMBER_CHECK_TYPE(!key.nullable(), "dtypes::Map: map keys cannot be null, but the key type is ", key.to_string(),
                   " (use ", key.with_nullable(false).to_string(), ")");
  detail::TypeParams p;
  p.types = {std::move(key), std::move(item)};
  p.flag = keys_sorted;
  return DTypeFactory::make(TypeId::Map, nullable, std::move(p));
}

DType Dictionary(DType index, DType value, bool nullable, bool ordered) {
  EMBER_CHECK_TYPE(index.is_integer(), "dtypes::Dictionary: the index type must be an integer type, got ",
                   index.to_string());
  EMBER_CHECK_TYPE(value.id() != TypeId::Dictionary, "dtypes::Dictionary: the value type cannot be a dictionary (",
                   value.to_string(), ")");
  detail::TypeParams p;
  p.types = {index.with_nullable(false), std::move(value)};
  p.flag = ordered;
  return DTypeFactory::make(TypeId::Dictionary, nullable, std::move(p));
}

}  // namespace dtypes

}  // namespace ember::frame
