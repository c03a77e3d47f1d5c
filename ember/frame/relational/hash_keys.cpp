// Key hashing and factorization (see hash_keys.h).
//
// Note [Factorizing in parallel]
// Each thread groups a contiguous chunk of rows with its own open-addressing table, numbering
// its groups in order of first appearance within the chunk. The chunks' groups are then
// inserted, chunk by chunk and in that order, into the first chunk's table through their first
// rows; since chunks are in row order, the resulting global ids are in order of first
// appearance in the whole frame. A last parallel pass rewrites each chunk's local ids.
// A single fixed-width key skips row hashing and equality callbacks: the table is keyed by the
// value's normalized bit pattern itself.
#include "ember/frame/relational/hash_keys.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "ember/frame/detail/physical.h"
#include "ember/frame/relational/util.h"

namespace ember::frame::relational {

namespace {

constexpr uint64_t kMul = 0x9E3779B97F4A7C15ULL;
constexpr uint64_t kNullHash = 0x5bd1e9955bd1e995ULL;

inline uint64_t fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

inline uint64_t hash_bytes(const uint8_t* p, int64_t n) {
  uint64_t h = uint64_t(n) * kMul + 0x27d4eb2f165667c5ULL;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ fmix64(w)) * kMul;
  }
  if (i < n) {
    uint64_t w = 0;
    std::memcpy(&w, p + i, size_t(n - i));
    h = (h ^ fmix64(w ^ 0xa0761d6478bd642fULL)) * kMul;
  }
  return fmix64(h);
}

// Open addressing with linear probing over 64-bit keys (a fixed-width value's pattern, or a
// row hash whose collisions the caller resolves by comparing rows). Grows at half load.
class Table {
 public:
  Table() { reset(64); }

  // The id stored for `key` (for which eq(id) holds), or -1.
  template <class Eq>
  int32_t find(uint64_t key, const Eq& eq) const {
    size_t pos = size_t((key * kMul) >> shift_);
    while (true) {
      const Slot& s = slots_[pos];
      if (s.id < 0) return -1;
      if (s.key == key && eq(s.id)) return s.id;
      pos = (pos + 1) & mask_;
    }
  }
  // Starts loading the slot where a probe for `key` begins (probes of a block of rows are
  // independent: prefetching a few rows ahead overlaps their cache misses).
  void prefetch(uint64_t key) const { __builtin_prefetch(&slots_[size_t((key * kMul) >> shift_)]); }
  // The id stored for `key`, or `next_id` after storing it.
  template <class Eq>
  int32_t find_or_insert(uint64_t key, const Eq& eq, int32_t next_id) {
    size_t pos = size_t((key * kMul) >> shift_);
    while (true) {
      Slot& s = slots_[pos];
      if (s.id < 0) {
        s.key = key;
        s.id = next_id;
        if (++count_ * 2 > int64_t(slots_.size())) grow();
        return next_id;
      }
      if (s.key == key && eq(s.id)) return s.id;
      pos = (pos + 1) & mask_;
    }
  }

 private:
  struct Slot {
    uint64_t key;
    int32_t id;
  };
  void reset(size_t cap) {
    slots_.assign(cap, Slot{0, -1});
    mask_ = cap - 1;
    shift_ = 64 - std::countr_zero(cap);
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    reset(old.size() * 2);
    for (const Slot& s : old) {
      if (s.id < 0) continue;
      size_t pos = size_t((s.key * kMul) >> shift_);
      while (slots_[pos].id >= 0) pos = (pos + 1) & mask_;
      slots_[pos] = s;
    }
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  int shift_ = 0;
  int64_t count_ = 0;
};

constexpr int64_t kBlock = 256;  // rows hashed at a time
constexpr int64_t kAhead = 8;    // table slots prefetched this many rows ahead

// The widest value range that direct-mapped keys may span for `rows` rows (Note [Direct-mapped
// keys]): a lookup array of at most 4 entries per row, and never more than 4M entries.
int64_t direct_span(int64_t rows) { return std::min<int64_t>(std::max<int64_t>(int64_t(1) << 16, 4 * rows), int64_t(1) << 22); }

// Groups rows of one KeyColumns (the build side) and looks up rows of another with the same
// key types. Group ids count from 0 in insertion order; reps_[g] is group g's first row.
// With extra groups from a probe side (outer joins), ids past reps_ index probe_reps_.
class Grouper {
 public:
  Grouper(const KeyColumns& k, bool drop_nulls)
      : k_(k), fixed_(k.single_fixed()), str_(k.single_binary()), drop_(drop_nulls) {}

  // Note [Direct-mapped keys]: a single integer key whose values span a small range
  // [lo, hi] is looked up in an array indexed by value - lo instead of a hash table.
  void use_direct(int64_t lo, int64_t hi) {
    direct_ = true;
    lo_ = lo, hi_ = hi;
    lut_.assign(size_t(hi - lo + 1), -1);
  }

  // Groups rows [b, e), writing ids[i] for each.
  void add_rows(int64_t b, int64_t e, int32_t* ids) {
    if (direct_) {
      detail::visit_numeric(k_.int_type(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_integral_v<T>) add_direct(static_cast<const T*>(k_.int_values()), b, e, ids);
      });
      return;
    }
    if (fixed_) {
      for (int64_t i = b; i < e; ++i) {
        if (i + kAhead < e) table_.prefetch(k_.bits(i + kAhead));
        ids[i] = add_fixed(i);
      }
      return;
    }
    if (str_) {
      StrKey keys[kBlock];
      for (int64_t s = b; s < e; s += kBlock) {
        const int64_t m = std::min(kBlock, e - s);
        for (int64_t j = 0; j < m; ++j) keys[j] = k_.has_nulls() && k_.row_has_null(s + j) ? StrKey{{}, 0, 0, true} : str_key(k_.str(s + j));
        for (int64_t j = 0; j < m; ++j) {
          if (j + kAhead < m) table_.prefetch(keys[j + kAhead].hash);
          ids[s + j] = keys[j].null ? null_group(s + j) : add_str(s + j, keys[j]);
        }
      }
      return;
    }
    uint64_t h[kBlock];
    for (int64_t s = b; s < e; s += kBlock) {
      const int64_t m = std::min(kBlock, e - s);
      k_.hash(s, s + m, h);
      for (int64_t j = 0; j < m; ++j) {
        if (j + kAhead < m) table_.prefetch(h[j + kAhead]);
        ids[s + j] = add_hashed(s + j, h[j]);
      }
    }
  }
  // Groups one row (its hash computed here).
  int32_t add_row(int64_t i) {
    if (fixed_) return add_fixed(i);
    if (str_) return k_.has_nulls() && k_.row_has_null(i) ? null_group(i) : add_str(i, str_key(k_.str(i)));
    uint64_t h;
    k_.hash(i, i + 1, &h);
    return add_hashed(i, h);
  }

  // The group of each row of `p` in [b, e) (same key types), -1 where none or a null key.
  // With `insert`, keys not found become new groups (their first rows kept in probe_reps_).
  void probe_rows(const KeyColumns& p, int64_t b, int64_t e, int32_t* ids, bool insert) {
    if (direct_ && !insert) {
      detail::visit_numeric(p.int_type(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_integral_v<T>) probe_direct(p, static_cast<const T*>(p.int_values()), b, e, ids);
      });
      return;
    }
    if (str_) {
      StrKey keys[kBlock];
      for (int64_t s = b; s < e; s += kBlock) {
        const int64_t m = std::min(kBlock, e - s);
        for (int64_t j = 0; j < m; ++j) keys[j] = p.has_nulls() && p.row_has_null(s + j) ? StrKey{{}, 0, 0, true} : str_key(p.str(s + j));
        for (int64_t j = 0; j < m; ++j) {
          if (j + kAhead < m) table_.prefetch(keys[j + kAhead].hash);
          ids[s + j] = keys[j].null ? -1 : probe_str(p, s + j, keys[j], insert);
        }
      }
      return;
    }
    uint64_t h[kBlock];
    for (int64_t s = b; s < e; s += kBlock) {
      const int64_t m = std::min(kBlock, e - s);
      if (!fixed_) p.hash(s, s + m, h);
      for (int64_t j = 0; j < m; ++j) {
        const int64_t i = s + j;
        if (j + kAhead < m) table_.prefetch(fixed_ ? p.bits(i + kAhead) : h[j + kAhead]);
        if (p.has_nulls() && p.row_has_null(i)) {
          ids[i] = -1;
          continue;
        }
        ids[i] = fixed_ ? probe_fixed(p, i, insert) : probe_hashed(p, i, h[j], insert);
      }
    }
  }

  std::vector<int64_t>& reps() { return reps_; }
  std::vector<int64_t>& probe_reps() { return probe_reps_; }
  int64_t num_groups() const { return int64_t(reps_.size() + probe_reps_.size()); }

 private:
  int32_t next_id() const {
    EMBER_CHECK(num_groups() < INT32_MAX, "groupby/join: more than 2^31 - 1 distinct keys are not supported");
    return int32_t(num_groups());
  }
  template <class T>
  void add_direct(const T* v, int64_t b, int64_t e, int32_t* ids) {
    int32_t* lut = lut_.data() - lo_;  // indexed by value
    const uint8_t* valid = k_.validity();
    const int64_t off = k_.offset();
    for (int64_t i = b; i < e; ++i) {
      if (valid != nullptr && !bits::get(valid, off + i)) {
        ids[i] = null_group(i);
        continue;
      }
      int32_t& slot = lut[int64_t(v[i])];
      if (slot < 0) {
        slot = next_id();
        reps_.push_back(i);
      }
      ids[i] = slot;
    }
  }
  template <class T>
  void probe_direct(const KeyColumns& p, const T* v, int64_t b, int64_t e, int32_t* ids) const {
    const int32_t* lut = lut_.data();
    const uint64_t span = uint64_t(hi_ - lo_);
    const uint8_t* valid = p.validity();
    const int64_t off = p.offset();
    for (int64_t i = b; i < e; ++i) {
      const uint64_t slot = uint64_t(int64_t(v[i]) - lo_);  // out of range wraps above span
      int32_t id = slot <= span ? lut[slot] : -1;
      if (valid != nullptr && !bits::get(valid, off + i)) id = -1;
      ids[i] = id;
    }
  }
  int32_t null_group(int64_t i) {
    if (drop_) return -1;
    if (null_id_ < 0) {
      null_id_ = next_id();
      reps_.push_back(i);
      if (str_) glen_.push_back(-1), gprefix_.push_back(0);  // never compared: nulls skip the table
    }
    return null_id_;
  }

  // Note [String keys]: a single string key keeps each group's length and first 8 bytes in
  // arrays by id, so that a probe compares against the group's first row's string only when
  // those agree and the string is longer than 8 bytes; short strings never leave the arrays.
  struct StrKey {
    std::string_view v;
    uint64_t prefix, hash;
    bool null;
  };
  static StrKey str_key(std::string_view v) {
    uint64_t p = 0;
    std::memcpy(&p, v.data(), std::min<size_t>(8, v.size()));
    return {v, p, hash_bytes(reinterpret_cast<const uint8_t*>(v.data()), int64_t(v.size())), false};
  }
  bool str_group_is(int32_t g, const StrKey& key) const {
    const size_t u = size_t(g);
    if (glen_[u] != int64_t(key.v.size()) || gprefix_[u] != key.prefix) return false;
    if (key.v.size() <= 8) return true;
    const std::string_view rep = u < reps_.size() ? k_.str(reps_[u]) : probe_->str(probe_reps_[u - reps_.size()]);
    return rep == key.v;
  }
  int32_t add_str(int64_t i, const StrKey& key) {
    const int32_t id = table_.find_or_insert(key.hash, [&](int32_t g) { return str_group_is(g, key); }, next_id());
    if (id == int32_t(reps_.size())) {
      reps_.push_back(i);
      glen_.push_back(int64_t(key.v.size())), gprefix_.push_back(key.prefix);
    }
    return id;
  }
  int32_t probe_str(const KeyColumns& p, int64_t i, const StrKey& key, bool insert) {
    auto eq = [&](int32_t g) { return str_group_is(g, key); };
    if (!insert) return table_.find(key.hash, eq);
    probe_ = &p;
    const int32_t id = table_.find_or_insert(key.hash, eq, next_id());
    if (id == int32_t(num_groups())) {
      probe_reps_.push_back(i);
      glen_.push_back(int64_t(key.v.size())), gprefix_.push_back(key.prefix);
    }
    return id;
  }
  int32_t add_fixed(int64_t i) {
    if (k_.has_nulls() && k_.row_has_null(i)) return null_group(i);
    if (direct_) {
      int32_t& slot = lut_[size_t(k_.int_value(i) - lo_)];
      if (slot < 0) {
        slot = next_id();
        reps_.push_back(i);
      }
      return slot;
    }
    const int32_t id = table_.find_or_insert(k_.bits(i), [](int32_t) { return true; }, next_id());
    if (id == int32_t(reps_.size())) reps_.push_back(i);
    return id;
  }
  int32_t add_hashed(int64_t i, uint64_t h) {
    const bool null = k_.has_nulls() && k_.row_has_null(i);
    if (null && drop_) return -1;
    const int32_t id = table_.find_or_insert(
        h, [&](int32_t g) { return k_.equal(reps_[size_t(g)], k_, i); }, next_id());
    if (id == int32_t(reps_.size())) reps_.push_back(i);
    return id;
  }
  int32_t probe_fixed(const KeyColumns& p, int64_t i, bool insert) {
    if (direct_) {  // never with insert
      const int64_t v = p.int_value(i);
      return v < lo_ || v > hi_ ? -1 : lut_[size_t(v - lo_)];
    }
    const uint64_t key = p.bits(i);
    auto eq = [](int32_t) { return true; };
    if (!insert) return table_.find(key, eq);
    const int32_t id = table_.find_or_insert(key, eq, next_id());
    if (id == int32_t(num_groups())) probe_reps_.push_back(i);
    return id;
  }
  int32_t probe_hashed(const KeyColumns& p, int64_t i, uint64_t h, bool insert) {
    auto eq = [&](int32_t g) {
      if (size_t(g) < reps_.size()) return k_.equal(reps_[size_t(g)], p, i);
      return p.equal(probe_reps_[size_t(g) - reps_.size()], p, i);
    };
    if (!insert) return table_.find(h, eq);
    const int32_t id = table_.find_or_insert(h, eq, next_id());
    if (id == int32_t(num_groups())) probe_reps_.push_back(i);
    return id;
  }

  const KeyColumns& k_;
  const KeyColumns* probe_ = nullptr;  // the side whose rows probe_reps_ holds
  bool fixed_, str_, drop_;
  std::vector<int64_t> glen_;      // string mode: group -> its key's length
  std::vector<uint64_t> gprefix_;  // string mode: group -> its key's first 8 bytes
  bool direct_ = false;
  int64_t lo_ = 0, hi_ = -1;
  std::vector<int32_t> lut_;  // direct mode: value - lo_ -> id, -1 when unseen
  Table table_;
  int32_t null_id_ = -1;
  std::vector<int64_t> reps_, probe_reps_;
};

template <class F>
uint64_t float_bits(F v) {
  if (v == F(0)) v = F(0);  // -0.0 -> 0.0
  if (std::isnan(v)) v = std::numeric_limits<F>::quiet_NaN();
  if constexpr (sizeof(F) == 4) return std::bit_cast<uint32_t>(v);
  else return std::bit_cast<uint64_t>(v);
}

}  // namespace

// ---- KeyColumns -----------------------------------------------------------------------

KeyColumns::KeyColumns(const std::vector<Column>& columns, const std::vector<std::string>& names, const char* op) {
  EMBER_INTERNAL_ASSERT(columns.size() == names.size());
  for (size_t k = 0; k < columns.size(); ++k) {
    Column c = columns[k];
    if (c.dtype().id() == TypeId::Dictionary) c = c.dictionary_decode();
    const DType& t = c.dtype();
    if (k == 0) rows_ = c.size();
    EMBER_CHECK(c.size() == rows_, op, ": key '", names[k], "' has length ", c.size(), " but key '", names[0],
                "' has ", rows_);
    const ArrayData& a = *c.data();
    Col col{};
    col.validity = a.validity();
    col.offset = a.offset;
    switch (t.id()) {
      case TypeId::Bool: col.kind = Kind::Bool; break;
      case TypeId::Float32: col.kind = Kind::F32; break;
      case TypeId::Float64: col.kind = Kind::F64; break;
      case TypeId::String:
      case TypeId::Binary: col.kind = Kind::Bin32; break;
      case TypeId::LargeString:
      case TypeId::LargeBinary: col.kind = Kind::Bin64; break;
      default:
        EMBER_CHECK_TYPE(t.is_fixed_width(), op, ": key '", names[k], "' has dtype ", t.to_string(),
                         "; keys must be booleans, numbers, dates, timestamps, strings or binaries");
        col.kind = t.byte_width() == 1 ? Kind::U8 : t.byte_width() == 2 ? Kind::U16 : t.byte_width() == 4 ? Kind::U32 : Kind::U64;
    }
    col.values = a.buffers[1].data();
    col.type = t.id();
    col.width = t.byte_width();
    col.is_int = t.is_integer() || t.id() == TypeId::Date32 || t.id() == TypeId::Timestamp;
    col.bytes = a.buffers.size() > 2 ? a.buffers[2].data() : nullptr;
    if (col.validity != nullptr && a.null_count() == 0) col.validity = nullptr;
    has_nulls_ |= col.validity != nullptr;
    cols_.push_back(col);
    columns_.push_back(std::move(c));
  }
}

bool KeyColumns::same_types(const KeyColumns& o) const {
  if (columns_.size() != o.columns_.size()) return false;
  for (size_t k = 0; k < columns_.size(); ++k)
    if (!columns_[k].dtype().equals(o.columns_[k].dtype(), false)) return false;
  return true;
}

int64_t KeyColumns::int_value(int64_t i) const {
  const Col& c = cols_[0];
  const int64_t s = c.offset + i;
  switch (c.type) {
    case TypeId::Int8: return reinterpret_cast<const int8_t*>(c.values)[s];
    case TypeId::Int16: return reinterpret_cast<const int16_t*>(c.values)[s];
    case TypeId::Int32:
    case TypeId::Date32: return reinterpret_cast<const int32_t*>(c.values)[s];
    case TypeId::UInt8: return c.values[s];
    case TypeId::UInt16: return reinterpret_cast<const uint16_t*>(c.values)[s];
    case TypeId::UInt32: return reinterpret_cast<const uint32_t*>(c.values)[s];
    default: return reinterpret_cast<const int64_t*>(c.values)[s];  // int64, uint64 (in range), timestamp
  }
}

bool KeyColumns::int_range(int64_t* lo, int64_t* hi) const {
  if (cols_.size() != 1 || !cols_[0].is_int) return false;
  const Col& c = cols_[0];
  bool any = false;
  bool fits = true;
  detail::visit_numeric(c.type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T>) {
      const T* v = reinterpret_cast<const T*>(c.values) + c.offset;
      const auto bounds = chunk_bounds(rows_, 1 << 16);
      std::vector<T> mins(bounds.size(), std::numeric_limits<T>::max()), maxs(bounds.size(), std::numeric_limits<T>::min());
      std::vector<uint8_t> seen(bounds.size(), 0);
      run_chunks(bounds, [&](int64_t k, int64_t b, int64_t e) {
        T mn = std::numeric_limits<T>::max(), mx = std::numeric_limits<T>::min();
        bool s = false;
        if (c.validity == nullptr) {
          for (int64_t i = b; i < e; ++i) mn = std::min(mn, v[i]), mx = std::max(mx, v[i]);
          s = e > b;
        } else {
          for (int64_t i = b; i < e; ++i)
            if (c.valid(i)) mn = std::min(mn, v[i]), mx = std::max(mx, v[i]), s = true;
        }
        mins[size_t(k)] = mn, maxs[size_t(k)] = mx, seen[size_t(k)] = s;
      });
      for (size_t k = 0; k + 1 < bounds.size(); ++k) {
        if (!seen[k]) continue;
        if (!any || mins[k] < T(*lo)) *lo = int64_t(mins[k]);
        if (!any || maxs[k] > T(*hi)) *hi = int64_t(maxs[k]);
        if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) fits &= maxs[k] <= uint64_t(INT64_MAX);
        any = true;
      }
    }
  });
  return any && fits;
}

bool KeyColumns::row_has_null(int64_t i) const {
  for (const Col& c : cols_)
    if (!c.valid(i)) return true;
  return false;
}

uint64_t KeyColumns::fixed_bits(const Col& c, int64_t i) {
  const int64_t s = c.offset + i;
  switch (c.kind) {
    case Kind::U8: return c.values[s];
    case Kind::U16: return reinterpret_cast<const uint16_t*>(c.values)[s];
    case Kind::U32: return reinterpret_cast<const uint32_t*>(c.values)[s];
    case Kind::U64: return reinterpret_cast<const uint64_t*>(c.values)[s];
    case Kind::F32: return float_bits(reinterpret_cast<const float*>(c.values)[s]);
    case Kind::F64: return float_bits(reinterpret_cast<const double*>(c.values)[s]);
    case Kind::Bool: return bits::get(c.values, s);
    default: return 0;
  }
}

uint64_t KeyColumns::hash_col(const Col& c, int64_t i) {
  if (!c.valid(i)) return kNullHash;
  if (c.kind == Kind::Bin32 || c.kind == Kind::Bin64) {
    const std::string_view v = binary_view(c, i);
    return hash_bytes(reinterpret_cast<const uint8_t*>(v.data()), int64_t(v.size()));
  }
  return fmix64(fixed_bits(c, i) + 0x9ae16a3b2f90404fULL);
}

void KeyColumns::hash(int64_t begin, int64_t end, uint64_t* out) const {
  const int64_t m = end - begin;
  for (size_t k = 0; k < cols_.size(); ++k) {
    const Col& c = cols_[k];
    if (k == 0) {
      for (int64_t j = 0; j < m; ++j) out[j] = hash_col(c, begin + j);
    } else {
      for (int64_t j = 0; j < m; ++j) out[j] = fmix64((out[j] ^ hash_col(c, begin + j)) * kMul + k);
    }
  }
}

bool KeyColumns::equal(int64_t i, const KeyColumns& o, int64_t j) const {
  for (size_t k = 0; k < cols_.size(); ++k) {
    const Col& a = cols_[k];
    const Col& b = o.cols_[k];
    const bool va = a.valid(i), vb = b.valid(j);
    if (va != vb) return false;
    if (!va) continue;
    if (a.kind == Kind::Bin32 || a.kind == Kind::Bin64) {
      if (binary_view(a, i) != binary_view(b, j)) return false;
    } else if (fixed_bits(a, i) != fixed_bits(b, j)) {
      return false;
    }
  }
  return true;
}

// ---- factorize ------------------------------------------------------------------------

Groups factorize(const KeyColumns& keys, bool drop_nulls, const char* op) {
  const int64_t n = keys.num_rows();
  EMBER_CHECK(n < INT32_MAX, op, ": frames of 2^31 - 1 rows or more are not supported (", n, " rows)");
  Groups g;
  g.ids.resize(static_cast<size_t>(n));
  int32_t* ids = g.ids.data();
  const auto bounds = chunk_bounds(n, 1 << 17);
  const size_t k = bounds.size() - 1;
  std::vector<std::unique_ptr<Grouper>> parts(k);
  int64_t lo = 0, hi = 0;
  const bool direct = keys.int_range(&lo, &hi) && uint64_t(hi - lo) < uint64_t(direct_span(n));
  for (auto& p : parts) {
    p = std::make_unique<Grouper>(keys, drop_nulls);
    if (direct) p->use_direct(lo, hi);
  }
  run_chunks(bounds, [&](int64_t c, int64_t b, int64_t e) { parts[size_t(c)]->add_rows(b, e, ids); });
  // Note [Factorizing in parallel]: fold the later chunks' groups into the first chunk's.
  Grouper& global = *parts[0];
  std::vector<std::vector<int32_t>> remap(k);
  for (size_t c = 1; c < k; ++c)
    for (int64_t rep : parts[c]->reps()) remap[c].push_back(global.add_row(rep));
  if (k > 1) {
    run_chunks(bounds, [&](int64_t c, int64_t b, int64_t e) {
      if (c == 0) return;
      const int32_t* m = remap[size_t(c)].data();
      for (int64_t i = b; i < e; ++i)
        if (ids[i] >= 0) ids[i] = m[ids[i]];
    });
  }
  g.first = std::move(global.reps());
  return g;
}

JoinIds join_ids(const KeyColumns& build, const KeyColumns& probe, bool add_probe_keys, const char* op) {
  EMBER_INTERNAL_ASSERT(build.same_types(probe));
  EMBER_CHECK(build.num_rows() < INT32_MAX && probe.num_rows() < INT32_MAX, op,
              ": frames of 2^31 - 1 rows or more are not supported");
  JoinIds r;
  Groups g = factorize(build, /*drop_nulls=*/true, op);
  r.build_ids = std::move(g.ids);
  // A fresh table over the build groups' first rows (the same ids: they are inserted in id
  // order), which the probe side then reads (in parallel) or extends (outer joins).
  Grouper table(build, true);
  int64_t lo = 0, hi = 0;
  if (!add_probe_keys && build.int_range(&lo, &hi) && uint64_t(hi - lo) < uint64_t(direct_span(build.num_rows())))
    table.use_direct(lo, hi);
  for (int64_t rep : g.first) table.add_row(rep);
  r.probe_ids.resize(size_t(probe.num_rows()));
  int32_t* pids = r.probe_ids.data();
  if (add_probe_keys) {
    table.probe_rows(probe, 0, probe.num_rows(), pids, true);
  } else {
    run_chunks(chunk_bounds(probe.num_rows()),
               [&](int64_t, int64_t b, int64_t e) { table.probe_rows(probe, b, e, pids, false); });
  }
  r.num_groups = table.num_groups();
  r.build_first = std::move(g.first);
  r.probe_first = std::move(table.probe_reps());
  return r;
}

}  // namespace ember::frame::relational
