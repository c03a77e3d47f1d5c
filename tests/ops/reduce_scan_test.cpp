// Tests of cumsum/cumprod (+ in-place), cummax/cummin, logcumsumexp, softmax and log_softmax
// against naive double-precision references along every dim, across dtypes and layouts.
#include "ops_test_util.h"
#include "reduce_ref.h"

namespace ember::test {
namespace {

double scan_rtol_for(ScalarType dt) {
  return dt == kHalf ? 3e-3 : dt == kBFloat16 ? 2e-2 : dt == kFloat ? 2e-5 : 1e-10;
}
double scan_atol_for(ScalarType dt) {
  return dt == kHalf ? 3e-3 : dt == kBFloat16 ? 3e-2 : dt == kFloat ? 2e-5 : 1e-10;
}

// Applies f to every line of t along dim (in logical order); f rewrites the line in place.
Tensor ref_lines(const Tensor& t, int64_t dim, const std::function<void(std::vector<double>&)>& f) {
  Tensor x = t.to(kDouble).contiguous().clone();
  if (x.dim() == 0) x = x.reshape({1});
  int64_t d = dim < 0 ? dim + x.dim() : dim;
  int64_t outer = 1, inner = 1, len = x.size(d);
  for (int64_t k = 0; k < d; ++k) outer *= x.size(k);
  for (int64_t k = d + 1; k < x.dim(); ++k) inner *= x.size(k);
  double* p = x.data_ptr<double>();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<double> line(len);
      for (int64_t j = 0; j < len; ++j) line[j] = p[(o * len + j) * inner + i];
      f(line);
      for (int64_t j = 0; j < len; ++j) p[(o * len + j) * inner + i] = line[j];
    }
  return x.reshape(t.sizes());
}

TEST(ReduceScan, CumsumCumprodAgainstReference) {
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kInt, kLong, kBool, kByte}) {
    for (const auto& layout : all_layouts()) {
      Tensor x = make_input({4, 5, 6}, dt, layout);
      Tensor xp = isIntegralType(dt, true) ? x : add(mul(x, 0.1), 1.0).to(dt);
      for (int64_t d : {0, 1, 2, -1}) {
        Tensor s = x.cumsum(d);
        ASSERT_EQ(s.scalar_type(), isIntegralType(dt, true) ? kLong : dt);
        EXPECT_TENSOR_CLOSE(s.to(kDouble), ref_lines(x, d, [](std::vector<double>& v) {
          for (size_t i = 1; i < v.size(); ++i) v[i] += v[i - 1];
        }), scan_rtol_for(dt), scan_atol_for(dt) * 4) << dt << " " << layout << " dim " << d;
        EXPECT_TENSOR_CLOSE(xp.cumprod(d).to(kDouble), ref_lines(xp, d, [](std::vector<double>& v) {
          for (size_t i = 1; i < v.size(); ++i) v[i] *= v[i - 1];
        }), scan_rtol_for(dt) * 3, scan_atol_for(dt) * 3) << dt << " " << layout << " dim " << d;
      }
    }
  }
  // Complex.
  Tensor c = crandn({3, 4}, kComplexDouble);
  Tensor cs = c.cumsum(1);
  EXPECT_TENSOR_CLOSE(cs[1][3], c[1].sum());
  EXPECT_TENSOR_CLOSE(c.cumprod(0)[2][1], mul(mul(c[0][1], c[1][1]), c[2][1]));
  // Long lines and column scans.
  for (auto shape : {std::vector<int64_t>{2, 70000}, std::vector<int64_t>{70000, 3}, std::vector<int64_t>{300, 700}}) {
    Tensor x = randn(shape, TensorOptions().dtype(kFloat));
    for (int64_t d : {0, 1}) {
      EXPECT_TENSOR_CLOSE(x.cumsum(d).to(kDouble), ref_lines(x, d, [](std::vector<double>& v) {
        for (size_t i = 1; i < v.size(); ++i) v[i] += v[i - 1];
      }), 1e-5, 1e-4);
    }
  }
}

TEST(ReduceScan, DtypeArgInPlaceAndErrors) {
  Tensor x = tensor({1.5, 2.5});
  Tensor s = x.cumsum(0, kInt);
  EXPECT_TENSOR_EQ(s, tensor({1, 3}, TensorOptions().dtype(kInt)));
  Tensor b = tensor({true, false, true});
  EXPECT_TENSOR_EQ(b.cumsum(0), tensor({int64_t(1), int64_t(1), int64_t(2)}));
  Tensor i = tensor({1, 2, 3}, TensorOptions().dtype(kInt));
  i.cumsum_(0);
  EXPECT_EQ(i.scalar_type(), kInt);
  EXPECT_TENSOR_EQ(i, tensor({1, 3, 6}, TensorOptions().dtype(kInt)));
  EXPECT_ERROR_WITH(i.cumsum_(0, kFloat), "Bad in-place call: input tensor dtype Int and output tensor dtype Float should match");
  Tensor f = tensor({1.0, 2.0, 3.0});
  f.cumprod_(0);
  EXPECT_TENSOR_EQ(f, tensor({1.0, 2.0, 6.0}));
  Tensor sliced = tensor({1.0, 2.0, 3.0, 4.0}).slice(0, 0, std::nullopt, 2);  // in-place on a strided view
  sliced.cumsum_(0);
  EXPECT_TENSOR_EQ(sliced, tensor({1.0, 4.0}));
  Tensor sc = scalar_tensor(3.0);
  EXPECT_EQ(sc.cumsum(0).item<double>(), 3.0);
  EXPECT_EQ(sc.cumsum(0).dim(), 0);
  EXPECT_ERROR_WITH(randn({2, 3}).cumsum(2), "out of range");
  Tensor e = empty({0, 3}, TensorOptions().dtype(kFloat));
  EXPECT_EQ(e.cumsum(0).sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(e.cumprod(1).sizes(), IntArrayRef({0, 3}));
}

TEST(ReduceScan, CummaxCumminNaNAndTies) {
  auto [v, i] = tensor({1.0, kNaN, 3.0, kNaN, 0.0}).cummax(0);
  EXPECT_TENSOR_EQ(i, tensor({int64_t(0), int64_t(1), int64_t(1), int64_t(3), int64_t(3)}));
  EXPECT_EQ(v[0].item<double>(), 1.0);
  for (int k = 1; k < 5; ++k) EXPECT_TRUE(std::isnan(v[k].item<double>()));
  auto [v2, i2] = tensor({1.0, 3.0, 3.0, 2.0, 3.0}).cummax(0);
  EXPECT_TENSOR_EQ(v2, tensor({1.0, 3.0, 3.0, 3.0, 3.0}));
  EXPECT_TENSOR_EQ(i2, tensor({int64_t(0), int64_t(1), int64_t(2), int64_t(2), int64_t(4)}));
  auto [v3, i3] = tensor({3.0, 1.0, 1.0, 2.0, 1.0}).cummin(0);
  EXPECT_TENSOR_EQ(v3, tensor({3.0, 1.0, 1.0, 1.0, 1.0}));
  EXPECT_TENSOR_EQ(i3, tensor({int64_t(0), int64_t(1), int64_t(2), int64_t(2), int64_t(4)}));
  auto [vb, ib] = tensor({true, false}).cummax(0);
  EXPECT_TENSOR_EQ(vb, tensor({true, true}));
  EXPECT_TENSOR_EQ(ib, tensor({int64_t(0), int64_t(0)}));
  // Against a reference along each dim and layout.
  for (ScalarType dt : {kFloat, kInt, kHalf}) {
    for (const auto& layout : all_layouts()) {
      Tensor x = make_input({3, 4, 5}, dt, layout);
      for (int64_t d : {0, 1, 2}) {
        auto [mv, mi] = x.cummax(d);
        EXPECT_TENSOR_EQ(mv.to(kDouble), ref_lines(x, d, [](std::vector<double>& a) {
          for (size_t k = 1; k < a.size(); ++k) a[k] = std::max(a[k], a[k - 1]);
        }));
        // The index points at an element holding the running max.
        Tensor g = ref_lines(x, d, [](std::vector<double>& a) {
          size_t best = 0;
          std::vector<double> r(a.size());
          for (size_t k = 0; k < a.size(); ++k) {
            if (a[k] >= a[best]) best = k;
            r[k] = double(best);
          }
          a = r;
        });
        EXPECT_TENSOR_EQ(mi.to(kDouble), g);
        auto [nv, ni] = x.cummin(d);
        EXPECT_TENSOR_EQ(nv.to(kDouble), ref_lines(x, d, [](std::vector<double>& a) {
          for (size_t k = 1; k < a.size(); ++k) a[k] = std::min(a[k], a[k - 1]);
        }));
      }
    }
  }
  EXPECT_ERROR_WITH(crandn({3}).cummax(0), "complex");
}

TEST(ReduceScan, LogCumSumExp) {
  for (ScalarType dt : {kFloat, kDouble, kBFloat16}) {
    Tensor x = mul(make_input({3, 50}, dt, "transposed"), 20.0).to(dt);
    for (int64_t d : {0, 1}) {
      EXPECT_TENSOR_CLOSE(x.logcumsumexp(d).to(kDouble), ref_lines(x, d, [](std::vector<double>& v) {
        double m = -kInf, s = 0;
        for (double& a : v) {
          double nm = std::max(m, a);
          s = s * std::exp(m - nm) + std::exp(a - nm);
          m = nm;
          a = m + std::log(s);
        }
      }), scan_rtol_for(dt), scan_atol_for(dt) * 10);
    }
  }
  Tensor r = tensor({-kInf, -kInf, kInf, kInf, kNaN, 1.0}).logcumsumexp(0);
  EXPECT_EQ(r[0].item<double>(), -kInf);
  EXPECT_EQ(r[1].item<double>(), -kInf);
  EXPECT_EQ(r[2].item<double>(), kInf);
  EXPECT_EQ(r[3].item<double>(), kInf);
  EXPECT_TRUE(std::isnan(r[4].item<double>()) && std::isnan(r[5].item<double>()));
  EXPECT_ERROR_WITH(tensor({1, 2}).logcumsumexp(0), "logcumsumexp");
}

// ---- softmax ---------------------------------------------------------------------------------
void ref_softmax(std::vector<double>& v, bool log) {
  double m = -kInf;
  for (double a : v) m = std::max(m, a);
  double s = 0;
  for (double a : v) s += std::exp(a - m);
  for (double& a : v) a = log ? a - m - std::log(s) : std::exp(a - m) / s;
}

TEST(ReduceSoftmax, AgainstReferenceAllDimsDtypesLayouts) {
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    for (const auto& layout : all_layouts()) {
      for (auto shape : {std::vector<int64_t>{4, 5, 37}, std::vector<int64_t>{3, 600, 2}}) {
        Tensor x = mul(make_input(shape, dt, layout), 4.0).to(dt);
        for (int64_t d : {0, 1, 2, -1}) {
          for (bool log : {false, true}) {
            Tensor r = log ? x.log_softmax(d) : x.softmax(d);
            ASSERT_EQ(r.scalar_type(), dt);
            ASSERT_EQ(r.sizes(), x.sizes());
            Tensor ref = ref_lines(x, d, [log](std::vector<double>& v) { ref_softmax(v, log); });
            EXPECT_TENSOR_CLOSE(r.to(kDouble), ref, scan_rtol_for(dt) * 3, scan_atol_for(dt) * (log ? 10 : 1))
                << dt << " " << layout << " dim " << d << " log " << log;
          }
        }
      }
    }
  }
}

TEST(ReduceSoftmax, LongRowsDtypeArgAndSpecialValues) {
  Tensor big = mul(randn({3, 5003}, TensorOptions().dtype(kFloat)), 10.0);
  for (int64_t d : {0, 1}) {
    EXPECT_TENSOR_CLOSE(big.softmax(d).to(kDouble), ref_lines(big, d, [](std::vector<double>& v) { ref_softmax(v, false); }),
                        1e-5, 1e-7);
    EXPECT_TENSOR_CLOSE(big.log_softmax(d).to(kDouble), ref_lines(big, d, [](std::vector<double>& v) { ref_softmax(v, true); }),
                        1e-5, 1e-4);
  }
  Tensor x = tensor({{1.0, 2.0}, {3.0, 4.0}});
  Tensor dd = x.log_softmax(1, kDouble);
  EXPECT_EQ(dd.scalar_type(), kDouble);
  EXPECT_NEAR(dd[0][0].item<double>(), -1.3132616875182228, 1e-12);
  Tensor fi = tensor({0, 3}).softmax(0, kFloat);
  EXPECT_NEAR(fi[1].item<double>(), 0.9525741268224334, 1e-6);
  EXPECT_ERROR_WITH(tensor({1, 2}).softmax(0), "softmax");
  EXPECT_ERROR_WITH(crandn({2}).softmax(0), "softmax");
  EXPECT_ERROR_WITH(x.softmax(2), "out of range");
  Tensor inf = tensor({kInf, 1.0, 2.0}).softmax(0);
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(std::isnan(inf[k].item<double>()));
  Tensor ninf = tensor({-kInf, 0.0}).softmax(0);
  EXPECT_EQ(ninf[0].item<double>(), 0.0);
  EXPECT_EQ(ninf[1].item<double>(), 1.0);
  EXPECT_TRUE(std::isnan(tensor({kNaN, 1.0}).softmax(0)[1].item<double>()));
  EXPECT_EQ(scalar_tensor(3.0).softmax(0).item<double>(), 1.0);
  EXPECT_EQ(scalar_tensor(3.0).log_softmax(-1).item<double>(), 0.0);
  Tensor e = empty({0, 3}, TensorOptions().dtype(kFloat));
  EXPECT_EQ(e.softmax(0).sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(e.log_softmax(1).sizes(), IntArrayRef({0, 3}));
}

}  // namespace
}  // namespace ember::test
