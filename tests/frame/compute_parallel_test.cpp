// The kernels' parallel paths (inputs of several parallel chunks, lengths that are not a
// multiple of 64, slices at odd offsets) against plain loops over the same values.
#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "ember/frame/compute/compute.h"
#include "ember/frame/frame.h"
#include "test_util.h"

namespace ember::frame {
namespace {

constexpr int64_t kRows = 300007;
constexpr int64_t kOffset = 5;  // the columns are slices starting here

struct Data {
  std::vector<std::optional<int64_t>> a, b;
  std::vector<std::optional<double>> x;
  std::vector<std::optional<bool>> m;
  std::vector<std::optional<std::string>> s;
  Column ca, cb, cx, cm, cs;
};

template <class T>
Column sliced(const std::vector<std::optional<T>>& v) {
  std::vector<std::optional<T>> padded(size_t(kOffset), std::nullopt);
  padded.insert(padded.end(), v.begin(), v.end());
  padded.push_back(std::nullopt);
  return column(padded).slice(kOffset, int64_t(v.size()));
}

const Data& data() {
  static Data* d = [] {
    auto* d = new Data;
    std::mt19937_64 rng(42);
    const char* pieces[] = {"abc", "XyZ", "Q", "", "é", "ÉCOLE", "12", " "};
    for (int64_t i = 0; i < kRows; ++i) {
      auto null = [&](int p) { return int(rng() % 100) < p; };
      d->a.push_back(null(10) ? std::nullopt : std::optional<int64_t>(int64_t(rng() % 2001) - 1000));
      d->b.push_back(null(5) ? std::nullopt : std::optional<int64_t>(int64_t(rng() % 2001) - 1000));
      d->x.push_back(null(10) ? std::nullopt : std::optional<double>(double(int64_t(rng() % 20001) - 10000) / 7.0));
      d->m.push_back(null(10) ? std::nullopt : std::optional<bool>(rng() % 2 == 0));
      if (null(10)) {
        d->s.push_back(std::nullopt);
      } else {
        std::string v;
        for (int k = int(rng() % 4); k > 0; --k) v += pieces[rng() % (i < kRows / 2 ? 4 : 8)];
        d->s.push_back(v);
      }
    }
    d->ca = sliced(d->a);
    d->cb = sliced(d->b);
    d->cx = sliced(d->x);
    d->cm = sliced(d->m);
    d->cs = sliced(d->s);
    return d;
  }();
  return *d;
}

TEST(ComputeParallel, ElementwiseMatchesLoops) {
  const Data& d = data();
  const Column sum = d.ca + d.cb;
  const Column lt = d.ca < d.cb;
  const Column mixed = d.ca * d.cx;
  const Column logic = (d.ca > 0) & d.cm;
  const Column nulls = d.ca.is_null();
  for (int64_t i = 0; i < kRows; ++i) {
    const auto& a = d.a[size_t(i)];
    const auto& b = d.b[size_t(i)];
    const auto& x = d.x[size_t(i)];
    const auto& m = d.m[size_t(i)];
    ASSERT_EQ(sum.get<int64_t>(i), a && b ? std::optional<int64_t>(*a + *b) : std::nullopt) << i;
    ASSERT_EQ(lt.get<bool>(i), a && b ? std::optional<bool>(*a < *b) : std::nullopt) << i;
    ASSERT_EQ(mixed.get<double>(i), a && x ? std::optional<double>(double(*a) * *x) : std::nullopt) << i;
    std::optional<bool> want;
    if (a && *a <= 0) want = false;
    else if (m && !*m) want = false;
    else if (a && m) want = true;
    ASSERT_EQ(logic.get<bool>(i), want) << i;
    ASSERT_EQ(nulls.get<bool>(i), !a.has_value()) << i;
  }
}

TEST(ComputeParallel, SelectionMatchesLoops) {
  const Data& d = data();
  std::vector<std::optional<double>> want;
  std::vector<std::optional<std::string>> want_s;
  for (int64_t i = 0; i < kRows; ++i)
    if (d.m[size_t(i)].value_or(false)) {
      want.push_back(d.x[size_t(i)]);
      want_s.push_back(d.s[size_t(i)]);
    }
  EXPECT_TRUE(d.cx.filter(d.cm) == column(want));
  EXPECT_TRUE(d.cs.filter(d.cm) == column(want_s));
  const Column dense = d.cx.fill_null(0.0);
  std::vector<double> want_dense;
  for (int64_t i = 0; i < kRows; ++i)
    if (d.m[size_t(i)].value_or(false)) want_dense.push_back(d.x[size_t(i)].value_or(0.0));
  EXPECT_TRUE(dense.filter(d.cm) == column(want_dense));
  std::vector<int64_t> idx;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) idx.push_back(int64_t(rng() % uint64_t(2 * kRows)) - kRows);
  const Column t = take(d.cs, idx);
  for (size_t i = 0; i < idx.size(); ++i) {
    const int64_t j = idx[i] < 0 ? idx[i] + kRows : idx[i];
    ASSERT_EQ(t.get_value(int64_t(i)), Value(d.s[size_t(j)])) << i;
  }
  const Column halves = concat({d.cs.slice(0, kRows / 3), d.cs.slice(kRows / 3, kRows - kRows / 3)});
  EXPECT_TRUE(halves == d.cs);
}

TEST(ComputeParallel, AggregationsMatchLoops) {
  const Data& d = data();
  int64_t isum = 0, n = 0;
  long double fsum = 0;
  int64_t fn = 0;
  for (const auto& a : d.a)
    if (a) isum += *a, ++n;
  for (const auto& x : d.x)
    if (x) fsum += *x, ++fn;
  EXPECT_EQ(d.ca.sum(), Value(isum));
  EXPECT_EQ(d.ca.count(), n);
  const double mean = double(fsum / fn);
  EXPECT_NEAR(d.cx.mean(), mean, 1e-12 * std::fabs(mean) + 1e-12);
  long double ss = 0;
  for (const auto& x : d.x)
    if (x) ss += (*x - (long double)mean) * (*x - (long double)mean);
  const double var = double(ss / (fn - 1));
  EXPECT_NEAR(d.cx.var(), var, 1e-12 * var);
  const Column cs = d.ca.cumsum();
  int64_t run = 0;
  for (int64_t i = 0; i < kRows; ++i) {
    const auto& a = d.a[size_t(i)];
    if (a) run += *a;
    ASSERT_EQ(cs.get<int64_t>(i), a ? std::optional<int64_t>(run) : std::nullopt) << i;
  }
  std::set<int64_t> distinct;
  for (const auto& a : d.a)
    if (a) distinct.insert(*a);
  EXPECT_EQ(d.ca.nunique(), int64_t(distinct.size()));
  EXPECT_EQ(d.ca.unique().size(), int64_t(distinct.size()) + 1);
}

TEST(ComputeParallel, SortMatchesStableSort) {
  const Data& d = data();
  std::vector<int64_t> order(static_cast<size_t>(kRows));
  for (int64_t i = 0; i < kRows; ++i) order[size_t(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
    const auto& a = d.a[size_t(i)];
    const auto& b = d.a[size_t(j)];
    if (!a || !b) return a.has_value() && !b.has_value();  // nulls last
    return *a > *b;
  });
  const Column got = d.ca.argsort(SortOptions{false, false});
  for (int64_t i = 0; i < kRows; ++i) ASSERT_EQ(got.get<int64_t>(i), order[size_t(i)]) << i;
  for (int64_t i = 0; i < kRows; ++i) order[size_t(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
    const auto& a = d.s[size_t(i)];
    const auto& b = d.s[size_t(j)];
    if (!a || !b) return !a.has_value() && b.has_value();  // nulls first
    return *a < *b;
  });
  const Column got_s = d.cs.argsort(SortOptions{true, true});
  for (int64_t i = 0; i < kRows; ++i) ASSERT_EQ(got_s.get<int64_t>(i), order[size_t(i)]) << i;
}

TEST(ComputeParallel, StringsMatchLoops) {
  const Data& d = data();
  // The first half is ASCII only (the byte-wise path for a slice of it), the second is not.
  const Column ascii = d.cs.slice(3, kRows / 2 - 10);
  const Column lower_ascii = ascii.str().lower();
  for (int64_t i = 0; i < ascii.size(); ++i) {
    const auto& s = d.s[size_t(i + 3)];
    std::optional<std::string> want;
    if (s) {
      want = *s;
      for (char& c : *want) c = char(std::tolower(static_cast<unsigned char>(c)));
    }
    ASSERT_EQ(lower_ascii.get_value(i), Value(want)) << i;
  }
  const Column upper = d.cs.str().upper();
  const Column lens = d.cs.str().length();
  const Column nums = d.ca.cast(dtypes::String(true));
  for (int64_t i = 0; i < kRows; ++i) {
    const auto& s = d.s[size_t(i)];
    std::optional<std::string> want;
    int64_t cps = 0;
    if (s) {
      want = "";
      for (size_t k = 0; k < s->size(); ++k) {
        if (s->compare(k, 2, "é") == 0) {
          *want += "É";
          ++k;
        } else {
          *want += char(std::toupper(static_cast<unsigned char>((*s)[k])));
        }
      }
      for (unsigned char c : *s) cps += (c & 0xC0) != 0x80;
    }
    ASSERT_EQ(upper.get_value(i), Value(want)) << i;
    ASSERT_EQ(lens.get_value(i), s ? Value(cps) : Value()) << i;
    const auto& a = d.a[size_t(i)];
    ASSERT_EQ(nums.get_value(i), a ? Value(std::to_string(*a)) : Value()) << i;
  }
  EXPECT_NO_THROW(upper.data()->validate(ValidateOptions{true}));
}

}  // namespace
}  // namespace ember::frame
