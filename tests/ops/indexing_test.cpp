// Tensor::index / index_put_ with TensorIndex lists, and aten-style index / index_put_:
// views for integers/slices/None/Ellipsis/bools, advanced indexing against naive loops and
// PyTorch 1.13 values, and PyTorch's error messages.
#include <sstream>

#include "ops_test_util.h"
#include "test_util.h"

namespace ember::test {
namespace {
using namespace ember::indexing;

TEST(IndexingTest, IntegersAndSlicesAreViews) {
  Tensor x = ar({2, 3, 4});
  Tensor a = x.index({1});
  EXPECT_EQ(a.sizes(), IntArrayRef({3, 4}));
  EXPECT_TRUE(a.is_alias_of(x));
  EXPECT_EQ(a.index({2, 3}).item<int64_t>(), 23);
  EXPECT_EQ(x.index({-1, -1, -1}).item<int64_t>(), 23);
  Tensor b = x.index({Slice(), 1});
  EXPECT_EQ(b.sizes(), IntArrayRef({2, 4}));
  EXPECT_TENSOR_EQ(b, tensor({{4, 5, 6, 7}, {16, 17, 18, 19}}));
  Tensor c = x.index({Slice(None, None, 2), Slice(-2, None), Slice(1, -1, 2)});
  EXPECT_EQ(c.sizes(), IntArrayRef({1, 2, 1}));
  EXPECT_TENSOR_EQ(c, tensor({{{5}, {9}}}));
  // Bounds past the end clamp; start > stop gives an empty dim.
  EXPECT_EQ(x.index({Slice(1, 100)}).size(0), 1);
  EXPECT_EQ(x.index({Slice(2, 1)}).size(0), 0);
  EXPECT_EQ(x.index({Slice(-100, 1)}).size(0), 1);
}

TEST(IndexingTest, NoneEllipsisAndBools) {
  Tensor x = ar({2, 3, 4});
  EXPECT_EQ(x.index({None, 0, None}).sizes(), IntArrayRef({1, 1, 3, 4}));
  EXPECT_EQ(x.index({"...", None}).sizes(), IntArrayRef({2, 3, 4, 1}));
  EXPECT_EQ(x.index({Ellipsis, 1}).sizes(), IntArrayRef({2, 3}));
  EXPECT_TENSOR_EQ(x.index({Ellipsis, 1}), x.select(2, 1));
  EXPECT_EQ(x.index({0, Ellipsis, 2}).sizes(), IntArrayRef({3}));
  EXPECT_TENSOR_EQ(x.index({0, Ellipsis, 2}), tensor({2, 6, 10}));
  Tensor t = x.index({true});
  EXPECT_EQ(t.sizes(), IntArrayRef({1, 2, 3, 4}));
  EXPECT_TENSOR_EQ(t.squeeze(0), x);
  EXPECT_EQ(x.index({false}).sizes(), IntArrayRef({0, 2, 3, 4}));
  // A bool joins the advanced indices (PyTorch: x[True, idx] has shape [2, 3, 4]).
  Tensor ti = x.index({true, longs({1, 0})});
  EXPECT_EQ(ti.sizes(), IntArrayRef({2, 3, 4}));
  EXPECT_TENSOR_EQ(ti.index({0}), x.index({1}));
  // 0-dim index tensors: integers select, bools add a dim.
  EXPECT_TENSOR_EQ(x.index({tensor(int64_t(1))}), x.index({1}));
  EXPECT_EQ(x.index({tensor(true)}).sizes(), IntArrayRef({1, 2, 3, 4}));
  EXPECT_EQ(x.index({tensor(false)}).sizes(), IntArrayRef({0, 2, 3, 4}));
  std::ostringstream ss;
  ss << TensorIndex(None) << " " << TensorIndex("...") << " " << TensorIndex(3) << " " << TensorIndex(true) << " "
     << TensorIndex(Slice(1, None, 2));
  EXPECT_EQ(ss.str(), "None ... 3 true 1:9223372036854775807:2");
}

TEST(IndexingTest, AdvancedValuesFromPyTorch) {
  Tensor x = ar({2, 3, 4});
  // x[idx, :, idx] (non-adjacent: the index dims move to the front)
  EXPECT_TENSOR_EQ(x.index({longs({1, 0}), Slice(), longs({0, 3})}), tensor({{12, 16, 20}, {3, 7, 11}}));
  // x[:, idx, idx] (adjacent: stays in place)
  EXPECT_TENSOR_EQ(x.index({Slice(), longs({1, 0}), longs({0, 3})}), tensor({{4, 3}, {16, 15}}));
  // x[..., [[1],[0]]]
  Tensor e = x.index({Ellipsis, tensor({{1}, {0}})});
  EXPECT_EQ(e.sizes(), IntArrayRef({2, 3, 2, 1}));
  EXPECT_TENSOR_EQ(e.flatten().slice(0, 0, 6), tensor({1, 0, 5, 4, 9, 8}));
  // x[0, mask]
  EXPECT_TENSOR_EQ(x.index({0, tensor({true, false, true})}), tensor({{0, 1, 2, 3}, {8, 9, 10, 11}}));
  // negative indices wrap; int32 and uint8 indices
  EXPECT_TENSOR_EQ(x.index({longs({-1}), -1, longs({-4})}), tensor({20}));
  EXPECT_TENSOR_EQ(x.index({tensor({1}, dtype(kInt))}), x.index({Slice(1, 2)}));
  EXPECT_TENSOR_EQ(x.index({tensor({1, 0}, dtype(kByte))}), x.index({Slice(0, 1)}));
  // empty index
  EXPECT_EQ(x.index({empty({0}, dtype(kLong))}).sizes(), IntArrayRef({0, 3, 4}));
}

TEST(IndexingTest, AdvancedMatchesNaiveLoops) {
  Tensor x = randn({4, 5, 6}, dtype(kDouble));
  Tensor i1 = randint(-4, 4, {2, 3}), i2 = randint(0, 6, {3});
  Tensor r = x.index({i1, Slice(), i2});  // non-adjacent -> [2, 3, 5]
  ASSERT_EQ(r.sizes(), IntArrayRef({2, 3, 5}));
  auto xa = x.accessor<double, 3>();
  auto a1 = i1.accessor<int64_t, 2>();
  auto a2 = i2.accessor<int64_t, 1>();
  auto ra = r.accessor<double, 3>();
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int j = 0; j < 5; ++j) {
        int64_t k = a1[a][b] < 0 ? a1[a][b] + 4 : a1[a][b];
        EXPECT_EQ(ra[a][b][j], xa[k][j][a2[b]]);
      }
  // A mask over two dims picks elements in row-major order.
  Tensor m = x.gt(0).select(2, 0);  // [4, 5]
  Tensor sel = x.index({m});         // [nnz, 6]
  int64_t row = 0;
  auto ma = m.accessor<bool, 2>();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j)
      if (ma[i][j]) EXPECT_TENSOR_EQ(sel.select(0, row++), x.index({i, j}));
  EXPECT_EQ(row, sel.size(0));
}

TEST(IndexingTest, NonContiguousDtypesAndLargeInputs) {
  Tensor base = ar({6, 5}, kDouble);
  Tensor xt = base.t();  // [5, 6], transposed
  Tensor idx = longs({4, 0, 4});
  Tensor r = xt.index({idx, Slice(None, None, 2)});
  EXPECT_TENSOR_EQ(r, tensor({{4., 14., 24.}, {0., 10., 20.}, {4., 14., 24.}}, dtype(kDouble)));
  for (ScalarType t : {kBool, kByte, kShort, kInt, kHalf, kBFloat16, kFloat, kComplexHalf, kComplexFloat, kComplexDouble}) {
    Tensor y = xt.to(t);
    EXPECT_TENSOR_EQ(y.index({idx, Slice(None, None, 2)}), r.to(t)) << t;
  }
  // expanded input
  Tensor ex = tensor({1., 2., 3.}).expand({4, 3});
  EXPECT_TENSOR_EQ(ex.index({longs({3, 1}), longs({2, 0})}), tensor({3., 1.}));
  // large enough to run in parallel
  Tensor big = arange(300000, dtype(kFloat)).view({1500, 200});
  Tensor rows = randint(0, 1500, {700});
  Tensor g = big.index({rows});
  auto ra = rows.accessor<int64_t, 1>();
  bool ok = true;
  for (int i = 0; i < 700 && ok; ++i)
    for (int j = 0; j < 200; j += 37) ok &= g.index({i, j}).item<float>() == float(ra[i] * 200 + j);
  EXPECT_TRUE(ok);
  // empty tensors
  Tensor z = zeros({0, 3});
  EXPECT_EQ(z.index({Slice(), longs({2, 2})}).sizes(), IntArrayRef({0, 2}));
}

TEST(IndexingTest, Errors) {
  Tensor a = arange(3);
  Tensor m = ar({2, 3});
  EXPECT_ERROR_WITH(a.index({5}), "index 5 is out of bounds for dimension 0 with size 3");
  EXPECT_ERROR_WITH(m.index({0, 7}), "index 7 is out of bounds for dimension 1 with size 3");
  EXPECT_ERROR_WITH(a.index({longs({5})}), "index 5 is out of bounds for dimension 0 with size 3");
  EXPECT_ERROR_WITH(a.index({longs({-4})}), "index -4 is out of bounds for dimension 0 with size 3");
  EXPECT_ERROR_WITH(m.index({Slice(), longs({5})}), "index 5 is out of bounds for dimension 0 with size 3");
  EXPECT_ERROR_WITH(a.index({tensor({1.f})}), "tensors used as indices must be long, int, byte or bool tensors");
  EXPECT_ERROR_WITH(a.index({tensor({true, false})}),
                    "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [3] at index 0");
  EXPECT_ERROR_WITH(m.index({ones({3, 3}, dtype(kBool))}),
                    "The shape of the mask [3, 3] at index 0 does not match the shape of the indexed tensor [2, 3]");
  EXPECT_ERROR_WITH(m.index({0, 0, 0}), "too many indices for tensor of dimension 2");
  EXPECT_ERROR_WITH(m.index({Slice(), Slice(), longs({0})}), "too many indices for tensor of dimension 2");
  EXPECT_ERROR_WITH(tensor(1.).index({0}), "invalid index of a 0-dim tensor");
  EXPECT_ERROR_WITH(m.index({longs({0, 1}), longs({0, 1, 2})}),
                    "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]");
  EXPECT_ERROR_WITH(a.index({Slice(None, None, -1)}), "step must be greater than zero");
  EXPECT_THROW(a.index({Slice(None, None, 0)}), ValueError);
  EXPECT_THROW(a.index({5}), IndexError);
  EXPECT_ERROR_WITH(a.index(ArrayRef<TensorIndex>()), "empty index list");
  EXPECT_ERROR_WITH(TensorIndex("..x"), "ellipsis");
}

TEST(IndexingTest, IndexPutWithViewsAndScalars) {
  Tensor x = zeros({2, 3});
  x.index_put_({Slice(), 0}, tensor({1., 2.}));
  x.index_put_({1, Slice(1, None)}, 7);
  EXPECT_TENSOR_EQ(x, tensor({{1., 0., 0.}, {2., 7., 7.}}));
  // value broadcasting strips leading 1-dims, as Python's setitem
  Tensor y = zeros({2, 3});
  y.index_put_({Slice(), 0}, ones({1, 1, 2}, dtype(kFloat)));
  EXPECT_TENSOR_EQ(y.select(1, 0), tensor({1.f, 1.f}));
  EXPECT_ERROR_WITH(y.index_put_({Slice(), 0}, ones({3}, dtype(kFloat))), "must match the existing size");
  // other dtypes convert when there are no index tensors
  Tensor z = zeros({3}, dtype(kLong));
  z.index_put_({Slice(1, None)}, tensor({2.7, -1.2}));
  EXPECT_TENSOR_EQ(z, tensor({0, 2, -1}));
  // writes through a transposed view reach the base
  Tensor b = zeros({3, 2});
  Tensor bt = b.t();
  bt.index_put_({0, longs({2, 0})}, tensor({5.f, 6.f}));
  EXPECT_TENSOR_EQ(b, tensor({{6.f, 0.f}, {0.f, 0.f}, {5.f, 0.f}}));
}

TEST(IndexingTest, IndexPutAdvanced) {
  Tensor x = zeros({2, 3});
  x.index_put_({longs({0, 1})}, tensor({1.f, 2.f, 3.f}));  // values broadcast over rows
  EXPECT_TENSOR_EQ(x, tensor({{1.f, 2.f, 3.f}, {1.f, 2.f, 3.f}}));
  x.index_put_({x.gt(1.5)}, 0.5);
  EXPECT_TENSOR_EQ(x, tensor({{1.f, 0.5f, 0.5f}, {1.f, 0.5f, 0.5f}}));
  x.index_put_({longs({1}), longs({2})}, tensor({9.f}));
  EXPECT_EQ(x.index({1, 2}).item<float>(), 9.f);
  // accumulate adds repeated indices
  Tensor acc = zeros({2, 2});
  index_put_(acc, {std::optional<Tensor>(longs({0, 0, 1})), std::optional<Tensor>(longs({1, 1, 0}))},
             tensor({1.f, 2.f, 3.f}), true);
  EXPECT_TENSOR_EQ(acc, tensor({{0.f, 3.f}, {3.f, 0.f}}));
  Tensor bacc = zeros({3}, dtype(kBool));
  index_put_(bacc, {std::optional<Tensor>(longs({0, 0}))}, ones({2}, dtype(kBool)), true);
  EXPECT_TENSOR_EQ(bacc, tensor({true, false, false}));
  Tensor h = zeros({4}, dtype(kHalf));
  index_put_(h, {std::optional<Tensor>(longs({3, 3, 3}))}, full({3}, 0.5, dtype(kHalf)), true);
  EXPECT_TENSOR_EQ(h, tensor({0.f, 0.f, 0.f, 1.5f}).to(kHalf));
  // index_put (out of place) leaves self alone
  Tensor s = zeros({3});
  Tensor r = index_put(s, {std::optional<Tensor>(longs({1}))}, tensor({4.f}));
  EXPECT_TENSOR_EQ(r, tensor({0.f, 4.f, 0.f}));
  EXPECT_TENSOR_EQ(s, zeros({3}));
  // a result of index reads the indexed positions back
  Tensor v = randn({5, 4});
  Tensor idx = longs({4, 1, 3});
  Tensor w = zeros({5, 4});
  w.index_put_({idx}, v.index({idx}));
  EXPECT_TENSOR_EQ(w.index({idx}), v.index({idx}));
  EXPECT_TENSOR_EQ(w.index({0}), zeros({4}));
  // non-adjacent indices: values are laid out with the index dims first (PyTorch 1.13 values)
  Tensor na = zeros({2, 3, 4});
  na.index_put_({longs({1, 0}), Slice(), longs({0, 3})}, arange(6, dtype(kFloat)).view({2, 3}));
  EXPECT_TENSOR_EQ(na.flatten(), tensor({0.f, 0.f, 0.f, 3.f, 0.f, 0.f, 0.f, 4.f, 0.f, 0.f, 0.f, 5.f,
                                         0.f, 0.f, 0.f, 0.f, 1.f, 0.f, 0.f, 0.f, 2.f, 0.f, 0.f, 0.f}));
  Tensor bc = zeros({2, 3, 4});
  bc.index_put_({Slice(), tensor({{0}, {2}}), longs({1, 3})}, 7);
  EXPECT_TENSOR_EQ(nonzero(bc), tensor({{0, 0, 1}, {0, 0, 3}, {0, 2, 1}, {0, 2, 3}, {1, 0, 1}, {1, 0, 3}, {1, 2, 1}, {1, 2, 3}}));
  // values that alias self are read before being overwritten
  Tensor al = arange(5, dtype(kFloat));
  al.index_put_({longs({1, 2, 3, 4})}, al.slice(0, 0, 4));
  EXPECT_TENSOR_EQ(al, tensor({0.f, 0.f, 1.f, 2.f, 3.f}));
}

TEST(IndexingTest, IndexPutErrorsLeaveSelfIntact) {
  Tensor x = zeros({3});
  EXPECT_ERROR_WITH(x.index_put_({longs({0})}, ones({1}, dtype(kDouble))),
                    "Index put requires the source and destination dtypes match, got Float for the destination and "
                    "Double for the source.");
  EXPECT_ERROR_WITH(x.index_put_({longs({0, 1})}, ones({3}, dtype(kFloat))),
                    "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2]");
  EXPECT_ERROR_WITH(x.index_put_({longs({0, 5})}, ones({2}, dtype(kFloat))), "index 5 is out of bounds for dimension 0 with size 3");
  EXPECT_TENSOR_EQ(x, zeros({3}));  // validated before writing
  Tensor e = zeros({1}).expand({3});
  EXPECT_ERROR_WITH(index_put_(e, {std::optional<Tensor>(longs({0}))}, ones({1}, dtype(kFloat))), "single memory location");
}

TEST(IndexingTest, FreeFunctionsAndMoreErrors) {
  Tensor x = ar({2, 3, 4});
  // aten-style index: None entries skip dims; a mask expands into one index per mask dim
  Tensor r = index(x, {std::nullopt, std::optional<Tensor>(longs({2, 0}))});
  EXPECT_TENSOR_EQ(r, x.index({Slice(), longs({2, 0})}));
  Tensor m = x.select(2, 0).gt(5);  // [2, 3]
  EXPECT_TENSOR_EQ(index(x, {std::optional<Tensor>(m)}), x.index({m}));
  EXPECT_ERROR_WITH(index(x, {std::optional<Tensor>(ones({3, 3}, dtype(kBool)))}), "does not match the shape of the indexed tensor");
  EXPECT_ERROR_WITH(index(ar({2}), {std::optional<Tensor>(ones({2, 1}, dtype(kBool)))}), "too many indices for tensor of dimension 1");
  EXPECT_ERROR_WITH(index(x, std::vector<std::optional<Tensor>>(4, std::nullopt)), "too many indices for tensor of dimension 3 (got 4)");
  EXPECT_ERROR_WITH(x.index({Tensor()}), "an undefined tensor cannot be used as an index");
  EXPECT_ERROR_WITH(x.index_put_(ArrayRef<TensorIndex>(), 1), "empty index list");
  EXPECT_ERROR_WITH(x.index_put_({0, longs({7})}, 1), "index 7 is out of bounds for dimension 0 with size 3");
  // index_put_ with no index tensors copies (accumulate adds)
  Tensor y = zeros({2}, dtype(kFloat));
  index_put_(y, {std::nullopt}, tensor({1.f, 2.f}), true);
  index_put_(y, {std::nullopt}, tensor({1.f, 2.f}), true);
  EXPECT_TENSOR_EQ(y, tensor({2.f, 4.f}));
}

}  // namespace
}  // namespace ember::test
