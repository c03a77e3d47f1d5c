// DataFrame's column operations (assign, drop, rename, reorder), row selection (where,
// drop_duplicates), append/concat, sort and describe. See relational.h.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <unordered_set>

#include "ember/frame/builder.h"
#include "ember/frame/detail/physical.h"
#include "ember/frame/relational/hash_keys.h"
#include "ember/frame/relational/kernels.h"
#include "ember/frame/relational/relational.h"
#include "ember/frame/relational/sort.h"
#include "ember/frame/relational/util.h"

namespace ember::frame {

using relational::column_for;
using relational::quoted_names;

namespace {

std::vector<std::pair<std::string, Column>> columns_of(const DataFrame& df) {
  std::vector<std::pair<std::string, Column>> out;
  for (int64_t i = 0; i < df.num_columns(); ++i) out.emplace_back(df.columns()[size_t(i)], df.column(i));
  return out;
}

// A frame from named columns; a frame without columns keeps `rows` rows nowhere (as the core).
DataFrame frame_of(std::vector<std::pair<std::string, Column>> cols) {
  if (cols.empty()) return DataFrame();
  return DataFrame(std::move(cols));
}

// Flags for each of `n` keys from a list of one flag per key, one for all, or none.
std::vector<bool> per_key(const std::vector<bool>& flags, size_t n, bool dflt, const char* what) {
  if (flags.empty()) return std::vector<bool>(n, dflt);
  if (flags.size() == 1) return std::vector<bool>(n, flags[0]);
  EMBER_CHECK(flags.size() == n, "sort: ", flags.size(), " ", what, " flags for ", n, " keys (give one per key, or one for all)");
  return flags;
}

std::string percentile_name(double p) {
  // pandas' labels: "25%", "33.3%": the shortest decimal of p * 100 at 10 significant digits.
  char buf[64];
  double v = p * 100;
  const double scale = std::pow(10.0, 10 - 1 - std::floor(std::log10(std::max(std::abs(v), 1e-300))));
  if (v != 0) v = std::round(v * scale) / scale;
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr) + "%";
}

// Linear interpolation between the order statistics around q * (n - 1) (numpy's "linear").
// Quantiles are asked in ascending order: `done` elements at the front are already at or
// below every element after them (from the previous call), so each selection only
// partitions the rest.
double quantile_of(relational::Vec<double>& v, double q, int64_t& done) {
  const int64_t n = int64_t(v.size());
  const double pos = q * double(n - 1);
  const int64_t lo = std::max(int64_t(std::floor(pos)), done);
  std::nth_element(v.begin() + done, v.begin() + lo, v.end());
  done = lo;
  const double a = v[size_t(lo)];
  const double t = pos - double(lo);
  if (t <= 0 || lo + 1 >= n) return a;
  const double b = *std::min_element(v.begin() + lo + 1, v.end());
  return a + (b - a) * t;
}

}  // namespace

ColumnSelection::ColumnSelection(std::string name, Column value)
    : name_(std::move(name)), computed_(true), value_(std::make_shared<const Column>(std::move(value))) {}

ColumnSelection::ColumnSelection(std::string name, std::function<Column(const DataFrame&)> compute)
    : name_(std::move(name)), computed_(true), compute_(std::move(compute)) {
  EMBER_CHECK(compute_ != nullptr, "DataFrame.select: the computed column '", name_, "' has an empty function");
}

Column ColumnSelection::value(const DataFrame& df) const {
  EMBER_CHECK(computed_, "DataFrame.select: '", name_, "' names a column; it computes none");
  return value_ ? *value_ : compute_(df);
}

DataFrame DataFrame::select(std::initializer_list<ColumnSelection> items) const {
  return select(std::vector<ColumnSelection>(items));
}

DataFrame DataFrame::select(const std::vector<ColumnSelection>& items) const {
  std::unordered_set<std::string> excluded;
  for (const ColumnSelection& it : items)
    if (!it.computed() && it.name().size() > 1 && it.name()[0] == '-') {
      const std::string name = it.name().substr(1);
      column_for(*this, name, "select");  // an unknown name is an error (with the closest)
      excluded.insert(name);
    }
  std::vector<std::pair<std::string, Column>> cols;
  std::unordered_set<std::string> taken;
  auto add = [&](const std::string& name, Column c) {
    EMBER_CHECK(c.size() == num_rows_ || names_.empty(), "select: the computed column '", name, "' has length ",
                c.size(), " but the frame has ", num_rows_, " rows");
    if (taken.insert(name).second) {
      cols.emplace_back(name, std::move(c));
      return;
    }
    for (auto& [n, old] : cols)
      if (n == name) old = std::move(c);
  };
  for (const ColumnSelection& it : items) {
    const std::string& name = it.name();
    if (it.computed()) {
      add(name, it.value(*this));
    } else if (name == "*") {
      for (size_t i = 0; i < names_.size(); ++i)
        if (!excluded.count(names_[i]) && !taken.count(names_[i])) add(names_[i], columns_[i]);
    } else if (name.size() > 1 && name[0] == '-') {
      continue;
    } else {
      const Column& c = column_for(*this, name, "select");
      EMBER_CHECK(!taken.count(name), "select: the column '", name, "' is selected twice");
      if (!excluded.count(name)) add(name, c);
    }
  }
  return frame_of(std::move(cols));
}

DataFrame DataFrame::assign(const std::string& name, const Column& c) const {
  DataFrame out = *this;
  out.set_column(name, c);
  return out;
}

DataFrame DataFrame::assign(const std::string& name, const std::function<Column(const DataFrame&)>& compute) const {
  EMBER_CHECK(compute != nullptr, "assign: the column '", name, "' has an empty function");
  return assign(name, compute(*this));
}

DataFrame DataFrame::drop(const std::vector<std::string>& names) const {
  std::unordered_set<std::string> gone;
  for (const std::string& n : names) {
    column_for(*this, n, "drop");
    gone.insert(n);
  }
  std::vector<std::pair<std::string, Column>> cols;
  for (auto& [n, c] : columns_of(*this))
    if (!gone.count(n)) cols.emplace_back(n, c);
  DataFrame out = frame_of(std::move(cols));
  return out.num_columns() == 0 ? DataFrame() : out;
}

DataFrame DataFrame::rename(const std::vector<std::pair<std::string, std::string>>& mapping) const {
  std::vector<std::string> names = columns();
  for (const auto& [from, to] : mapping) {
    column_for(*this, from, "rename");
    for (size_t i = 0; i < names.size(); ++i)
      if (columns()[i] == from) names[i] = to;
  }
  std::unordered_set<std::string> seen;
  for (const std::string& n : names)
    EMBER_CHECK(seen.insert(n).second, "rename: the new names give two columns the name '", n, "'");
  std::vector<std::pair<std::string, Column>> cols;
  for (int64_t i = 0; i < num_columns(); ++i) cols.emplace_back(names[size_t(i)], column(i));
  return frame_of(std::move(cols));
}

DataFrame DataFrame::reorder(const std::vector<std::string>& names) const {
  for (const std::string& n : names) column_for(*this, n, "reorder");
  return select(names);
}

DataFrame DataFrame::where(const Column& mask) const { return relational::filter(*this, mask); }

DataFrame DataFrame::append(const std::vector<std::vector<Value>>& rows) const {
  EMBER_CHECK(num_columns() > 0 || rows.empty(), "append: the frame has no columns to append rows to");
  if (rows.empty()) return *this;
  DataFrame extra;
  try {
    extra = dataframe(rows, dtype());
  } catch (const Error& e) {
    EMBER_ERROR("append: ", e.what());
  }
  return concat({*this, extra});
}

DataFrame DataFrame::append(const DataFrame& other) const { return concat({*this, other}); }

DataFrame DataFrame::sort(const std::vector<std::string>& by, const std::vector<bool>& ascending,
                          const std::vector<bool>& nulls_first) const {
  EMBER_CHECK(!by.empty(), "sort: no key columns given");
  const auto asc = per_key(ascending, by.size(), true, "ascending");
  const auto nf = per_key(nulls_first, by.size(), false, "nulls_first");
  std::vector<relational::SortKey> keys;
  for (size_t k = 0; k < by.size(); ++k) keys.push_back({column_for(*this, by[k], "sort"), by[k], asc[k], nf[k]});
  if (num_rows() < INT32_MAX) {
    const auto order = relational::sort_indices32(keys, "sort");
    return relational::take_trusted(*this, order.data(), int64_t(order.size()), false);
  }
  const auto order = relational::sort_indices(keys, "sort");
  return relational::take_trusted(*this, order.data(), int64_t(order.size()), false);
}

DataFrame DataFrame::drop_duplicates(const std::vector<std::string>& subset, std::string_view keep) const {
  EMBER_CHECK(keep == "first" || keep == "last" || keep == "none" || keep == "false", "drop_duplicates: keep must be "
              "'first', 'last' or 'none' (pandas' keep=False), got '", keep, "'");
  const std::vector<std::string> names = subset.empty() ? columns() : subset;
  if (names.empty()) return *this;  // no columns: nothing to compare
  std::vector<Column> cols;
  for (const std::string& n : names) cols.push_back(column_for(*this, n, "drop_duplicates"));
  relational::KeyColumns keys(cols, names, "drop_duplicates");
  const relational::Groups g = relational::factorize(keys, /*drop_nulls=*/false, "drop_duplicates");
  const int64_t n = num_rows();
  relational::Vec<int64_t> kept;
  if (keep == "first") {
    for (int64_t i = 0; i < n; ++i)
      if (g.first[size_t(g.ids[size_t(i)])] == i) kept.push_back(i);
  } else {
    // Per group: its last row (keep="last") or its number of rows (keep="none").
    const bool by_last = keep == "last";
    relational::Vec<int64_t> per_group(static_cast<size_t>(g.num_groups()));
    std::fill(per_group.begin(), per_group.end(), 0);
    for (int64_t i = 0; i < n; ++i) {
      int64_t& x = per_group[size_t(g.ids[size_t(i)])];
      x = by_last ? i : x + 1;
    }
    for (int64_t i = 0; i < n; ++i)
      if (per_group[size_t(g.ids[size_t(i)])] == (by_last ? i : 1)) kept.push_back(i);
  }
  return relational::take_trusted(*this, kept.data(), int64_t(kept.size()), false);
}

DataFrame DataFrame::describe(const std::vector<double>& percentiles) const {
  std::vector<double> ps;
  for (double p : percentiles) {
    EMBER_CHECK(p >= 0 && p <= 1, "describe: percentiles must be between 0 and 1, got ", p);
    ps.push_back(p);
  }
  std::sort(ps.begin(), ps.end());
  ps.erase(std::unique(ps.begin(), ps.end()), ps.end());

  StringBuilder metric;
  for (const char* m : {"count", "mean", "std", "min"}) metric.append(m);
  for (double p : ps) metric.append(percentile_name(p));
  metric.append("max");
  std::vector<std::pair<std::string, Column>> out{{"metric", metric.finish()}};
  std::vector<int64_t> numeric;  // booleans, strings, dates... are left out, as pandas
  for (int64_t c = 0; c < num_columns(); ++c)
    if (column(c).dtype().is_numeric()) numeric.push_back(c);
  // One column per task (the statistics of a column are sequential work).
  const size_t rows = ps.size() + 5;
  std::vector<std::vector<std::optional<double>>> stats(numeric.size(), std::vector<std::optional<double>>(rows));
  parallel_for(0, int64_t(numeric.size()), 1, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const ArrayData& a = *column(numeric[size_t(k)]).data();
      std::vector<std::optional<double>>& st = stats[size_t(k)];
      // The valid, non-NaN values as doubles (pandas skips NaN as missing).
      relational::Vec<double> v(static_cast<size_t>(a.length));
      int64_t n = 0;
      detail::visit_numeric(a.type.id(), [&](auto tag) {
        using T = decltype(tag);
        const T* x = a.buffers[1].data_as<T>() + a.offset;
        const bool nulls = a.validity() != nullptr && a.null_count() > 0;
        for (int64_t i = 0; i < a.length; ++i) {
          const double d = double(x[i]);
          v[size_t(n)] = d;
          n += (!nulls || a.is_valid(i)) && !std::isnan(d);
        }
      });
      v.resize(static_cast<size_t>(n));
      st[0] = double(n);
      if (n == 0) continue;
      double sum = 0, mn = v[0], mx = v[0];
      for (double d : v) sum += d, mn = std::min(mn, d), mx = std::max(mx, d);
      const double mean = sum / double(n);
      double ss = 0;
      for (double d : v) ss += (d - mean) * (d - mean);
      st[1] = mean;
      if (n > 1) st[2] = std::sqrt(ss / double(n - 1));
      st[3] = mn;
      int64_t done = 0;
      for (size_t q = 0; q < ps.size(); ++q) st[4 + q] = quantile_of(v, ps[q], done);
      st[rows - 1] = mx;
    }
  });
  for (size_t k = 0; k < numeric.size(); ++k) {
    Float64Builder b(dtypes::Float64(true));
    // Nulls where a column lacks a statistic (all but count without values, std with one).
    for (size_t r = 0; r < rows; ++r) b.append(stats[k][r]);
    out.emplace_back(columns()[size_t(numeric[k])], b.finish());
  }
  return DataFrame(std::move(out));
}

DataFrame concat(const std::vector<DataFrame>& frames) {
  EMBER_CHECK(!frames.empty(), "concat: no frames to concatenate");
  const DataFrame& f0 = frames[0];
  const std::vector<std::string>& names = f0.columns();
  for (size_t k = 1; k < frames.size(); ++k) {
    const DataFrame& f = frames[k];
    for (const std::string& n : names)
      EMBER_CHECK(f.has_column(n), "concat: frame ", k, " has no column '", n, "' (frame 0 has ", quoted_names(names),
                  "; frame ", k, " has ", quoted_names(f.columns()), ")");
    for (const std::string& n : f.columns())
      EMBER_CHECK(f0.has_column(n), "concat: frame ", k, " has a column '", n, "' that frame 0 lacks (frame 0 has ",
                  quoted_names(names), ")");
    for (const std::string& n : names)
      EMBER_CHECK_TYPE(f[n].dtype().equals(f0[n].dtype(), false), "concat: column '", n, "' has dtype ",
                       f0[n].dtype().to_string(), " in frame 0 but ", f[n].dtype().to_string(), " in frame ", k);
  }
  if (names.empty()) return DataFrame();
  std::vector<std::pair<std::string, Column>> out;
  for (const std::string& n : names) {
    std::vector<Column> parts;
    for (const DataFrame& f : frames) parts.push_back(f[n]);
    out.emplace_back(n, relational::concat(parts, "concat"));
  }
  return DataFrame(std::move(out));
}

}  // namespace ember::frame
