// Aggregations over one column (nulls skipped): sum, mean, min, max, var/std, median,
// quantile, count, any/all, argmin/argmax, and the running sum cumsum.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "ember/frame/compute/compute.h"
#include "ember/frame/compute/kernels.h"

namespace ember::frame {

using namespace compute_detail;

namespace {

constexpr int kLanes = 8;

void check_numeric(const char* op, const Column& c) {
  const TypeId id = c.dtype().id();
  if (!(c.dtype().is_numeric() || id == TypeId::Bool)) unsupported(op, c, "a numeric or boolean column");
}

// Sum of f(x) over the valid elements of `a` (type T) in chunks, accumulating in A. Within a
// chunk, kLanes independent accumulators (vectorizable without reassociation).
template <class T, class A, class F>
A reduce_sum(const ArrayData& a, const F& f) {
  const int64_t n = a.length;
  const T* p = values_of<T>(a);
  const bool has_nulls = a.validity() != nullptr && a.null_count() > 0;
  const int64_t nw = num_words(n);
  const int64_t chunk_words = std::max<int64_t>(1, (int64_t(1) << 14) / 64);
  const int64_t nchunks = std::max<int64_t>(1, (nw + chunk_words - 1) / chunk_words);
  std::vector<A> partial(size_t(nchunks), A(0));
  parallel_for(0, nchunks, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t ch = cb; ch < ce; ++ch) {
      A lanes[kLanes] = {};
      const int64_t kb = ch * chunk_words, ke = std::min(nw, kb + chunk_words);
      for (int64_t k = kb; k < ke; ++k) {
        const int64_t base = k * 64;
        const int m = int(std::min<int64_t>(64, n - base));
        const uint64_t valid = has_nulls ? validity_word(a, k) : ~uint64_t(0);
        if (m == 64 && valid == ~uint64_t(0)) {
          for (int j = 0; j < 64; j += kLanes)
            for (int l = 0; l < kLanes; ++l) lanes[l] = A(lanes[l] + f(p[base + j + l]));
        } else {
          for (int j = 0; j < m; ++j)
            if ((valid >> j) & 1) lanes[j % kLanes] = A(lanes[j % kLanes] + f(p[base + j]));
        }
      }
      A s = 0;
      for (int l = 0; l < kLanes; ++l) s = A(s + lanes[l]);
      partial[size_t(ch)] = s;
    }
  });
  // Pairwise over the chunks keeps float error growth logarithmic.
  while (partial.size() > 1) {
    std::vector<A> next((partial.size() + 1) / 2);
    for (size_t i = 0; i < next.size(); ++i)
      next[i] = 2 * i + 1 < partial.size() ? A(partial[2 * i] + partial[2 * i + 1]) : partial[2 * i];
    partial.swap(next);
  }
  return partial.empty() ? A(0) : partial[0];
}

// Wrapping integer sums accumulate in uint64 (two's complement gives the int64 sum).
template <class T>
uint64_t int_sum(const ArrayData& a) {
  return reduce_sum<T, uint64_t>(a, [](T x) { return uint64_t(int64_t(x)); });
}

int64_t count_true(const ArrayData& a) {
  int64_t c = 0;
  for (int64_t k = 0; k < num_words(a.length); ++k) c += std::popcount(bool_word(a, k) & validity_word(a, k));
  return c;
}

double sum_as_double(const ArrayData& a) {
  if (a.type.id() == TypeId::Bool) return double(count_true(a));
  return visit_primitive(a.type.id(), [&](auto tag) -> double {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) return 0;
    else return reduce_sum<T, double>(a, [](T x) { return double(x); });
  });
}

// Valid, non-NaN values as doubles.
std::vector<double> valid_doubles(const ArrayData& a, bool skip_nan) {
  std::vector<double> v;
  v.reserve(size_t(a.length - a.null_count()));
  if (a.type.id() == TypeId::Bool) {
    for (int64_t i = 0; i < a.length; ++i)
      if (a.is_valid(i)) v.push_back(bits::get(a.buffers[1].data(), a.offset + i) ? 1.0 : 0.0);
    return v;
  }
  visit_primitive(a.type.id(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      const T* p = values_of<T>(a);
      for (int64_t i = 0; i < a.length; ++i) {
        if (!a.is_valid(i)) continue;
        if (skip_nan && std::isnan(double(p[i]))) continue;
        v.push_back(double(p[i]));
      }
    }
  });
  return v;
}

// numpy's _lerp (exact at both ends, monotonic).
double lerp(double a, double b, double t) {
  const double d = b - a;
  return t >= 0.5 ? b - d * (1 - t) : a + d * t;
}

double quantile_of(std::vector<double>& v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double idx = q * double(v.size() - 1);
  const size_t lo = size_t(std::floor(idx));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  std::nth_element(v.begin(), v.begin() + lo, v.end());
  const double a = v[lo];
  double b = a;
  if (hi != lo) b = *std::min_element(v.begin() + lo + 1, v.end());
  return lerp(a, b, idx - double(lo));
}

// Index of the first extreme valid element (less: minimum), NaN skipped; -1 if none.
template <class T, class Less>
int64_t extreme_index(const ArrayData& a, const T* p, const Less& better) {
  int64_t best = -1;
  for (int64_t i = 0; i < a.length; ++i) {
    if (!a.is_valid(i)) continue;
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(p[i])) continue;
    if (best < 0 || better(p[i], p[best])) best = i;
  }
  return best;
}

// Index of the minimum (or maximum) for any orderable type; -1 when there is none.
// all_nan is set when every valid element is NaN.
int64_t extreme(const char* op, const Column& c, bool want_min, bool* all_nan = nullptr) {
  const ArrayData& a = *c.data();
  const TypeId id = a.type.id();
  if (all_nan) *all_nan = false;
  auto better = [want_min](const auto& x, const auto& y) { return want_min ? x < y : y < x; };
  if (a.type.is_binary_like()) {
    const StringAccess s = string_access(a);
    int64_t best = -1;
    for (int64_t i = 0; i < a.length; ++i)
      if (a.is_valid(i) && (best < 0 || better(s.get(i), s.get(best)))) best = i;
    return best;
  }
  if (id == TypeId::Bool) {
    int64_t best = -1;
    for (int64_t i = 0; i < a.length; ++i) {
      if (!a.is_valid(i)) continue;
      const bool x = bits::get(a.buffers[1].data(), a.offset + i);
      if (best < 0 || better(x, bits::get(a.buffers[1].data(), a.offset + best))) best = i;
    }
    return best;
  }
  if (!(a.type.is_numeric() || id == TypeId::Date32 || id == TypeId::Timestamp))
    unsupported(op, c, "a numeric, boolean, string, date or timestamp column");
  return visit_primitive(id, [&](auto tag) -> int64_t {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return -1;
    } else {
      const T* p = values_of<T>(a);
      const int64_t r = extreme_index(a, p, better);
      if constexpr (std::is_floating_point_v<T>)
        if (r < 0 && all_nan) *all_nan = a.length > a.null_count();
      return r;
    }
  });
}

Value value_of(const Column& c, int64_t i) {
  const ArrayData& a = *c.data();
  if (a.type.id() == TypeId::Date32) return Value(int64_t(values_of<int32_t>(a)[i]));
  if (a.type.id() == TypeId::Timestamp) return Value(values_of<int64_t>(a)[i]);
  return c.get_value(i);
}

Value min_max(const char* op, const Column& col, bool want_min) {
  const Column c = decoded(col);
  bool all_nan = false;
  const int64_t i = extreme(op, c, want_min, &all_nan);
  if (i < 0) return all_nan ? Value(std::numeric_limits<double>::quiet_NaN()) : Value();
  return value_of(c, i);
}

}  // namespace

Value sum(const Column& col) {
  const Column c = decoded(col);
  check_numeric("sum", c);
  const ArrayData& a = *c.data();
  const TypeId id = a.type.id();
  if (id == TypeId::Bool) return Value(count_true(a));
  if (a.type.is_floating()) return Value(sum_as_double(a));
  return visit_primitive(id, [&](auto tag) -> Value {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool> || std::is_floating_point_v<T>) {
      return Value();
    } else if constexpr (std::is_unsigned_v<T>) {
      return Value(reduce_sum<T, uint64_t>(a, [](T x) { return uint64_t(x); }));
    } else {
      return Value(int64_t(int_sum<T>(a)));
    }
  });
}

int64_t count(const Column& c) { return c.size() - c.null_count(); }

double mean(const Column& col) {
  const Column c = decoded(col);
  check_numeric("mean", c);
  const int64_t n = count(c);
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  return sum_as_double(*c.data()) / double(n);
}

double var(const Column& col, int64_t ddof) {
  const Column c = decoded(col);
  check_numeric("var", c);
  EMBER_CHECK(ddof >= 0, "var: ddof must be non-negative, got ", ddof);
  const ArrayData& a = *c.data();
  const int64_t n = count(c);
  if (n <= ddof) return std::numeric_limits<double>::quiet_NaN();
  const double m = sum_as_double(a) / double(n);
  double ss;
  if (a.type.id() == TypeId::Bool) {
    const double t = double(count_true(a));
    ss = t * (1 - m) * (1 - m) + double(n - int64_t(t)) * m * m;
  } else {
    ss = visit_primitive(a.type.id(), [&](auto tag) -> double {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, bool>) return 0;
      else return reduce_sum<T, double>(a, [m](T x) { const double d = double(x) - m; return d * d; });
    });
  }
  return ss / double(n - ddof);
}

double stddev(const Column& c, int64_t ddof) {
  const double v = var(c, ddof);
  return std::sqrt(v);
}

double quantile(const Column& col, double q) {
  const Column c = decoded(col);
  check_numeric("quantile", c);
  EMBER_CHECK(q >= 0 && q <= 1, "quantile: q must be in [0, 1], got ", q);
  std::vector<double> v = valid_doubles(*c.data(), true);
  return quantile_of(v, q);
}

std::vector<double> quantile(const Column& col, const std::vector<double>& qs) {
  const Column c = decoded(col);
  check_numeric("quantile", c);
  for (double q : qs) EMBER_CHECK(q >= 0 && q <= 1, "quantile: q must be in [0, 1], got ", q);
  std::vector<double> v = valid_doubles(*c.data(), true);
  std::vector<double> out;
  for (double q : qs) out.push_back(quantile_of(v, q));
  return out;
}

double median(const Column& c) {
  const Column d = decoded(c);
  check_numeric("median", d);
  return quantile(d, 0.5);
}

Value min(const Column& c) { return min_max("min", c, true); }
Value max(const Column& c) { return min_max("max", c, false); }

int64_t argmin(const Column& col) {
  const Column c = decoded(col);
  const int64_t i = extreme("argmin", c, true);
  EMBER_CHECK(i >= 0, "argmin: the column has no valid (non-null, non-NaN) values (length ", c.size(), ")");
  return i;
}

int64_t argmax(const Column& col) {
  const Column c = decoded(col);
  const int64_t i = extreme("argmax", c, false);
  EMBER_CHECK(i >= 0, "argmax: the column has no valid (non-null, non-NaN) values (length ", c.size(), ")");
  return i;
}

namespace {
bool any_all(const char* op, const Column& col, bool want_any) {
  const Column c = decoded(col);
  check_numeric(op, c);
  const ArrayData& a = *c.data();
  if (a.type.id() == TypeId::Bool) {
    const int64_t t = count_true(a);
    return want_any ? t > 0 : t == count(c);
  }
  return visit_primitive(a.type.id(), [&](auto tag) -> bool {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return false;
    } else {
      const T* p = values_of<T>(a);
      for (int64_t i = 0; i < a.length; ++i) {
        if (!a.is_valid(i)) continue;
        const bool truth = p[i] != T(0);  // NaN is true, as bool(nan) in Python
        if (want_any && truth) return true;
        if (!want_any && !truth) return false;
      }
      return !want_any;
    }
  });
}
}  // namespace

bool any(const Column& c) { return any_all("any", c, true); }
bool all(const Column& c) { return any_all("all", c, false); }

Column cumsum(const Column& col) {
  const Column c = decoded(col);
  check_numeric("cumsum", c);
  const ArrayData& a = *c.data();
  const int64_t n = a.length;
  const Validity v = validity_of(a);
  const bool nullable = c.dtype().nullable();
  const TypeId id = a.type.id();
  auto run = [&](auto acc_tag, TypeId out_id, auto read) {
    using A = decltype(acc_tag);
    MutableBuffer out = allocate(n * int64_t(sizeof(A)));
    A* o = out.as<A>();
    A s = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (a.is_valid(i)) {
        if constexpr (std::is_floating_point_v<A>) s = A(s + read(i));
        else s = A(uint64_t(s) + uint64_t(read(i)));
        o[i] = s;
      } else {
        o[i] = 0;
      }
    }
    return make_fixed(DType(out_id, nullable), n, out.buffer, v);
  };
  if (id == TypeId::Bool) {
    const uint8_t* bm = a.buffers[1].data();
    return run(int64_t{}, TypeId::Int64, [&](int64_t i) { return int64_t(bits::get(bm, a.offset + i)); });
  }
  return visit_primitive(id, [&](auto tag) -> Column {
    using T = decltype(tag);
    const T* p = values_of<T>(a);
    if constexpr (std::is_same_v<T, bool>) return Column();
    else if constexpr (std::is_floating_point_v<T>) return run(T{}, id, [&](int64_t i) { return p[i]; });
    else if constexpr (std::is_unsigned_v<T>) return run(uint64_t{}, TypeId::UInt64, [&](int64_t i) { return uint64_t(p[i]); });
    else return run(int64_t{}, TypeId::Int64, [&](int64_t i) { return int64_t(p[i]); });
  });
}

}  // namespace ember::frame
