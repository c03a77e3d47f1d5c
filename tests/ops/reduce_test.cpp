// Tests of the reduction engine and of sum/nansum/mean/nanmean/prod/amax/amin/max/min/
// aminmax/argmax/argmin/all/any/count_nonzero against naive double-precision references,
// across dtypes, layouts (transposed, sliced, expanded), dim lists, keepdim and empty tensors.
#include "ops_test_util.h"
#include "reduce_ref.h"

namespace ember::test {
namespace {

// Tolerances for a reduction of n values of dtype dt compared with a double reference.
double rtol_for(ScalarType dt) {
  ScalarType r = toRealValueType(dt);
  return r == kHalf ? 2e-3 : r == kBFloat16 ? 1.6e-2 : r == kFloat ? 2e-5 : 1e-10;
}
double atol_for(ScalarType dt, double scale = 1) {
  ScalarType r = toRealValueType(dt);
  return scale * (r == kHalf ? 2e-2 : r == kBFloat16 ? 1e-1 : r == kFloat ? 1e-4 : 1e-9);
}

const std::vector<std::vector<int64_t>> kDimLists = {{}, {0}, {1}, {-1}, {0, 2}, {2, 0}, {1, 2}};

TEST(ReduceSum, MatchesReferenceAcrossDtypesLayoutsAndDims) {
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kInt, kLong, kChar, kByte, kBool}) {
    for (const auto& layout : all_layouts()) {
      Tensor x = make_input({5, 7, 9}, dt, layout);
      for (const auto& dims : kDimLists) {
        for (bool keepdim : {false, true}) {
          Tensor r = x.sum(dims, keepdim);
          ScalarType want = isIntegralType(dt, true) ? kLong : dt;
          ASSERT_EQ(r.scalar_type(), want) << dt;
          Tensor ref = ref_reduce(x, dims, keepdim, ref_sum);
          EXPECT_TENSOR_CLOSE(r.to(kDouble), ref, rtol_for(dt), atol_for(dt, 3))
              << dt << " " << layout << " dims " << IntArrayRef(dims) << " keepdim " << keepdim;
        }
      }
    }
  }
}

TEST(ReduceSum, ComplexSumAndMean) {
  for (ScalarType dt : {kComplexFloat, kComplexDouble}) {
    for (const auto& layout : all_layouts()) {
      Tensor x = make_input({4, 6, 5}, dt, layout);
      for (const auto& dims : kDimLists) {
        Tensor ref = ref_reduce_complex(x, dims, false, [](const auto& v) {
          std::complex<double> s = 0;
          for (auto z : v) s += z;
          return s;
        });
        Tensor r = x.sum(dims);
        ASSERT_EQ(r.scalar_type(), dt);
        EXPECT_TENSOR_CLOSE(r.to(kComplexDouble), ref, rtol_for(dt), atol_for(dt));
        int64_t n = x.numel() / std::max<int64_t>(1, ref.numel());
        EXPECT_TENSOR_CLOSE(x.mean(dims).to(kComplexDouble), div(ref, Scalar(double(n))), rtol_for(dt), atol_for(dt));
      }
    }
  }
}

// Shapes that exercise each engine path: inner runs, outer (column) accumulation, few long
// reductions split over threads, many tiny reductions, and strided gathers.
TEST(ReduceSum, EnginePathsLargeShapes) {
  struct Case { std::vector<int64_t> shape; std::vector<int64_t> dims; };
  std::vector<Case> cases = {
      {{3, 100003}, {1}}, {{100003, 3}, {0}}, {{2, 40000}, {0}}, {{300001}, {}},
      {{50000, 7}, {1}},  {{7, 3000, 5}, {1}}, {{64, 64, 64}, {0, 2}}, {{1000, 1000}, {0}}};
  for (const auto& c : cases) {
    for (ScalarType dt : {kFloat, kHalf, kDouble, kLong}) {
      for (const std::string layout : {"contiguous", "transposed"}) {
        Tensor x = make_input(c.shape, dt, layout);
        Tensor ref = ref_reduce(x, c.dims, false, ref_sum);
        EXPECT_TENSOR_CLOSE(x.sum(c.dims).to(kDouble), ref, rtol_for(dt), atol_for(dt, 30))
            << dt << " " << layout << " shape " << IntArrayRef(c.shape);
      }
    }
  }
}

TEST(ReduceSum, LargeFloatSumIsAccurate) {
  // 2^22 copies of 0.1f: a naive float loop drifts by ~1%; cascade summation must not.
  int64_t n = int64_t(1) << 22;
  Tensor x = full({n}, 0.1, TensorOptions().dtype(kFloat));
  double want = double(0.1f) * double(n);
  EXPECT_NEAR(x.sum().item<double>(), want, want * 1e-6);
  Tensor y = full({n / 256}, 0.1, TensorOptions().dtype(kHalf));  // the sum stays below Half's max
  double wanth = double(float(Half(0.1f))) * double(n / 256);
  EXPECT_NEAR(y.sum().to(kDouble).item<double>(), wanth, wanth * 1e-3);
  EXPECT_NEAR(x.mean().item<double>(), double(0.1f), 1e-7);
}

TEST(ReduceSum, DtypeArgumentAndResultTypes) {
  Tensor x = tensor({1.5, 2.5}, TensorOptions().dtype(kFloat));
  EXPECT_TENSOR_EQ(x.sum(kInt), tensor({3}, TensorOptions().dtype(kInt)).reshape({}));  // cast first: 1 + 2
  Tensor i = tensor({100, 100, 100}, TensorOptions().dtype(kChar));
  EXPECT_EQ(i.sum().scalar_type(), kLong);
  EXPECT_EQ(i.sum().item<int64_t>(), 300);
  EXPECT_EQ(i.sum(kChar).item<int64_t>(), int64_t(int8_t(300 & 0xff)));  // wraps like int8 arithmetic
  Tensor b = tensor({true, false, true});
  EXPECT_EQ(b.sum().scalar_type(), kLong);
  EXPECT_EQ(b.sum().item<int64_t>(), 2);
  EXPECT_EQ(b.sum(kBool).item<bool>(), true);
  Tensor c = tensor({1, -1}, TensorOptions().dtype(kChar));
  EXPECT_EQ(c.sum(kBool).item<bool>(), true);  // cast to bool first, as PyTorch
  EXPECT_EQ(tensor({1, 2}).sum(std::nullopt, false, kDouble).scalar_type(), kDouble);
  Tensor s = tensor({1.0, 2.0}, TensorOptions().dtype(kDouble)).sum(0, false, kHalf);
  EXPECT_EQ(s.scalar_type(), kHalf);
}

TEST(ReduceSum, DimListErrorsAndScalars) {
  Tensor x = randn({3, 2});
  EXPECT_ERROR_WITH(x.sum(std::vector<int64_t>{0, 0}), "dim 0 appears multiple times in the list of dims");
  EXPECT_ERROR_WITH(x.sum(std::vector<int64_t>{0, -2}), "dim 0 appears multiple times in the list of dims");
  EXPECT_ERROR_WITH(x.sum(Dims{5}), "out of range");
  Tensor s = scalar_tensor(3.0, TensorOptions().dtype(kFloat));
  EXPECT_EQ(s.sum(Dims{0}).item<double>(), 3.0);
  EXPECT_EQ(s.sum(Dims{-1}).item<double>(), 3.0);
  EXPECT_ERROR_WITH(s.sum(Dims{1}), "out of range");
  EXPECT_EQ(s.sum().dim(), 0);
}

TEST(ReduceSum, EmptyTensors) {
  Tensor e = empty({0, 3});
  TensorOptions f32 = TensorOptions().dtype(kFloat);
  EXPECT_TENSOR_EQ(e.sum(Dims{0}), zeros({3}, f32));
  EXPECT_TENSOR_EQ(e.sum(Dims{1}), empty({0}, f32));
  EXPECT_TENSOR_EQ(e.prod(0), ones({3}, f32));
  EXPECT_TENSOR_EQ(e.mean(Dims{0}), full({3}, kNaN, f32));
  EXPECT_EQ(e.sum().item<double>(), 0.0);
  EXPECT_TENSOR_EQ(e.sum(Dims{0}, true), zeros({1, 3}, f32));
  EXPECT_TENSOR_EQ(e.nansum(std::vector<int64_t>{0}), zeros({3}));
  EXPECT_TENSOR_EQ(e.all(0), ones({3}, TensorOptions().dtype(kBool)));
  EXPECT_TENSOR_EQ(e.any(0), zeros({3}, TensorOptions().dtype(kBool)));
  EXPECT_EQ(e.count_nonzero().item<int64_t>(), 0);
}

TEST(ReduceMean, ValuesDtypesAndErrors) {
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    for (const auto& layout : all_layouts()) {
      Tensor x = make_input({6, 5, 4}, dt, layout);
      for (const auto& dims : kDimLists) {
        Tensor ref = ref_reduce(x, dims, true, [](const std::vector<double>& v) { return ref_sum(v) / v.size(); });
        Tensor r = x.mean(dims, true);
        ASSERT_EQ(r.scalar_type(), dt);
        EXPECT_TENSOR_CLOSE(r.to(kDouble), ref, rtol_for(dt), atol_for(dt));
      }
    }
  }
  Tensor i = tensor({1, 2, 4});
  EXPECT_ERROR_WITH(i.mean(), "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long");
  EXPECT_ERROR_WITH(i.mean(kInt), "Optional dtype must be either a floating point or complex dtype. Got: Int");
  Tensor m = i.mean(kFloat);
  EXPECT_EQ(m.scalar_type(), kFloat);
  EXPECT_NEAR(m.item<double>(), 7.0 / 3, 1e-6);
  EXPECT_EQ(i.mean(kComplexFloat).scalar_type(), kComplexFloat);
}

TEST(ReduceNanSum, IgnoresNaNsAndNanMeanCounts) {
  for (ScalarType dt : {kFloat, kDouble, kHalf}) {
    Tensor base = randn({7, 11}, TensorOptions().dtype(kDouble));
    double* p = base.data_ptr<double>();
    for (int64_t i = 0; i < base.numel(); i += 3) p[i] = kNaN;
    for (int64_t j = 0; j < 11; ++j) p[2 * 11 + j] = kNaN;  // an all-NaN row
    for (const auto& x : {base.to(dt), base.to(dt).t()}) {
      for (const std::vector<int64_t>& d2 : {std::vector<int64_t>{}, {0}, {1}, {-1}, {0, 1}}) {
        auto nan_sum = [](const std::vector<double>& v) {
          double s = 0;
          for (double a : v) if (!std::isnan(a)) s += a;
          return s;
        };
        auto nan_mean = [](const std::vector<double>& v) {
          double s = 0;
          int n = 0;
          for (double a : v) if (!std::isnan(a)) { s += a; ++n; }
          return s / n;
        };
        EXPECT_TENSOR_CLOSE(x.nansum(d2).to(kDouble), ref_reduce(x, d2, false, nan_sum), rtol_for(dt), atol_for(dt));
        EXPECT_TENSOR_CLOSE(x.nanmean(d2).to(kDouble), ref_reduce(x, d2, false, nan_mean), rtol_for(dt), atol_for(dt));
        EXPECT_EQ(x.nanmean(d2).scalar_type(), dt);
      }
    }
  }
  EXPECT_EQ(tensor({1, 2, 3}).nansum().item<int64_t>(), 6);
  EXPECT_ERROR_WITH(crandn({2}).nansum(), "nansum does not support complex inputs");
  EXPECT_ERROR_WITH(tensor({1, 2}).nanmean(), "nanmean(): expected input to have floating point dtype but got Long");
}

TEST(ReduceProd, MatchesReference) {
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kInt, kLong, kBool, kComplexFloat}) {
    for (const auto& layout : all_layouts()) {
      Tensor x = make_input({4, 5, 3}, dt, layout);
      if (dt == kFloat || dt == kDouble || dt == kHalf || dt == kBFloat16) x = add(mul(x, 0.1), 1.0).to(dt);
      for (int64_t d : {0, 1, 2, -1}) {
        for (bool keepdim : {false, true}) {
          Tensor r = x.prod(d, keepdim);
          if (dt == kComplexFloat) {
            Tensor ref = ref_reduce_complex(x, {d}, keepdim, [](const auto& v) {
              std::complex<double> s = 1;
              for (auto z : v) s *= z;
              return s;
            });
            EXPECT_TENSOR_CLOSE(r.to(kComplexDouble), ref, 1e-5, 1e-5);
            continue;
          }
          Tensor ref = ref_reduce(x, {d}, keepdim, [](const std::vector<double>& v) {
            double s = 1;
            for (double a : v) s *= a;
            return s;
          });
          ASSERT_EQ(r.scalar_type(), isIntegralType(dt, true) ? kLong : dt);
          EXPECT_TENSOR_CLOSE(r.to(kDouble), ref, rtol_for(dt) * 4, atol_for(dt));
        }
      }
    }
  }
  Tensor x = tensor({2.0, 3.0, 4.0}, TensorOptions().dtype(kDouble));
  EXPECT_EQ(x.prod().item<double>(), 24.0);
  EXPECT_EQ(tensor({1, 2, 3}).prod(0, false, kFloat).scalar_type(), kFloat);
  // Long products of values near 1 split over threads.
  Tensor big = full({200000}, 1.00001, TensorOptions().dtype(kDouble));
  EXPECT_NEAR(big.prod().item<double>(), std::pow(1.00001, 200000), 1e-9 * std::pow(1.00001, 200000));
}

// ---- max / min family ----------------------------------------------------------------------------
double ref_max(const std::vector<double>& v) {
  double m = -INFINITY;
  for (double a : v) {
    if (std::isnan(a)) return a;
    m = std::max(m, a);
  }
  return m;
}
double ref_min(const std::vector<double>& v) {
  double m = INFINITY;
  for (double a : v) {
    if (std::isnan(a)) return a;
    m = std::min(m, a);
  }
  return m;
}
double ref_argmax(const std::vector<double>& v) {
  int64_t best = 0;
  for (size_t i = 1; i < v.size(); ++i) {
    if (std::isnan(v[best])) break;
    if (std::isnan(v[i]) || v[i] > v[best]) best = i;
  }
  return double(best);
}
double ref_argmin(const std::vector<double>& v) {
  int64_t best = 0;
  for (size_t i = 1; i < v.size(); ++i) {
    if (std::isnan(v[best])) break;
    if (std::isnan(v[i]) || v[i] < v[best]) best = i;
  }
  return double(best);
}

TEST(ReduceMinMax, AmaxAminMaxMinAgainstReference) {
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kInt, kLong, kChar, kByte, kBool}) {
    for (const auto& layout : all_layouts()) {
      Tensor x = make_input({5, 6, 7}, dt, layout);
      for (const auto& dims : kDimLists) {
        EXPECT_TENSOR_CLOSE(x.amax(dims).to(kDouble), ref_reduce(x, dims, false, ref_max), 0, 0) << dt << layout;
        EXPECT_TENSOR_CLOSE(x.amin(dims, true).to(kDouble), ref_reduce(x, dims, true, ref_min), 0, 0) << dt << layout;
        EXPECT_EQ(x.amax(dims).scalar_type(), dt);
      }
      EXPECT_EQ(x.max().to(kDouble).item<double>(), ref_max(values_of(x)));
      EXPECT_EQ(x.min().to(kDouble).item<double>(), ref_min(values_of(x)));
      for (int64_t d : {0, 1, 2, -1}) {
        for (bool keepdim : {false, true}) {
          auto [v, i] = x.max(d, keepdim);
          auto [vn, in] = x.min(d, keepdim);
          ASSERT_EQ(i.scalar_type(), kLong);
          ASSERT_EQ(v.scalar_type(), dt);
          EXPECT_TENSOR_EQ(v.to(kDouble), ref_reduce(x, {d}, keepdim, ref_max));
          EXPECT_TENSOR_EQ(i.to(kDouble), ref_reduce(x, {d}, keepdim, ref_argmax));
          EXPECT_TENSOR_EQ(vn.to(kDouble), ref_reduce(x, {d}, keepdim, ref_min));
          EXPECT_TENSOR_EQ(in.to(kDouble), ref_reduce(x, {d}, keepdim, ref_argmin));
          EXPECT_TENSOR_EQ(x.argmax(d, keepdim).to(kDouble), ref_reduce(x, {d}, keepdim, ref_argmax));
          EXPECT_TENSOR_EQ(x.argmin(d, keepdim).to(kDouble), ref_reduce(x, {d}, keepdim, ref_argmin));
        }
      }
      // Full argmax: index into the flattened (logical, row-major) tensor.
      EXPECT_EQ(x.argmax().item<int64_t>(), int64_t(ref_argmax(values_of(x)))) << dt << layout;
      EXPECT_EQ(x.argmin().item<int64_t>(), int64_t(ref_argmin(values_of(x)))) << dt << layout;
      auto [lo, hi] = x.aminmax();
      EXPECT_EQ(lo.to(kDouble).item<double>(), ref_min(values_of(x)));
      EXPECT_EQ(hi.to(kDouble).item<double>(), ref_max(values_of(x)));
      auto [lo1, hi1] = x.aminmax(1, true);
      EXPECT_TENSOR_EQ(lo1.to(kDouble), ref_reduce(x, {1}, true, ref_min));
      EXPECT_TENSOR_EQ(hi1.to(kDouble), ref_reduce(x, {1}, true, ref_max));
    }
  }
}

TEST(ReduceMinMax, NaNPropagatesAndTiesTakeFirstIndex) {
  Tensor a = tensor({1.0, kNaN, 3.0, kNaN});
  EXPECT_TRUE(std::isnan(a.max().item<double>()));
  EXPECT_TRUE(std::isnan(a.amin().item<double>()));
  EXPECT_EQ(a.argmax().item<int64_t>(), 1);
  EXPECT_EQ(a.argmin().item<int64_t>(), 1);
  auto [lo, hi] = a.aminmax();
  EXPECT_TRUE(std::isnan(lo.item<double>()) && std::isnan(hi.item<double>()));
  Tensor t = tensor({1.0, 3.0, 3.0, -2.0, -2.0});
  EXPECT_EQ(t.argmax().item<int64_t>(), 1);
  EXPECT_EQ(t.argmin().item<int64_t>(), 3);
  EXPECT_EQ(std::get<1>(t.max(0)).item<int64_t>(), 1);
  Tensor m = tensor({{1.0, 3.0}, {3.0, 1.0}});
  EXPECT_EQ(m.argmax().item<int64_t>(), 1);
  EXPECT_EQ(m.t().argmax().item<int64_t>(), 1);
  EXPECT_TENSOR_EQ(m.argmax(std::nullopt, true), tensor({{int64_t(1)}}));
  // Long rows: NaN and ties found across the engine's sub-blocks and thread partials.
  for (int64_t n : {int64_t(5000), int64_t(100000)}) {
    Tensor big = zeros({n}, TensorOptions().dtype(kFloat));
    float* p = big.data_ptr<float>();
    p[n / 3] = 7;
    p[n - 10] = 7;
    EXPECT_EQ(big.argmax().item<int64_t>(), n / 3);
    p[n - 5] = NAN;
    EXPECT_EQ(big.argmax().item<int64_t>(), n - 5);
    EXPECT_TRUE(std::isnan(big.amax().item<double>()));
    EXPECT_TRUE(std::isnan(std::get<0>(big.view({1, n}).max(1)).item<double>()));
  }
  // Outer reductions (reduced dim not innermost): ties and NaN per column.
  Tensor c = tensor({{1.0, 5.0, kNaN}, {4.0, 5.0, 2.0}, {4.0, 0.0, kNaN}});
  auto [cv, ci] = c.max(0);
  EXPECT_TENSOR_EQ(ci, tensor({int64_t(1), int64_t(0), int64_t(0)}));
  EXPECT_TRUE(std::isnan(cv[2].item<double>()));
}

TEST(ReduceMinMax, EmptyAndComplexErrors) {
  Tensor e = empty({0, 3});
  EXPECT_ERROR_WITH(e.amax(0), "amax(): Expected reduction dim 0 to have non-zero size.");
  EXPECT_ERROR_WITH(e.amin(std::vector<int64_t>{0}), "amin(): Expected reduction dim 0 to have non-zero size.");
  EXPECT_TENSOR_EQ(e.amax(1), empty({0}, TensorOptions().dtype(kFloat)));
  EXPECT_ERROR_WITH(e.amax(), "amax(): Expected reduction dim to be specified for input.numel() == 0.");
  EXPECT_ERROR_WITH(e.max(), "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
  EXPECT_ERROR_WITH(e.min(), "min(): Expected reduction dim to be specified");
  EXPECT_ERROR_WITH(e.max(0), "max(): Expected reduction dim 0 to have non-zero size.");
  EXPECT_ERROR_WITH(e.argmax(), "argmax(): Expected reduction dim to be specified for input.numel() == 0.");
  EXPECT_ERROR_WITH(e.argmin(0), "argmin(): Expected reduction dim 0 to have non-zero size.");
  EXPECT_ERROR_WITH(e.aminmax(), "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
  auto [v, i] = e.max(1);
  EXPECT_EQ(v.numel(), 0);
  EXPECT_EQ(i.scalar_type(), kLong);
  try {
    e.amax(0);
    ADD_FAILURE();
  } catch (const IndexError&) {
  }
  Tensor c = crandn({2, 3});
  EXPECT_ERROR_WITH(c.max(), "complex");
  EXPECT_ERROR_WITH(c.amax(), "complex");
  EXPECT_ERROR_WITH(c.max(0), "max(): does not support complex input");
  EXPECT_ERROR_WITH(c.argmax(), "complex");
  EXPECT_ERROR_WITH(c.aminmax(), "complex");
  Tensor s = scalar_tensor(3.0);
  auto [sv, si] = s.max(0);
  EXPECT_EQ(sv.item<double>(), 3.0);
  EXPECT_EQ(si.item<int64_t>(), 0);
  EXPECT_EQ(s.argmax(0).item<int64_t>(), 0);
}

TEST(ReduceMinMax, OuterAndSplitPathsLarge) {
  for (ScalarType dt : {kFloat, kHalf, kInt}) {
    for (auto shape : {std::vector<int64_t>{3000, 37}, std::vector<int64_t>{40000, 4}, std::vector<int64_t>{4, 40000}}) {
      Tensor x = make_input(shape, dt, "contiguous");
      for (int64_t d : {0, 1}) {
        auto [v, i] = x.max(d);
        EXPECT_TENSOR_EQ(v.to(kDouble), ref_reduce(x, {d}, false, ref_max));
        EXPECT_TENSOR_EQ(i.to(kDouble), ref_reduce(x, {d}, false, ref_argmax));
        EXPECT_TENSOR_EQ(x.amin(d).to(kDouble), ref_reduce(x, {d}, false, ref_min));
        EXPECT_TENSOR_EQ(x.argmin(d).to(kDouble), ref_reduce(x, {d}, false, ref_argmin));
      }
    }
  }
}

// ---- all, any, count_nonzero ----------------------------------------------------------------------
TEST(ReduceAllAny, ValuesAndResultDtypes) {
  for (ScalarType dt : {kBool, kByte, kInt, kFloat, kHalf, kDouble, kComplexFloat}) {
    for (const auto& layout : all_layouts()) {
      Tensor x = make_input({4, 5, 6}, dt, layout);
      ScalarType want = dt == kByte ? kByte : kBool;
      auto all_ref = [](const std::vector<double>& v) {
        for (double a : v) if (a == 0) return 0.0;
        return 1.0;
      };
      auto any_ref = [](const std::vector<double>& v) {
        for (double a : v) if (a != 0) return 1.0;
        return 0.0;
      };
      Tensor xr = isComplexType(dt) ? ne(x, Scalar(0.0)) : x;  // complex: non-zero if either part is
      for (int64_t d : {0, 1, 2}) {
        for (bool keepdim : {false, true}) {
          Tensor a = x.all(d, keepdim), o = x.any(d, keepdim);
          ASSERT_EQ(a.scalar_type(), want);
          EXPECT_TENSOR_EQ(a.to(kDouble), ref_reduce(xr, {d}, keepdim, all_ref));
          EXPECT_TENSOR_EQ(o.to(kDouble), ref_reduce(xr, {d}, keepdim, any_ref));
        }
      }
      EXPECT_EQ(x.all().to(kDouble).item<double>(), all_ref(values_of(xr)));
      EXPECT_EQ(x.any().to(kDouble).item<double>(), any_ref(values_of(xr)));
      auto cnt = [](const std::vector<double>& v) {
        double c = 0;
        for (double a : v) c += a != 0;
        return c;
      };
      EXPECT_EQ(x.count_nonzero().item<int64_t>(), int64_t(cnt(values_of(xr))));
      EXPECT_TENSOR_EQ(x.count_nonzero(std::vector<int64_t>{0, 2}).to(kDouble), ref_reduce(xr, {0, 2}, false, cnt));
      EXPECT_TENSOR_EQ(x.count_nonzero(std::optional<int64_t>(1)).to(kDouble), ref_reduce(xr, {1}, false, cnt));
      EXPECT_EQ(x.count_nonzero(std::optional<int64_t>(1)).scalar_type(), kLong);
    }
  }
  Tensor u = tensor({0, 2, 3}, TensorOptions().dtype(kByte));
  EXPECT_EQ(u.all().item<int64_t>(), 0);
  EXPECT_EQ(u.any().item<int64_t>(), 1);
  Tensor big = ones({300000}, TensorOptions().dtype(kBool));
  EXPECT_TRUE(big.all().item<bool>());
  big.data_ptr<bool>()[299999] = false;
  EXPECT_FALSE(big.all().item<bool>());
  Tensor f = tensor({kNaN, 0.0});
  EXPECT_EQ(f.count_nonzero().item<int64_t>(), 1);
  EXPECT_TRUE(f.any().item<bool>());
}

}  // namespace
}  // namespace ember::test
