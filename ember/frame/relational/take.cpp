// take (gather by row positions) for every column type, and mask positions. See kernels.h.
#include <algorithm>
#include <bit>
#include <limits>
#include <type_traits>

#include "ember/frame/builder.h"
#include "ember/frame/detail/physical.h"
#include "ember/frame/relational/kernels.h"
#include "ember/frame/relational/util.h"

namespace ember::frame::relational {

ArrayDataPtr nulls_data_for(const DType& type, int64_t n);

namespace {

// Bounds check of the positions; returns whether any is negative (a null).
template <class I>
bool check_positions(const I* idx, int64_t n, int64_t len, const char* op) {
  const auto bounds = chunk_bounds(n, 1 << 16);
  std::vector<uint8_t> neg(bounds.size(), 0);
  std::vector<int64_t> bad(bounds.size(), -1);
  run_chunks(bounds, [&](int64_t c, int64_t b, int64_t e) {
    bool any_neg = false;
    I hi = -1;
    for (int64_t i = b; i < e; ++i) {
      any_neg |= idx[i] < 0;
      hi = std::max(hi, idx[i]);
    }
    neg[size_t(c)] = any_neg;
    if (int64_t(hi) >= len) {
      for (int64_t i = b; i < e; ++i)
        if (int64_t(idx[i]) >= len) { bad[size_t(c)] = i; break; }
    }
  });
  for (int64_t b : bad)
    EMBER_CHECK_INDEX(b < 0, op, ": row position ", int64_t(idx[b]), " (at ", b, ") is out of range for ", len,
                      " rows");
  return std::any_of(neg.begin(), neg.end(), [](uint8_t v) { return v != 0; });
}

// The validity of the gathered rows, or an undefined buffer when all are valid.
template <class I>
Buffer gather_validity(const ArrayData& a, const I* idx, int64_t n, bool has_neg, int64_t* null_count) {
  const uint8_t* v = a.validity();
  *null_count = 0;
  if (v == nullptr && !has_neg) return Buffer();
  OutBuffer out(bits::bytes_for(n));
  const auto bounds = chunk_bounds(n);
  std::vector<int64_t> nulls(bounds.size(), 0);
  const int64_t off = a.offset;
  run_chunks(bounds, [&](int64_t c, int64_t b, int64_t e) {
    int64_t valid = 0;
    for (int64_t w = b; w < e; w += 64) {
      const int64_t m = std::min<int64_t>(64, e - w);
      uint64_t word = 0;
      for (int64_t j = 0; j < m; ++j) {
        const I k = idx[w + j];
        const bool ok = k >= 0 && (v == nullptr || bits::get(v, off + int64_t(k)));
        word |= uint64_t(ok) << j;
      }
      valid += std::popcount(word);
      std::memcpy(out.data() + (w >> 3), &word, size_t((m + 7) / 8));
    }
    nulls[size_t(c)] = (e - b) - valid;
  });
  for (int64_t x : nulls) *null_count += x;
  if (*null_count == 0) return Buffer();
  return out.finish(bits::bytes_for(n));
}

// Rows ahead that the gathers prefetch: random positions make every read a cache miss, and
// the loads of several rows in flight at once hide most of their latency.
constexpr int64_t kGatherAhead = 16;

template <class T, class I>
Buffer gather_fixed(const T* src, const I* idx, int64_t n, bool has_neg) {
  OutBuffer out(n * int64_t(sizeof(T)));
  T* o = out.as<T>();
  run_chunks(chunk_bounds(n), [&](int64_t, int64_t b, int64_t e) {
    if (!has_neg) {
      int64_t i = b;
      for (; i + kGatherAhead < e; ++i) {
        __builtin_prefetch(src + idx[i + kGatherAhead]);
        o[i] = src[idx[i]];
      }
      for (; i < e; ++i) o[i] = src[idx[i]];
    } else {
      for (int64_t i = b; i < e; ++i) {
        const I k = idx[i];
        o[i] = k >= 0 ? src[k] : T{};
      }
    }
  });
  return out.finish(n * int64_t(sizeof(T)));
}

template <class I>
Buffer gather_bits(const uint8_t* src, int64_t off, const I* idx, int64_t n) {
  OutBuffer out(bits::bytes_for(n));
  run_chunks(chunk_bounds(n), [&](int64_t, int64_t b, int64_t e) {
    for (int64_t w = b; w < e; w += 64) {
      const int64_t m = std::min<int64_t>(64, e - w);
      uint64_t word = 0;
      for (int64_t j = 0; j < m; ++j) {
        const I k = idx[w + j];
        word |= uint64_t(k >= 0 && bits::get(src, off + int64_t(k))) << j;
      }
      std::memcpy(out.data() + (w >> 3), &word, size_t((m + 7) / 8));
    }
  });
  return out.finish(bits::bytes_for(n));
}

// Output offsets for gathered variable-length elements (strings, lists): out[i + 1] - out[i]
// is the length of element idx[i] (0 for a negative position). Returns the total.
template <class O, class I>
int64_t gather_offsets(const O* offs, const I* idx, int64_t n, O* out, const std::vector<int64_t>& bounds,
                       const char* op, const DType& type) {
  std::vector<int64_t> totals(bounds.size(), 0);
  run_chunks(bounds, [&](int64_t c, int64_t b, int64_t e) {
    int64_t run = 0;
    for (int64_t i = b; i < e; ++i) {
      if (i + kGatherAhead < e) __builtin_prefetch(offs + idx[i + kGatherAhead]);
      const I k = idx[i];
      if (k >= 0) run += int64_t(offs[k + 1]) - int64_t(offs[k]);
      out[i + 1] = O(run);  // local; rebased below (checked for overflow first)
    }
    totals[size_t(c)] = run;
  });
  int64_t total = 0;
  std::vector<int64_t> base(bounds.size(), 0);
  for (size_t c = 0; c + 1 < bounds.size(); ++c) base[c] = total, total += totals[c];
  EMBER_CHECK(total <= int64_t(std::numeric_limits<O>::max()), op, ": the result needs ", total,
              " elements or bytes, more than ", type.to_string(), "'s 32-bit offsets allow (use the large_ variant)");
  out[0] = 0;
  run_chunks(bounds, [&](int64_t c, int64_t b, int64_t e) {
    const O add = O(base[size_t(c)]);
    if (add != 0)
      for (int64_t i = b; i < e; ++i) out[i + 1] += add;
  });
  return total;
}

template <class I>
ArrayDataPtr take_data(const ArrayData& a, const I* idx, int64_t n, bool has_neg, const char* op);

template <class O, class I>
ArrayDataPtr take_binary(const ArrayData& a, const I* idx, int64_t n, bool has_neg, DType type, Buffer validity,
                         int64_t nulls, const char* op) {
  const O* offs = a.buffers[1].data_as<O>() + a.offset;
  const uint8_t* bytes = a.buffers[2].data();
  OutBuffer out_offs((n + 1) * int64_t(sizeof(O)));
  O* oo = out_offs.as<O>();
  const auto bounds = chunk_bounds(n);
  const int64_t total = gather_offsets(offs, idx, n, oo, bounds, op, type);
  OutBuffer out_bytes(total);
  uint8_t* ob = out_bytes.data();
  // Short strings move as one 8-byte word where both sides have the room (no call per string);
  // the word's spare bytes land where the chunk's next string goes, or in the final padding
  // (zeroed by finish()), never in another chunk's bytes.
  const int64_t src_end = a.buffers[2].size() - 8;
  run_chunks(bounds, [&](int64_t, int64_t b, int64_t e) {
    const int64_t dst_end = (e == n ? out_bytes.capacity() : int64_t(oo[e])) - 8;
    for (int64_t i = b; i < e; ++i) {
      // Two stages: the offsets 2 * kGatherAhead rows ahead, then the bytes kGatherAhead rows ahead (whose
      // offsets the first stage fetched kGatherAhead rows ago).
      if (i + 2 * kGatherAhead < e) __builtin_prefetch(offs + std::max<I>(idx[i + 2 * kGatherAhead], 0));
      if (i + kGatherAhead < e) __builtin_prefetch(bytes + offs[std::max<I>(idx[i + kGatherAhead], 0)]);
      const I k = idx[i];
      if (k < 0) continue;
      const int64_t len = int64_t(oo[i + 1]) - int64_t(oo[i]);
      const int64_t from = int64_t(offs[k]), to = int64_t(oo[i]);
      if (len <= 8 && from <= src_end && to <= dst_end) {
        uint64_t w;
        std::memcpy(&w, bytes + from, 8);
        std::memcpy(ob + to, &w, 8);  // the bytes past len are overwritten by the next string
      } else if (len > 0) {
        std::memcpy(ob + to, bytes + from, size_t(len));
      }
    }
  });
  return ArrayData::make(std::move(type), n, {std::move(validity), out_offs.finish((n + 1) * int64_t(sizeof(O))),
                                              out_bytes.finish(total)},
                         {}, nulls);
}

template <class O, class I>
ArrayDataPtr take_list(const ArrayData& a, const I* idx, int64_t n, bool has_neg, DType type, Buffer validity,
                       int64_t nulls, const char* op) {
  const O* offs = a.buffers[1].data_as<O>() + a.offset;
  OutBuffer out_offs((n + 1) * int64_t(sizeof(O)));
  O* oo = out_offs.as<O>();
  const auto bounds = chunk_bounds(n);
  const int64_t total = gather_offsets(offs, idx, n, oo, bounds, op, type);
  Vec<int64_t> child_idx(static_cast<size_t>(total));
  run_chunks(bounds, [&](int64_t, int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const I k = idx[i];
      if (k < 0) continue;
      int64_t pos = int64_t(oo[i]);
      for (int64_t s = int64_t(offs[k]); s < int64_t(offs[k + 1]); ++s) child_idx[size_t(pos++)] = s;
    }
  });
  ArrayDataPtr child = take_data(*a.children[0], child_idx.data(), total, false, op);
  return ArrayData::make(std::move(type), n, {std::move(validity), out_offs.finish((n + 1) * int64_t(sizeof(O)))},
                         {std::move(child)}, nulls);
}

template <class I>
ArrayDataPtr take_data(const ArrayData& a, const I* idx, int64_t n, bool has_neg, const char* op) {
  DType type = has_neg ? a.type.with_nullable(true) : a.type;
  const TypeId id = a.type.id();
  if (id == TypeId::Dictionary) {
    const DType& it = a.type.index_type();
    auto indices = ArrayData::make(it.with_nullable(a.type.nullable()), a.length, {a.buffers[0], a.buffers[1]}, {},
                                   a.known_null_count(), a.offset);
    ArrayDataPtr got = take_data(*indices, idx, n, has_neg, op);
    return ArrayData::make(std::move(type), n, got->buffers, {}, got->known_null_count(), 0, a.dictionary);
  }
  int64_t nulls = 0;
  Buffer validity = gather_validity(a, idx, n, has_neg, &nulls);
  switch (id) {
    case TypeId::Bool:
      return ArrayData::make(std::move(type), n, {std::move(validity), gather_bits(a.buffers[1].data(), a.offset, idx, n)},
                             {}, nulls);
    case TypeId::String:
    case TypeId::Binary: return take_binary<int32_t>(a, idx, n, has_neg, std::move(type), std::move(validity), nulls, op);
    case TypeId::LargeString:
    case TypeId::LargeBinary:
      return take_binary<int64_t>(a, idx, n, has_neg, std::move(type), std::move(validity), nulls, op);
    case TypeId::List:
    case TypeId::Map: return take_list<int32_t>(a, idx, n, has_neg, std::move(type), std::move(validity), nulls, op);
    case TypeId::LargeList:
      return take_list<int64_t>(a, idx, n, has_neg, std::move(type), std::move(validity), nulls, op);
    case TypeId::Struct: {
      // A null row (negative position) still needs a slot in each field: take row 0 there
      // (any valid slot does; Arrow ignores field values under a null struct).
      std::vector<I> mapped;
      const I* fidx = idx;
      if (has_neg && a.length > 0) {
        mapped.assign(idx, idx + n);
        for (I& k : mapped) k = k < 0 ? I(0) : k;
        fidx = mapped.data();
      }
      std::vector<ArrayDataPtr> children;
      for (size_t f = 0; f < a.children.size(); ++f) {
        auto field = a.children[f]->slice(a.offset, a.length);
        if (has_neg && a.length == 0) children.push_back(nulls_data_for(field->type, n));
        else children.push_back(take_data(*field, fidx, n, false, op));
      }
      return ArrayData::make(std::move(type), n, {std::move(validity)}, std::move(children), nulls);
    }
    default: {
      const int w = a.type.byte_width();
      const uint8_t* base = a.buffers[1].data() + a.offset * w;
      Buffer values;
      switch (w) {
        case 1: values = gather_fixed(reinterpret_cast<const uint8_t*>(base), idx, n, has_neg); break;
        case 2: values = gather_fixed(reinterpret_cast<const uint16_t*>(base), idx, n, has_neg); break;
        case 4: values = gather_fixed(reinterpret_cast<const uint32_t*>(base), idx, n, has_neg); break;
        case 8: values = gather_fixed(reinterpret_cast<const uint64_t*>(base), idx, n, has_neg); break;
        default: EMBER_ERROR(op, ": unsupported column type ", a.type.to_string());
      }
      return ArrayData::make(std::move(type), n, {std::move(validity), std::move(values)}, {}, nulls);
    }
  }
}

template <class I>
Column take_checked(const Column& src, const I* idx, int64_t n, const char* op) {
  EMBER_CHECK(n >= 0, op, ": negative number of positions ", n);
  const ArrayData& a = *src.data();
  const bool has_neg = check_positions(idx, n, a.length, op);
  return Column::from_data_unchecked(take_data(a, idx, n, has_neg, op));
}

template <class I>
DataFrame take_frame(const DataFrame& df, const I* idx, int64_t n, const char* op, int trusted_has_neg = -1) {
  if (trusted_has_neg < 1 && n == df.num_rows() && is_identity(idx, n)) return df;
  const bool has_neg = trusted_has_neg >= 0 ? trusted_has_neg == 1 : check_positions(idx, n, df.num_rows(), op);
  if (df.num_columns() == 0) return DataFrame();
  std::vector<std::pair<std::string, Column>> cols;
  for (int64_t c = 0; c < df.num_columns(); ++c)
    cols.emplace_back(df.columns()[size_t(c)],
                      Column::from_data_unchecked(take_data(*df.column(c).data(), idx, n, has_neg, op)));
  return DataFrame(std::move(cols));
}

template <class I>
bool identity(const I* idx, int64_t n) {
  const auto bounds = chunk_bounds(n, 1 << 16);
  std::vector<uint8_t> ok(bounds.size(), 1);
  run_chunks(bounds, [&](int64_t c, int64_t b, int64_t e) {
    bool same = true;
    for (int64_t i = b; i < e; ++i) same &= int64_t(idx[i]) == i;
    ok[size_t(c)] = same;
  });
  return std::all_of(ok.begin(), ok.end(), [](uint8_t v) { return v != 0; });
}

}  // namespace

Column take(const Column& src, const int64_t* idx, int64_t n, const char* op) { return take_checked(src, idx, n, op); }
Column take(const Column& src, const int32_t* idx, int64_t n, const char* op) { return take_checked(src, idx, n, op); }

Column take(const Column& src, const Column& indices, const char* op) {
  const DType& t = indices.dtype();
  EMBER_CHECK_TYPE(t.is_integer(), op, ": positions must be an integer column, got ", t.to_string());
  Vec<int64_t> idx(static_cast<size_t>(indices.size()));
  detail::visit_numeric(t.id(), [&](auto tag) {
    using T = decltype(tag);
    const T* v = indices.values<T>();
    for (int64_t i = 0; i < indices.size(); ++i) {
      if (!indices.data()->is_valid(i)) {
        idx[size_t(i)] = -1;
        continue;
      }
      if constexpr (std::is_signed_v<T>)
        EMBER_CHECK_INDEX(v[i] >= 0, op, ": row position ", int64_t(v[i]), " (at ", i, ") is negative");
      else
        EMBER_CHECK_INDEX(uint64_t(v[i]) <= uint64_t(INT64_MAX), op, ": row position ", v[i], " is out of range");
      idx[size_t(i)] = int64_t(v[i]);
    }
  });
  return take_checked(src, idx.data(), int64_t(idx.size()), op);
}

DataFrame take(const DataFrame& df, const int64_t* idx, int64_t n, const char* op) { return take_frame(df, idx, n, op); }

Column take_trusted(const Column& src, const int64_t* idx, int64_t n, bool has_nulls) {
  return Column::from_data_unchecked(take_data(*src.data(), idx, n, has_nulls, "take"));
}
Column take_trusted(const Column& src, const int32_t* idx, int64_t n, bool has_nulls) {
  return Column::from_data_unchecked(take_data(*src.data(), idx, n, has_nulls, "take"));
}
DataFrame take_trusted(const DataFrame& df, const int64_t* idx, int64_t n, bool has_nulls) {
  return take_frame(df, idx, n, "take", has_nulls ? 1 : 0);
}
DataFrame take_trusted(const DataFrame& df, const int32_t* idx, int64_t n, bool has_nulls) {
  return take_frame(df, idx, n, "take", has_nulls ? 1 : 0);
}
DataFrame take(const DataFrame& df, const int32_t* idx, int64_t n, const char* op) { return take_frame(df, idx, n, op); }

bool is_identity(const int64_t* idx, int64_t n) { return identity(idx, n); }
bool is_identity(const int32_t* idx, int64_t n) { return identity(idx, n); }

namespace {

template <class I>
Vec<I> positions_of(const Column& mask, const char* op) {
  EMBER_CHECK_TYPE(mask.dtype().id() == TypeId::Bool, op, ": the mask must be a boolean column, got ",
                   mask.dtype().to_string());
  const ArrayData& a = *mask.data();
  const int64_t n = a.length;
  const MaskWords words(a);
  auto word_at = [&](int64_t w, int64_t m) { return words.word(w, m); };
  const auto bounds = chunk_bounds(n);
  std::vector<int64_t> counts(bounds.size(), 0);
  run_chunks(bounds, [&](int64_t c, int64_t b, int64_t e) {
    int64_t k = 0;
    for (int64_t w = b; w < e; w += 64) k += std::popcount(word_at(w, std::min<int64_t>(64, e - w)));
    counts[size_t(c)] = k;
  });
  int64_t total = 0;
  std::vector<int64_t> base(bounds.size(), 0);
  for (size_t c = 0; c + 1 < bounds.size(); ++c) base[c] = total, total += counts[c];
  Vec<I> pos(static_cast<size_t>(total));
  run_chunks(bounds, [&](int64_t c, int64_t b, int64_t e) {
    I* out = pos.data() + base[size_t(c)];
    for (int64_t w = b; w < e; w += 64) {
      uint64_t x = word_at(w, std::min<int64_t>(64, e - w));
      while (x) {
        *out++ = I(w + std::countr_zero(x));
        x &= x - 1;
      }
    }
  });
  return pos;
}

}  // namespace

Vec<int64_t> mask_positions(const Column& mask, const char* op) { return positions_of<int64_t>(mask, op); }

Vec<int32_t> mask_positions32(const Column& mask, const char* op) {
  EMBER_CHECK(mask.size() < INT32_MAX, op, ": the mask is too long for int32 positions");
  return positions_of<int32_t>(mask, op);
}

Column filter(const Column& src, const Column& mask) {
  EMBER_CHECK(mask.size() == src.size(), "filter: the mask has length ", mask.size(), " but the column has ",
              src.size());
  const auto pos = mask_positions(mask, "filter");
  return Column::from_data_unchecked(take_data(*src.data(), pos.data(), int64_t(pos.size()), false, "filter"));
}

// ---- all-null columns -----------------------------------------------------------------

ArrayDataPtr nulls_data_for(const DType& type, int64_t n) {
  auto b = make_builder(type);
  b->reserve(n);
  for (int64_t i = 0; i < n; ++i) b->append_empty();
  return b->finish().data();
}

Column nulls(const DType& type, int64_t n) {
  EMBER_CHECK(n >= 0, "nulls: negative length ", n);
  return Column::from_data_unchecked(nulls_data_for(type, n));
}

Column as_nullable(const Column& c) {
  const ArrayData& a = *c.data();
  if (a.type.nullable()) return c;
  return Column::from_data_unchecked(ArrayData::make(a.type.with_nullable(true), a.length, a.buffers, a.children,
                                                     a.known_null_count(), a.offset, a.dictionary));
}

}  // namespace ember::frame::relational
