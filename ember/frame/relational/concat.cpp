// Concatenation of columns of every type (see kernels.h).
#include <algorithm>
#include <limits>

#include "ember/frame/detail/physical.h"
#include "ember/frame/relational/hash_keys.h"
#include "ember/frame/relational/kernels.h"
#include "ember/frame/relational/util.h"

namespace ember::frame::relational {

namespace {

using Parts = std::vector<ArrayDataPtr>;

ArrayDataPtr concat_data(const Parts& parts, const DType& type, const char* op);

int64_t total_length(const Parts& parts) {
  int64_t n = 0;
  for (const auto& p : parts) n += p->length;
  return n;
}

// The parts' validity bitmaps one after another, or undefined when no part has nulls.
Buffer concat_validity(const Parts& parts, int64_t n, int64_t* null_count) {
  *null_count = 0;
  for (const auto& p : parts) *null_count += p->validity() ? p->null_count() : 0;
  if (*null_count == 0) return Buffer();
  OutBuffer out = zeroed_bitmap(n);
  int64_t pos = 0;
  for (const auto& p : parts) {
    if (p->validity() && p->null_count() > 0) {
      bits::copy(p->validity(), p->offset, p->length, out.data(), pos);
    } else {
      for (int64_t i = 0; i < p->length; ++i) bits::set(out.data(), pos + i);
    }
    pos += p->length;
  }
  return out.finish(bits::bytes_for(n));
}

// Offsets of the parts' elements rebased one after another; `child_ranges` receives each
// part's [first, last) range of bytes or child elements.
template <class O>
Buffer concat_offsets(const Parts& parts, int64_t n, std::vector<std::pair<int64_t, int64_t>>& ranges, const char* op,
                      const DType& type) {
  OutBuffer out((n + 1) * int64_t(sizeof(O)));
  O* o = out.as<O>();
  int64_t pos = 0, base = 0;
  o[0] = 0;
  for (const auto& p : parts) {
    const O* src = p->buffers[1].data_as<O>() + p->offset;
    const int64_t first = int64_t(src[0]), last = int64_t(src[p->length]);
    EMBER_CHECK(base + (last - first) <= int64_t(std::numeric_limits<O>::max()), op, ": the result needs more than ",
                type.to_string(), "'s 32-bit offsets allow (use the large_ variant)");
    for (int64_t i = 1; i <= p->length; ++i) o[pos + i] = O(base + (int64_t(src[i]) - first));
    ranges.push_back({first, last});
    base += last - first;
    pos += p->length;
  }
  return out.finish((n + 1) * int64_t(sizeof(O)));
}

template <class O>
ArrayDataPtr concat_binary(const Parts& parts, const DType& type, Buffer validity, int64_t nulls, const char* op) {
  const int64_t n = total_length(parts);
  std::vector<std::pair<int64_t, int64_t>> ranges;
  Buffer offsets = concat_offsets<O>(parts, n, ranges, op, type);
  int64_t bytes = 0;
  for (auto [b, e] : ranges) bytes += e - b;
  OutBuffer data(bytes);
  int64_t pos = 0;
  for (size_t k = 0; k < parts.size(); ++k) {
    const auto [b, e] = ranges[k];
    if (e > b) std::memcpy(data.data() + pos, parts[k]->buffers[2].data() + b, size_t(e - b));
    pos += e - b;
  }
  return ArrayData::make(type, n, {std::move(validity), std::move(offsets), data.finish(bytes)}, {}, nulls);
}

template <class O>
ArrayDataPtr concat_list(const Parts& parts, const DType& type, Buffer validity, int64_t nulls, const char* op) {
  const int64_t n = total_length(parts);
  std::vector<std::pair<int64_t, int64_t>> ranges;
  Buffer offsets = concat_offsets<O>(parts, n, ranges, op, type);
  Parts children;
  for (size_t k = 0; k < parts.size(); ++k)
    children.push_back(parts[k]->children[0]->slice(ranges[k].first, ranges[k].second - ranges[k].first));
  ArrayDataPtr child = concat_data(children, child_type(type, 0), op);
  return ArrayData::make(type, n, {std::move(validity), std::move(offsets)}, {std::move(child)}, nulls);
}

// Dictionaries: shared when every part has the same one, else unified (distinct values in
// order of first appearance) with each part's indices remapped.
ArrayDataPtr concat_dictionary(const Parts& parts, const DType& type, const char* op) {
  const int64_t n = total_length(parts);
  bool same = true;
  for (const auto& p : parts)
    same &= p->dictionary == parts[0]->dictionary ||
            Column::from_data_unchecked(p->dictionary).equals(Column::from_data_unchecked(parts[0]->dictionary));
  // Indices as int64 positions into the (unified) dictionary.
  std::vector<int64_t> idx(static_cast<size_t>(n));
  ArrayDataPtr dict = parts[0]->dictionary;
  std::vector<std::vector<int32_t>> remap(parts.size());
  if (!same) {
    Parts dicts;
    for (const auto& p : parts) dicts.push_back(p->dictionary);
    ArrayDataPtr all = concat_data(dicts, type.value_type(), op);
    const Column all_col = Column::from_data_unchecked(all);
    KeyColumns keys({all_col}, {"dictionary"}, op);
    Groups g = factorize(keys, /*drop_nulls=*/false, op);
    dict = take_trusted(all_col, g.first.data(), g.num_groups(), false).data();
    int64_t base = 0;
    for (size_t k = 0; k < parts.size(); ++k) {
      remap[k].assign(g.ids.begin() + base, g.ids.begin() + base + parts[k]->dictionary->length);
      base += parts[k]->dictionary->length;
    }
  }
  int64_t pos = 0;
  for (size_t k = 0; k < parts.size(); ++k) {
    const ArrayData& p = *parts[k];
    for (int64_t i = 0; i < p.length; ++i) {
      const int64_t d = p.is_valid(i) ? detail::dict_index(p, i) : 0;
      idx[size_t(pos + i)] = same ? d : (p.is_valid(i) ? remap[k][size_t(d)] : 0);
    }
    pos += p.length;
  }
  // The widest index type that the parts used and the dictionary needs.
  DType it = type.index_type();
  const int64_t dict_len = dict->length;
  auto fits = [&](const DType& t) {
    switch (t.id()) {
      case TypeId::Int8: return dict_len <= 128;
      case TypeId::UInt8: return dict_len <= 256;
      case TypeId::Int16: return dict_len <= 32768;
      case TypeId::UInt16: return dict_len <= 65536;
      case TypeId::Int32: return dict_len <= (int64_t(1) << 31);
      default: return true;
    }
  };
  if (!fits(it)) it = fits(dtypes::int32) ? dtypes::int32 : dtypes::int64;
  int64_t nulls = 0;
  Buffer validity = concat_validity(parts, n, &nulls);
  OutBuffer values(n * it.byte_width());
  detail::visit_numeric(it.id(), [&](auto tag) {
    using T = decltype(tag);
    T* o = values.as<T>();
    for (int64_t i = 0; i < n; ++i) o[i] = T(idx[size_t(i)]);
  });
  const DType out_type = dtypes::Dictionary(it, type.value_type(), type.nullable(), type.ordered());
  return ArrayData::make(out_type, n, {std::move(validity), values.finish(n * it.byte_width())}, {}, nulls, 0,
                         std::move(dict));
}

ArrayDataPtr concat_data(const Parts& parts, const DType& type, const char* op) {
  const int64_t n = total_length(parts);
  if (type.id() == TypeId::Dictionary) return concat_dictionary(parts, type, op);
  int64_t nulls = 0;
  Buffer validity = concat_validity(parts, n, &nulls);
  switch (type.id()) {
    case TypeId::Bool: {
      OutBuffer out = zeroed_bitmap(n);
      int64_t pos = 0;
      for (const auto& p : parts) {
        bits::copy(p->buffers[1].data(), p->offset, p->length, out.data(), pos);
        pos += p->length;
      }
      return ArrayData::make(type, n, {std::move(validity), out.finish(bits::bytes_for(n))}, {}, nulls);
    }
    case TypeId::String:
    case TypeId::Binary: return concat_binary<int32_t>(parts, type, std::move(validity), nulls, op);
    case TypeId::LargeString:
    case TypeId::LargeBinary: return concat_binary<int64_t>(parts, type, std::move(validity), nulls, op);
    case TypeId::List:
    case TypeId::Map: return concat_list<int32_t>(parts, type, std::move(validity), nulls, op);
    case TypeId::LargeList: return concat_list<int64_t>(parts, type, std::move(validity), nulls, op);
    case TypeId::Struct: {
      std::vector<ArrayDataPtr> children;
      for (size_t f = 0; f < type.fields().size(); ++f) {
        Parts fields;
        for (const auto& p : parts) fields.push_back(p->children[f]->slice(p->offset, p->length));
        children.push_back(concat_data(fields, type.fields()[f].dtype, op));
      }
      return ArrayData::make(type, n, {std::move(validity)}, std::move(children), nulls);
    }
    default: {
      const int w = type.byte_width();
      OutBuffer out(n * w);
      int64_t pos = 0;
      for (const auto& p : parts) {
        if (p->length > 0)
          std::memcpy(out.data() + pos * w, p->buffers[1].data() + p->offset * w, size_t(p->length * w));
        pos += p->length;
      }
      return ArrayData::make(type, n, {std::move(validity), out.finish(n * w)}, {}, nulls);
    }
  }
}

}  // namespace

DType merge_nullable(const DType& a, const DType& b) {
  const bool nullable = a.nullable() || b.nullable();
  switch (a.id()) {
    case TypeId::List: return dtypes::List(merge_nullable(a.value_type(), b.value_type()), nullable);
    case TypeId::LargeList: return dtypes::LargeList(merge_nullable(a.value_type(), b.value_type()), nullable);
    case TypeId::Map:
      return dtypes::Map(a.key_type(), merge_nullable(a.value_type(), b.value_type()), nullable, a.keys_sorted());
    case TypeId::Struct: {
      std::vector<Field> fields;
      for (size_t i = 0; i < a.fields().size(); ++i)
        fields.push_back({a.fields()[i].name, merge_nullable(a.fields()[i].dtype, b.fields()[i].dtype)});
      return dtypes::Struct(std::move(fields), nullable);
    }
    case TypeId::Dictionary:
      return dtypes::Dictionary(a.index_type(), merge_nullable(a.value_type(), b.value_type()), nullable, a.ordered());
    default: return a.with_nullable(nullable);
  }
}

Column concat(const std::vector<Column>& columns, const char* op) {
  EMBER_CHECK(!columns.empty(), op, ": no columns to concatenate");
  DType type = columns[0].dtype();
  for (size_t k = 1; k < columns.size(); ++k) {
    const DType& t = columns[k].dtype();
    EMBER_CHECK_TYPE(t.equals(type, false), op, ": column ", k, " has dtype ", t.to_string(), " but column 0 has ",
                     columns[0].dtype().to_string());
    type = merge_nullable(type, t);
  }
  if (columns.size() == 1) return columns[0];
  Parts parts;
  for (const Column& c : columns) parts.push_back(c.data());
  return Column::from_data_unchecked(concat_data(parts, type, op));
}

}  // namespace ember::frame::relational
