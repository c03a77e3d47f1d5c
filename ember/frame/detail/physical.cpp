#include "ember/frame/detail/physical.h"

#include <cmath>

namespace ember::frame::detail {

Value value_at(const ArrayData& a, int64_t i) {
  if (!a.is_valid(i)) return Value();
  const int64_t slot = a.offset + i;
  const TypeId id = a.type.id();
  switch (id) {
    case TypeId::Bool: return Value(bits::get(a.buffers[1].data(), slot));
    case TypeId::String:
    case TypeId::LargeString:
    case TypeId::Binary:
    case TypeId::LargeBinary: return Value(binary_at(a, i));
    case TypeId::List:
    case TypeId::LargeList:
    case TypeId::Map: {
      auto [b, e] = list_range(a, i);
      Value::List items;
      items.reserve(size_t(e - b));
      for (int64_t k = b; k < e; ++k) items.push_back(value_at(*a.children[0], k));
      return Value(std::move(items));
    }
    case TypeId::Struct: {
      Value::List fields;
      fields.reserve(a.children.size());
      for (const auto& c : a.children) fields.push_back(value_at(*c, slot));
      return Value(std::move(fields));
    }
    case TypeId::Dictionary: return value_at(*a.dictionary, dict_index(a, i));
    default:
      return visit_numeric(id, [&](auto tag) {
        using T = decltype(tag);
        return Value(a.buffers[1].data_as<T>()[slot]);
      });
  }
}

bool elements_equal(const ArrayData& a, int64_t i, const ArrayData& b, int64_t j) {
  const bool va = a.is_valid(i), vb = b.is_valid(j);
  if (va != vb) return false;
  if (!va) return true;
  const TypeId id = a.type.id();
  switch (id) {
    case TypeId::Bool: return bits::get(a.buffers[1].data(), a.offset + i) == bits::get(b.buffers[1].data(), b.offset + j);
    case TypeId::String:
    case TypeId::LargeString:
    case TypeId::Binary:
    case TypeId::LargeBinary: return binary_at(a, i) == binary_at(b, j);
    case TypeId::List:
    case TypeId::LargeList:
    case TypeId::Map: {
      auto [ab, ae] = list_range(a, i);
      auto [bb, be] = list_range(b, j);
      if (ae - ab != be - bb) return false;
      for (int64_t k = 0; k < ae - ab; ++k)
        if (!elements_equal(*a.children[0], ab + k, *b.children[0], bb + k)) return false;
      return true;
    }
    case TypeId::Struct:
      for (size_t k = 0; k < a.children.size(); ++k)
        if (!elements_equal(*a.children[k], a.offset + i, *b.children[k], b.offset + j)) return false;
      return true;
    case TypeId::Dictionary: return elements_equal(*a.dictionary, dict_index(a, i), *b.dictionary, dict_index(b, j));
    default:
      return visit_numeric(id, [&](auto tag) {
        using T = decltype(tag);
        const T x = a.buffers[1].data_as<T>()[a.offset + i];
        const T y = b.buffers[1].data_as<T>()[b.offset + j];
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(x) && std::isnan(y)) return true;
        }
        return x == y;
      });
  }
}

}  // namespace ember::frame::detail
