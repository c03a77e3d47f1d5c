// sort, argsort, topk, kthvalue, unique (_unique2, unique_dim, unique_consecutive),
// searchsorted and bucketize: PyTorch 1.13 values (NaN ordering), std::sort references,
// dtypes, layouts and errors.
#include <algorithm>
#include <cmath>

#include "ops_test_util.h"
#include "test_util.h"

namespace ember::test {
namespace {

const float kNan = std::nanf("");

TEST(SortOpsTest, SortNanLastAndStable) {
  Tensor x = f32({{3, kNan, 1, -kInf, 1}, {0, 2, kNan, 5, -1}});
  auto [v, i] = x.sort(std::optional<bool>(true));
  EXPECT_TENSOR_EQ(v, f32({{-kInf, 1, 1, 3, kNan}, {-1, 0, 2, 5, kNan}}));
  EXPECT_TENSOR_EQ(i, longs({{3, 2, 4, 0, 1}, {4, 0, 1, 3, 2}}));
  auto [vd, id] = x.sort(std::optional<bool>(true), -1, true);
  EXPECT_TENSOR_EQ(vd, f32({{kNan, 3, 1, 1, -kInf}, {kNan, 5, 2, 0, -1}}));
  EXPECT_TENSOR_EQ(id, longs({{1, 0, 2, 4, 3}, {2, 3, 1, 0, 4}}));
  auto [v0, i0] = sort(x, std::optional<bool>(true), 0);
  EXPECT_TENSOR_EQ(v0, f32({{0, 2, 1, -kInf, -1}, {3, kNan, kNan, 5, 1}}));
  EXPECT_TENSOR_EQ(i0, longs({{1, 1, 0, 0, 1}, {0, 0, 1, 1, 0}}));
  EXPECT_TENSOR_EQ(argsort(longs({1, 2, 1, 2}), true, 0, true), longs({1, 3, 0, 2}));
  EXPECT_TENSOR_EQ(std::get<1>(tensor({true, false, true}).sort(std::optional<bool>(true))), longs({1, 0, 2}));
  EXPECT_TENSOR_EQ(argsort(tensor(3.f)), tensor(int64_t(0)));
  EXPECT_EQ(std::get<0>(sort(zeros({0, 3}), 0)).sizes(), IntArrayRef({0, 3}));
}

TEST(SortOpsTest, SortMatchesStdSortAcrossDtypesAndLayouts) {
  Tensor base = randn({37, 129}, dtype(kDouble));
  for (ScalarType t : {kByte, kChar, kShort, kInt, kLong, kHalf, kBFloat16, kFloat, kDouble}) {
    Tensor x = (base * 50).to(t).t();  // transposed: sort along a strided dim
    for (bool desc : {false, true}) {
      auto [v, i] = x.sort(std::optional<bool>(true), 1, desc);
      Tensor xd = x.to(kDouble), vd = v.to(kDouble);
      bool ok = true;
      for (int r = 0; r < 129 && ok; r += 16) {
        std::vector<double> row(37);
        for (int j = 0; j < 37; ++j) row[j] = xd.index({r, j}).item<double>();
        std::vector<double> ref = row;
        if (desc) std::stable_sort(ref.begin(), ref.end(), std::greater<>());
        else std::stable_sort(ref.begin(), ref.end());
        for (int j = 0; j < 37; ++j) {
          ok &= vd.index({r, j}).item<double>() == ref[j];
          ok &= row[i.index({r, j}).item<int64_t>()] == ref[j];  // indices point at the values
        }
      }
      EXPECT_TRUE(ok) << t << (desc ? " descending" : "");
    }
  }
  // unstable sort: values sorted, indices a permutation pointing at them
  Tensor big = randint(0, 50, {70000}).to(kFloat);
  auto [v, i] = big.sort();
  EXPECT_TENSOR_EQ(big.index({i}), v);
  const float* vp = v.data_ptr<float>();
  bool sorted = true;
  for (int64_t k = 1; k < v.numel(); ++k) sorted &= vp[k - 1] <= vp[k];
  EXPECT_TRUE(sorted);
  EXPECT_ERROR_WITH(tensor({Complex<float>(1, 0)}).sort(), "not implemented for dtype ComplexFloat");
}

TEST(SortOpsTest, TopkAndKthvalue) {
  Tensor x = f32({{3, kNan, 1, -kInf, 0.5}, {0, 2, kNan, 5, -1}});
  auto [v, i] = x.topk(3);
  EXPECT_TENSOR_EQ(v, f32({{kNan, 3, 1}, {kNan, 5, 2}}));
  EXPECT_TENSOR_EQ(i, longs({{1, 0, 2}, {2, 3, 1}}));
  auto [vs, is] = x.topk(2, -1, false);
  EXPECT_TENSOR_EQ(vs, f32({{-kInf, 0.5}, {-1, 0}}));
  EXPECT_TENSOR_EQ(is, longs({{3, 4}, {4, 0}}));
  auto [v0, i0] = topk(f32({{3, 1, 2}, {0, 5, 4}}), 2, 0);
  EXPECT_TENSOR_EQ(i0, longs({{0, 1, 1}, {1, 0, 0}}));
  // unsorted topk returns the right set
  Tensor r = randn({1000});
  auto [vu, iu] = r.topk(10, 0, true, false);
  EXPECT_TENSOR_EQ(std::get<0>(vu.sort(0, true)), std::get<0>(r.sort(0, true)).slice(0, 0, 10));
  EXPECT_TENSOR_EQ(r.index({iu}), vu);
  EXPECT_EQ(std::get<1>(topk(tensor({3.f, 1.f}), 0)).sizes(), IntArrayRef({0}));
  EXPECT_TENSOR_EQ(std::get<0>(topk(tensor(1.f), 1)), tensor(1.f));
  EXPECT_TENSOR_EQ(std::get<0>(topk(tensor({1, 5, 3}, dtype(kShort)), 2)), tensor({5, 3}, dtype(kShort)));
  EXPECT_ERROR_WITH(topk(arange(3.), 4), "selected index k out of range");
  EXPECT_ERROR_WITH(topk(arange(3.), -1), "selected index k out of range");
  EXPECT_ERROR_WITH(topk(tensor(1.f), 2), "selected index k out of range");

  auto [kv, ki] = kthvalue(f32({{3, 1, 2}, {0, 5, 4}}), 2, 1, true);
  EXPECT_TENSOR_EQ(kv, f32({{2}, {4}}));
  EXPECT_TENSOR_EQ(ki, longs({{2}, {2}}));
  auto [nv, ni] = kthvalue(tensor({1.f, kNan, 0.f}), 3);
  EXPECT_TRUE(std::isnan(nv.item<float>()));
  EXPECT_EQ(ni.item<int64_t>(), 1);
  EXPECT_EQ(std::get<0>(f32({{3, 1, 2}, {0, 5, 4}}).t().kthvalue(1, 0)).sizes(), IntArrayRef({2}));
  EXPECT_TENSOR_EQ(std::get<0>(f32({{3, 1, 2}, {0, 5, 4}}).t().kthvalue(1, 0)), tensor({1.f, 0.f}));
  EXPECT_ERROR_WITH(kthvalue(arange(3.), 4), "kthvalue(): selected number k out of range for dimension 0");
  EXPECT_ERROR_WITH(kthvalue(arange(3.), 0), "kthvalue(): selected number k out of range for dimension 0");
}

TEST(SortOpsTest, Unique) {
  auto [u, inv, cnt] = _unique2(longs({{2, 1}, {1, 3}}), true, true, true);
  EXPECT_TENSOR_EQ(u, longs({1, 2, 3}));
  EXPECT_TENSOR_EQ(inv, longs({{1, 0}, {0, 2}}));
  EXPECT_TENSOR_EQ(cnt, longs({2, 1, 1}));
  auto [u2, inv2, cnt2] = _unique2(longs({3, 1, 3, 2, 1}));
  EXPECT_TENSOR_EQ(u2, longs({1, 2, 3}));
  EXPECT_EQ(inv2.numel(), 0);
  EXPECT_EQ(cnt2.numel(), 0);
  // NaNs are never equal, as PyTorch's unique
  EXPECT_TENSOR_EQ(std::get<0>(_unique2(tensor({kNan, 1.f, kNan}))), tensor({1.f, kNan, kNan}));
  EXPECT_TENSOR_EQ(std::get<0>(_unique2(tensor({true, false, true}))), tensor({false, true}));
  EXPECT_TENSOR_EQ(std::get<1>(_unique(tensor(int64_t(3)), true, true)), tensor(int64_t(0)));
  EXPECT_EQ(std::get<0>(_unique2(empty({0}))).numel(), 0);

  auto [d, dinv, dcnt] = unique_dim(longs({{1, 2, 1}, {0, 1, 0}, {1, 2, 1}}), 1, true, true, true);
  EXPECT_TENSOR_EQ(d, longs({{1, 2}, {0, 1}, {1, 2}}));
  EXPECT_TENSOR_EQ(dinv, longs({0, 1, 0}));
  EXPECT_TENSOR_EQ(dcnt, longs({2, 1}));
  EXPECT_TENSOR_EQ(std::get<0>(unique_dim(longs({{1, 2}, {0, 1}, {1, 2}}), 0)), longs({{0, 1}, {1, 2}}));
  EXPECT_ERROR_WITH(unique_dim(longs({{1, 2}}), 3), "dimension out of range");

  auto [c, cinv, ccnt] = unique_consecutive(longs({1, 1, 2, 2, 3, 1, 1, 2}), true, true);
  EXPECT_TENSOR_EQ(c, longs({1, 2, 3, 1, 2}));
  EXPECT_TENSOR_EQ(cinv, longs({0, 0, 1, 1, 2, 3, 3, 4}));
  EXPECT_TENSOR_EQ(ccnt, longs({2, 2, 1, 2, 1}));
  auto [cd, cdinv, cdcnt] = unique_consecutive(longs({{1, 2}, {1, 2}, {0, 0}, {1, 2}}), true, true, 0);
  EXPECT_TENSOR_EQ(cd, longs({{1, 2}, {0, 0}, {1, 2}}));
  EXPECT_TENSOR_EQ(cdinv, longs({0, 0, 1, 2}));
  EXPECT_TENSOR_EQ(cdcnt, longs({2, 1, 1}));
}

TEST(SortOpsTest, SearchsortedAndBucketize) {
  Tensor bd = longs({{1, 3, 5, 7, 9}, {2, 4, 6, 8, 10}});
  Tensor v = longs({{3, 6, 9}, {3, 6, 9}});
  EXPECT_TENSOR_EQ(searchsorted(bd, v), longs({{1, 3, 4}, {1, 2, 4}}));
  EXPECT_TENSOR_EQ(searchsorted(bd, v, false, true), longs({{2, 3, 5}, {1, 3, 4}}));
  EXPECT_TENSOR_EQ(searchsorted(bd, v, false, false, "right"), longs({{2, 3, 5}, {1, 3, 4}}));
  EXPECT_TENSOR_EQ(searchsorted(longs({1, 3, 5}), longs({{3, 6}})), longs({{1, 3}}));
  EXPECT_TENSOR_EQ(searchsorted(longs({5, 1, 3}), longs({3, 6, 0}), false, false, std::nullopt, longs({1, 2, 0})),
                   longs({1, 3, 0}));
  EXPECT_TENSOR_EQ(searchsorted(tensor({1.f, 3.f, kNan}), tensor({kNan, 2.f, 4.f})), longs({3, 1, 3}));
  EXPECT_TENSOR_EQ(searchsorted(longs({1, 3, 5}), tensor({3.5})), longs({2}));  // promoted compare
  Tensor i32 = searchsorted(longs({1, 3}), longs({2}), true);
  EXPECT_EQ(i32.scalar_type(), kInt);
  EXPECT_TENSOR_EQ(i32, tensor({1}, dtype(kInt)));
  EXPECT_TENSOR_EQ(searchsorted(longs({1, 3}), Scalar(2)), tensor(int64_t(1)));
  EXPECT_TENSOR_EQ(searchsorted(bd.t().contiguous().t(), v.t().contiguous().t()), longs({{1, 3, 4}, {1, 2, 4}}));
  // large batched input against std::lower_bound
  Tensor sb = std::get<0>(randn({4, 300}).sort());
  Tensor q = randn({4, 5000});
  Tensor r = searchsorted(sb, q);
  bool ok = true;
  for (int b = 0; b < 4; ++b) {
    std::vector<float> row(300);
    for (int j = 0; j < 300; ++j) row[j] = sb.index({b, j}).item<float>();
    for (int j = 0; j < 5000; j += 97) {
      float val = q.index({b, j}).item<float>();
      ok &= r.index({b, j}).item<int64_t>() == std::lower_bound(row.begin(), row.end(), val) - row.begin();
    }
  }
  EXPECT_TRUE(ok);

  EXPECT_TENSOR_EQ(bucketize(f32({{1.5, 3}, {9, 0}}), tensor({1.f, 3.f, 5.f})), longs({{1, 1}, {3, 0}}));
  EXPECT_TENSOR_EQ(bucketize(f32({{1.5, 3}, {9, 0}}), tensor({1.f, 3.f, 5.f}), false, true), longs({{1, 2}, {3, 0}}));

  EXPECT_ERROR_WITH(searchsorted(longs({1, 3, 5}), Scalar(3), false, true, "left"),
                    "side and right can't be set to opposites, got side of left while right was True");
  EXPECT_ERROR_WITH(searchsorted(longs({1, 3, 5}), Scalar(3), false, false, "foo"),
                    "side can only be 'left' or 'right' but got foo");
  EXPECT_ERROR_WITH(searchsorted(longs({{1, 3, 5}}), longs({{3}, {1}})),
                    "boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input "
                    "value tensor must match, but we got boundaries tensor [1, 3] and input value tensor [2, 1]");
  EXPECT_ERROR_WITH(searchsorted(longs({1, 3}), longs({1}), false, false, std::nullopt, tensor({0, 1}, dtype(kInt))),
                    "sorter must be a tensor of long dtype");
  EXPECT_ERROR_WITH(searchsorted(longs({1, 3}), longs({1}), false, false, std::nullopt, longs({0, 2})),
                    "sorter index out of range");
  EXPECT_ERROR_WITH(bucketize(tensor({3.f}), f32({{1, 3}})), "boundaries tensor must be 1 dimension, but got dim(2)");
}

TEST(SortOpsTest, OutVariantsAndMoreErrors) {
  Tensor x = tensor({3.f, 1.f, 2.f});
  Tensor v = empty({0}), i = empty({0}, dtype(kLong));
  sort_out(v, i, x);
  EXPECT_TENSOR_EQ(v, tensor({1.f, 2.f, 3.f}));
  EXPECT_TENSOR_EQ(i, longs({1, 2, 0}));
  topk_out(v, i, x, 2);
  EXPECT_TENSOR_EQ(v, tensor({3.f, 2.f}));
  EXPECT_TENSOR_EQ(i, longs({0, 2}));
  Tensor bad = empty({0}, dtype(kInt));
  EXPECT_ERROR_WITH(sort_out(v, bad, x), "expected the indices out tensor to have dtype Long");
  Tensor so = empty({0}, dtype(kInt));
  searchsorted_out(so, tensor({1.f, 2.f}), tensor({1.5f}), true);
  EXPECT_TENSOR_EQ(so, tensor({1}, dtype(kInt)));
  EXPECT_ERROR_WITH(searchsorted_out(so, tensor({1.f, 2.f}), tensor({1.5f})), "output tensor's dtype is wrong");

  EXPECT_ERROR_WITH(searchsorted(tensor(1.f), tensor({1.f})), "boundaries tensor should have positive dimension");
  EXPECT_ERROR_WITH(searchsorted(longs({1, 3}), longs({1}), false, false, std::nullopt, longs({0, 1, 2})),
                    "boundary and sorter must have the same size");
  EXPECT_ERROR_WITH(searchsorted(tensor({Complex<float>(1, 0)}), tensor({1.f})), "complex dtypes are not supported");
  EXPECT_ERROR_WITH(searchsorted(tensor({true}), tensor({false})), "bool tensors are not supported");
  EXPECT_ERROR_WITH(searchsorted(longs({{1, 3}}), Scalar(2)), "input value can be a scalar only when boundaries tensor dimension is 1");
  EXPECT_ERROR_WITH(topk(tensor({Complex<float>(1, 0)}), 1), "not implemented for dtype ComplexFloat");
  EXPECT_ERROR_WITH(kthvalue(tensor({Complex<float>(1, 0)}), 1), "not implemented for dtype ComplexFloat");
  EXPECT_ERROR_WITH(_unique2(tensor({Complex<float>(1, 0)})), "not implemented for dtype ComplexFloat");
}

}  // namespace
}  // namespace ember::test
