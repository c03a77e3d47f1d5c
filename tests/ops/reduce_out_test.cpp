// Tests of the out= variants of the reductions, of reductions on meta tensors (shapes only),
// of LibTorch-style call forms (`t.sum(1)`, `t.sum({0, 1})`) and of the engine's limits.
#include "reduce_ref.h"

namespace ember::test {
namespace {

TEST(ReduceOut, WritesResizesAndCasts) {
  Tensor x = randn({4, 5}, TensorOptions().dtype(kFloat));
  Tensor out = empty({0}, TensorOptions().dtype(kFloat));
  sum_out(out, x, Dims{1});
  EXPECT_TENSOR_EQ(out, x.sum(Dims{1}));
  Tensor outd = empty({4}, TensorOptions().dtype(kDouble));
  sum_out(outd, x, Dims{1});  // computes in out's dtype
  EXPECT_TENSOR_CLOSE(outd, x.to(kDouble).sum(Dims{1}));
  Tensor outi = empty({5}, TensorOptions().dtype(kLong));
  sum_out(outi, tensor({{1.5, 2.5}, {1.5, 2.5}}), Dims{0});  // out dtype Long: the input is cast first
  EXPECT_TENSOR_EQ(outi, tensor({int64_t(2), int64_t(4)}));
  Tensor m = empty({}, TensorOptions().dtype(kFloat));
  mean_out(m, x, std::nullopt);
  EXPECT_TENSOR_CLOSE(m, x.mean());
  Tensor p = empty({1, 5}, TensorOptions().dtype(kFloat));
  prod_out(p, x, 0, true);
  EXPECT_TENSOR_EQ(p, x.prod(0, true));
  Tensor v = empty({0}, TensorOptions().dtype(kFloat)), i = empty({0}, TensorOptions().dtype(kLong));
  max_out(v, i, x, 1);
  auto [ev, ei] = x.max(1);
  EXPECT_TENSOR_EQ(v, ev);
  EXPECT_TENSOR_EQ(i, ei);
  min_out(v, i, x, 0, true);
  EXPECT_TENSOR_EQ(v, std::get<0>(x.min(0, true)));
  Tensor a = empty({0}, TensorOptions().dtype(kLong));
  argmax_out(a, x, 1);
  EXPECT_TENSOR_EQ(a, x.argmax(1));
  argmin_out(a, x);
  EXPECT_TENSOR_EQ(a, x.argmin());
  Tensor am = empty({0}, TensorOptions().dtype(kFloat));
  amax_out(am, x, {0});
  EXPECT_TENSOR_EQ(am, x.amax({0}));
  amin_out(am, x, {1});
  EXPECT_TENSOR_EQ(am, x.amin({1}));
  Tensor b = empty({0}, TensorOptions().dtype(kBool));
  all_out(b, gt(x, 0), 1);
  EXPECT_TENSOR_EQ(b, gt(x, 0).all(1));
  any_out(b, gt(x, 0), 0);
  EXPECT_TENSOR_EQ(b, gt(x, 0).any(0));
  Tensor s = empty({0}, TensorOptions().dtype(kFloat));
  var_out(s, x, Dims{1});
  EXPECT_TENSOR_EQ(s, x.var(Dims{1}));
  std_out(s, x, Dims{0}, false);
  EXPECT_TENSOR_EQ(s, x.std(Dims{0}, false));
  norm_out(s, x, 3, {1});
  EXPECT_TENSOR_EQ(s, x.norm(3, {1}));
  linalg::vector_norm_out(s, x, 1, Dims{0});
  EXPECT_TENSOR_EQ(s, linalg::vector_norm(x, 1, Dims{0}));
  logsumexp_out(s, x, {1});
  EXPECT_TENSOR_EQ(s, x.logsumexp({1}));
  Tensor c = empty({0}, TensorOptions().dtype(kFloat));
  cumsum_out(c, x, 1);
  EXPECT_TENSOR_EQ(c, x.cumsum(1));
  cumprod_out(c, x, 0);
  EXPECT_TENSOR_EQ(c, x.cumprod(0));
  softmax_out(c, x, 1);
  EXPECT_TENSOR_EQ(c, x.softmax(1));
  log_softmax_out(c, x, 0);
  EXPECT_TENSOR_EQ(c, x.log_softmax(0));
  Tensor ns = empty({0}, TensorOptions().dtype(kFloat));
  nansum_out(ns, x, Dims{0});
  EXPECT_TENSOR_EQ(ns, x.nansum(Dims{0}));
  // A lossy category change is refused.
  Tensor li = empty({0}, TensorOptions().dtype(kLong));
  EXPECT_ERROR_WITH(amax_out(li, x, {0}), "amax_out: result type Float can't be cast to the desired output type Long");
  EXPECT_ERROR_WITH(var_out(li, x, Dims{0}), "can't be cast to the desired output type Long");
}

TEST(ReduceOut, LibTorchCallForms) {
  Tensor x = randn({3, 4, 5}, TensorOptions().dtype(kDouble));
  EXPECT_TENSOR_EQ(x.sum(1), x.sum(Dims{1}));
  EXPECT_TENSOR_EQ(x.sum({0, 2}), x.sum(Dims{0, 2}));
  EXPECT_TENSOR_EQ(x.mean(-1, true), x.mean(Dims{-1}, true));
  // (x.var(1) is var(unbiased=true), as in LibTorch: int converts to bool first.)
  EXPECT_TENSOR_EQ(x.var({1, 2}), x.var(Dims{1, 2}));
  EXPECT_TENSOR_EQ(x.nansum(2), x.nansum(Dims{2}));
  EXPECT_TENSOR_EQ(linalg::vector_norm(x, 2, 1), linalg::vector_norm(x, 2, Dims{1}));
  EXPECT_TENSOR_EQ(sum(x, {1, 2}, true), x.sum(Dims{1, 2}, true));
  EXPECT_ERROR_WITH(x.sum({0, 0}), "dim 0 appears multiple times in the list of dims");
  EXPECT_ERROR_WITH(x.sum(5), "out of range");
}

TEST(ReduceOut, MetaTensorsGiveShapes) {
  TensorOptions meta = TensorOptions().dtype(kFloat).device(Device(kMeta));
  Tensor x = empty({3, 4, 5}, meta);
  Tensor s = x.sum(Dims{1});
  EXPECT_TRUE(s.is_meta());
  EXPECT_EQ(s.sizes(), IntArrayRef({3, 5}));
  EXPECT_EQ(x.mean(Dims{0, 2}, true).sizes(), IntArrayRef({1, 4, 1}));
  EXPECT_EQ(std::get<1>(x.max(2)).sizes(), IntArrayRef({3, 4}));
  EXPECT_EQ(std::get<1>(x.max(2)).scalar_type(), kLong);
  EXPECT_EQ(x.argmax().sizes(), IntArrayRef({}));
  EXPECT_EQ(x.var(Dims{1}).sizes(), IntArrayRef({3, 5}));
  EXPECT_EQ(x.cumsum(1).sizes(), IntArrayRef({3, 4, 5}));
  EXPECT_EQ(x.softmax(1).sizes(), IntArrayRef({3, 4, 5}));
  EXPECT_EQ(std::get<0>(x.median(1)).sizes(), IntArrayRef({3, 5}));
  EXPECT_EQ(std::get<1>(x.mode(0, true)).sizes(), IntArrayRef({1, 4, 5}));
  EXPECT_EQ(x.quantile(0.5, 1).sizes(), IntArrayRef({3, 5}));
  EXPECT_EQ(x.all(1).scalar_type(), kBool);
}

TEST(ReduceOut, TooManyUnmergeableDimsIsAClearError) {
  // 18 size-2 dims whose strides (5..22) never merge: 17 kept dims after reducing dim 0,
  // 18 reduced dims for a full reduction; the engine handles 16 of each.
  std::vector<int64_t> sizes(18, 2), strides(18);
  for (int64_t d = 0; d < 18; ++d) strides[d] = 22 - d;
  Tensor base = randn({256}, TensorOptions().dtype(kFloat));
  Tensor x = base.as_strided(sizes, strides);
  EXPECT_ERROR_WITH(x.sum(0), "too many non-mergeable dims");
  EXPECT_ERROR_WITH(x.sum(), "too many non-mergeable dims");
  // 16 such dims are fine.
  Tensor y = base.as_strided(std::vector<int64_t>(16, 2), std::vector<int64_t>(strides.begin() + 2, strides.end()));
  EXPECT_TENSOR_CLOSE(y.sum(Dims{0, 3}).to(kDouble), ref_reduce(y, {0, 3}, false, ref_sum), 1e-5, 1e-5);
  EXPECT_NEAR(y.sum().item<double>(), ref_sum(values_of(y)), 1e-3);
}

}  // namespace
}  // namespace ember::test
