// Shared pieces of the column compute kernels: buffers, bitmaps, conversions, string output.
#include "ember/frame/compute/kernels.h"

#include <sys/mman.h>

#include <bit>
#include <cstdlib>
#include <limits>
#include <utility>

#include "ember/frame/builder.h"

namespace ember::frame::compute_detail {

MutableBuffer allocate(int64_t bytes) {
  EMBER_CHECK(bytes >= 0 && bytes <= kMaxBufferBytes, "compute: cannot allocate ", bytes, " bytes");
  // Large outputs go on transparent huge pages where the kernel offers them (as numpy
  // does): a fresh 80 MB result otherwise costs ~20,000 page faults, more than the kernel
  // that fills it.
  constexpr int64_t kHuge = int64_t(1) << 21;
  const bool huge = bytes >= 2 * kHuge;
  const int64_t align = huge ? kHuge : kBufferAlignment;
  const int64_t padded = std::max<int64_t>(align, (bytes + align - 1) / align * align);
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(size_t(align), size_t(padded)));
  EMBER_CHECK(p != nullptr, "compute: out of memory allocating ", padded, " bytes");
#ifdef MADV_HUGEPAGE
  if (huge) madvise(p, size_t(padded), MADV_HUGEPAGE);
#endif
  std::memset(p + bytes, 0, size_t(padded - bytes));
  std::shared_ptr<const void> owner(p, [](const void* q) { std::free(const_cast<void*>(q)); });
  MutableBuffer m;
  m.data = p;
  m.buffer = Buffer::wrap(p, bytes, std::move(owner));
  return m;
}

MutableBuffer allocate_zeroed(int64_t bytes) {
  MutableBuffer m = allocate(bytes);
  std::memset(m.data, 0, size_t(bytes));
  return m;
}

Validity validity_from_words(MutableBuffer words, int64_t n) {
  const int64_t nw = num_words(n);
  const uint64_t* w = words.as<uint64_t>();
  int64_t set = 0;
  for (int64_t k = 0; k < nw; ++k) set += std::popcount(w[k]);
  Validity v;
  v.null_count = n - set;
  if (v.null_count > 0) v.buffer = words.buffer;
  return v;
}

Validity validity_of(const ArrayData& a) {
  Validity v;
  if (a.validity() == nullptr || a.null_count() == 0) return v;
  v.null_count = a.null_count();
  if ((a.offset & 7) == 0) {
    v.buffer = a.buffers[0].slice(a.offset >> 3, bits::bytes_for(a.length));
    return v;
  }
  const int64_t nw = num_words(a.length);
  MutableBuffer out = allocate(nw * 8);
  uint64_t* w = out.as<uint64_t>();
  for (int64_t k = 0; k < nw; ++k) w[k] = validity_word(a, k);
  v.buffer = out.buffer;
  return v;
}

Validity validity_and(const ArrayData& a, const ArrayData& b) {
  const bool an = a.validity() != nullptr && a.null_count() > 0;
  const bool bn = b.validity() != nullptr && b.null_count() > 0;
  if (!an && !bn) return {};
  if (!bn) return validity_of(a);
  if (!an) return validity_of(b);
  const int64_t nw = num_words(a.length);
  MutableBuffer out = allocate(nw * 8);
  uint64_t* w = out.as<uint64_t>();
  parallel_for(0, nw, kGrain / 64, [&](int64_t kb, int64_t ke) {
    for (int64_t k = kb; k < ke; ++k) w[k] = validity_word(a, k) & validity_word(b, k);
  });
  return validity_from_words(std::move(out), a.length);
}

Validity all_null(int64_t n) {
  Validity v;
  v.null_count = n;
  if (n > 0) v.buffer = allocate_zeroed(bits::bytes_for(n)).buffer;
  return v;
}

Column make_fixed(const DType& type, int64_t n, Buffer values, const Validity& v) {
  const DType t = v.null_count > 0 && !type.nullable() ? type.with_nullable(true) : type;
  return Column::from_data_unchecked(
      ArrayData::make(t, n, {v.null_count > 0 ? v.buffer : Buffer(), std::move(values)}, {}, v.null_count, 0));
}

Column make_bool(int64_t n, Buffer bits, const Validity& v, bool nullable) {
  return make_fixed(DType(TypeId::Bool, nullable), n, std::move(bits), v);
}

Column make_all_null(const DType& type, int64_t n) {
  auto b = make_builder(type.with_nullable(true));
  b->append_nulls(n);
  return b->finish();
}

template <class C>
Converted<C> convert_values(const ArrayData& a) {
  Converted<C> r;
  const TypeId id = a.type.id();
  if (id != TypeId::Bool && id != TypeId::Date32 && id != TypeId::Timestamp && id == type_id_of<C>()) {
    r.data = values_of<C>(a);
    return r;
  }
  const int64_t n = a.length;
  MutableBuffer out = allocate(n * int64_t(sizeof(C)));
  C* o = out.as<C>();
  if (id == TypeId::Bool) {
    const uint8_t* bits = a.buffers[1].data();
    parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = C(bits::get(bits, a.offset + i) ? 1 : 0);
    });
  } else {
    visit_primitive(id, [&](auto tag) {
      using S = decltype(tag);
      if constexpr (!std::is_same_v<S, bool>) {
        const S* s = values_of<S>(a);
        parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) o[i] = static_cast<C>(s[i]);
        });
      }
    });
  }
  r.data = o;
  r.keep = out.buffer;
  return r;
}

#define EMBER_COMPUTE_INSTANTIATE(T) template Converted<T> convert_values<T>(const ArrayData&);
EMBER_COMPUTE_INSTANTIATE(int8_t) EMBER_COMPUTE_INSTANTIATE(int16_t) EMBER_COMPUTE_INSTANTIATE(int32_t)
EMBER_COMPUTE_INSTANTIATE(int64_t) EMBER_COMPUTE_INSTANTIATE(uint8_t) EMBER_COMPUTE_INSTANTIATE(uint16_t)
EMBER_COMPUTE_INSTANTIATE(uint32_t) EMBER_COMPUTE_INSTANTIATE(uint64_t) EMBER_COMPUTE_INSTANTIATE(float)
EMBER_COMPUTE_INSTANTIATE(double)
#undef EMBER_COMPUTE_INSTANTIATE

std::string describe(const Operand& o) {
  if (o.col) return o.col->dtype().to_string();
  return std::string("scalar ") + o.scalar->to_string();
}

// ---- promotion -------------------------------------------------------------------------

Category category(TypeId id) {
  switch (id) {
    case TypeId::Bool: return Category::Bool;
    case TypeId::Int8: case TypeId::Int16: case TypeId::Int32: case TypeId::Int64:
    case TypeId::UInt8: case TypeId::UInt16: case TypeId::UInt32: case TypeId::UInt64: return Category::Int;
    case TypeId::Float32: case TypeId::Float64: return Category::Float;
    default: return Category::Other;
  }
}

namespace {
int int_bits(TypeId id) { return DType(id).bit_width(); }
bool is_signed_id(TypeId id) { return id >= TypeId::Int8 && id <= TypeId::Int64; }
TypeId signed_of_bits(int bits) {
  return bits <= 8 ? TypeId::Int8 : bits <= 16 ? TypeId::Int16 : bits <= 32 ? TypeId::Int32 : TypeId::Int64;
}
}  // namespace

std::optional<TypeId> promote_columns(TypeId a, TypeId b) {
  const Category ca = category(a), cb = category(b);
  if (ca == Category::Other || cb == Category::Other) return std::nullopt;
  if (ca == Category::Bool && cb == Category::Bool) return TypeId::Int64;
  if (ca == Category::Bool) return b;
  if (cb == Category::Bool) return a;
  if (ca == Category::Float || cb == Category::Float) {
    if (ca == Category::Float && cb == Category::Float) return a == TypeId::Float64 || b == TypeId::Float64 ? TypeId::Float64 : TypeId::Float32;
    return ca == Category::Float ? a : b;
  }
  const bool sa = is_signed_id(a), sb = is_signed_id(b);
  if (sa == sb) return int_bits(a) >= int_bits(b) ? a : b;
  const TypeId s = sa ? a : b, u = sa ? b : a;
  if (int_bits(s) > int_bits(u)) return s;
  return signed_of_bits(std::min(64, 2 * int_bits(u)));
}

std::optional<TypeId> promote_scalar(TypeId col, const Value& v) {
  const Category cc = category(col);
  if (cc == Category::Other) return std::nullopt;
  switch (v.kind()) {
    case Value::Kind::Null: return promote_columns(col, col);
    case Value::Kind::Bool: return promote_columns(col, TypeId::Bool);
    case Value::Kind::Int: return cc == Category::Bool ? TypeId::Int64 : col;
    case Value::Kind::UInt: return cc == Category::Bool ? TypeId::UInt64 : col;
    case Value::Kind::Double: return cc == Category::Float ? col : TypeId::Float64;
    default: return std::nullopt;
  }
}

template <class C>
bool value_fits(const Value& v) {
  if constexpr (std::is_floating_point_v<C>) {
    return true;
  } else {
    if (v.is_bool()) return true;
    if (v.kind() == Value::Kind::UInt) return std::is_unsigned_v<C> && v.as_uint() <= std::numeric_limits<C>::max();
    if (v.kind() != Value::Kind::Int) return false;
    const int64_t x = v.as_int();
    return std::in_range<C>(x);
  }
}

template <class C>
C scalar_as(const char* op, const Value& v) {
  if (v.is_bool()) return C(v.as_bool() ? 1 : 0);
  if constexpr (std::is_floating_point_v<C>) {
    return C(v.as_double());
  } else {
    EMBER_CHECK(v.is_integer(), op, ": the scalar ", v.to_string(), " is not an integer (the column computes in ",
                to_string(type_id_of<C>()), ")");
    EMBER_CHECK(value_fits<C>(v), op, ": the scalar ", v.to_string(), " does not fit the column's type ",
                to_string(type_id_of<C>()));
    return v.kind() == Value::Kind::UInt ? C(v.as_uint()) : C(v.as_int());
  }
}

#define EMBER_COMPUTE_INSTANTIATE(T)                        \
  template T scalar_as<T>(const char*, const Value&);      \
  template bool value_fits<T>(const Value&);
EMBER_COMPUTE_INSTANTIATE(int8_t) EMBER_COMPUTE_INSTANTIATE(int16_t)
EMBER_COMPUTE_INSTANTIATE(int32_t) EMBER_COMPUTE_INSTANTIATE(int64_t) EMBER_COMPUTE_INSTANTIATE(uint8_t)
EMBER_COMPUTE_INSTANTIATE(uint16_t) EMBER_COMPUTE_INSTANTIATE(uint32_t) EMBER_COMPUTE_INSTANTIATE(uint64_t)
EMBER_COMPUTE_INSTANTIATE(float) EMBER_COMPUTE_INSTANTIATE(double)
#undef EMBER_COMPUTE_INSTANTIATE

void unsupported(const char* op, const Column& c, const char* expected) {
  ::ember::detail::throw_type_error(::ember::detail::str_cat(op, ": the column's dtype is ", c.dtype().to_string(), "; expected ", expected));
}

void check_same_length(const char* op, const Column& a, const Column& b) {
  EMBER_CHECK(a.size() == b.size(), op, ": the columns have different lengths (", a.size(), " and ", b.size(),
              "; dtypes ", a.dtype().to_string(), " and ", b.dtype().to_string(), ")");
}

Column decoded(const Column& c) { return c.dtype().id() == TypeId::Dictionary ? c.dictionary_decode() : c; }

StringAccess string_access(const ArrayData& a) {
  StringAccess s;
  s.bytes = a.buffers[2].data();
  if (a.type.has_large_offsets()) s.off64 = a.buffers[1].data_as<int64_t>();
  else s.off32 = a.buffers[1].data_as<int32_t>();
  s.offset = a.offset;
  return s;
}

int64_t string_chunk_rows(int64_t n) {
  const int64_t threads = std::max(1, get_num_threads());
  if (n <= kGrain / 4 || threads == 1) return std::max<int64_t>(64, (n + 63) / 64 * 64);
  const int64_t target = std::max<int64_t>(kGrain / 4, n / (threads * 4));
  return (target + 63) / 64 * 64;
}

Column join_string_chunks(const char* op, const DType& type, int64_t n, int64_t chunk_rows,
                          std::vector<StringChunk>& chunks, MutableBuffer validity_words, bool any_null) {
  std::vector<int64_t> base(chunks.size() + 1, 0);
  for (size_t c = 0; c < chunks.size(); ++c) base[c + 1] = base[c] + int64_t(chunks[c].bytes.size());
  const int64_t total = base.back();
  const bool large = type.has_large_offsets();
  EMBER_CHECK(large || total <= std::numeric_limits<int32_t>::max(), op, ": the result holds ", total,
              " bytes, more than a ", type.to_string(), " column's int32 offsets can address; cast to large_string first");
  MutableBuffer data = allocate(total);
  MutableBuffer offsets = allocate((n + 1) * (large ? 8 : 4));
  if (large) offsets.as<int64_t>()[0] = 0;
  else offsets.as<int32_t>()[0] = 0;
  parallel_for(0, int64_t(chunks.size()), 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      const StringChunk& ch = chunks[size_t(c)];
      if (!ch.bytes.empty()) std::memcpy(data.data + base[size_t(c)], ch.bytes.data(), ch.bytes.size());
      const int64_t first = c * chunk_rows;
      for (size_t j = 0; j < ch.ends.size(); ++j) {
        const int64_t end = base[size_t(c)] + ch.ends[j];
        if (large) offsets.as<int64_t>()[first + int64_t(j) + 1] = end;
        else offsets.as<int32_t>()[first + int64_t(j) + 1] = int32_t(end);
      }
    }
  });
  Validity v;
  if (any_null) v = validity_from_words(std::move(validity_words), n);
  const DType t = v.null_count > 0 && !type.nullable() ? type.with_nullable(true) : type;
  return Column::from_data_unchecked(ArrayData::make(
      t, n, {v.null_count > 0 ? v.buffer : Buffer(), offsets.buffer, data.buffer}, {}, v.null_count, 0));
}

}  // namespace ember::frame::compute_detail
