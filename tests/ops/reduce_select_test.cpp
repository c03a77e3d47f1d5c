// Tests of median/nanmedian, mode, quantile/nanquantile (values checked against PyTorch 1.13
// and naive references) and isclose/allclose/equal.
#include <algorithm>
#include <limits>

#include "ops_test_util.h"
#include "reduce_ref.h"

namespace ember::test {
namespace {

double ref_lower_median(const std::vector<double>& v) {
  std::vector<double> s = v;
  for (double a : s) if (std::isnan(a)) return kNaN;
  std::sort(s.begin(), s.end());
  return s[(s.size() - 1) / 2];
}

TEST(ReduceMedian, ValuesAndIndicesAgainstReference) {
  for (ScalarType dt : {kFloat, kDouble, kInt, kLong, kHalf, kChar}) {
    for (const auto& layout : all_layouts()) {
      Tensor x = make_input({5, 6, 7}, dt, layout);
      EXPECT_EQ(x.median().to(kDouble).item<double>(), ref_lower_median(values_of(x)));
      for (int64_t d : {0, 1, 2, -1}) {
        for (bool keepdim : {false, true}) {
          auto [v, i] = x.median(d, keepdim);
          ASSERT_EQ(v.scalar_type(), dt);
          ASSERT_EQ(i.scalar_type(), kLong);
          EXPECT_TENSOR_EQ(v.to(kDouble), ref_reduce(x, {d}, keepdim, ref_lower_median)) << dt << layout << d;
          // The index points at an element equal to the median.
          Tensor ik = keepdim ? i : i.unsqueeze(d < 0 ? d + 3 : d);
          Tensor vk = keepdim ? v : v.unsqueeze(d < 0 ? d + 3 : d);
          EXPECT_TENSOR_EQ(gather(x, d, ik), vk);
        }
      }
    }
  }
}

TEST(ReduceMedian, NaNsEmptyAndErrors) {
  Tensor a = tensor({3.0, kNaN, 1.0, 2.0, kNaN});
  EXPECT_TRUE(std::isnan(a.median().item<double>()));
  EXPECT_EQ(a.nanmedian().item<double>(), 2.0);
  auto [v, i] = a.median(0);
  EXPECT_TRUE(std::isnan(v.item<double>()));
  EXPECT_EQ(i.item<int64_t>(), 1);  // the first NaN, as PyTorch
  auto [nv, ni] = a.nanmedian(0);
  EXPECT_EQ(nv.item<double>(), 2.0);
  EXPECT_EQ(ni.item<int64_t>(), 3);
  auto [av, ai] = tensor({kNaN, kNaN}).nanmedian(0);
  EXPECT_TRUE(std::isnan(av.item<double>()));
  EXPECT_EQ(ai.item<int64_t>(), 0);
  EXPECT_TRUE(std::isnan(tensor({kNaN, kNaN}).nanmedian().item<double>()));
  EXPECT_EQ(tensor({1.0, 2.0, 3.0, 4.0}).median().item<double>(), 2.0);  // lower median
  Tensor e = empty({0, 3}, TensorOptions().dtype(kFloat));
  EXPECT_TRUE(std::isnan(e.median().item<double>()));
  EXPECT_ERROR_WITH(e.median(0), "median(): Expected reduction dim 0 to have non-zero size.");
  auto [ev, ei] = e.median(1);
  EXPECT_EQ(ev.numel(), 0);
  EXPECT_ERROR_WITH(empty({0}, TensorOptions().dtype(kLong)).median(), "median");
  EXPECT_ERROR_WITH(crandn({3}).median(), "median");
  EXPECT_EQ(scalar_tensor(5.0).median().item<double>(), 5.0);
  auto [sv, si] = scalar_tensor(5.0).median(0);
  EXPECT_EQ(si.item<int64_t>(), 0);
}

TEST(ReduceMode, MostFrequentSmallestValueLastIndex) {
  // Values checked against PyTorch 1.13.
  auto check = [](std::vector<int64_t> data, int64_t value, int64_t index) {
    auto [v, i] = tensor(data).mode(0);
    EXPECT_EQ(v.item<int64_t>(), value);
    EXPECT_EQ(i.item<int64_t>(), index);
  };
  check({1, 2, 2, 1, 3, 3}, 1, 3);
  check({5, 2, 2, 5, 3, 3, 5}, 5, 6);
  check({3, 1, 2, 1, 3}, 1, 3);
  auto [bv, bi] = tensor({true, false, true}).mode();
  EXPECT_EQ(bv.item<bool>(), true);
  EXPECT_EQ(bi.item<int64_t>(), 2);
  // Against a reference along each dim.
  for (ScalarType dt : {kInt, kFloat, kLong}) {
    for (const auto& layout : all_layouts()) {
      Tensor x = make_input({4, 9, 5}, dt, layout);
      for (int64_t d : {0, 1, 2}) {
        auto [v, i] = x.mode(d, true);
        EXPECT_TENSOR_EQ(v.to(kDouble), ref_reduce(x, {d}, true, [](const std::vector<double>& a) {
          std::vector<double> s = a;
          std::sort(s.begin(), s.end());
          double best = s[0];
          size_t cnt = 0;
          for (size_t k = 0; k < s.size();) {
            size_t j = k;
            while (j < s.size() && s[j] == s[k]) ++j;
            if (j - k > cnt) { cnt = j - k; best = s[k]; }
            k = j;
          }
          return best;
        }));
        EXPECT_TENSOR_EQ(i.to(kDouble), ref_reduce(x, {d}, true, [](const std::vector<double>& a) {
          std::vector<double> s = a;
          std::sort(s.begin(), s.end());
          double best = s[0];
          size_t cnt = 0;
          for (size_t k = 0; k < s.size();) {
            size_t j = k;
            while (j < s.size() && s[j] == s[k]) ++j;
            if (j - k > cnt) { cnt = j - k; best = s[k]; }
            k = j;
          }
          double last = 0;
          for (size_t k = 0; k < a.size(); ++k) if (a[k] == best) last = double(k);
          return last;
        }));
      }
    }
  }
  Tensor e = empty({0, 3}, TensorOptions().dtype(kFloat));
  EXPECT_ERROR_WITH(e.mode(0), "mode(): Expected reduction dim 0 to have non-zero size.");
  EXPECT_EQ(std::get<0>(e.mode(1)).numel(), 0);
  EXPECT_EQ(std::get<1>(scalar_tensor(3.0).mode(0)).item<int64_t>(), 0);
}

TEST(ReduceQuantile, InterpolationsAgainstPyTorch) {
  Tensor x = tensor({1.0, 2.0, 3.0, 4.0});
  Tensor qs = tensor({0.0, 0.25, 0.5, 0.8, 1.0});
  EXPECT_TENSOR_EQ(x.quantile(qs, std::nullopt, false, "nearest"), tensor({1.0, 2.0, 3.0, 3.0, 4.0}));
  Tensor five = tensor({1.0, 2.0, 3.0, 4.0, 5.0});
  EXPECT_TENSOR_EQ(five.quantile(tensor({0.125, 0.375, 0.625, 0.875}), std::nullopt, false, "nearest"),
                   tensor({1.0, 3.0, 3.0, 5.0}));  // round half to even
  Tensor q33 = tensor({0.33});
  EXPECT_TENSOR_EQ(x.quantile(q33, std::nullopt, false, "lower"), tensor({1.0}));
  EXPECT_TENSOR_EQ(x.quantile(q33, std::nullopt, false, "higher"), tensor({2.0}));
  EXPECT_TENSOR_EQ(x.quantile(q33, std::nullopt, false, "midpoint"), tensor({1.5}));
  EXPECT_TENSOR_CLOSE(x.quantile(q33), tensor({1.99}));
  Tensor m = tensor({{1.0, 2.0}, {3.0, 4.0}});
  Tensor r = m.quantile(tensor({0.33, 0.5}), 1, true);
  ASSERT_EQ(r.sizes(), IntArrayRef({2, 2, 1}));
  EXPECT_TENSOR_CLOSE(r, tensor({{{1.33}, {3.33}}, {{1.5}, {3.5}}}));
  EXPECT_TENSOR_EQ(m.quantile(0.5, 1, true), tensor({{1.5}, {3.5}}));
  EXPECT_TENSOR_EQ(m.quantile(0.5, std::nullopt, true), tensor({{2.5}}));
  EXPECT_TENSOR_EQ(m.quantile(scalar_tensor(0.5, TensorOptions().dtype(kFloat)), std::nullopt, true), tensor({{2.5}}));
  EXPECT_EQ(m.quantile(tensor(std::vector<double>{}).to(kFloat)).numel(), 0);
  EXPECT_EQ(scalar_tensor(5.0, TensorOptions().dtype(kFloat)).quantile(0.3).item<double>(), 5.0);
  EXPECT_TENSOR_CLOSE(tensor({1.0, 2.0}).quantile(scalar_tensor(0.3, TensorOptions().dtype(kFloat)), 0, true),
                      tensor({1.3}));
  // NaN: quantile propagates it, nanquantile ignores it.
  Tensor n = tensor({kNaN, 1.0, 2.0});
  EXPECT_TRUE(std::isnan(n.quantile(0.5).item<double>()));
  EXPECT_TENSOR_EQ(n.nanquantile(tensor({0.0, 0.5, 1.0})), tensor({1.0, 1.5, 2.0}));
  EXPECT_TRUE(std::isnan(tensor({kNaN, kNaN}).nanquantile(0.5).item<double>()));
}

TEST(ReduceQuantile, LinearAgainstReferenceAndErrors) {
  for (ScalarType dt : {kFloat, kDouble}) {
    for (const auto& layout : all_layouts()) {
      Tensor x = make_input({4, 7, 6}, dt, layout);
      for (int64_t d : {0, 1, 2}) {
        for (double q : {0.0, 0.1, 0.5, 0.77, 1.0}) {
          Tensor r = x.quantile(q, d);
          EXPECT_TENSOR_CLOSE(r.to(kDouble), ref_reduce(x, {d}, false, [q](const std::vector<double>& a) {
            std::vector<double> s = a;
            std::sort(s.begin(), s.end());
            double rank = q * (s.size() - 1);
            size_t lo = size_t(std::floor(rank)), hi = size_t(std::ceil(rank));
            return s[lo] + (rank - lo) * (s[hi] - s[lo]);
          }), dt == kFloat ? 1e-5 : 1e-12, dt == kFloat ? 1e-5 : 1e-12);
        }
      }
    }
  }
  Tensor f = randn({2, 3}, TensorOptions().dtype(kFloat));
  EXPECT_ERROR_WITH(f.quantile(1.5), "quantile() q must be in the range [0, 1] but got 1.5");
  EXPECT_ERROR_WITH(f.quantile(tensor({0.5, 2.0}).to(kFloat)), "quantile() q values must be in the range [0, 1]");
  EXPECT_ERROR_WITH(f.quantile(tensor({0.5}).to(kDouble)), "quantile() q tensor must be same dtype as the input tensor");
  EXPECT_ERROR_WITH(f.quantile(tensor({{0.5}}).to(kFloat)), "quantile() q must be a scalar or 1D tensor");
  EXPECT_ERROR_WITH(f.quantile(0.5, std::nullopt, false, "foo"),
                    "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got foo");
  EXPECT_ERROR_WITH(tensor({1, 2}).quantile(0.5), "quantile() input tensor must be either float or double dtype");
  EXPECT_ERROR_WITH(empty({0}, TensorOptions().dtype(kFloat)).quantile(0.5), "quantile() input tensor must be non-empty");
  EXPECT_ERROR_WITH(f.quantile(0.5, 5), "out of range");
  EXPECT_ERROR_WITH(f.nanquantile(1.5), "quantile() q must be in the range [0, 1] but got 1.5");
}

// ---- isclose, allclose, equal -----------------------------------------------------------------
TEST(ReduceCompare, IsCloseAllCloseEqual) {
  Tensor a = tensor({kInf, kNaN, 1.0, 1.0, -kInf, 0.0});
  Tensor b = tensor({kInf, kNaN, 1.0000001, 1.1, kInf, 1e-9});
  EXPECT_TENSOR_EQ(isclose(a, b), tensor({true, false, true, false, false, true}));
  EXPECT_TENSOR_EQ(isclose(a, b, 1e-5, 1e-8, true), tensor({true, true, true, false, false, true}));
  EXPECT_TENSOR_EQ(isclose(a, b, 0, 0), tensor({true, false, false, false, false, false}));
  EXPECT_TENSOR_EQ(a.isclose(b, 0.2), tensor({true, false, true, true, false, true}));
  // Integers compare without wrapping.
  Tensor u = tensor({1, 2}, TensorOptions().dtype(kByte)), v = tensor({2, 1}, TensorOptions().dtype(kByte));
  EXPECT_TENSOR_EQ(isclose(u, v, 0, 1), tensor({true, true}));
  EXPECT_TENSOR_EQ(isclose(u, v, 0, 0.5), tensor({false, false}));
  Tensor c = crandn({4});
  EXPECT_TRUE(all(isclose(c, c)).item<bool>());
  EXPECT_TRUE(allclose(c, c));
  EXPECT_TRUE(isclose(tensor({true}), tensor({true})).item<bool>());
  EXPECT_ERROR_WITH(isclose(tensor({1, 2}), tensor({1.0, 2.0})), "Long did not match Float");
  EXPECT_ERROR_WITH(allclose(tensor({1, 2}), tensor({1.0, 2.0})), "Long did not match Float");
  EXPECT_ERROR_WITH(isclose(a, a, -1), "rtol must be greater than or equal to zero, but got -1");
  EXPECT_ERROR_WITH(isclose(a, a, 1e-5, -1), "atol must be greater than or equal to zero, but got -1");
  Tensor x = randn({3, 4});
  EXPECT_TRUE(allclose(x, add(x, 1e-9)));
  EXPECT_FALSE(allclose(x, add(x, 1e-3)));
  EXPECT_TRUE(x.allclose(x.t().contiguous().t()));
  EXPECT_FALSE(allclose(tensor({kNaN}), tensor({kNaN})));
  EXPECT_TRUE(allclose(tensor({kNaN}), tensor({kNaN}), 1e-5, 1e-8, true));

  Tensor i = tensor({1, 2, 3});
  EXPECT_TRUE(equal(i, i.to(kFloat)));  // values compare after promotion, as PyTorch 1.13
  EXPECT_FALSE(equal(i, tensor({1, 2, 4})));
  EXPECT_FALSE(equal(i, i.reshape({1, 3})));
  EXPECT_FALSE(equal(tensor({kNaN}), tensor({kNaN})));
  EXPECT_TRUE(equal(empty({0}), empty({0})));
  EXPECT_TRUE(x.equal(x.t().contiguous().t()));
  EXPECT_TRUE(x.equal(x.clone()));
}

}  // namespace
}  // namespace ember::test
