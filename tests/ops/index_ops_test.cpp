// index_select, gather, scatter*, index_add/copy/fill, masked_*, take, put, nonzero and
// where: values from PyTorch 1.13 or naive loops, dtypes, layouts, and error messages.
#include "ops_test_util.h"
#include "test_util.h"

namespace ember::test {
namespace {

TEST(IndexOpsTest, IndexSelect) {
  Tensor x = ar({3, 4}, kFloat);
  EXPECT_TENSOR_EQ(x.index_select(0, longs({2, 0, 2})), f32({{8, 9, 10, 11}, {0, 1, 2, 3}, {8, 9, 10, 11}}));
  EXPECT_TENSOR_EQ(x.index_select(-1, tensor({3, 1}, dtype(kInt))), f32({{3, 1}, {7, 5}, {11, 9}}));
  EXPECT_TENSOR_EQ(x.t().index_select(1, longs({1})), f32({{4}, {5}, {6}, {7}}));  // non-contiguous
  EXPECT_EQ(arange(3).index_select(0, tensor(int64_t(1))).sizes(), IntArrayRef({1}));
  EXPECT_EQ(tensor(1.f).index_select(0, longs({0, 0})).sizes(), IntArrayRef({}));
  EXPECT_EQ(x.index_select(0, empty({0}, dtype(kLong))).sizes(), IntArrayRef({0, 4}));
  for (ScalarType t : {kBool, kByte, kHalf, kBFloat16, kDouble, kComplexFloat})
    EXPECT_TENSOR_EQ(x.to(t).index_select(1, longs({3, 0})), x.index_select(1, longs({3, 0})).to(t)) << t;
  EXPECT_ERROR_WITH(x.index_select(0, longs({3})), "index out of range in self");
  EXPECT_ERROR_WITH(x.index_select(0, longs({-1})), "index out of range in self");
  EXPECT_ERROR_WITH(x.index_select(0, tensor({{1}})), "Index is supposed to be a vector");
  EXPECT_ERROR_WITH(x.index_select(0, tensor({1.f})), "Expected dtype int32 or int64 for index");
}

TEST(IndexOpsTest, GatherMatchesLoops) {
  Tensor x = randn({5, 7}, dtype(kDouble));
  for (int64_t dim : {0, 1}) {
    Tensor idx = randint(0, dim == 0 ? 5 : 7, {4, 6});
    Tensor r = x.gather(dim, idx);
    ASSERT_EQ(r.sizes(), IntArrayRef({4, 6}));
    auto xa = x.accessor<double, 2>();
    auto ia = idx.accessor<int64_t, 2>();
    auto ra = r.accessor<double, 2>();
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 6; ++j) EXPECT_EQ(ra[i][j], dim == 0 ? xa[ia[i][j]][j] : xa[i][ia[i][j]]);
  }
  // PyTorch: index may be larger than self along dim, and smaller elsewhere
  EXPECT_TENSOR_EQ(ar({2, 3}, kLong).gather(1, longs({{0, 0, 0, 0}, {1, 1, 1, 1}})),
                   tensor({{0, 0, 0, 0}, {4, 4, 4, 4}}));
  EXPECT_TENSOR_EQ(ar({2, 3}, kLong).gather(0, longs({{1}})), tensor({{3}}));
  EXPECT_TENSOR_EQ(tensor(1.f).gather(0, tensor(int64_t(0))), tensor(1.f));
  // transposed self and index, a long 1-d gather (parallel path), half precision
  Tensor xt = ar({4, 3}, kFloat).t();
  EXPECT_TENSOR_EQ(xt.gather(1, longs({{3, 0}, {1, 1}, {0, 2}})), f32({{9, 0}, {4, 4}, {2, 8}}));
  Tensor big = arange(100000, dtype(kFloat));
  Tensor bi = randint(0, 100000, {90000});
  EXPECT_TENSOR_EQ(big.gather(0, bi), bi.to(kFloat));
  EXPECT_TENSOR_EQ(ar({2, 3}, kHalf).gather(1, longs({{2}, {0}})), f32({{2}, {3}}).to(kHalf));
  EXPECT_EQ(x.gather(0, empty({0, 7}, dtype(kLong))).sizes(), IntArrayRef({0, 7}));
}

TEST(IndexOpsTest, GatherErrors) {
  Tensor m = ar({2, 3}, kFloat);
  EXPECT_ERROR_WITH(m.gather(1, zeros({2}, dtype(kLong))),
                    "Index tensor must have the same number of dimensions as input tensor");
  EXPECT_ERROR_WITH(m.gather(1, zeros({3, 1}, dtype(kLong))),
                    "Size does not match at dimension 0 expected index [3, 1] to be smaller than self [2, 3] apart "
                    "from dimension 1");
  EXPECT_ERROR_WITH(m.gather(1, full({2, 1}, 5, dtype(kLong))), "index 5 is out of bounds for dimension 1 with size 3");
  EXPECT_ERROR_WITH(m.gather(1, full({2, 1}, -1, dtype(kLong))), "index -1 is out of bounds for dimension 1 with size 3");
  EXPECT_ERROR_WITH(m.gather(1, zeros({2, 1}, dtype(kInt))), "gather(): Expected dtype int64 for index");
  EXPECT_ERROR_WITH(m.gather(2, zeros({2, 1}, dtype(kLong))), "dimension out of range");
}

TEST(IndexOpsTest, ScatterSrcValueAndAdd) {
  Tensor z = zeros({3, 4});
  EXPECT_TENSOR_EQ(z.scatter(1, longs({{3, 0}, {1, 1}, {2, 0}}), 5.),
                   f32({{5, 0, 0, 5}, {0, 5, 0, 0}, {5, 0, 5, 0}}));
  EXPECT_TENSOR_EQ(zeros({3}, dtype(kLong)).scatter(0, longs({1}), 2.7), tensor({0, 2, 0}));
  Tensor src = f32({{1, 2, 3}, {4, 5, 6}});
  EXPECT_TENSOR_EQ(zeros({2, 5}).scatter_add(1, longs({{0, 0, 4}, {1, 2, 1}}), src), f32({{3, 0, 0, 0, 3}, {0, 10, 5, 0, 0}}));
  Tensor s2 = zeros({2, 5});
  s2.scatter_(1, longs({{4, 2}, {0, 3}}), src);  // src larger than index
  EXPECT_TENSOR_EQ(s2, f32({{0, 0, 2, 0, 1}, {4, 0, 0, 5, 0}}));
  Tensor ints = zeros({3}, dtype(kLong));
  ints.scatter_add_(0, longs({1, 1}), tensor({2, 3}));
  EXPECT_TENSOR_EQ(ints, tensor({0, 5, 0}));
  // scatter into a transposed self writes through the view
  Tensor base = zeros({4, 2});
  Tensor bt = base.t();
  bt.scatter_(1, longs({{3}, {0}}), f32({{7}, {8}}));
  EXPECT_TENSOR_EQ(base, f32({{0, 8}, {0, 0}, {0, 0}, {7, 0}}));
  for (ScalarType t : {kBool, kByte, kInt, kHalf, kBFloat16, kDouble, kComplexDouble}) {
    Tensor r = zeros({2, 3}, dtype(t)).scatter_add(1, longs({{0, 0}, {2, 1}}), ones({2, 2}, dtype(t)));
    Tensor e = zeros({2, 3}, dtype(kDouble)).scatter_add(1, longs({{0, 0}, {2, 1}}), ones({2, 2}, dtype(kDouble)));
    EXPECT_TENSOR_EQ(r, e.to(t)) << t;
  }
}

TEST(IndexOpsTest, ScatterErrorsLeaveSelfIntact) {
  Tensor z = zeros({2, 3});
  EXPECT_ERROR_WITH(z.scatter_(1, zeros({2}, dtype(kLong)), ones({2, 3}, dtype(kFloat))),
                    "Index tensor must have the same number of dimensions as self tensor");
  EXPECT_ERROR_WITH(z.scatter_(1, zeros({2, 3}, dtype(kLong)), ones({2, 2}, dtype(kFloat))),
                    "Expected index [2, 3] to be smaller than self [2, 3] apart from dimension 1 and to be smaller size "
                    "than src [2, 2]");
  EXPECT_ERROR_WITH(z.scatter_(1, zeros({3, 3}, dtype(kLong)), ones({3, 3}, dtype(kFloat))),
                    "Expected index [3, 3] to be smaller than self [2, 3] apart from dimension 1");
  EXPECT_ERROR_WITH(z.scatter_(1, longs({{0, 3}, {1, 1}}), ones({2, 3}, dtype(kFloat))),
                    "index 3 is out of bounds for dimension 1 with size 3");
  EXPECT_TENSOR_EQ(z, zeros({2, 3}));
  EXPECT_ERROR_WITH(z.scatter_(1, zeros({2, 1}, dtype(kLong)), ones({2, 3}, dtype(kDouble))),
                    "scatter(): Expected self.dtype to be equal to src.dtype");
  EXPECT_ERROR_WITH(z.scatter_add(1, zeros({2, 1}, dtype(kInt)), ones({2, 3}, dtype(kFloat))),
                    "scatter_add(): Expected dtype int64 for index");
  EXPECT_ERROR_WITH(z.scatter(1, zeros({2, 3}, dtype(kLong)), ones({2}, dtype(kFloat))),
                    "Index tensor must have the same number of dimensions as src tensor");
}

TEST(IndexOpsTest, ScatterReduceAllModes) {
  Tensor s = f32({{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}});
  Tensor i = longs({{0, 1, 0, 2}, {2, 2, 1, 0}});
  Tensor src = f32({{10, 20, 30, 40}, {50, 60, 70, 80}});
  Tensor reduced = f32({{10, 2, 30, 80}, {5, 20, 70, 8}, {50, 60, 11, 40}});  // include_self=false for all
  EXPECT_TENSOR_EQ(s.scatter_reduce(0, i, src, "sum"), f32({{11, 2, 33, 84}, {5, 26, 77, 8}, {59, 70, 11, 52}}));
  EXPECT_TENSOR_EQ(s.scatter_reduce(0, i, src, "prod"), f32({{10, 2, 90, 320}, {5, 120, 490, 8}, {450, 600, 11, 480}}));
  EXPECT_TENSOR_EQ(s.scatter_reduce(0, i, src, "mean"), f32({{5.5, 2, 16.5, 42}, {5, 13, 38.5, 8}, {29.5, 35, 11, 26}}));
  EXPECT_TENSOR_EQ(s.scatter_reduce(0, i, src, "amax"), reduced);
  EXPECT_TENSOR_EQ(s.scatter_reduce(0, i, src, "amin"), s);
  for (const char* r : {"sum", "prod", "mean", "amax", "amin"})
    EXPECT_TENSOR_EQ(s.scatter_reduce(0, i, src, r, false), reduced) << r;
  // integer mean floors; include_self=false mean; NaN propagates through amax
  EXPECT_TENSOR_EQ(tensor({1, 2, 3}).scatter_reduce(0, longs({0, 0, 2}), tensor({4, 5, 6}), "mean"), tensor({3, 2, 4}));
  EXPECT_TENSOR_EQ(tensor({1.f, 2.f, 3.f}).scatter_reduce(0, longs({0, 0, 2}), tensor({4.f, 5.f, 6.f}), "mean", false),
                   tensor({4.5f, 2.f, 6.f}));
  Tensor nan = tensor({1.f, 2.f}).scatter_reduce(0, longs({0, 0}), tensor({NAN, 5.f}), "amax");
  EXPECT_TRUE(std::isnan(nan.index({0}).item<float>()));
  EXPECT_TENSOR_EQ(tensor({10, 2}, dtype(kShort)).scatter_reduce(0, longs({0, 0}), tensor({4, 5}, dtype(kShort)), "amin", false),
                   tensor({4, 2}, dtype(kShort)));
  Tensor z = zeros({3});
  EXPECT_ERROR_WITH(z.scatter_reduce(0, longs({0}), ones({1}, dtype(kFloat)), "max"),
                    "reduce argument must be either sum, prod, mean, amax or amin");
  EXPECT_ERROR_WITH(z.scatter_reduce_(0, longs({0}), ones({1}, dtype(kFloat)), "foo"),
                    "reduce argument must be either sum, prod, mean, amax or amin");
}

TEST(IndexOpsTest, IndexAddCopyFill) {
  Tensor x = ar({3, 4}, kFloat);
  EXPECT_TENSOR_EQ(x.index_add(1, longs({0, 3, 0}), ones({3, 3}, dtype(kFloat)), -2),
                   f32({{-4, 1, 2, 1}, {0, 5, 6, 5}, {4, 9, 10, 9}}));
  EXPECT_TENSOR_EQ(zeros({3}).index_add(0, longs({0, 0, 2}), tensor({1.f, 2.f, 3.f}), 2), tensor({6.f, 0.f, 6.f}));
  EXPECT_TENSOR_EQ(zeros({3}, dtype(kLong)).index_add(0, longs({0}), tensor({1}), 2.5), tensor({2, 0, 0}));
  EXPECT_TENSOR_EQ(x.index_copy(0, longs({2, 0}), f32({{1, 1, 1, 1}, {2, 2, 2, 2}})),
                   f32({{2, 2, 2, 2}, {4, 5, 6, 7}, {1, 1, 1, 1}}));
  EXPECT_TENSOR_EQ(x.index_fill(1, longs({-1, 1}), -5), f32({{0, -5, 2, -5}, {4, -5, 6, -5}, {8, -5, 10, -5}}));
  EXPECT_TENSOR_EQ(tensor(1.f).index_fill(0, longs({0}), 3), tensor(3.f));
  Tensor t = zeros({2, 3});
  Tensor tt = t.t();
  tt.index_add_(0, longs({2}), f32({{1, 2}}));
  EXPECT_TENSOR_EQ(t, f32({{0, 0, 1}, {0, 0, 2}}));

  EXPECT_ERROR_WITH(zeros({3}).index_add_(0, longs({3}), ones({1}, dtype(kFloat))), "index out of range in self");
  EXPECT_ERROR_WITH(zeros({3}).index_add_(0, longs({-1}), ones({1}, dtype(kFloat))), "index out of range in self");
  EXPECT_ERROR_WITH(zeros({3}).index_add(0, longs({0}), ones({1}, dtype(kDouble))),
                    "index_add_(): self (Float) and source (Double) must have the same scalar type");
  EXPECT_ERROR_WITH(zeros({3, 2}).index_add(0, longs({0, 1}), f32({{1, 2}})),
                    "index_add_(): Number of indices (2) should be equal to source.size(dim): (1), for dim: 0");
  EXPECT_ERROR_WITH(zeros({3, 2}).index_add(0, longs({0}), f32({{1, 2, 3}})), "does not match self of shape [3, 2]");
  EXPECT_ERROR_WITH(zeros({3}).index_copy_(0, longs({3}), ones({1}, dtype(kFloat))),
                    "index_copy_(): index 3 is out of bounds for dimension 0 with size 3");
  EXPECT_ERROR_WITH(zeros({3}).index_copy_(0, longs({-1}), ones({1}, dtype(kFloat))),
                    "index_copy_(): index -1 is out of bounds for dimension 0 with size 3");
  EXPECT_ERROR_WITH(zeros({3, 2}).index_copy(0, longs({0, 1}), f32({{1, 2}})),
                    "index_copy_(): Number of indices (2) should be equal to source.size(dim) (1)");
  EXPECT_ERROR_WITH(zeros({3, 2}).index_copy(0, longs({0}), tensor({{1, 2}})),
                    "index_copy_(): self and source expected to have the same dtype, but got (self) Float and (source) Long");
  EXPECT_ERROR_WITH(zeros({3}).index_copy(0, tensor({2}, dtype(kInt)), ones({1}, dtype(kFloat))),
                    "Expected a long tensor for index, but got Int");
  EXPECT_ERROR_WITH(zeros({3}).index_fill_(0, longs({3}), 1), "index 3 is out of bounds for dimension 0 with size 3");
  EXPECT_ERROR_WITH(zeros({3}).index_fill_(0, tensor({2}, dtype(kInt)), 1), "index_fill_(): Expected dtype int64 for index.");
}

TEST(IndexOpsTest, MaskedFillSelectScatter) {
  Tensor x = ar({2, 3}, kFloat);
  Tensor m = tensor({{true, false, true}, {false, false, true}});
  EXPECT_TENSOR_EQ(x.masked_fill(m, -1), f32({{-1, 1, -1}, {3, 4, -1}}));
  EXPECT_TENSOR_EQ(x.masked_fill(tensor({true, false, false}), tensor(2.5, dtype(kDouble))), f32({{2.5, 1, 2}, {2.5, 4, 5}}));
  EXPECT_TENSOR_EQ(zeros({2}, dtype(kLong)).masked_fill(tensor({true, false}), 2.7), tensor({2, 0}));
  EXPECT_TENSOR_EQ(zeros({1, 2}).masked_fill(tensor({{true, false}, {false, true}}), 1.), f32({{1, 0}, {0, 1}}));
  Tensor xt = ar({3, 2}, kFloat).t();  // non-contiguous in place
  xt.masked_fill_(m, 0);
  EXPECT_TENSOR_EQ(xt, f32({{0, 2, 0}, {1, 3, 0}}));
  for (ScalarType t : {kBool, kByte, kHalf, kBFloat16, kComplexFloat})
    EXPECT_TENSOR_EQ(x.to(t).masked_fill(m, 1), x.masked_fill(m, 1).to(t)) << t;
  EXPECT_ERROR_WITH(zeros({3}).masked_fill(tensor({true, false}), 1.), "must match the size of tensor b");
  EXPECT_ERROR_WITH(zeros({3}).masked_fill_(ones({2, 3}, dtype(kBool)), 1.),
                    "output with shape [3] doesn't match the broadcast shape [2, 3]");
  EXPECT_ERROR_WITH(zeros({3}).masked_fill(tensor({true, false, true}), ones({1}, dtype(kFloat))),
                    "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s).");
  EXPECT_ERROR_WITH(zeros({3}).masked_fill(tensor({1, 0, 1}), 1.), "only supports boolean masks");
  EXPECT_ERROR_WITH(zeros({2}).masked_fill(tensor({true, false}), Scalar(Complex<double>(0, 1))),
                    "cannot be converted to type Float");

  EXPECT_TENSOR_EQ(x.masked_select(m), tensor({0.f, 2.f, 5.f}));
  EXPECT_TENSOR_EQ(x.masked_select(tensor({false, true, false})), tensor({1.f, 4.f}));  // broadcast mask
  EXPECT_TENSOR_EQ(x.t().masked_select(m.t()), tensor({0.f, 2.f, 5.f}));
  EXPECT_ERROR_WITH(x.masked_select(tensor({1, 0, 1})), "masked_select: expected BoolTensor or ByteTensor for mask");

  Tensor ms = ar({3, 4}, kFloat).masked_scatter(tensor({{true}, {false}, {true}}), arange(100., 110., dtype(kFloat)));
  EXPECT_TENSOR_EQ(ms, f32({{100, 101, 102, 103}, {4, 5, 6, 7}, {104, 105, 106, 107}}));
  EXPECT_ERROR_WITH(zeros({3}).masked_scatter_(tensor({true, true, true}), ones({2}, dtype(kFloat))),
                    "Number of elements of source < number of ones in mask");
  EXPECT_ERROR_WITH(zeros({3}).masked_scatter_(tensor({true, true, true}), ones({3}, dtype(kDouble))),
                    "masked_scatter: expected self and source to have same dtypes but got Float and Double");
}

TEST(IndexOpsTest, TakeAndPut) {
  Tensor x = ar({3, 4}, kFloat);
  EXPECT_TENSOR_EQ(x.t().take(longs({{0, 5}, {-1, 3}})), f32({{0, 9}, {11, 1}}));
  EXPECT_TENSOR_EQ(zeros({2, 3}).t().put(longs({0, 4, 4}), tensor({1.f, 2.f, 3.f}), true), f32({{1, 0}, {0, 0}, {5, 0}}));
  EXPECT_TENSOR_EQ(zeros({2, 2}).put(longs({0, 0, 3}), tensor({1.f, 2.f, 3.f}), true), f32({{3, 0}, {0, 3}}));
  Tensor p = zeros({4});
  p.put_(longs({-1, 1}), tensor({5.f, 6.f}));
  EXPECT_TENSOR_EQ(p, tensor({0.f, 6.f, 0.f, 5.f}));
  EXPECT_ERROR_WITH(arange(3).take(longs({3})), "out of range: tried to access index 3 on a tensor of 3 elements.");
  EXPECT_ERROR_WITH(arange(3).take(longs({-4})), "out of range: tried to access index -4 on a tensor of 3 elements.");
  EXPECT_ERROR_WITH(arange(3).take(tensor({2}, dtype(kInt))), "take(): Expected a long tensor for index, but got Int");
  EXPECT_ERROR_WITH(zeros({3}).put_(longs({3}), ones({1}, dtype(kFloat))),
                    "out of range: tried to access index 3 on a tensor of 3 elements.");
  EXPECT_ERROR_WITH(zeros({3}).put_(longs({1, 2}), ones({1}, dtype(kFloat))),
                    "put_(): Expected source and index to have the same number of elements, but got source.numel() = 1, "
                    "index.numel() = 2");
}

TEST(IndexOpsTest, NonzeroAndWhere) {
  EXPECT_TENSOR_EQ(nonzero(tensor({{0.f, 1.f}, {-0.f, NAN}})), tensor({{0, 1}, {1, 1}}));
  EXPECT_TENSOR_EQ(nonzero(tensor({Complex<float>(0, 0), Complex<float>(0, 1)})), tensor({{1}}));
  EXPECT_EQ(nonzero(tensor(1.f)).sizes(), IntArrayRef({1, 0}));
  EXPECT_EQ(nonzero(zeros({2, 0})).sizes(), IntArrayRef({0, 2}));
  Tensor big = randn({300, 400}).gt(0.5);
  Tensor nz = nonzero(big.t());  // parallel chunks, transposed input
  auto ba = big.accessor<bool, 2>();
  int64_t k = 0;
  bool ok = true;
  for (int i = 0; i < 400; ++i)
    for (int j = 0; j < 300; ++j)
      if (ba[j][i]) ok &= nz.index({k, 0}).item<int64_t>() == i && nz.index({k++, 1}).item<int64_t>() == j;
  EXPECT_TRUE(ok);
  EXPECT_EQ(k, nz.size(0));
  auto np = nonzero_numpy(tensor({{0, 1}, {1, 1}}));
  ASSERT_EQ(np.size(), 2u);
  EXPECT_TENSOR_EQ(np[0], tensor({0, 1, 1}));
  EXPECT_TENSOR_EQ(np[1], tensor({1, 0, 1}));
  EXPECT_TENSOR_EQ(where(tensor({{0, 1}, {1, 1}}))[0], tensor({0, 1, 1}));

  Tensor c = tensor({true, false});
  Tensor a = where(c, tensor({1, 2}), 2.5);
  EXPECT_TENSOR_EQ(a, tensor({1.f, 2.5f}));
  EXPECT_TENSOR_EQ(where(c, tensor({1, 2}, dtype(kInt)), tensor({1.f, 2.f}).to(kHalf)), tensor({1.f, 2.f}).to(kHalf));
  EXPECT_TENSOR_EQ(where(c, 1, 2.5), tensor({1.f, 2.5f}));
  EXPECT_TENSOR_EQ(where(c, 3, tensor({7, 8}, dtype(kShort))), tensor({3, 8}, dtype(kShort)));
  EXPECT_TENSOR_EQ(tensor({1.f, 2.f}).where(c, 0), tensor({1.f, 0.f}));
  EXPECT_TENSOR_EQ(where(tensor({1, 0}, dtype(kByte)), tensor({1.f, 2.f}), tensor({3.f, 4.f})), tensor({1.f, 4.f}));
  // broadcasting and a channels-last input keep their layout
  Tensor x = randn({2, 3, 4, 5}).contiguous(MemoryFormat::ChannelsLast);
  Tensor w = where(x.gt(0), x, zeros({1}));
  EXPECT_TRUE(w.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TENSOR_EQ(w, x.relu());
  EXPECT_ERROR_WITH(where(tensor({1, 0}), 1., 2.),
                    "where expected condition to be a boolean tensor, but got a tensor with dtype Long");
}

TEST(IndexOpsTest, OutVariantsAndMoreErrors) {
  Tensor x = ar({3, 4}, kFloat);
  Tensor out = empty({0}, dtype(kDouble));
  index_select_out(out, x, 1, longs({0, 2}));
  EXPECT_TENSOR_EQ(out, x.index_select(1, longs({0, 2})).to(kDouble));
  Tensor g = empty({5});
  gather_out(g, x, 1, longs({{1}, {2}, {3}}));
  EXPECT_TENSOR_EQ(g, f32({{1}, {6}, {11}}));
  Tensor ms = empty({0});
  masked_select_out(ms, x, x.gt(9));
  EXPECT_TENSOR_EQ(ms, tensor({10.f, 11.f}));
  Tensor tk = empty({0});
  take_out(tk, x, longs({0, 11}));
  EXPECT_TENSOR_EQ(tk, tensor({0.f, 11.f}));
  Tensor nz = empty({0}, dtype(kLong));
  nonzero_out(nz, tensor({0, 3, 0, 1}));
  EXPECT_TENSOR_EQ(nz, longs({{1}, {3}}));
  Tensor wo = empty({2});
  where_out(wo, tensor({true, false}), tensor({1.f, 2.f}), tensor({3.f, 4.f}));
  EXPECT_TENSOR_EQ(wo, tensor({1.f, 4.f}));
  Tensor bad = empty({2}, dtype(kLong));
  EXPECT_ERROR_WITH(gather_out(bad, x, 1, longs({{1}, {2}, {3}})), "result type Float can't be cast to the desired output type Long");
  EXPECT_ERROR_WITH(nonzero_out(out, x), "nonzero_out: expected the out tensor to have dtype Long");

  EXPECT_ERROR_WITH(zeros({3}).index_add_(0, longs({{0}}), ones({1, 1}, dtype(kFloat))), "Index is supposed to be a vector");
  EXPECT_ERROR_WITH(zeros({3}).index_add_(0, tensor({0.f}), ones({1}, dtype(kFloat))), "Expected dtype int32/int64 for index");
  EXPECT_ERROR_WITH(zeros({3}).index_fill_(0, longs({0}), Scalar(Complex<double>(0, 1))),
                    "Converting complex Scalar to non-complex type is not supported");
  EXPECT_ERROR_WITH(zeros({3}).scatter_(0, longs({0}), Scalar(Complex<double>(1, 1))), "cannot be converted to type Float");
  Tensor cz = zeros({3}, dtype(kComplexFloat));
  EXPECT_ERROR_WITH(cz.scatter_reduce(0, longs({0}), cz, "amax"), "amax is not supported for complex dtype");
  EXPECT_ERROR_WITH(zeros({3}).masked_scatter_(tensor({1, 0, 1}), ones({3}, dtype(kFloat))), "only supports boolean masks");
  EXPECT_ERROR_WITH(zeros({3}).masked_scatter_(ones({2, 3}, dtype(kBool)), ones({6}, dtype(kFloat))),
                    "output with shape [3] doesn't match the broadcast shape [2, 3]");
  EXPECT_ERROR_WITH(zeros({3}).put_(longs({0}), ones({1}, dtype(kDouble))),
                    "put_(): self and source expected to have the same dtype, but got self.dtype = Float and source.dtype = Double");
  EXPECT_ERROR_WITH(zeros({3}).put_(tensor({0}, dtype(kInt)), ones({1}, dtype(kFloat))), "put_(): Expected a long tensor for index");
  EXPECT_ERROR_WITH(tensor(1.f).index_select(0, longs({1})), "index out of range in self");
  EXPECT_ERROR_WITH(nonzero(empty({2}, TensorOptions().device(Device(kMeta)))), "meta tensors");
  Tensor e = zeros({1}).expand({3});
  EXPECT_ERROR_WITH(e.masked_fill_(tensor({true, false, true}), 1), "single memory location");
  EXPECT_ERROR_WITH(e.scatter_(0, longs({0}), 1), "single memory location");
}

}  // namespace
}  // namespace ember::test
