// GroupBy: hash grouping of rows by key columns and per-group aggregations (see
// relational.h). Rows are factorized once (hash_keys.h) into group ids in order of first
// appearance; with sort=true the groups' output order is their keys' sorted order, applied
// to each aggregation's per-group results (never to the rows). Aggregations accumulate per
// thread over row chunks and combine the partial results in chunk order.
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <type_traits>

#include "ember/frame/builder.h"
#include "ember/frame/detail/physical.h"
#include "ember/frame/relational/hash_keys.h"
#include "ember/frame/relational/kernels.h"
#include "ember/frame/relational/relational.h"
#include "ember/frame/relational/sort.h"
#include "ember/frame/relational/util.h"

namespace ember::frame {

using relational::chunk_bounds;
using relational::OutBuffer;
using relational::run_chunks;

struct GroupBy::State {
  DataFrame df;
  std::vector<std::string> keys;
  relational::Vec<int32_t> ids;  // row -> its group, -1 for a dropped row
  std::vector<int64_t> first;    // group -> its first row
  std::vector<int64_t> order;    // output position -> group; empty when groups are in order
  int64_t num_groups() const { return int64_t(first.size()); }
  // Per-group values (indexed by group) in output order.
  template <class T>
  std::vector<T> out(std::vector<T> v) const {
    if (order.empty()) return v;
    std::vector<T> r(v.size());
    for (size_t p = 0; p < order.size(); ++p) r[p] = v[size_t(order[p])];
    return r;
  }
  // group -> rows in the group (computed on first use).
  const std::vector<int64_t>& sizes() const;

 private:
  mutable std::once_flag sizes_once_;
  mutable std::vector<int64_t> sizes_;
};

namespace {

using State = GroupBy::State;

const char* const kAggregations = "sum, mean, min, max, count, std, first, last, size, list";

// Per-group accumulation: step(acc[g], row) over the rows of each chunk (own accumulators per
// chunk when there are few groups), then merge(acc, other) in chunk order.
template <class A, class Step, class Merge>
std::vector<A> reduce_groups(const State& s, const A& init, const Step& step, const Merge& merge) {
  const int64_t n = int64_t(s.ids.size()), g = s.num_groups();
  auto bounds = chunk_bounds(n, 1 << 16);
  if (g * int64_t(bounds.size() - 1) > n) bounds = {0, n};  // many groups: partials would cost more
  const size_t k = bounds.size() - 1;
  std::vector<std::vector<A>> parts(k);
  run_chunks(bounds, [&](int64_t c, int64_t b, int64_t e) {
    std::vector<A>& acc = parts[size_t(c)];
    acc.assign(size_t(g), init);
    const int32_t* ids = s.ids.data();
    for (int64_t i = b; i < e; ++i) {
      const int32_t id = ids[i];
      if (id >= 0) step(acc[size_t(id)], i);
    }
  });
  if (k == 0) return std::vector<A>(size_t(g), init);
  for (size_t c = 1; c < k; ++c)
    for (int64_t j = 0; j < g; ++j) merge(parts[0][size_t(j)], parts[c][size_t(j)]);
  return std::move(parts[0]);
}

template <class T>
Column numeric_column(const DType& type, const std::vector<T>& values, const std::vector<uint8_t>* valid) {
  const int64_t n = int64_t(values.size());
  OutBuffer data(n * int64_t(sizeof(T)));
  if (n > 0) std::memcpy(data.data(), values.data(), size_t(n) * sizeof(T));
  Buffer validity;
  int64_t nulls = 0;
  if (valid != nullptr) {
    OutBuffer bm = relational::zeroed_bitmap(n);
    for (int64_t i = 0; i < n; ++i) {
      if ((*valid)[size_t(i)]) bits::set(bm.data(), i);
      else ++nulls;
    }
    if (nulls > 0) validity = bm.finish(bits::bytes_for(n));
  }
  return Column::from_data_unchecked(ArrayData::make(
      valid != nullptr ? type.with_nullable(true) : type, n, {std::move(validity), data.finish(n * int64_t(sizeof(T)))},
      {}, nulls));
}

// Calls f(T{}, value_at) for a numeric or boolean column: value_at(i) reads element i as T.
template <class F>
void visit_values(const Column& c, const F& f) {
  const ArrayData& a = *c.data();
  if (a.type.id() == TypeId::Bool) {
    const uint8_t* bits = a.buffers[1].data();
    const int64_t off = a.offset;
    f(bool{}, [bits, off](int64_t i) { return bits::get(bits, off + i); });
    return;
  }
  detail::visit_numeric(a.type.id(), [&](auto tag) {
    using T = decltype(tag);
    const T* v = a.buffers[1].data_as<T>() + a.offset;
    f(T{}, [v](int64_t i) { return v[i]; });
  });
}

// c at rows computed here (-1: a null).
template <class V>
Column take_rows(const Column& c, const V& rows) {
  const bool nulls = std::any_of(rows.begin(), rows.end(), [](int64_t r) { return r < 0; });
  return relational::take_trusted(c, rows.data(), int64_t(rows.size()), nulls);
}

}  // namespace

const std::vector<int64_t>& GroupBy::State::sizes() const {
  std::call_once(sizes_once_, [this] {
    sizes_ = reduce_groups<int64_t>(
        *this, 0, [](int64_t& acc, int64_t) { ++acc; }, [](int64_t& x, int64_t y) { x += y; });
  });
  return sizes_;
}

namespace {

struct SumCount {
  double sum = 0;
  int64_t count = 0;
};

Column agg_count(const State& s, const Column& c) {
  const ArrayData& a = *c.data();
  std::vector<int64_t> out;
  if (a.validity() == nullptr || a.null_count() == 0) {
    out = s.sizes();
  } else {
    out = reduce_groups<int64_t>(
        s, 0, [&](int64_t& acc, int64_t i) { acc += a.is_valid(i); }, [](int64_t& x, int64_t y) { x += y; });
  }
  return numeric_column(dtypes::int64, s.out(std::move(out)), nullptr);
}

void check_numeric(const Column& c, const std::string& name, const char* agg) {
  const DType& t = c.dtype();
  EMBER_CHECK_TYPE(t.is_numeric() || t.id() == TypeId::Bool, "groupby.agg: '", agg, "' needs a numeric or boolean column; '",
                   name, "' has dtype ", t.to_string());
}

Column agg_sum(const State& s, const Column& c, const std::string& name) {
  check_numeric(c, name, "sum");
  const ArrayData& a = *c.data();
  const bool nulls = a.validity() != nullptr && a.null_count() > 0;
  Column out;
  visit_values(c, [&](auto tag, auto value_at) {
    using T = decltype(tag);
    using A = std::conditional_t<std::is_floating_point_v<T>, double,
                                 std::conditional_t<std::is_unsigned_v<T> && !std::is_same_v<T, bool>, uint64_t, int64_t>>;
    auto sums = reduce_groups<A>(
        s, A(0),
        [&](A& acc, int64_t i) {
          if (!nulls || a.is_valid(i)) acc += A(value_at(i));
        },
        [](A& x, const A& y) { x += y; });
    const DType t = std::is_floating_point_v<T> ? dtypes::float64
                    : std::is_same_v<A, uint64_t> ? dtypes::uint64 : dtypes::int64;
    out = numeric_column(t, s.out(std::move(sums)), nullptr);
  });
  return out;
}

std::vector<SumCount> sums_counts(const State& s, const Column& c) {
  const ArrayData& a = *c.data();
  const bool nulls = a.validity() != nullptr && a.null_count() > 0;
  std::vector<SumCount> r;
  visit_values(c, [&](auto, auto value_at) {
    r = reduce_groups<SumCount>(
        s, SumCount{},
        [&](SumCount& acc, int64_t i) {
          if (!nulls || a.is_valid(i)) {
            acc.sum += double(value_at(i));
            ++acc.count;
          }
        },
        [](SumCount& x, const SumCount& y) {
          x.sum += y.sum;
          x.count += y.count;
        });
  });
  return r;
}

Column agg_mean(const State& s, const Column& c, const std::string& name) {
  check_numeric(c, name, "mean");
  const auto sc = sums_counts(s, c);
  std::vector<double> mean(sc.size());
  std::vector<uint8_t> valid(sc.size());
  for (size_t g = 0; g < sc.size(); ++g) {
    valid[g] = sc[g].count > 0;
    mean[g] = valid[g] ? sc[g].sum / double(sc[g].count) : 0.0;
  }
  const auto v = s.out(std::move(valid));
  return numeric_column(dtypes::float64, s.out(std::move(mean)), &v);
}

Column agg_std(const State& s, const Column& c, const std::string& name) {
  check_numeric(c, name, "std");
  const auto sc = sums_counts(s, c);
  std::vector<double> mean(sc.size());
  for (size_t g = 0; g < sc.size(); ++g) mean[g] = sc[g].count > 0 ? sc[g].sum / double(sc[g].count) : 0.0;
  // Second pass: squared deviations from the group means (more accurate than sums of squares).
  const ArrayData& a = *c.data();
  const bool nulls = a.validity() != nullptr && a.null_count() > 0;
  std::vector<double> ss;
  const int32_t* ids = s.ids.data();
  visit_values(c, [&](auto, auto value_at) {
    ss = reduce_groups<double>(
        s, 0.0,
        [&](double& acc, int64_t i) {
          if (!nulls || a.is_valid(i)) {
            const double d = double(value_at(i)) - mean[size_t(ids[i])];
            acc += d * d;
          }
        },
        [](double& x, double y) { x += y; });
  });
  std::vector<double> out(sc.size());
  std::vector<uint8_t> valid(sc.size());
  for (size_t g = 0; g < sc.size(); ++g) {
    valid[g] = sc[g].count > 1;
    out[g] = valid[g] ? std::sqrt(ss[g] / double(sc[g].count - 1)) : 0.0;
  }
  const auto v = s.out(std::move(valid));
  return numeric_column(dtypes::float64, s.out(std::move(out)), &v);
}

// Row of each group's first (or last) valid value, -1 where none.
std::vector<int64_t> first_last_rows(const State& s, const Column& c, bool last) {
  const ArrayData& a = *c.data();
  const bool nulls = a.validity() != nullptr && a.null_count() > 0;
  if (!nulls && !last) return s.first;
  return reduce_groups<int64_t>(
      s, -1,
      [&](int64_t& acc, int64_t i) {
        if (nulls && !a.is_valid(i)) return;
        if (last || acc < 0) acc = i;
      },
      [last](int64_t& x, int64_t y) {
        if (y >= 0 && (last || x < 0)) x = y;
      });
}

Column agg_min_max(const State& s, const Column& col, const std::string& name, bool is_max) {
  const char* agg = is_max ? "max" : "min";
  Column c = col.dtype().id() == TypeId::Dictionary ? col.dictionary_decode() : col;
  const ArrayData& a = *c.data();
  const DType& t = a.type;
  const bool nulls = a.validity() != nullptr && a.null_count() > 0;
  if (t.is_binary_like()) {
    // The row holding each group's least (greatest) string, then a take.
    auto str = [&](int64_t i) { return detail::binary_at(a, i); };
    auto rows = reduce_groups<int64_t>(
        s, -1,
        [&](int64_t& acc, int64_t i) {
          if (nulls && !a.is_valid(i)) return;
          if (acc < 0 || (is_max ? str(acc) < str(i) : str(i) < str(acc))) acc = i;
        },
        [&](int64_t& x, int64_t y) {
          if (y >= 0 && (x < 0 || (is_max ? str(x) < str(y) : str(y) < str(x)))) x = y;
        });
    return take_rows(c, s.out(std::move(rows)));
  }
  EMBER_CHECK_TYPE(t.is_fixed_width(), "groupby.agg: '", agg, "' needs a column of numbers, booleans, dates, "
                   "timestamps or strings; '", name, "' has dtype ", t.to_string());
  Column out;
  visit_values(c, [&](auto tag, auto value_at) {
    using T = decltype(tag);
    struct Best {
      T v;
      bool has;
    };
    // NaN loses to any number (pandas and pyarrow skip it); a group of NaNs gives NaN.
    auto better = [is_max](T x, T cur) {
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(cur)) return !std::isnan(x);
      }
      return is_max ? cur < x : x < cur;
    };
    auto best = reduce_groups<Best>(
        s, Best{T{}, false},
        [&](Best& acc, int64_t i) {
          if (nulls && !a.is_valid(i)) return;
          const T x = value_at(i);
          if (!acc.has || better(x, acc.v)) acc = Best{x, true};
        },
        [&](Best& x, const Best& y) {
          if (y.has && (!x.has || better(y.v, x.v))) x = y;
        });
    best = s.out(std::move(best));
    const int64_t g = int64_t(best.size());
    std::vector<uint8_t> valid(static_cast<size_t>(g));
    bool all_valid = true;
    for (int64_t j = 0; j < g; ++j) all_valid &= (valid[size_t(j)] = best[size_t(j)].has) != 0;
    if constexpr (std::is_same_v<T, bool>) {
      BooleanBuilder b(t.with_nullable(t.nullable() || !all_valid));
      for (int64_t j = 0; j < g; ++j) {
        if (best[size_t(j)].has) b.append(best[size_t(j)].v);
        else b.append_null();
      }
      out = b.finish();
    } else {
      std::vector<T> v(static_cast<size_t>(g));
      for (int64_t j = 0; j < g; ++j) v[size_t(j)] = best[size_t(j)].v;
      out = numeric_column(t, v, all_valid ? nullptr : &valid);
      if (t.nullable()) out = relational::as_nullable(out);
    }
  });
  return out;
}

Column agg_list(const State& s, const Column& c) {
  // Rows ordered by output position (stable counting sort), then one take of the values.
  const int64_t g = s.num_groups();
  const std::vector<int64_t> sizes = s.out(s.sizes());
  std::vector<int32_t> offsets(size_t(g) + 1, 0);
  for (int64_t j = 0; j < g; ++j) offsets[size_t(j) + 1] = offsets[size_t(j)] + int32_t(sizes[size_t(j)]);
  relational::Vec<int64_t> rows(static_cast<size_t>(offsets.back()));
  std::vector<int32_t> pos(size_t(g), 0);  // group -> its next slot
  for (int64_t p = 0; p < g; ++p) pos[s.order.empty() ? size_t(p) : size_t(s.order[size_t(p)])] = offsets[size_t(p)];
  for (int64_t i = 0; i < int64_t(s.ids.size()); ++i) {
    const int32_t id = s.ids[size_t(i)];
    if (id >= 0) rows[size_t(pos[size_t(id)]++)] = i;
  }
  Column values = take_rows(c, rows);
  Buffer off = Buffer::copy_of(offsets.data(), int64_t(offsets.size() * sizeof(int32_t)));
  return Column::from_data_unchecked(
      ArrayData::make(dtypes::List(values.dtype()), g, {Buffer(), std::move(off)}, {values.data()}, 0));
}

// Key column `k`: one row per group, in output order.
Column key_column(const State& s, const std::string& k) {
  const std::vector<int64_t> rows = s.out(s.first);
  return relational::take_trusted(s.df[k], rows.data(), int64_t(rows.size()), false);
}

Column aggregate(const State& s, const std::string& name, const std::string& agg) {
  const Column& c = relational::column_for(s.df, name, "groupby.agg");
  if (agg == "sum") return agg_sum(s, c, name);
  if (agg == "mean") return agg_mean(s, c, name);
  if (agg == "std") return agg_std(s, c, name);
  if (agg == "min") return agg_min_max(s, c, name, false);
  if (agg == "max") return agg_min_max(s, c, name, true);
  if (agg == "count") return agg_count(s, c);
  if (agg == "size") return numeric_column(dtypes::int64, s.out(s.sizes()), nullptr);
  if (agg == "first" || agg == "last") return take_rows(c, s.out(first_last_rows(s, c, agg == "last")));
  if (agg == "list") return agg_list(s, c);
  EMBER_ERROR("groupby.agg: unknown aggregation '", agg, "' for column '", name, "' (aggregations: ", kAggregations,
              ")");
}

}  // namespace

GroupBy::GroupBy(const DataFrame& df, const std::vector<std::string>& keys, bool sort, bool dropna) {
  EMBER_CHECK(!keys.empty(), "groupby: no key columns given");
  auto s = std::make_shared<State>();
  s->df = df;
  s->keys = keys;
  std::vector<Column> cols;
  for (const std::string& k : keys) {
    EMBER_CHECK(std::count(keys.begin(), keys.end(), k) == 1, "groupby: the key '", k, "' is given twice");
    cols.push_back(relational::column_for(df, k, "groupby"));
  }
  relational::KeyColumns kc(cols, keys, "groupby");
  relational::Groups g = relational::factorize(kc, dropna, "groupby");
  const int64_t ng = g.num_groups();
  s->ids = std::move(g.ids);
  s->first = std::move(g.first);
  if (sort && ng > 1) {
    // The groups in the order of their keys (nulls last, as pandas).
    std::vector<relational::SortKey> sk;
    for (size_t k = 0; k < cols.size(); ++k)
      sk.push_back({relational::take_trusted(cols[k], s->first.data(), ng, false), keys[k], true, false});
    s->order = relational::sort_indices(sk, "groupby");
    if (relational::is_identity(s->order.data(), ng)) s->order.clear();
  }
  state_ = std::move(s);
}

int64_t GroupBy::ngroups() const { return state_->num_groups(); }
const std::vector<std::string>& GroupBy::keys() const { return state_->keys; }

DataFrame GroupBy::agg(const std::vector<std::pair<std::string, std::vector<std::string>>>& spec) const {
  const State& s = *state_;
  std::vector<std::pair<std::string, Column>> out;
  for (const std::string& k : s.keys)
    out.emplace_back(k, key_column(s, k));
  for (const auto& [name, aggs] : spec) {
    relational::column_for(s.df, name, "groupby.agg");
    for (const std::string& a : aggs) {
      const std::string out_name = name + "." + a;
      for (const auto& o : out)
        EMBER_CHECK(o.first != out_name, "groupby.agg: the output column '", out_name, "' appears twice");
      out.emplace_back(out_name, aggregate(s, name, a));
    }
  }
  return DataFrame(std::move(out));
}

DataFrame GroupBy::agg_all(const std::string& aggregation) const {
  std::vector<std::pair<std::string, std::vector<std::string>>> spec;
  for (const std::string& c : state_->df.columns())
    if (std::find(state_->keys.begin(), state_->keys.end(), c) == state_->keys.end()) spec.push_back({c, {aggregation}});
  return agg(spec);
}

DataFrame GroupBy::sum() const { return agg_all("sum"); }
DataFrame GroupBy::mean() const { return agg_all("mean"); }
DataFrame GroupBy::min() const { return agg_all("min"); }
DataFrame GroupBy::max() const { return agg_all("max"); }
DataFrame GroupBy::count() const { return agg_all("count"); }
DataFrame GroupBy::std() const { return agg_all("std"); }
DataFrame GroupBy::first() const { return agg_all("first"); }
DataFrame GroupBy::last() const { return agg_all("last"); }
DataFrame GroupBy::list() const { return agg_all("list"); }

DataFrame GroupBy::size() const {
  const State& s = *state_;
  std::vector<std::pair<std::string, Column>> out;
  for (const std::string& k : s.keys)
    out.emplace_back(k, key_column(s, k));
  EMBER_CHECK(std::find(s.keys.begin(), s.keys.end(), "size") == s.keys.end(),
              "groupby.size: a key column is named 'size'");
  out.emplace_back("size", numeric_column(dtypes::int64, s.out(s.sizes()), nullptr));
  return DataFrame(std::move(out));
}

GroupBy DataFrame::groupby(const std::vector<std::string>& keys, bool sort, bool dropna) const {
  return GroupBy(*this, keys, sort, dropna);
}

}  // namespace ember::frame
