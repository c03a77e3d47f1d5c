// Selection: take (gather by indices, every type), filter by a boolean mask, concat, and the
// null fillers fill_null / drop_null.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "ember/frame/builder.h"
#include "ember/frame/compute/compute.h"
#include "ember/frame/compute/kernels.h"

namespace ember::frame {

using namespace compute_detail;

namespace {

// Validity of a gather: element i is valid when index i is (idx_valid, offset-0 bitmap or
// null) and a's element idx[i] is.
Validity gather_validity(const ArrayData& a, const int64_t* idx, const uint8_t* idx_valid, int64_t n) {
  const uint8_t* av = a.validity() != nullptr && a.null_count() > 0 ? a.validity() : nullptr;
  if (av == nullptr && idx_valid == nullptr) return {};
  MutableBuffer words = allocate(num_words(n) * 8);
  uint64_t* w = words.as<uint64_t>();
  parallel_for(0, num_words(n), kGrain / 64, [&](int64_t kb, int64_t ke) {
    for (int64_t k = kb; k < ke; ++k) {
      const int64_t base = k * 64;
      const int m = int(std::min<int64_t>(64, n - base));
      uint64_t x = 0;
      for (int j = 0; j < m; ++j) {
        const int64_t i = base + j;
        const bool ok = (idx_valid == nullptr || bits::get(idx_valid, i)) && (av == nullptr || bits::get(av, a.offset + idx[i]));
        x |= uint64_t(ok) << j;
      }
      w[k] = x;
    }
  });
  return validity_from_words(std::move(words), n);
}

ArrayDataPtr gather(const ArrayData& a, const int64_t* idx, const uint8_t* idx_valid, int64_t n);

// Short strings are the common case: copy them inline instead of calling memcpy.
inline void copy_bytes(uint8_t* d, std::string_view s) {
  const size_t n = s.size();
  if (n > 16) return void(std::memcpy(d, s.data(), n));
  size_t k = 0;
  if (n >= 8) {
    uint64_t a, b;
    std::memcpy(&a, s.data(), 8);
    std::memcpy(&b, s.data() + n - 8, 8);
    std::memcpy(d, &a, 8);
    std::memcpy(d + n - 8, &b, 8);
    return;
  }
  for (; k < n; ++k) d[k] = uint8_t(s[k]);
}

// Offsets of a gather over a binary- or list-like array, and the [begin, end) ranges taken.
template <class O>
MutableBuffer gather_offsets(const ArrayData& a, const int64_t* idx, const uint8_t* idx_valid, int64_t n,
                             int64_t* total) {
  const O* off = a.buffers[1].data_as<O>() + a.offset;
  MutableBuffer out = allocate((n + 1) * int64_t(sizeof(O)));
  O* o = out.as<O>();
  int64_t acc = 0;
  o[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (idx_valid == nullptr || bits::get(idx_valid, i)) acc += int64_t(off[idx[i] + 1] - off[idx[i]]);
    EMBER_CHECK(acc <= int64_t(std::numeric_limits<O>::max()), "take: the result holds ", acc,
                " bytes or items, more than ", a.type.to_string(), "'s offsets address");
    o[i + 1] = O(acc);
  }
  *total = acc;
  return out;
}

ArrayDataPtr gather(const ArrayData& a, const int64_t* idx, const uint8_t* idx_valid, int64_t n) {
  const DType& t = a.type;
  Validity v = gather_validity(a, idx, idx_valid, n);
  const DType out_type = v.null_count > 0 ? t.with_nullable(true) : t;
  const Buffer vbuf = v.null_count > 0 ? v.buffer : Buffer();
  auto index_ok = [&](int64_t i) { return idx_valid == nullptr || bits::get(idx_valid, i); };
  switch (t.id()) {
    case TypeId::Bool: {
      MutableBuffer out = allocate(num_words(n) * 8);
      uint64_t* w = out.as<uint64_t>();
      const uint8_t* src = a.buffers[1].data();
      parallel_for(0, num_words(n), kGrain / 64, [&](int64_t kb, int64_t ke) {
        for (int64_t k = kb; k < ke; ++k) {
          const int64_t base = k * 64;
          const int m = int(std::min<int64_t>(64, n - base));
          uint64_t x = 0;
          for (int j = 0; j < m; ++j)
            if (index_ok(base + j)) x |= uint64_t(bits::get(src, a.offset + idx[base + j])) << j;
          w[k] = x;
        }
      });
      return ArrayData::make(out_type, n, {vbuf, out.buffer}, {}, v.null_count);
    }
    case TypeId::String:
    case TypeId::Binary:
    case TypeId::LargeString:
    case TypeId::LargeBinary: {
      const bool large = t.has_large_offsets();
      int64_t total = 0;
      MutableBuffer offsets = large ? gather_offsets<int64_t>(a, idx, idx_valid, n, &total)
                                    : gather_offsets<int32_t>(a, idx, idx_valid, n, &total);
      MutableBuffer data = allocate(total);
      const StringAccess s = string_access(a);
      parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          if (!index_ok(i)) continue;
          const int64_t dst = large ? offsets.as<int64_t>()[i] : offsets.as<int32_t>()[i];
          const std::string_view sv = s.get(idx[i]);
          copy_bytes(data.data + dst, sv);
        }
      });
      return ArrayData::make(out_type, n, {vbuf, offsets.buffer, data.buffer}, {}, v.null_count);
    }
    case TypeId::List:
    case TypeId::LargeList:
    case TypeId::Map: {
      const bool large = t.has_large_offsets();
      int64_t total = 0;
      MutableBuffer offsets = large ? gather_offsets<int64_t>(a, idx, idx_valid, n, &total)
                                    : gather_offsets<int32_t>(a, idx, idx_valid, n, &total);
      std::vector<int64_t> child_idx;
      child_idx.reserve(size_t(total));
      for (int64_t i = 0; i < n; ++i) {
        if (!index_ok(i)) continue;
        const int64_t slot = a.offset + idx[i];
        const int64_t b = large ? a.buffers[1].data_as<int64_t>()[slot] : a.buffers[1].data_as<int32_t>()[slot];
        const int64_t e = large ? a.buffers[1].data_as<int64_t>()[slot + 1] : a.buffers[1].data_as<int32_t>()[slot + 1];
        for (int64_t j = b; j < e; ++j) child_idx.push_back(j);
      }
      ArrayDataPtr child = gather(*a.children[0], child_idx.data(), nullptr, int64_t(child_idx.size()));
      return ArrayData::make(out_type, n, {vbuf, offsets.buffer}, {std::move(child)}, v.null_count);
    }
    case TypeId::Struct: {
      std::vector<int64_t> child_idx(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) child_idx[size_t(i)] = index_ok(i) ? a.offset + idx[i] : 0;
      std::vector<ArrayDataPtr> children;
      for (const ArrayDataPtr& c : a.children) {
        // A null index leaves the fields' slots as element 0 of the child (or empty): the
        // struct's validity hides them, as Arrow allows. With an empty child, gather nothing.
        if (c->length == 0) {
          auto b = make_builder(c->type);
          for (int64_t i = 0; i < n; ++i) b->append_empty();
          children.push_back(b->finish().data());
          continue;
        }
        children.push_back(gather(*c, child_idx.data(), nullptr, n));
      }
      return ArrayData::make(out_type, n, {vbuf}, std::move(children), v.null_count);
    }
    case TypeId::Dictionary: {
      const int w = t.index_type().byte_width();
      MutableBuffer out = allocate(n * w);
      const uint8_t* src = a.buffers[1].data();
      for (int64_t i = 0; i < n; ++i) {
        if (index_ok(i)) std::memcpy(out.data + i * w, src + (a.offset + idx[i]) * w, size_t(w));
        else std::memset(out.data + i * w, 0, size_t(w));
      }
      return ArrayData::make(out_type, n, {vbuf, out.buffer}, {}, v.null_count, 0, a.dictionary);
    }
    default: {
      // Fixed-width numbers, dates and timestamps.
      const int w = t.byte_width();
      MutableBuffer out = allocate(n * w);
      visit_primitive(t.id(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (!std::is_same_v<T, bool>) {
          const T* src = values_of<T>(a);
          T* o = out.as<T>();
          parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) {
            if (idx_valid == nullptr) {
              for (int64_t i = b; i < e; ++i) o[i] = src[idx[i]];
            } else {
              for (int64_t i = b; i < e; ++i) o[i] = index_ok(i) ? src[idx[i]] : T{};
            }
          });
        }
      });
      return ArrayData::make(out_type, n, {vbuf, out.buffer}, {}, v.null_count);
    }
  }
}

// A mask's words in chunks, and each chunk's first output row: the rows the mask selects
// (true and valid) before it, counted per chunk in parallel and summed.
struct MaskChunks {
  int64_t words, per_chunk, count;
  std::vector<int64_t> start;  // count + 1 entries; start.back(): the selected rows

  explicit MaskChunks(const ArrayData& m)
      : words(num_words(m.length)), per_chunk(std::max<int64_t>(1, kGrain / 64)),
        count((words + per_chunk - 1) / per_chunk), start(size_t(count) + 1, 0) {
    for_each([&](int64_t k0, int64_t k1, int64_t, int64_t ch) {
      int64_t cnt = 0;
      for (int64_t k = k0; k < k1; ++k) cnt += std::popcount(bool_word(m, k) & validity_word(m, k));
      start[size_t(ch) + 1] = cnt;
    });
    for (int64_t ch = 0; ch < count; ++ch) start[size_t(ch) + 1] += start[size_t(ch)];
  }
  // f(first word, end word, first output row, chunk) for each chunk, in parallel.
  template <class F>
  void for_each(const F& f) const {
    parallel_for(0, count, 1, [&](int64_t cb, int64_t ce) {
      for (int64_t ch = cb; ch < ce; ++ch)
        f(ch * per_chunk, std::min(words, (ch + 1) * per_chunk), start[size_t(ch)], ch);
    });
  }
};

// Row indices where the mask is true (valid and set).
std::vector<int64_t> mask_indices(const ArrayData& m) {
  const MaskChunks chunks(m);
  std::vector<int64_t> out(static_cast<size_t>(chunks.start.back()));
  chunks.for_each([&](int64_t k0, int64_t k1, int64_t first, int64_t) {
    int64_t* dst = out.data() + first;
    for (int64_t k = k0; k < k1; ++k) {
      uint64_t w = bool_word(m, k) & validity_word(m, k);
      while (w) {
        *dst++ = k * 64 + std::countr_zero(w);
        w &= w - 1;
      }
    }
  });
  return out;
}

void check_mask(const char* op, const Column& c, const Column& mask) {
  EMBER_CHECK_TYPE(mask.dtype().id() == TypeId::Bool, op, ": the mask's dtype is ", mask.dtype().to_string(),
                   "; expected a boolean column");
  EMBER_CHECK(mask.size() == c.size(), op, ": the mask has ", mask.size(), " rows but the column has ", c.size());
}

// Filter of a fixed-width column without nulls: counts per chunk of words, then copies.
template <class T>
Column filter_fixed(const Column& c, const ArrayData& m) {
  const ArrayData& a = *c.data();
  const MaskChunks chunks(m);
  const int64_t total = chunks.start.back();
  MutableBuffer out = allocate(total * int64_t(sizeof(T)));
  T* o = out.as<T>();
  const T* src = values_of<T>(a);
  chunks.for_each([&](int64_t k0, int64_t k1, int64_t first, int64_t) {
    T* dst = o + first;
    for (int64_t k = k0; k < k1; ++k) {
      uint64_t w = bool_word(m, k) & validity_word(m, k);
      const T* s = src + k * 64;
      if (w == ~uint64_t(0)) {
        std::memcpy(dst, s, 64 * sizeof(T));
        dst += 64;
        continue;
      }
      if (w == 0) continue;
      // Branchless compaction up to the highest selected bit (so no write passes the
      // chunk's own output range).
      const int top = 64 - std::countl_zero(w);
      int64_t c = 0;
      uint64_t x = w;
      for (int j = 0; j < top; ++j) {
        dst[c] = s[j];
        c += int64_t(x & 1);
        x >>= 1;
      }
      dst += c;
    }
  });
  return make_fixed(c.dtype(), total, out.buffer, Validity{});
}

// Python's index rules: negative counts from the end; out of range is an IndexError.
int64_t normalize_index(const char* op, int64_t i, int64_t n) {
  const int64_t j = i < 0 ? i + n : i;
  EMBER_CHECK_INDEX(j >= 0 && j < n, op, ": index ", i, " is out of range for a column of length ", n);
  return j;
}

}  // namespace

Column take(const Column& c, const std::vector<int64_t>& indices) {
  const int64_t n = c.size();
  std::vector<int64_t> idx(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) idx[i] = normalize_index("take", indices[i], n);
  return Column::from_data_unchecked(gather(*c.data(), idx.data(), nullptr, int64_t(idx.size())));
}

Column take(const Column& c, const Column& indices) {
  EMBER_CHECK_TYPE(indices.dtype().is_integer(), "take: the indices' dtype is ", indices.dtype().to_string(),
                   "; expected an integer column");
  const int64_t n = c.size(), m = indices.size();
  std::vector<int64_t> idx(size_t(m), 0);
  const ArrayData& ix = *indices.data();
  visit_primitive(indices.dtype().id(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const T* p = values_of<T>(ix);
      for (int64_t i = 0; i < m; ++i) {
        if (!ix.is_valid(i)) continue;
        EMBER_CHECK_INDEX(std::in_range<int64_t>(p[i]), "take: index ", p[i], " is out of range for a column of length ", n);
        idx[size_t(i)] = normalize_index("take", int64_t(p[i]), n);
      }
    }
  });
  const Validity v = validity_of(ix);
  return Column::from_data_unchecked(
      gather(*c.data(), idx.data(), v.null_count > 0 ? v.buffer.data() : nullptr, m));
}

Column filter(const Column& c, const Column& mask) {
  check_mask("filter", c, mask);
  const ArrayData& a = *c.data();
  const ArrayData& m = *mask.data();
  const TypeId id = a.type.id();
  const bool plain_fixed = a.type.is_fixed_width() && id != TypeId::Bool && a.null_count() == 0;
  if (plain_fixed) {
    return visit_primitive(id, [&](auto tag) -> Column {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, bool>) return Column();
      else return filter_fixed<T>(c, m);
    });
  }
  const std::vector<int64_t> idx = mask_indices(m);
  return Column::from_data_unchecked(gather(a, idx.data(), nullptr, int64_t(idx.size())));
}

Column concat(const std::vector<Column>& columns) {
  EMBER_CHECK(!columns.empty(), "concat: no columns");
  const DType& t0 = columns[0].dtype();
  bool nullable = false;
  int64_t total = 0;
  for (size_t k = 0; k < columns.size(); ++k) {
    const Column& c = columns[k];
    EMBER_CHECK(c.defined(), "concat: column ", k, " is undefined");
    EMBER_CHECK_TYPE(c.dtype().equals(t0, false), "concat: column ", k, " has dtype ", c.dtype().to_string(),
                     " but column 0 has ", t0.to_string());
    nullable |= c.dtype().nullable() || c.null_count() > 0;
    total += c.size();
  }
  if (columns.size() == 1) return columns[0];
  const DType out_type = t0.with_nullable(nullable);
  if (t0.is_fixed_width() && t0.id() != TypeId::Bool) {
    const int w = t0.byte_width();
    MutableBuffer out = allocate(total * w);
    MutableBuffer valid = allocate_zeroed(num_words(total) * 8);
    int64_t pos = 0;
    bool any_null = false;
    for (const Column& c : columns) {
      const ArrayData& a = *c.data();
      if (a.length > 0) std::memcpy(out.data + pos * w, a.buffers[1].data() + a.offset * w, size_t(a.length * w));
      if (a.validity() != nullptr && a.null_count() > 0) {
        bits::copy(a.validity(), a.offset, a.length, valid.data, pos);
        any_null = true;
      } else {
        for (int64_t i = 0; i < a.length; ++i) bits::set(valid.data, pos + i);
      }
      pos += a.length;
    }
    const Validity v = any_null ? validity_from_words(std::move(valid), total) : Validity{};
    return make_fixed(out_type, total, out.buffer, v);
  }
  if (t0.is_binary_like()) {
    int64_t row = 0;
    std::vector<StringAccess> acc;
    std::vector<const ArrayData*> datas;
    std::vector<int64_t> starts;
    for (const Column& c : columns) {
      datas.push_back(c.data().get());
      acc.push_back(string_access(*c.data()));
      starts.push_back(row);
      row += c.size();
    }
    return build_strings("concat", out_type, total, [&](int64_t i, std::string& out) {
      const size_t part = size_t(std::upper_bound(starts.begin(), starts.end(), i) - starts.begin() - 1);
      const int64_t j = i - starts[part];
      if (!datas[part]->is_valid(j)) return false;
      out.append(acc[part].get(j));
      return true;
    });
  }
  auto b = make_builder(out_type);
  b->reserve(total);
  for (const Column& c : columns)
    for (int64_t i = 0; i < c.size(); ++i) b->append_from(c, i);
  return b->finish();
}

Column drop_null(const Column& c) {
  if (c.null_count() == 0) return c;
  return filter(c, is_valid(c));
}

Column fill_null(const Column& col, const Value& value) {
  const Column c = decoded(col);
  const DType& t = c.dtype();
  if (value.is_null()) return c;
  const DType out_type = t.with_nullable(false);
  const ArrayData& a = *c.data();
  const int64_t n = a.length;
  if (a.null_count() == 0) return Column::from_data_unchecked(std::make_shared<ArrayData>(
                              out_type, n, a.buffers, a.children, 0, a.offset, a.dictionary));
  const uint8_t* valid = a.validity();
  if (t.id() == TypeId::Bool) {
    EMBER_CHECK_TYPE(value.is_bool(), "fill_null: the value ", value.to_string(), " is not a bool (the column is ",
                     t.to_string(), ")");
    const bool fv = value.as_bool();
    MutableBuffer out = allocate(num_words(n) * 8);
    uint64_t* w = out.as<uint64_t>();
    for (int64_t k = 0; k < num_words(n); ++k) {
      const uint64_t vw = validity_word(a, k);
      const int64_t rem = n - k * 64;
      const uint64_t tail = rem >= 64 ? ~uint64_t(0) : (uint64_t(1) << rem) - 1;
      w[k] = (bool_word(a, k) & vw) | (fv ? (~vw & tail) : 0);
    }
    return make_bool(n, out.buffer, Validity{}, false);
  }
  if (t.is_fixed_width()) {
    return visit_primitive(t.id(), [&](auto tag) -> Column {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, bool>) {
        return Column();
      } else {
        T fv;
        if constexpr (std::is_floating_point_v<T>) {
          EMBER_CHECK_TYPE(value.is_double() || value.is_integer(), "fill_null: the value ", value.to_string(),
                           " is not a number (the column is ", t.to_string(), ")");
          fv = T(value.as_double());
        } else {
          EMBER_CHECK_TYPE(value.is_integer(), "fill_null: the value ", value.to_string(),
                           " is not an integer (the column is ", t.to_string(), ")");
          fv = scalar_as<T>("fill_null", value);
        }
        const T* src = values_of<T>(a);
        MutableBuffer out = allocate(n * int64_t(sizeof(T)));
        T* o = out.as<T>();
        parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) o[i] = bits::get(valid, a.offset + i) ? src[i] : fv;
        });
        return make_fixed(out_type, n, out.buffer, Validity{});
      }
    });
  }
  if (t.is_binary_like()) {
    EMBER_CHECK_TYPE(value.is_string(), "fill_null: the value ", value.to_string(), " is not a string (the column is ",
                     t.to_string(), ")");
    const std::string& fv = value.as_string();
    const StringAccess s = string_access(a);
    return build_strings("fill_null", out_type, n, [&](int64_t i, std::string& out) {
      out.append(a.is_valid(i) ? s.get(i) : std::string_view(fv));
      return true;
    });
  }
  auto b = make_builder(out_type);
  b->reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    if (a.is_valid(i)) b->append_from(c, i);
    else b->append_value(value);
  }
  return b->finish();
}

}  // namespace ember::frame
