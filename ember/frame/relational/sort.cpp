// Stable multi-key row sorting (see sort.h).
//
// Note [Sorting rows]
// Keys are applied least significant first, each as a stable sort of the current row order
// (LSD over keys), so ties of every key keep the input order. One key's pass:
//  * rows with a null key are set aside (in order) and put before or after the others;
//  * each remaining row gets an unsigned sort key whose unsigned order is the value order:
//    integers with the sign bit flipped, floats as their bits with negatives inverted (-0.0 is
//    made 0.0 and NaNs one positive NaN, above inf), booleans as 0/1; descending inverts the
//    key, so a stable pass still keeps ties in input order. Strings use their first 8 bytes,
//    big-endian, and runs of equal prefixes are then sorted by full comparison;
//  * (key, row) pairs are LSD radix sorted, 11 bits a digit, skipping digits that every key
//    shares (a small range of integers costs one or two passes). With several threads each
//    sorts a contiguous chunk and the chunks are merged stably, the merge itself split
//    between the threads along its merge path.
#include "ember/frame/relational/sort.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>

#include "ember/frame/detail/physical.h"
#include "ember/frame/relational/util.h"

namespace ember::frame::relational {

namespace {

template <class K>
constexpr int digit_bits() {
  return sizeof(K) <= 2 ? 8 : 11;
}

// LSD radix sort of (k, v) pairs by k, stable; tk and tv are scratch of the same size. The
// result is left in k and v.
template <class K, class I>
void radix_sort(K* k, I* v, K* tk, I* tv, int64_t n) {
  if (n < 2) return;
  if (n <= 256) {
    // Insertion sort: stable, and cheaper than histograms for a handful of rows.
    for (int64_t i = 1; i < n; ++i) {
      const K key = k[i];
      const I val = v[i];
      int64_t j = i;
      for (; j > 0 && k[j - 1] > key; --j) k[j] = k[j - 1], v[j] = v[j - 1];
      k[j] = key, v[j] = val;
    }
    return;
  }
  constexpr int kBits = digit_bits<K>();
  constexpr int kPasses = (int(sizeof(K)) * 8 + kBits - 1) / kBits;
  constexpr size_t kBuckets = size_t(1) << kBits;
  constexpr K kMask = K(kBuckets - 1);
  std::vector<int64_t> hist(kPasses * kBuckets, 0);
  for (int64_t i = 0; i < n; ++i) {
    const K key = k[i];
    for (int p = 0; p < kPasses; ++p) ++hist[p * kBuckets + size_t((key >> (p * kBits)) & kMask)];
  }
  K* sk = k;
  I* sv = v;
  K* dk = tk;
  I* dv = tv;
  for (int p = 0; p < kPasses; ++p) {
    int64_t* h = hist.data() + p * kBuckets;
    if (h[size_t((sk[0] >> (p * kBits)) & kMask)] == n) continue;  // every key shares this digit
    int64_t sum = 0;
    for (size_t b = 0; b < kBuckets; ++b) {
      const int64_t c = h[b];
      h[b] = sum;
      sum += c;
    }
    for (int64_t i = 0; i < n; ++i) {
      const K key = sk[i];
      const int64_t pos = h[size_t((key >> (p * kBits)) & kMask)]++;
      dk[pos] = key;
      dv[pos] = sv[i];
    }
    std::swap(sk, dk);
    std::swap(sv, dv);
  }
  if (sk != k) {
    std::memcpy(k, sk, size_t(n) * sizeof(K));
    std::memcpy(v, sv, size_t(n) * sizeof(I));
  }
}

// Merges sorted runs a = [0, na) and b = [na, na + nb) of (k, v) into (ok, ov), stably (a
// first on ties), output positions [d0, d1) only.
template <class K, class I>
void merge_part(const K* ak, const I* av, int64_t na, const K* bk, const I* bv, int64_t nb, K* ok, I* ov, int64_t d0,
                int64_t d1) {
  // The number of a's elements among the first d outputs (merge path).
  auto split = [&](int64_t d) {
    int64_t lo = std::max<int64_t>(0, d - nb), hi = std::min(d, na);
    while (lo < hi) {
      const int64_t mid = (lo + hi) / 2;
      if (ak[mid] <= bk[d - mid - 1]) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  int64_t i = split(d0), j = d0 - i;
  for (int64_t d = d0; d < d1; ++d) {
    if (j >= nb || (i < na && ak[i] <= bk[j])) ok[d] = ak[i], ov[d] = av[i++];
    else ok[d] = bk[j], ov[d] = bv[j++];
  }
}

// Stable sort of (k, v) pairs by k, on all threads.
template <class K, class I>
void sort_pairs(Vec<K>& k, Vec<I>& v) {
  const int64_t n = int64_t(k.size());
  if (n < 2) return;
  Vec<K> tk(static_cast<size_t>(n));
  Vec<I> tv(static_cast<size_t>(n));
  std::vector<int64_t> runs = chunk_bounds(n, 1 << 16);
  run_chunks(runs, [&](int64_t, int64_t b, int64_t e) {
    radix_sort(k.data() + b, v.data() + b, tk.data() + b, tv.data() + b, e - b);
  });
  // Merge neighbouring runs until one is left, each merge split across the threads.
  while (runs.size() > 2) {
    std::vector<int64_t> next{0};
    for (size_t r = 0; r + 1 < runs.size(); r += 2) {
      const int64_t a0 = runs[r], a1 = runs[r + 1];
      if (r + 2 >= runs.size()) {  // an odd run out: copied as is
        std::copy(k.begin() + a0, k.begin() + a1, tk.begin() + a0);
        std::copy(v.begin() + a0, v.begin() + a1, tv.begin() + a0);
        next.push_back(a1);
        continue;
      }
      const int64_t b1 = runs[r + 2];
      const auto parts = chunk_bounds(b1 - a0, 1 << 16);
      run_chunks(parts, [&](int64_t, int64_t d0, int64_t d1) {
        merge_part(k.data() + a0, v.data() + a0, a1 - a0, k.data() + a1, v.data() + a1, b1 - a1, tk.data() + a0,
                   tv.data() + a0, d0, d1);
      });
      next.push_back(b1);
    }
    std::swap(k, tk);
    std::swap(v, tv);
    runs = std::move(next);
  }
}

template <class T>
auto sort_key(T x) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    if (x == T(0)) x = T(0);
    if (std::isnan(x)) x = std::numeric_limits<T>::quiet_NaN();
    const U b = std::bit_cast<U>(x);
    constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
    return (b & sign) ? U(~b) : U(b | sign);
  } else if constexpr (std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return U(U(x) ^ (U(1) << (sizeof(U) * 8 - 1)));
  } else {
    return x;
  }
}

inline uint64_t string_prefix(std::string_view s) {
  uint8_t b[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::memcpy(b, s.data(), std::min<size_t>(8, s.size()));
  uint64_t p = 0;
  for (int i = 0; i < 8; ++i) p = (p << 8) | b[i];
  return p;
}

template <class I>
class RowSorter {
 public:
  RowSorter(int64_t n, const char* op) : n_(n), op_(op), order_(size_t(n)) {
    for (int64_t i = 0; i < n; ++i) order_[size_t(i)] = I(i);
  }

  // One stable pass by `key` over the current order.
  void pass(const SortKey& key) {
    Column c = key.column;
    if (c.dtype().id() == TypeId::Dictionary) c = c.dictionary_decode();
    const ArrayData& a = *c.data();
    const DType& t = a.type;
    // Rows with a null key leave the order here and come back at the end of the pass.
    Vec<I> null_rows;
    Vec<I>& rows = order_;
    if (a.validity() != nullptr && a.null_count() > 0) {
      Vec<I> valid;
      valid.reserve(size_t(n_ - a.null_count()));
      null_rows.reserve(size_t(a.null_count()));
      for (I r : rows) (a.is_valid(int64_t(r)) ? valid : null_rows).push_back(r);
      rows = std::move(valid);
    }
    if (t.id() == TypeId::Bool) {
      const uint8_t* bits = a.buffers[1].data();
      by_keys<uint8_t>(rows, key.ascending, [&](I r) { return uint8_t(bits::get(bits, a.offset + int64_t(r))); });
    } else if (t.is_binary_like()) {
      if (t.has_large_offsets()) sort_strings<int64_t>(a, rows, key.ascending);
      else sort_strings<int32_t>(a, rows, key.ascending);
    } else {
      EMBER_CHECK_TYPE(t.is_fixed_width(), op_, ": column '", key.name, "' has dtype ", t.to_string(),
                       ", which cannot be sorted (sort keys are booleans, numbers, dates, timestamps, strings or "
                       "binaries)");
      detail::visit_numeric(t.id(), [&](auto tag) {
        using T = decltype(tag);
        const T* v = a.buffers[1].data_as<T>() + a.offset;
        using K = decltype(sort_key(T{}));
        by_keys<K>(rows, key.ascending, [&](I r) { return sort_key(v[r]); });
      });
    }
    if (!null_rows.empty()) {
      if (key.nulls_first) rows.insert(rows.begin(), null_rows.begin(), null_rows.end());
      else rows.insert(rows.end(), null_rows.begin(), null_rows.end());
    }
  }

  Vec<I> take() { return std::move(order_); }

 private:
  template <class K, class F>
  void by_keys(Vec<I>& rows, bool ascending, const F& key_of) {
    const int64_t m = int64_t(rows.size());
    Vec<K> k(static_cast<size_t>(m));
    const K flip = ascending ? K(0) : K(~K(0));
    run_chunks(chunk_bounds(m), [&](int64_t, int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) k[size_t(i)] = K(key_of(rows[size_t(i)]) ^ flip);
    });
    sort_pairs(k, rows);
  }

  template <class O>
  void sort_strings(const ArrayData& a, Vec<I>& rows, bool ascending) {
    const O* offs = a.buffers[1].data_as<O>() + a.offset;
    const char* bytes = reinterpret_cast<const char*>(a.buffers[2].data());
    auto str = [&](I r) { return std::string_view(bytes + offs[r], size_t(offs[r + 1] - offs[r])); };
    const int64_t m = int64_t(rows.size());
    Vec<uint64_t> k(static_cast<size_t>(m));
    const uint64_t flip = ascending ? 0 : ~uint64_t(0);
    run_chunks(chunk_bounds(m), [&](int64_t, int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) k[size_t(i)] = string_prefix(str(rows[size_t(i)])) ^ flip;
    });
    sort_pairs(k, rows);
    // Runs of equal prefixes: sort by the whole strings where they can differ.
    int64_t i = 0;
    while (i < m) {
      int64_t j = i + 1;
      bool need = false;
      const size_t len0 = str(rows[size_t(i)]).size();
      while (j < m && k[size_t(j)] == k[size_t(i)]) {
        const size_t len = str(rows[size_t(j)]).size();
        need |= len != len0 || len >= 8;
        ++j;
      }
      need |= (j - i > 1 && len0 >= 8);
      if (need) {
        if (ascending)
          std::stable_sort(rows.begin() + i, rows.begin() + j, [&](I x, I y) { return str(x) < str(y); });
        else
          std::stable_sort(rows.begin() + i, rows.begin() + j, [&](I x, I y) { return str(y) < str(x); });
      }
      i = j;
    }
  }

  int64_t n_;
  const char* op_;
  Vec<I> order_;
};

template <class I>
Vec<I> order_by(const std::vector<SortKey>& keys, const char* op) {
  EMBER_CHECK(!keys.empty(), op, ": no sort keys given");
  const int64_t n = keys[0].column.size();
  for (const SortKey& k : keys)
    EMBER_CHECK(k.column.size() == n, op, ": key '", k.name, "' has length ", k.column.size(), " but key '",
                keys[0].name, "' has ", n);
  RowSorter<I> s(n, op);
  for (size_t i = keys.size(); i-- > 0;) s.pass(keys[i]);
  return s.take();
}

}  // namespace

std::vector<int64_t> sort_indices(const std::vector<SortKey>& keys, const char* op) {
  const Vec<int64_t> order = order_by<int64_t>(keys, op);
  return std::vector<int64_t>(order.begin(), order.end());
}

Vec<int32_t> sort_indices32(const std::vector<SortKey>& keys, const char* op) {
  EMBER_CHECK(keys.empty() || keys[0].column.size() < INT32_MAX, op, ": too many rows for int32 positions");
  return order_by<int32_t>(keys, op);
}

}  // namespace ember::frame::relational
