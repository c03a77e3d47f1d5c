// Internal helpers of the column compute kernels (ember/frame/compute): output buffers,
// validity bitmaps at any bit offset, type dispatch and conversions over raw Arrow buffers.
// Not part of the public API; the kernels' .cpp files include it.
#pragma once
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>
#include <algorithm>

#include "ember/core/error.h"
#include "ember/core/parallel.h"
#include "ember/frame/column.h"

namespace ember::frame::compute_detail {

// Elements per parallel task: below this a kernel runs on the calling thread.
constexpr int64_t kGrain = int64_t(1) << 16;

// ---- buffers ------------------------------------------------------------------------

// `bytes` uninitialized bytes, 64-byte aligned, with the padding up to 64 bytes zeroed.
// The kernel writes `data` before the Buffer is shared (columns are immutable afterwards).
struct MutableBuffer {
  uint8_t* data = nullptr;
  Buffer buffer;
  template <class T> T* as() { return reinterpret_cast<T*>(data); }
};
MutableBuffer allocate(int64_t bytes);
// Like allocate, all bytes zeroed.
MutableBuffer allocate_zeroed(int64_t bytes);

// ---- bitmaps --------------------------------------------------------------------------

// 64 bits of `bitmap` from bit `pos` (bit j of the result is bit pos + j). `limit` is the
// number of bits the bitmap holds (an array's offset + length); bits at or past it read 0.
inline uint64_t load_bits(const uint8_t* bitmap, int64_t pos, int64_t limit) {
  const int64_t nbytes = (limit + 7) >> 3;
  const int64_t q = pos >> 3;
  const int s = int(pos & 7);
  uint64_t w = 0;
  if (q + 9 <= nbytes) {
    std::memcpy(&w, bitmap + q, 8);
    w >>= s;
    if (s) w |= uint64_t(bitmap[q + 8]) << (64 - s);
  } else {
    for (int64_t k = 0; k < 9 && q + k < nbytes; ++k) {
      const uint64_t byte = bitmap[q + k];
      const int sh = int(k * 8) - s;
      if (sh >= 64) break;
      w |= sh >= 0 ? byte << sh : byte >> -sh;
    }
  }
  if (pos + 64 > limit) {
    const int64_t keep = limit - pos;
    w = keep <= 0 ? 0 : (w & ((uint64_t(1) << keep) - 1));
  }
  return w;
}

// Word k (elements [64k, 64k + 64)) of an array's validity bitmap, all ones when it has none.
// Bits past the array's length are zero.
inline uint64_t validity_word(const ArrayData& a, int64_t k) {
  const int64_t rem = a.length - k * 64;
  const uint64_t tail = rem >= 64 ? ~uint64_t(0) : (uint64_t(1) << rem) - 1;
  const uint8_t* v = a.validity();
  if (v == nullptr) return tail;
  return load_bits(v, a.offset + k * 64, a.offset + a.length) & tail;
}
// Word k of a boolean array's value bits (bits past the length are zero).
inline uint64_t bool_word(const ArrayData& a, int64_t k) {
  return load_bits(a.buffers[1].data(), a.offset + k * 64, a.offset + a.length);
}
inline int64_t num_words(int64_t n) { return (n + 63) >> 6; }
// Packs 64 bytes of 0/1 into a word (byte j -> bit j), eight at a time with one multiply:
// kernels compute predicates into bytes (which vectorizes) and pack them.
inline uint64_t pack_bytes(const uint8_t* t) {
  uint64_t w = 0;
  for (int g = 0; g < 8; ++g) {
    uint64_t x;
    std::memcpy(&x, t + 8 * g, 8);
    w |= ((x * 0x0102040810204080ULL) >> 56) << (8 * g);
  }
  return w;
}

// A validity bitmap at offset 0 and its null count; an undefined buffer when no nulls.
struct Validity {
  Buffer buffer;
  int64_t null_count = 0;
};
// `a`'s validity re-based to offset 0 (shared without a copy when the offset allows).
Validity validity_of(const ArrayData& a);
// Valid where both are valid (equal lengths).
Validity validity_and(const ArrayData& a, const ArrayData& b);
// All `n` elements null.
Validity all_null(int64_t n);
// A bitmap from words (n bits); its null count is counted. An all-valid bitmap is dropped.
Validity validity_from_words(MutableBuffer words, int64_t n);

// ---- columns from pieces ------------------------------------------------------------------

// A fixed-width column (not bool) of `n` values at offset 0.
Column make_fixed(const DType& type, int64_t n, Buffer values, const Validity& v);
// A boolean column from value bits at offset 0.
Column make_bool(int64_t n, Buffer bits, const Validity& v, bool nullable);
// A column of `n` nulls of `type` (made nullable).
Column make_all_null(const DType& type, int64_t n);

// ---- element access -------------------------------------------------------------------

template <class T>
inline const T* values_of(const ArrayData& a) {
  return a.buffers[1].data_as<T>() + a.offset;
}
inline bool is_string_like(const DType& t) { return t.is_binary_like(); }

// Visits the C++ element type of a numeric (or date/timestamp) type id; bool is passed as bool.
template <class F>
decltype(auto) visit_primitive(TypeId id, F&& f) {
  switch (id) {
    case TypeId::Bool: return f(bool{});
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
    default: EMBER_ERROR("internal: ", to_string(id), " is not a primitive type");
  }
}

// The TypeId of a C++ element type.
template <class T>
constexpr TypeId type_id_of() {
  if constexpr (std::is_same_v<T, bool>) return TypeId::Bool;
  else if constexpr (std::is_same_v<T, int8_t>) return TypeId::Int8;
  else if constexpr (std::is_same_v<T, int16_t>) return TypeId::Int16;
  else if constexpr (std::is_same_v<T, int32_t>) return TypeId::Int32;
  else if constexpr (std::is_same_v<T, int64_t>) return TypeId::Int64;
  else if constexpr (std::is_same_v<T, uint8_t>) return TypeId::UInt8;
  else if constexpr (std::is_same_v<T, uint16_t>) return TypeId::UInt16;
  else if constexpr (std::is_same_v<T, uint32_t>) return TypeId::UInt32;
  else if constexpr (std::is_same_v<T, uint64_t>) return TypeId::UInt64;
  else if constexpr (std::is_same_v<T, float>) return TypeId::Float32;
  else return TypeId::Float64;
}

// A numeric or boolean array's values as a contiguous C array (no copy when the physical
// type is already C; otherwise converted with static_cast, bool as 0/1).
template <class C>
struct Converted {
  const C* data = nullptr;
  Buffer keep;  // owns a converted copy
};
template <class C>
Converted<C> convert_values(const ArrayData& a);

// ---- dtypes and messages -------------------------------------------------------------------

// "int64", "Int64(nullable=True)"...
inline std::string type_name(const Column& c) { return c.dtype().to_string(); }
// Raises the standard error for a column whose dtype an op does not support.
[[noreturn]] void unsupported(const char* op, const Column& c, const char* expected);
void check_same_length(const char* op, const Column& a, const Column& b);
// The column itself, or its dictionary decoded (kernels work on plain layouts).
Column decoded(const Column& c);

// ---- operands and promotion (Note [Compute semantics] in compute.h) -------------------------

// One side of a binary op: a column or a scalar.
struct Operand {
  const Column* col = nullptr;
  const Value* scalar = nullptr;
  bool is_scalar() const { return col == nullptr; }
};
inline Operand col_op(const Column& c) { return Operand{&c, nullptr}; }
inline Operand val_op(const Value& v) { return Operand{nullptr, &v}; }
// "int64" for a column, "scalar 3" for a value: how error messages name an operand.
std::string describe(const Operand& o);
// bool < integers < floats; Other for the rest.
enum class Category { Bool, Int, Float, Other };
Category category(TypeId id);
// The arithmetic type of two column types (both bool -> int64), or nullopt when not numeric.
std::optional<TypeId> promote_columns(TypeId a, TypeId b);
// The type a column of type `col` and a scalar compute in (PyTorch's weak scalars).
std::optional<TypeId> promote_scalar(TypeId col, const Value& scalar);
// `v` (a bool, integer or float Value) as C; the range check names `op` and the type.
template <class C>
C scalar_as(const char* op, const Value& v);
// Whether an integer Value fits C exactly.
template <class C>
bool value_fits(const Value& v);

// ---- strings ------------------------------------------------------------------------------

// Offsets of a string/binary array as int64 regardless of width.
struct StringAccess {
  const uint8_t* bytes = nullptr;
  const int32_t* off32 = nullptr;
  const int64_t* off64 = nullptr;
  int64_t offset = 0;
  int64_t begin(int64_t i) const { return off32 ? off32[offset + i] : off64[offset + i]; }
  int64_t end(int64_t i) const { return off32 ? off32[offset + i + 1] : off64[offset + i + 1]; }
  std::string_view get(int64_t i) const {
    const int64_t b = begin(i), e = end(i);
    return {reinterpret_cast<const char*>(bytes) + b, size_t(e - b)};
  }
};
StringAccess string_access(const ArrayData& a);

// Builds a string column in parallel chunks of rows: fn(i, out) appends element i's bytes
// to `out` and returns false for a null (what it appended is then dropped). `type` is string
// or large_string (binary types too); string offsets past int32 are an error naming `op`.
// fn must be safe to call from several threads at once (for different i).
template <class F>
Column build_strings(const char* op, const DType& type, int64_t n, const F& fn);

// The machinery behind build_strings: per-chunk bytes and row ends, joined at the end.
struct StringChunk {
  std::string bytes;
  std::vector<int64_t> ends;  // relative end of each row of the chunk
};
Column join_string_chunks(const char* op, const DType& type, int64_t n, int64_t chunk_rows,
                          std::vector<StringChunk>& chunks, MutableBuffer validity_words, bool any_null);
int64_t string_chunk_rows(int64_t n);

template <class F>
Column build_strings(const char* op, const DType& type, int64_t n, const F& fn) {
  const int64_t rows = string_chunk_rows(n);  // a multiple of 64: chunks own whole validity words
  const int64_t nchunks = n == 0 ? 0 : (n + rows - 1) / rows;
  std::vector<StringChunk> chunks(static_cast<size_t>(nchunks));
  MutableBuffer valid = allocate(num_words(n) * 8);
  std::vector<uint8_t> chunk_has_null(size_t(nchunks), 0);
  parallel_for(0, nchunks, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      const int64_t b = c * rows, e = std::min(n, b + rows);
      StringChunk& ch = chunks[size_t(c)];
      ch.ends.resize(size_t(e - b));
      uint64_t* words = valid.as<uint64_t>();
      uint64_t w = 0;
      bool has_null = false;
      for (int64_t i = b; i < e; ++i) {
        const size_t before = ch.bytes.size();
        if (fn(i, ch.bytes)) {
          w |= uint64_t(1) << (i & 63);
        } else {
          ch.bytes.resize(before);
          has_null = true;
        }
        ch.ends[size_t(i - b)] = int64_t(ch.bytes.size());
        if ((i & 63) == 63 || i + 1 == e) {
          words[i >> 6] = w;
          w = 0;
        }
      }
      chunk_has_null[size_t(c)] = has_null;
    }
  });
  bool any_null = false;
  for (uint8_t h : chunk_has_null) any_null |= h != 0;
  return join_string_chunks(op, type, n, rows, chunks, std::move(valid), any_null);
}

}  // namespace ember::frame::compute_detail
