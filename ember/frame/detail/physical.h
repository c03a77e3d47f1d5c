// Internal helpers over ArrayData's physical layout, shared by the frame's .cpp files:
// element reads by logical index (slot offset + i), type dispatch, element equality.
// Callers have validated the array and checked the index.
#pragma once
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

#include "ember/core/error.h"
#include "ember/frame/array_data.h"
#include "ember/frame/value.h"

namespace ember::frame::detail {

template <class T>
constexpr bool physical_matches(TypeId id) {
  if constexpr (std::is_same_v<T, bool>) return id == TypeId::Bool;
  else if constexpr (std::is_same_v<T, int8_t>) return id == TypeId::Int8;
  else if constexpr (std::is_same_v<T, int16_t>) return id == TypeId::Int16;
  else if constexpr (std::is_same_v<T, int32_t>) return id == TypeId::Int32 || id == TypeId::Date32;
  else if constexpr (std::is_same_v<T, int64_t>) return id == TypeId::Int64 || id == TypeId::Timestamp;
  else if constexpr (std::is_same_v<T, uint8_t>) return id == TypeId::UInt8;
  else if constexpr (std::is_same_v<T, uint16_t>) return id == TypeId::UInt16;
  else if constexpr (std::is_same_v<T, uint32_t>) return id == TypeId::UInt32;
  else if constexpr (std::is_same_v<T, uint64_t>) return id == TypeId::UInt64;
  else if constexpr (std::is_same_v<T, float>) return id == TypeId::Float32;
  else if constexpr (std::is_same_v<T, double>) return id == TypeId::Float64;
  else return false;
}

template <class T>
constexpr const char* element_type_name() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, int8_t>) return "int8_t";
  else if constexpr (std::is_same_v<T, int16_t>) return "int16_t";
  else if constexpr (std::is_same_v<T, int32_t>) return "int32_t";
  else if constexpr (std::is_same_v<T, int64_t>) return "int64_t";
  else if constexpr (std::is_same_v<T, uint8_t>) return "uint8_t";
  else if constexpr (std::is_same_v<T, uint16_t>) return "uint16_t";
  else if constexpr (std::is_same_v<T, uint32_t>) return "uint32_t";
  else if constexpr (std::is_same_v<T, uint64_t>) return "uint64_t";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else return "?";
}

// Calls f(T{}) with T the C++ element type of a fixed-width type other than bool.
template <class F>
decltype(auto) visit_numeric(TypeId id, F&& f) {
  switch (id) {
    case TypeId::Int8: return f(int8_t{});
    case TypeId::Int16: return f(int16_t{});
    case TypeId::Int32: case TypeId::Date32: return f(int32_t{});
    case TypeId::Int64: case TypeId::Timestamp: return f(int64_t{});
    case TypeId::UInt8: return f(uint8_t{});
    case TypeId::UInt16: return f(uint16_t{});
    case TypeId::UInt32: return f(uint32_t{});
    case TypeId::UInt64: return f(uint64_t{});
    case TypeId::Float32: return f(float{});
    case TypeId::Float64: return f(double{});
    default: EMBER_ERROR("internal: ", to_string(id), " is not a numeric type");
  }
}

// Element i's index into the dictionary of a dictionary array.
inline int64_t dict_index(const ArrayData& a, int64_t i) {
  const int64_t slot = a.offset + i;
  const uint8_t* p = a.buffers[1].data();
  switch (a.type.index_type().id()) {
    case TypeId::Int8: return reinterpret_cast<const int8_t*>(p)[slot];
    case TypeId::Int16: return reinterpret_cast<const int16_t*>(p)[slot];
    case TypeId::Int32: return reinterpret_cast<const int32_t*>(p)[slot];
    case TypeId::Int64: return reinterpret_cast<const int64_t*>(p)[slot];
    case TypeId::UInt8: return p[slot];
    case TypeId::UInt16: return reinterpret_cast<const uint16_t*>(p)[slot];
    case TypeId::UInt32: return reinterpret_cast<const uint32_t*>(p)[slot];
    case TypeId::UInt64: return int64_t(reinterpret_cast<const uint64_t*>(p)[slot]);
    default: EMBER_ERROR("internal: bad dictionary index type");
  }
}

// [start, end) of element i of a binary-like or list-like array.
inline std::pair<int64_t, int64_t> list_range(const ArrayData& a, int64_t i) {
  const int64_t slot = a.offset + i;
  if (a.type.has_large_offsets()) {
    const int64_t* o = a.buffers[1].data_as<int64_t>();
    return {o[slot], o[slot + 1]};
  }
  const int32_t* o = a.buffers[1].data_as<int32_t>();
  return {o[slot], o[slot + 1]};
}

inline std::string_view binary_at(const ArrayData& a, int64_t i) {
  auto [b, e] = list_range(a, i);
  if (e == b) return {};
  return {reinterpret_cast<const char*>(a.buffers[2].data()) + b, size_t(e - b)};
}

// Element i of any array as a Value.
Value value_at(const ArrayData& a, int64_t i);
// Element i of `a` equals element j of `b` (same types assumed): validity and value.
bool elements_equal(const ArrayData& a, int64_t i, const ArrayData& b, int64_t j);

}  // namespace ember::frame::detail
