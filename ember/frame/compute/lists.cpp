// The .list() and .struct_() accessors.
#include "ember/frame/compute/lists.h"

#include <limits>

#include "ember/frame/compute/compute.h"
#include "ember/frame/compute/kernels.h"

namespace ember::frame {

using namespace compute_detail;

namespace {

// Offsets of a list-like array as int64.
struct ListAccess {
  const int32_t* off32 = nullptr;
  const int64_t* off64 = nullptr;
  int64_t offset = 0;
  explicit ListAccess(const ArrayData& a) : offset(a.offset) {
    if (a.type.has_large_offsets()) off64 = a.buffers[1].data_as<int64_t>();
    else off32 = a.buffers[1].data_as<int32_t>();
  }
  int64_t begin(int64_t i) const { return off32 ? off32[offset + i] : off64[offset + i]; }
  int64_t end(int64_t i) const { return off32 ? off32[offset + i + 1] : off64[offset + i + 1]; }
};

// A list column of `type`'s kind over new offsets (starting at 0) and a child.
Column make_list(const DType& like, int64_t n, const std::vector<int64_t>& offsets, const Column& child,
                 const Validity& v) {
  const bool large = like.id() == TypeId::LargeList;
  EMBER_CHECK(large || offsets.back() <= std::numeric_limits<int32_t>::max(),
              "list: the result has too many items for int32 offsets");
  MutableBuffer off = allocate((n + 1) * (large ? 8 : 4));
  for (int64_t i = 0; i <= n; ++i) {
    if (large) off.as<int64_t>()[i] = offsets[size_t(i)];
    else off.as<int32_t>()[i] = int32_t(offsets[size_t(i)]);
  }
  const bool nullable = like.nullable() || v.null_count > 0;
  const DType t = large ? dtypes::LargeList(child.dtype(), nullable) : dtypes::List(child.dtype(), nullable);
  return Column::from_data_unchecked(
      ArrayData::make(t, n, {v.null_count > 0 ? v.buffer : Buffer(), off.buffer}, {child.data()}, v.null_count));
}

}  // namespace

ListMethods::ListMethods(const Column& c) : c_(c) {
  EMBER_CHECK_TYPE(c.dtype().is_list_like(), "list: the column's dtype is ", c.dtype().to_string(),
                   "; expected a list or large_list");
}

Column ListMethods::length() const {
  const ArrayData& a = *c_.data();
  const ListAccess l(a);
  MutableBuffer out = allocate(a.length * 8);
  for (int64_t i = 0; i < a.length; ++i) out.as<int64_t>()[i] = a.is_valid(i) ? l.end(i) - l.begin(i) : 0;
  return make_fixed(DType(TypeId::Int64, a.type.nullable()), a.length, out.buffer, validity_of(a));
}

Column ListMethods::get(int64_t k) const {
  const ArrayData& a = *c_.data();
  const ListAccess l(a);
  const int64_t n = a.length;
  std::vector<int64_t> idx(size_t(n), 0);
  MutableBuffer valid = allocate_zeroed(bits::bytes_for(n));
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t b = l.begin(i), len = l.end(i) - b;
    const int64_t j = k < 0 ? k + len : k;
    if (a.is_valid(i) && j >= 0 && j < len) {
      idx[size_t(i)] = b + j;
      bits::set(valid.data, i);
    } else {
      ++nulls;
    }
  }
  const Column child = Column::from_data_unchecked(a.children[0]);
  Validity v;
  if (nulls > 0) v = {valid.buffer, nulls};
  const Column indices = make_fixed(DType(TypeId::Int64, nulls > 0), n,
                                    Buffer::copy_of(idx.data(), n * 8), v);
  if (child.size() == 0) return compute_detail::make_all_null(child.dtype(), n);
  return take(child, indices);
}

Column ListMethods::slice(std::optional<int64_t> start, std::optional<int64_t> stop) const {
  const ArrayData& a = *c_.data();
  const ListAccess l(a);
  const int64_t n = a.length;
  std::vector<int64_t> offsets{0}, items;
  for (int64_t i = 0; i < n; ++i) {
    if (a.is_valid(i)) {
      const int64_t b = l.begin(i), len = l.end(i) - b;
      int64_t s = start.value_or(0), e = stop.value_or(len);
      if (s < 0) s = std::max<int64_t>(0, s + len);
      if (e < 0) e = std::max<int64_t>(0, e + len);
      s = std::min(s, len);
      e = std::min(e, len);
      for (int64_t j = s; j < e; ++j) items.push_back(b + j);
    }
    offsets.push_back(int64_t(items.size()));
  }
  const Column child = take(Column::from_data_unchecked(a.children[0]), items);
  return make_list(a.type.id() == TypeId::Map ? dtypes::List(child.dtype(), a.type.nullable()) : a.type, n, offsets,
                   child, validity_of(a));
}

Column ListMethods::join(std::string_view sep) const {
  const ArrayData& a = *c_.data();
  EMBER_CHECK_TYPE(a.type.id() != TypeId::Map && a.type.value_type().is_string(), "list.join: the column's dtype is ",
                   a.type.to_string(), "; expected a list of strings");
  const ListAccess l(a);
  const ArrayData& child = *a.children[0];
  const StringAccess s = string_access(child);
  return build_strings("list.join", DType(TypeId::String, a.type.nullable()), a.length, [&](int64_t i, std::string& out) {
    if (!a.is_valid(i)) return false;
    for (int64_t j = l.begin(i); j < l.end(i); ++j) {
      if (!child.is_valid(j)) return false;
      if (j > l.begin(i)) out.append(sep);
      out.append(s.get(j));
    }
    return true;
  });
}

Column ListMethods::flatten() const {
  const ArrayData& a = *c_.data();
  const ListAccess l(a);
  const int64_t n = a.length;
  const Column child = Column::from_data_unchecked(a.children[0]);
  bool hidden = false;  // items under null lists, which flatten leaves out (pyarrow)
  for (int64_t i = 0; i < n && !hidden; ++i) hidden = !a.is_valid(i) && l.end(i) > l.begin(i);
  if (!hidden) {
    const int64_t b = n ? l.begin(0) : 0, e = n ? l.end(n - 1) : 0;
    return child.slice(b, e - b);
  }
  std::vector<int64_t> items;
  for (int64_t i = 0; i < n; ++i)
    if (a.is_valid(i))
      for (int64_t j = l.begin(i); j < l.end(i); ++j) items.push_back(j);
  return take(child, items);
}

Column ListMethods::vmap(const std::function<Column(const Column&)>& fn) const {
  const ArrayData& a = *c_.data();
  EMBER_CHECK_TYPE(a.type.id() != TypeId::Map, "list.vmap: the column's dtype is ", a.type.to_string(),
                   "; expected a list or large_list");
  const ListAccess l(a);
  const int64_t n = a.length;
  const int64_t b = n ? l.begin(0) : 0, e = n ? l.end(n - 1) : 0;
  const Column values = Column::from_data_unchecked(a.children[0]).slice(b, e - b);
  const Column r = fn(values);
  EMBER_CHECK(r.defined() && r.size() == values.size(), "list.vmap: the function returned ",
              r.defined() ? std::to_string(r.size()) + " values" : std::string("an undefined column"), " for ",
              values.size(), " values");
  std::vector<int64_t> offsets(size_t(n) + 1);
  for (int64_t i = 0; i <= n; ++i) offsets[size_t(i)] = (i < n ? l.begin(i) : e) - b;
  return make_list(a.type, n, offsets, r, validity_of(a));
}

// ---- struct ----------------------------------------------------------------------------------

StructMethods::StructMethods(const Column& c) : c_(c) {
  EMBER_CHECK_TYPE(c.dtype().id() == TypeId::Struct, "struct: the column's dtype is ", c.dtype().to_string(),
                   "; expected a struct");
}

Column StructMethods::field(int64_t i) const {
  const Column f = c_.field(i);
  const ArrayData& s = *c_.data();
  if (s.null_count() == 0) return f;
  // Null structs make their fields null.
  const ArrayData& fd = *f.data();
  const Validity v = validity_and(s, fd);
  if (fd.offset == 0) {
    std::vector<Buffer> buffers = fd.buffers;
    buffers[0] = v.null_count > 0 ? v.buffer : Buffer();
    return Column::from_data_unchecked(std::make_shared<ArrayData>(fd.type.with_nullable(true), fd.length,
                                                                   std::move(buffers), fd.children, v.null_count, 0,
                                                                   fd.dictionary));
  }
  // Re-base the field to offset 0 first (take copies it), then apply the combined validity.
  std::vector<int64_t> all(static_cast<size_t>(fd.length));
  for (int64_t k = 0; k < fd.length; ++k) all[size_t(k)] = k;
  const Column copy = take(f, all);
  const ArrayData& cd = *copy.data();
  std::vector<Buffer> buffers = cd.buffers;
  buffers[0] = v.null_count > 0 ? v.buffer : Buffer();
  return Column::from_data_unchecked(std::make_shared<ArrayData>(cd.type.with_nullable(true), cd.length,
                                                                 std::move(buffers), cd.children, v.null_count, 0,
                                                                 cd.dictionary));
}

Column StructMethods::field(std::string_view name) const {
  const int64_t i = c_.dtype().field_index(name);
  if (i < 0) return c_.field(name);  // raises the error listing the fields
  return field(i);
}

std::vector<std::string> StructMethods::names() const {
  std::vector<std::string> out;
  for (const Field& f : c_.dtype().fields()) out.push_back(f.name);
  return out;
}

}  // namespace ember::frame
