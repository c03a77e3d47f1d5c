// Sorting (stable argsort / sort with null and NaN placement as pyarrow's sort_indices) and
// distinct values (unique, value_counts, nunique) through a hash of the raw values.
#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>

#include "ember/frame/compute/compute.h"
#include "ember/frame/compute/kernels.h"

namespace ember::frame {

using namespace compute_detail;

namespace {

// Sorts v with cmp (a strict weak order that breaks ties itself), in parallel chunks merged.
template <class T, class Cmp>
void parallel_sort(std::vector<T>& v, const Cmp& cmp) {
  const int64_t n = int64_t(v.size());
  const int64_t threads = std::max(1, get_num_threads());
  if (n < (int64_t(1) << 16) || threads == 1 || in_parallel_region()) {
    std::sort(v.begin(), v.end(), cmp);
    return;
  }
  const int64_t parts = threads;
  std::vector<int64_t> bounds(size_t(parts) + 1);
  for (int64_t p = 0; p <= parts; ++p) bounds[size_t(p)] = n * p / parts;
  parallel_for(0, parts, 1, [&](int64_t pb, int64_t pe) {
    for (int64_t p = pb; p < pe; ++p) std::sort(v.begin() + bounds[size_t(p)], v.begin() + bounds[size_t(p) + 1], cmp);
  });
  for (int64_t width = 1; width < parts; width *= 2)
    for (int64_t p = 0; p + width < parts; p += 2 * width)
      std::inplace_merge(v.begin() + bounds[size_t(p)], v.begin() + bounds[size_t(p + width)],
                         v.begin() + bounds[size_t(std::min(parts, p + 2 * width))], cmp);
}

// The positions of the valid, non-NaN elements of `a` in sorted order (stable).
template <class T>
void sort_keys(const ArrayData& a, const T* p, bool ascending, std::vector<int64_t>& order, std::vector<int64_t>& nans,
               std::vector<int64_t>& nulls) {
  std::vector<std::pair<T, int64_t>> keys;
  keys.reserve(size_t(a.length - a.null_count()));
  for (int64_t i = 0; i < a.length; ++i) {
    if (!a.is_valid(i)) {
      nulls.push_back(i);
      continue;
    }
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(p[i])) {
        nans.push_back(i);
        continue;
      }
    }
    keys.emplace_back(p[i], i);
  }
  if (ascending) {
    parallel_sort(keys, [](const auto& x, const auto& y) { return x.first < y.first || (!(y.first < x.first) && x.second < y.second); });
  } else {
    parallel_sort(keys, [](const auto& x, const auto& y) { return y.first < x.first || (!(x.first < y.first) && x.second < y.second); });
  }
  order.reserve(keys.size());
  for (const auto& k : keys) order.push_back(k.second);
}

std::vector<int64_t> argsort_indices(const Column& c, const SortOptions& o) {
  const ArrayData& a = *c.data();
  const TypeId id = a.type.id();
  std::vector<int64_t> order, nans, nulls;
  if (a.type.is_binary_like()) {
    const StringAccess s = string_access(a);
    std::vector<std::pair<std::string_view, int64_t>> keys;
    for (int64_t i = 0; i < a.length; ++i) {
      if (a.is_valid(i)) keys.emplace_back(s.get(i), i);
      else nulls.push_back(i);
    }
    if (o.ascending) parallel_sort(keys, [](const auto& x, const auto& y) { return x.first < y.first || (x.first == y.first && x.second < y.second); });
    else parallel_sort(keys, [](const auto& x, const auto& y) { return y.first < x.first || (x.first == y.first && x.second < y.second); });
    for (const auto& k : keys) order.push_back(k.second);
  } else if (id == TypeId::Bool) {
    std::vector<int64_t> f, t;
    for (int64_t i = 0; i < a.length; ++i) {
      if (!a.is_valid(i)) nulls.push_back(i);
      else (bits::get(a.buffers[1].data(), a.offset + i) ? t : f).push_back(i);
    }
    order = o.ascending ? f : t;
    const auto& second = o.ascending ? t : f;
    order.insert(order.end(), second.begin(), second.end());
  } else if (a.type.is_numeric() || id == TypeId::Date32 || id == TypeId::Timestamp) {
    visit_primitive(id, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) sort_keys<T>(a, values_of<T>(a), o.ascending, order, nans, nulls);
    });
  } else {
    unsupported("sort", c, "a numeric, boolean, string, date or timestamp column");
  }
  std::vector<int64_t> out;
  out.reserve(size_t(a.length));
  if (o.nulls_first) {
    out.insert(out.end(), nulls.begin(), nulls.end());
    out.insert(out.end(), nans.begin(), nans.end());
    out.insert(out.end(), order.begin(), order.end());
  } else {
    out.insert(out.end(), order.begin(), order.end());
    out.insert(out.end(), nans.begin(), nans.end());
    out.insert(out.end(), nulls.begin(), nulls.end());
  }
  return out;
}

// ---- distinct values ----------------------------------------------------------------------------

inline uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// Distinct valid values in order of first appearance: the first row and the count of each,
// and the first row and count of the nulls.
struct Groups {
  std::vector<int64_t> first;
  std::vector<int64_t> counts;
  int64_t null_first = -1;
  int64_t null_count = 0;
};

// Open addressing over hashes; eq(row, group) compares a row with a group's first row.
template <class Hash, class Eq>
Groups group_rows(const ArrayData& a, const Hash& hash, const Eq& eq) {
  Groups g;
  size_t cap = 64;
  std::vector<int64_t> slots(cap, -1);  // group ids
  std::vector<uint64_t> hashes;          // per group
  for (int64_t i = 0; i < a.length; ++i) {
    if (!a.is_valid(i)) {
      if (g.null_first < 0) g.null_first = i;
      ++g.null_count;
      continue;
    }
    const uint64_t h = hash(i);
    size_t s = size_t(h) & (cap - 1);
    for (;;) {
      const int64_t gid = slots[s];
      if (gid < 0) {
        slots[s] = int64_t(g.first.size());
        g.first.push_back(i);
        g.counts.push_back(1);
        hashes.push_back(h);
        break;
      }
      if (hashes[size_t(gid)] == h && eq(i, g.first[size_t(gid)])) {
        ++g.counts[size_t(gid)];
        break;
      }
      s = (s + 1) & (cap - 1);
    }
    if (g.first.size() * 2 > cap) {
      cap *= 2;
      std::vector<int64_t> grown(cap, -1);
      for (size_t k = 0; k < g.first.size(); ++k) {
        size_t t = size_t(hashes[k]) & (cap - 1);
        while (grown[t] >= 0) t = (t + 1) & (cap - 1);
        grown[t] = int64_t(k);
      }
      slots.swap(grown);
    }
  }
  return g;
}

Groups groups_of(const Column& c, const char* op) {
  const ArrayData& a = *c.data();
  const TypeId id = a.type.id();
  if (a.type.is_binary_like()) {
    const StringAccess s = string_access(a);
    return group_rows(
        a, [&](int64_t i) { return uint64_t(std::hash<std::string_view>{}(s.get(i))); },
        [&](int64_t i, int64_t j) { return s.get(i) == s.get(j); });
  }
  if (id == TypeId::Bool) {
    const uint8_t* bm = a.buffers[1].data();
    return group_rows(
        a, [&](int64_t i) { return mix(bits::get(bm, a.offset + i)); },
        [&](int64_t i, int64_t j) { return bits::get(bm, a.offset + i) == bits::get(bm, a.offset + j); });
  }
  if (!(a.type.is_numeric() || id == TypeId::Date32 || id == TypeId::Timestamp))
    unsupported(op, c, "a numeric, boolean, string, date or timestamp column");
  return visit_primitive(id, [&](auto tag) -> Groups {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return Groups();
    } else {
      const T* p = values_of<T>(a);
      // Floats hash by value: -0.0 is 0.0 and every NaN is one value (pandas' unique).
      auto key = [&](int64_t i) -> uint64_t {
        if constexpr (std::is_floating_point_v<T>) {
          double d = double(p[i]);
          if (d == 0) d = 0;
          if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
          return std::bit_cast<uint64_t>(d);
        } else {
          return uint64_t(p[i]);
        }
      };
      auto same = [&](int64_t i, int64_t j) {
        if constexpr (std::is_floating_point_v<T>)
          if (std::isnan(p[i]) && std::isnan(p[j])) return true;
        return p[i] == p[j];
      };
      return group_rows(a, [&](int64_t i) { return mix(key(i)); }, same);
    }
  });
}

}  // namespace

Column argsort(const Column& col, const SortOptions& options) {
  const Column c = decoded(col);
  const std::vector<int64_t> idx = argsort_indices(c, options);
  return detail::fixed_width_column(dtypes::int64, idx.data(), int64_t(idx.size()));
}

Column sort(const Column& col, const SortOptions& options) {
  const Column c = decoded(col);
  return take(c, argsort_indices(c, options));
}

Column unique(const Column& col) {
  const Column c = decoded(col);
  const Groups g = groups_of(c, "unique");
  std::vector<int64_t> rows = g.first;
  if (g.null_first >= 0) rows.insert(std::lower_bound(rows.begin(), rows.end(), g.null_first), g.null_first);
  return take(c, rows);
}

int64_t nunique(const Column& col, bool dropna) {
  const Column c = decoded(col);
  const Groups g = groups_of(c, "nunique");
  return int64_t(g.first.size()) + (!dropna && g.null_count > 0 ? 1 : 0);
}

Column value_counts(const Column& col, bool dropna) {
  const Column c = decoded(col);
  const Groups g = groups_of(c, "value_counts");
  struct Entry {
    int64_t row, count;
  };
  std::vector<Entry> entries;
  for (size_t k = 0; k < g.first.size(); ++k) entries.push_back({g.first[k], g.counts[k]});
  if (!dropna && g.null_count > 0) {
    const Entry e{g.null_first, g.null_count};
    entries.insert(std::lower_bound(entries.begin(), entries.end(), e,
                                    [](const Entry& x, const Entry& y) { return x.row < y.row; }),
                   e);
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) { return x.count > y.count; });
  std::vector<int64_t> rows, counts;
  for (const Entry& e : entries) {
    rows.push_back(e.row);
    counts.push_back(e.count);
  }
  return struct_column({{"values", take(c, rows)}, {"counts", detail::fixed_width_column(dtypes::int64, counts.data(),
                                                                                          int64_t(counts.size()))}});
}

}  // namespace ember::frame
