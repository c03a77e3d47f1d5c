// Everyday tensor operations in the style of LibTorch 1.13 user code (`using namespace torch;`):
// arithmetic, broadcasting, reductions, comparisons, linear algebra products, joining and
// splitting, shape manipulation, gathering and scattering, and assorted helpers.
// Expected values are the ones LibTorch 1.13 produces.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

using namespace torch;

namespace {

std::vector<int64_t> shape_of(const Tensor& t) { return t.sizes().vec(); }

template <typename T>
std::vector<T> values(const Tensor& t) {
  auto c = t.contiguous();
  return std::vector<T>(c.data_ptr<T>(), c.data_ptr<T>() + c.numel());
}

}  // namespace

TEST(TensorOpsUsage, ArithmeticAndInPlace) {
  auto a = torch::tensor({1.0f, 2.0f, 3.0f});
  auto b = torch::tensor({4.0f, 5.0f, 6.0f});
  EXPECT_TRUE((a + b).equal(torch::tensor({5.0f, 7.0f, 9.0f})));
  EXPECT_TRUE((b - a).equal(torch::tensor({3.0f, 3.0f, 3.0f})));
  EXPECT_TRUE((a * 2).equal(torch::tensor({2.0f, 4.0f, 6.0f})));
  EXPECT_TRUE((1 - a).equal(torch::tensor({0.0f, -1.0f, -2.0f})));
  EXPECT_TRUE((b / a).allclose(torch::tensor({4.0f, 2.5f, 2.0f})));
  EXPECT_TRUE(a.pow(2).equal(torch::tensor({1.0f, 4.0f, 9.0f})));
  EXPECT_TRUE(torch::pow(2, a).equal(torch::tensor({2.0f, 4.0f, 8.0f})));
  EXPECT_TRUE((-a).equal(a.neg()));

  auto c = a.clone();
  c += 1;
  c.mul_(2).sub_(1);
  EXPECT_TRUE(c.equal(torch::tensor({3.0f, 5.0f, 7.0f})));
  c.add_(b, /*alpha=*/2);
  EXPECT_TRUE(c.equal(torch::tensor({11.0f, 15.0f, 19.0f})));
  c.div_(2).floor_();
  EXPECT_TRUE(c.equal(torch::tensor({5.0f, 7.0f, 9.0f})));

  // integer division promotes to float; floor_divide and remainder keep ints
  auto i = torch::tensor({7, -7});
  EXPECT_EQ((i / 2).scalar_type(), kFloat);
  EXPECT_TRUE((i / 2).equal(torch::tensor({3.5f, -3.5f})));
  EXPECT_TRUE(i.div(2, "floor").equal(torch::tensor({3, -4})));
  EXPECT_TRUE(i.div(2, "trunc").equal(torch::tensor({3, -3})));
  EXPECT_TRUE(torch::remainder(i, 3).equal(torch::tensor({1, 2})));
  EXPECT_TRUE(torch::fmod(i, 3).equal(torch::tensor({1, -1})));
  EXPECT_EQ((i + 1.5).scalar_type(), kFloat);
  EXPECT_EQ((i * torch::tensor({2.0}, kDouble)).scalar_type(), kDouble);
  EXPECT_THROW(i.add_(0.5), c10::Error);  // result type Float can't be cast to Long in-place
}

TEST(TensorOpsUsage, Broadcasting) {
  auto col = torch::arange(3).view({3, 1});
  auto row = torch::arange(4).view({1, 4});
  auto grid = col * 10 + row;
  EXPECT_EQ(shape_of(grid), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(grid[2][3].item<int64_t>(), 23);
  EXPECT_THROW(torch::ones({2, 3}) + torch::ones({3, 2}), c10::Error);

  auto bt = torch::broadcast_to(torch::tensor({1, 2, 3}), {2, 3});
  EXPECT_EQ(bt.stride(0), 0);
  EXPECT_TRUE(bt[1].equal(torch::tensor({1, 2, 3})));
  auto tensors = torch::broadcast_tensors({torch::ones({2, 1}), torch::ones({1, 5})});
  EXPECT_EQ(shape_of(tensors[0]), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(shape_of(torch::ones({3}).expand({4, 3})), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(shape_of(torch::ones({3, 1}).expand({-1, 2})), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(shape_of(torch::ones({2, 3}).expand_as(torch::ones({5, 2, 3}))), (std::vector<int64_t>{5, 2, 3}));
}

TEST(TensorOpsUsage, Reductions) {
  auto t = torch::tensor({{1.0, 5.0, 3.0}, {4.0, 2.0, 6.0}}, kDouble);
  EXPECT_DOUBLE_EQ(t.sum().item<double>(), 21.0);
  EXPECT_TRUE(t.sum(0).equal(torch::tensor({5.0, 7.0, 9.0}, kDouble)));
  EXPECT_EQ(shape_of(t.sum(1, /*keepdim=*/true)), (std::vector<int64_t>{2, 1}));
  EXPECT_TRUE(t.mean(1).allclose(torch::tensor({3.0, 4.0}, kDouble)));
  EXPECT_TRUE(t.sum(IntArrayRef{0, 1}).equal(torch::tensor(21.0, kDouble)));
  EXPECT_DOUBLE_EQ(t.prod().item<double>(), 720.0);
  EXPECT_TRUE(t.prod(1).equal(torch::tensor({15.0, 48.0}, kDouble)));

  Tensor values, indices;
  std::tie(values, indices) = t.max(1);
  EXPECT_TRUE(values.equal(torch::tensor({5.0, 6.0}, kDouble)));
  EXPECT_TRUE(indices.equal(torch::tensor({1, 2})));
  auto mins = t.min(0, /*keepdim=*/true);
  EXPECT_EQ(shape_of(std::get<0>(mins)), (std::vector<int64_t>{1, 3}));
  EXPECT_TRUE(std::get<1>(mins).equal(torch::tensor({{0, 1, 0}})));
  EXPECT_DOUBLE_EQ(t.max().item<double>(), 6.0);
  EXPECT_EQ(t.argmax().item<int64_t>(), 5);
  EXPECT_TRUE(t.argmax(1).equal(torch::tensor({1, 2})));
  EXPECT_TRUE(t.argmin(0, true).equal(torch::tensor({{0, 1, 0}})));
  EXPECT_TRUE(torch::amax(t, {0}).equal(torch::tensor({4.0, 5.0, 6.0}, kDouble)));
  EXPECT_TRUE(torch::maximum(t[0], t[1]).equal(torch::tensor({4.0, 5.0, 6.0}, kDouble)));
  auto [mn, mx] = torch::aminmax(t);
  EXPECT_DOUBLE_EQ(mn.item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(mx.item<double>(), 6.0);
  EXPECT_TRUE(t.cumsum(1).equal(torch::tensor({{1.0, 6.0, 9.0}, {4.0, 6.0, 12.0}}, kDouble)));
  EXPECT_TRUE(t.cumprod(0).equal(torch::tensor({{1.0, 5.0, 3.0}, {4.0, 10.0, 18.0}}, kDouble)));
  EXPECT_TRUE(torch::logsumexp(torch::tensor({0.0, 0.0}), 0).allclose(torch::tensor(std::log(2.0))));

  // integer sums widen to int64
  EXPECT_EQ(torch::tensor({1, 2}, kInt).sum().scalar_type(), kLong);
  EXPECT_EQ(torch::tensor({true, true, false}).sum().item<int64_t>(), 2);
  EXPECT_TRUE(torch::tensor({true, false}).any().item<bool>());
  EXPECT_FALSE(torch::tensor({true, false}).all().item<bool>());
  EXPECT_THROW(torch::tensor({1, 2}).mean(), c10::Error);  // mean needs a floating dtype
}

TEST(TensorOpsUsage, VarianceAndStd) {
  auto t = torch::tensor({{1.0, 2.0, 3.0, 4.0}, {2.0, 4.0, 6.0, 8.0}}, kDouble);
  EXPECT_NEAR(t[0].var().item<double>(), 1.6666666666666667, 1e-12);
  EXPECT_NEAR(t[0].var(/*unbiased=*/false).item<double>(), 1.25, 1e-12);
  EXPECT_TRUE(t.var(1).allclose(torch::tensor({1.6666666666666667, 6.6666666666666667}, kDouble)));
  EXPECT_TRUE(t.std(1, /*unbiased=*/false, /*keepdim=*/true).allclose(torch::tensor({{1.118033988749895}, {2.23606797749979}}, kDouble)));
  // the correction overload takes an optional<int64_t>
  auto v = torch::var(t, IntArrayRef{1}, c10::optional<int64_t>(0), /*keepdim=*/false);
  EXPECT_TRUE(v.allclose(torch::tensor({1.25, 5.0}, kDouble)));
  auto s2 = torch::std(t, IntArrayRef{1}, c10::optional<int64_t>(2), /*keepdim=*/false);
  EXPECT_TRUE(s2.allclose(torch::tensor({std::sqrt(2.5), std::sqrt(10.0)}, kDouble)));
  // a plain int literal converts to bool first, so this is the unbiased overload
  auto s_bool = torch::std(t, IntArrayRef{1}, 2, false);
  EXPECT_TRUE(s_bool.allclose(t.std(1)));
  auto [sd, mean] = torch::std_mean(t, IntArrayRef{0}, /*unbiased=*/true, /*keepdim=*/false);
  EXPECT_TRUE(mean.equal(torch::tensor({1.5, 3.0, 4.5, 6.0}, kDouble)));
  EXPECT_TRUE(sd.allclose(torch::tensor({0.5, 1.0, 1.5, 2.0}, kDouble) * std::sqrt(2.0)));
  EXPECT_NEAR(torch::median(torch::tensor({3.0, 1.0, 2.0, 4.0})).item<float>(), 2.0f, 0);
  EXPECT_NEAR(torch::quantile(torch::tensor({1.0, 2.0, 3.0, 4.0}, kDouble), 0.5).item<double>(), 2.5, 1e-12);
}

TEST(TensorOpsUsage, SortTopkUnique) {
  auto t = torch::tensor({3, 1, 4, 1, 5, 9, 2, 6});
  auto [sorted, idx] = t.sort();
  EXPECT_EQ(values<int64_t>(sorted), (std::vector<int64_t>{1, 1, 2, 3, 4, 5, 6, 9}));
  auto desc = torch::sort(t, /*dim=*/0, /*descending=*/true);
  EXPECT_EQ(std::get<0>(desc)[0].item<int64_t>(), 9);
  EXPECT_EQ(std::get<1>(desc)[0].item<int64_t>(), 5);
  auto stable = t.sort(/*stable=*/true, /*dim=*/0, /*descending=*/false);
  EXPECT_EQ(values<int64_t>(std::get<1>(stable)), (std::vector<int64_t>{1, 3, 6, 0, 2, 4, 7, 5}));
  EXPECT_EQ(values<int64_t>(t.argsort()).size(), 8u);

  auto top = t.topk(3);
  EXPECT_EQ(values<int64_t>(std::get<0>(top)), (std::vector<int64_t>{9, 6, 5}));
  EXPECT_EQ(values<int64_t>(std::get<1>(top)), (std::vector<int64_t>{5, 7, 4}));
  auto bottom = torch::topk(t, 2, /*dim=*/-1, /*largest=*/false);
  EXPECT_EQ(values<int64_t>(std::get<0>(bottom)), (std::vector<int64_t>{1, 1}));
  auto kth = t.kthvalue(3);
  EXPECT_EQ(std::get<0>(kth).item<int64_t>(), 2);

  auto [u, inverse, counts] = torch::unique_dim(torch::tensor({2, 1, 2, 3}), 0, /*sorted=*/true, /*return_inverse=*/true, /*return_counts=*/true);
  EXPECT_EQ(values<int64_t>(u), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(values<int64_t>(inverse), (std::vector<int64_t>{1, 0, 1, 2}));
  EXPECT_EQ(values<int64_t>(counts), (std::vector<int64_t>{1, 2, 1}));
  auto u2 = torch::_unique(torch::tensor({5, 5, 2}), /*sorted=*/true);
  EXPECT_EQ(values<int64_t>(std::get<0>(u2)), (std::vector<int64_t>{2, 5}));
  auto uc = torch::unique_consecutive(torch::tensor({1, 1, 2, 2, 1}));
  EXPECT_EQ(values<int64_t>(std::get<0>(uc)), (std::vector<int64_t>{1, 2, 1}));
}

TEST(TensorOpsUsage, ComparisonsWhereAndMasks) {
  auto a = torch::tensor({1.0f, -2.0f, 3.0f, -4.0f});
  auto pos = a > 0;
  EXPECT_EQ(pos.scalar_type(), kBool);
  EXPECT_EQ(pos.sum().item<int64_t>(), 2);
  EXPECT_TRUE(a.ge(3).equal(torch::tensor({false, false, true, false})));
  EXPECT_TRUE((a == -2).equal(a.eq(-2)));
  EXPECT_TRUE(torch::where(pos, a, torch::zeros_like(a)).equal(torch::tensor({1.0f, 0.0f, 3.0f, 0.0f})));
  EXPECT_TRUE(torch::where(pos, a, 0.5).equal(torch::tensor({1.0f, 0.5f, 3.0f, 0.5f})));
  auto w = torch::where(pos);
  EXPECT_EQ(w.size(), 1u);
  EXPECT_EQ(values<int64_t>(w[0]), (std::vector<int64_t>{0, 2}));
  EXPECT_TRUE(a.masked_fill(a < 0, 0).equal(a.relu()));
  auto b = a.clone();
  b.masked_fill_(b.abs() > 2, -1);
  EXPECT_TRUE(b.equal(torch::tensor({1.0f, -2.0f, -1.0f, -1.0f})));
  EXPECT_TRUE(a.masked_select(pos).equal(torch::tensor({1.0f, 3.0f})));
  EXPECT_TRUE(a.clamp(-1, 1).equal(torch::tensor({1.0f, -1.0f, 1.0f, -1.0f})));
  EXPECT_TRUE(a.clamp_min(0).equal(a.relu()));
  EXPECT_TRUE(a.clamp(c10::nullopt, 2).equal(torch::tensor({1.0f, -2.0f, 2.0f, -4.0f})));

  EXPECT_TRUE(torch::isclose(torch::tensor({1.0, 2.0}), torch::tensor({1.0 + 1e-9, 2.1})).equal(torch::tensor({true, false})));
  EXPECT_TRUE(torch::tensor({1.0, 2.0}).allclose(torch::tensor({1.0 + 1e-7, 2.0})));
  EXPECT_FALSE(torch::tensor({1.0, 2.0}).allclose(torch::tensor({1.0, 2.01})));
  EXPECT_TRUE(torch::tensor({1.0, 2.0}).allclose(torch::tensor({1.0, 2.01}), /*rtol=*/0, /*atol=*/0.02));
  EXPECT_FALSE(torch::tensor({1, 2}).equal(torch::tensor({1, 2, 3})));
  EXPECT_TRUE(torch::equal(torch::tensor({1, 2}), torch::tensor({1, 2})));
  auto nz = torch::tensor({{0, 1}, {2, 0}}).nonzero();
  EXPECT_EQ(shape_of(nz), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values<int64_t>(nz), (std::vector<int64_t>{0, 1, 1, 0}));
  EXPECT_EQ(torch::count_nonzero(torch::tensor({0, 3, 0, 1})).item<int64_t>(), 2);
  EXPECT_TRUE(torch::isnan(torch::tensor({1.0, std::nan("")})).equal(torch::tensor({false, true})));
  EXPECT_TRUE(torch::logical_or(torch::tensor({true, false}), torch::tensor({false, false})).equal(torch::tensor({true, false})));
}

TEST(TensorOpsUsage, MatrixProductsAndEinsum) {
  auto a = torch::arange(6, kFloat).view({2, 3});
  auto b = torch::arange(12, kFloat).view({3, 4});
  auto c = a.matmul(b);
  EXPECT_EQ(shape_of(c), (std::vector<int64_t>{2, 4}));
  EXPECT_TRUE(c.equal(torch::mm(a, b)));
  EXPECT_FLOAT_EQ(c[1][3].item<float>(), 3 * 3 + 4 * 7 + 5 * 11);
  EXPECT_TRUE(c.equal(a.mm(b)));
  EXPECT_TRUE(torch::einsum("ij,jk->ik", {a, b}).allclose(c));
  EXPECT_TRUE(torch::einsum("ij->ji", {a}).equal(a.t()));
  EXPECT_FLOAT_EQ(torch::einsum("ii", {torch::eye(3) * 2}).item<float>(), 6.0f);

  auto batch1 = torch::ones({5, 2, 3});
  auto batch2 = torch::ones({5, 3, 4});
  EXPECT_EQ(shape_of(torch::bmm(batch1, batch2)), (std::vector<int64_t>{5, 2, 4}));
  EXPECT_EQ(shape_of(batch1.matmul(torch::ones({3}))), (std::vector<int64_t>{5, 2}));
  EXPECT_EQ(shape_of(torch::ones({3}).matmul(torch::ones({3}))), (std::vector<int64_t>{}));
  EXPECT_EQ(shape_of(torch::ones({7, 1, 2, 3}).matmul(torch::ones({4, 3, 2}))), (std::vector<int64_t>{7, 4, 2, 2}));
  EXPECT_FLOAT_EQ(torch::tensor({1.0f, 2.0f}).dot(torch::tensor({3.0f, 4.0f})).item<float>(), 11.0f);
  EXPECT_TRUE(torch::mv(a, torch::ones({3})).equal(torch::tensor({3.0f, 12.0f})));
  EXPECT_TRUE(torch::outer(torch::tensor({1, 2}), torch::tensor({3, 4, 5})).equal(torch::tensor({{3, 4, 5}, {6, 8, 10}})));
  EXPECT_TRUE(torch::addmm(torch::ones({2, 4}), a, b, /*beta=*/2, /*alpha=*/1).equal(c + 2));
  EXPECT_THROW(torch::mm(a, a), c10::Error);
  EXPECT_FLOAT_EQ(torch::kron(torch::eye(2), torch::ones({2, 2})).sum().item<float>(), 8.0f);
}

TEST(TensorOpsUsage, CatStackSplitChunk) {
  auto a = torch::ones({2, 3});
  auto b = torch::zeros({1, 3});
  auto c = torch::cat({a, b});
  EXPECT_EQ(shape_of(c), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(shape_of(torch::cat({a, a}, 1)), (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(shape_of(torch::stack({a, a, a})), (std::vector<int64_t>{3, 2, 3}));
  EXPECT_EQ(shape_of(torch::stack({a, a}, /*dim=*/2)), (std::vector<int64_t>{2, 3, 2}));
  EXPECT_EQ(shape_of(torch::hstack({a, a})), (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(shape_of(torch::vstack({a, b})), (std::vector<int64_t>{3, 3}));
  EXPECT_THROW(torch::stack({a, b}), c10::Error);

  auto x = torch::arange(10);
  auto parts = x.split(4);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[2].numel(), 2);
  auto sized = x.split_with_sizes({3, 7});
  EXPECT_EQ(sized[1][0].item<int64_t>(), 3);
  auto chunks = x.chunk(3);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].numel(), 4);
  EXPECT_EQ(chunks[2].numel(), 2);
  EXPECT_EQ(torch::arange(6).chunk(4).size(), 3u);  // chunks of ceil(6/4)=2
  auto rows = torch::arange(6).view({2, 3}).unbind(1);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_TRUE(rows[1].equal(torch::tensor({1, 4})));
  auto ts = torch::tensor_split(x, 3);
  EXPECT_EQ(ts[0].numel(), 4);
  EXPECT_EQ(ts[1].numel(), 3);
  std::vector<Tensor> list{torch::tensor({1}), torch::tensor({2, 3})};
  EXPECT_EQ(torch::cat(list).numel(), 3);
}

TEST(TensorOpsUsage, ShapeManipulation) {
  auto x = torch::arange(24).view({2, 3, 4});
  EXPECT_EQ(shape_of(x.view({-1, 4})), (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(shape_of(x.reshape({4, -1})), (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(shape_of(x.permute({2, 0, 1})), (std::vector<int64_t>{4, 2, 3}));
  EXPECT_EQ(shape_of(x.transpose(0, 2)), (std::vector<int64_t>{4, 3, 2}));
  EXPECT_THROW(x.transpose(0, 2).view({24}), c10::Error);
  EXPECT_EQ(shape_of(x.transpose(0, 2).reshape({24})), (std::vector<int64_t>{24}));
  EXPECT_EQ(shape_of(x.flatten()), (std::vector<int64_t>{24}));
  EXPECT_EQ(shape_of(x.flatten(1)), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(shape_of(x.flatten(0, 1)), (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(shape_of(x.unflatten(2, {2, 2})), (std::vector<int64_t>{2, 3, 2, 2}));
  EXPECT_EQ(shape_of(x.unsqueeze(0)), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(shape_of(x.unsqueeze(-1)), (std::vector<int64_t>{2, 3, 4, 1}));
  auto y = torch::zeros({1, 3, 1, 2});
  EXPECT_EQ(shape_of(y.squeeze()), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(shape_of(y.squeeze(2)), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(shape_of(y.squeeze(1)), (std::vector<int64_t>{1, 3, 1, 2}));  // not size 1: unchanged
  EXPECT_EQ(shape_of(x.ravel()), (std::vector<int64_t>{24}));
  EXPECT_EQ(shape_of(x.view_as(torch::zeros({4, 6}))), (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(shape_of(x.mT()), (std::vector<int64_t>{2, 4, 3}));
  EXPECT_EQ(shape_of(torch::movedim(x, 0, -1)), (std::vector<int64_t>{3, 4, 2}));
  EXPECT_EQ(shape_of(x.narrow(2, 1, 2)), (std::vector<int64_t>{2, 3, 2}));
  EXPECT_EQ(x.select(1, 2)[0][0].item<int64_t>(), 8);
  EXPECT_THROW(x.view({5, -1}), std::exception);
  EXPECT_THROW(x.view({-1, -1}), std::exception);
}

TEST(TensorOpsUsage, GatherScatterIndexSelect) {
  auto src = torch::tensor({{1, 2, 3}, {4, 5, 6}});
  auto g = src.gather(1, torch::tensor({{2, 0}, {1, 1}}));
  EXPECT_TRUE(g.equal(torch::tensor({{3, 1}, {5, 5}})));
  auto s = torch::zeros({2, 4}, kLong).scatter(1, torch::tensor({{0, 3}, {1, 2}}), torch::tensor({{7, 8}, {9, 10}}));
  EXPECT_TRUE(s.equal(torch::tensor({{7, 0, 0, 8}, {0, 9, 10, 0}})));
  auto sv = torch::zeros({3}).scatter(0, torch::tensor({2, 0}), 5.0);
  EXPECT_TRUE(sv.equal(torch::tensor({5.0f, 0.0f, 5.0f})));
  auto sa = torch::zeros({3}).scatter_add(0, torch::tensor({0, 0, 2}), torch::tensor({1.0f, 2.0f, 3.0f}));
  EXPECT_TRUE(sa.equal(torch::tensor({3.0f, 0.0f, 3.0f})));
  auto sr = torch::zeros({2}).scatter_reduce(0, torch::tensor({0, 0, 1}), torch::tensor({2.0f, 5.0f, 1.0f}), "amax", /*include_self=*/false);
  EXPECT_TRUE(sr.equal(torch::tensor({5.0f, 1.0f})));
  EXPECT_TRUE(src.index_select(1, torch::tensor({2, 0})).equal(torch::tensor({{3, 1}, {6, 4}})));
  EXPECT_TRUE(src.index_select(0, torch::tensor({1})).equal(torch::tensor({{4, 5, 6}})));
  auto acc = torch::zeros({3, 2});
  acc.index_add_(0, torch::tensor({0, 2, 0}), torch::ones({3, 2}));
  EXPECT_TRUE(acc.equal(torch::tensor({{2.0f, 2.0f}, {0.0f, 0.0f}, {1.0f, 1.0f}})));
  auto filled = torch::zeros({4}).index_fill(0, torch::tensor({1, 3}), -1);
  EXPECT_TRUE(filled.equal(torch::tensor({0.0f, -1.0f, 0.0f, -1.0f})));
  auto taken = torch::take(src, torch::tensor({0, 5}));
  EXPECT_TRUE(taken.equal(torch::tensor({1, 6})));
  EXPECT_THROW(src.gather(1, torch::tensor({{3}, {0}})), c10::Error);
  auto ic = torch::zeros({3}, kLong).index_copy(0, torch::tensor({2, 0}), torch::tensor({10, 20}));
  EXPECT_TRUE(ic.equal(torch::tensor({20, 0, 10})));
}

TEST(TensorOpsUsage, RearrangingHelpers) {
  auto x = torch::arange(6).view({2, 3});
  EXPECT_TRUE(x.flip({1}).equal(torch::tensor({{2, 1, 0}, {5, 4, 3}})));
  EXPECT_TRUE(torch::fliplr(x).equal(x.flip(1)));
  EXPECT_TRUE(x.roll(1, 1).equal(torch::tensor({{2, 0, 1}, {5, 3, 4}})));
  EXPECT_TRUE(x.roll(1).equal(torch::tensor({{5, 0, 1}, {2, 3, 4}})));  // no dim: flattened roll
  EXPECT_TRUE(torch::rot90(x, 1, {0, 1}).equal(torch::tensor({{2, 5}, {1, 4}, {0, 3}})));
  EXPECT_TRUE(torch::tensor({1, 2}).repeat({2, 2}).equal(torch::tensor({{1, 2, 1, 2}, {1, 2, 1, 2}})));
  EXPECT_TRUE(torch::tensor({1, 2}).repeat_interleave(2).equal(torch::tensor({1, 1, 2, 2})));
  EXPECT_TRUE(torch::tile(torch::tensor({1, 2}), {2}).equal(torch::tensor({1, 2, 1, 2})));
  EXPECT_TRUE(torch::tensor({1, 4, 9, 16}).diff().equal(torch::tensor({3, 5, 7})));
  EXPECT_TRUE(torch::diff(torch::tensor({1, 4, 9, 16}), /*n=*/2).equal(torch::tensor({2, 2})));

  auto sq = torch::ones({3, 3});
  EXPECT_TRUE(sq.tril().equal(torch::tensor({{1.0f, 0.0f, 0.0f}, {1.0f, 1.0f, 0.0f}, {1.0f, 1.0f, 1.0f}})));
  EXPECT_FLOAT_EQ(sq.triu(1).sum().item<float>(), 3.0f);
  EXPECT_FLOAT_EQ(torch::tril(sq, -1).sum().item<float>(), 3.0f);
  EXPECT_TRUE(torch::diag(torch::tensor({1, 2})).equal(torch::tensor({{1, 0}, {0, 2}})));
  EXPECT_TRUE(torch::diagonal(x).equal(torch::tensor({0, 4})));
  EXPECT_EQ(torch::trace(torch::arange(9).view({3, 3})).item<int64_t>(), 12);
  auto ti = torch::tril_indices(3, 3);
  EXPECT_EQ(shape_of(ti), (std::vector<int64_t>{2, 6}));
  auto mg = torch::meshgrid({torch::arange(2), torch::arange(3)}, "ij");
  EXPECT_EQ(shape_of(mg[0]), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(torch::cumsum(torch::tensor({1, 2, 3}), 0).equal(torch::tensor({1, 3, 6})));
}

TEST(TensorOpsUsage, NormsDistancesStatistics) {
  auto v = torch::tensor({3.0, 4.0}, kDouble);
  EXPECT_DOUBLE_EQ(v.norm().item<double>(), 5.0);
  EXPECT_DOUBLE_EQ(v.norm(1).item<double>(), 7.0);
  EXPECT_DOUBLE_EQ(torch::norm(v, INFINITY).item<double>(), 4.0);
  auto m = torch::tensor({{3.0, 4.0}, {6.0, 8.0}}, kDouble);
  EXPECT_TRUE(m.norm(2, {1}).equal(torch::tensor({5.0, 10.0}, kDouble)));
  EXPECT_TRUE(m.norm(2, {1}, /*keepdim=*/true).sizes().equals({2, 1}));
  EXPECT_DOUBLE_EQ(torch::dist(torch::tensor({0.0, 0.0}, kDouble), v).item<double>(), 5.0);
  EXPECT_DOUBLE_EQ(torch::dist(torch::tensor({0.0, 0.0}, kDouble), v, 1).item<double>(), 7.0);
  auto cd = torch::cdist(torch::tensor({{0.0, 0.0}}, kDouble), torch::tensor({{3.0, 4.0}, {0.0, 1.0}}, kDouble));
  EXPECT_TRUE(cd.allclose(torch::tensor({{5.0, 1.0}}, kDouble)));

  auto obs = torch::tensor({{1.0, 2.0, 3.0}, {2.0, 4.0, 7.0}}, kDouble);
  auto cov = torch::cov(obs);
  EXPECT_TRUE(cov.allclose(torch::tensor({{1.0, 2.5}, {2.5, 6.333333333333333}}, kDouble)));
  auto cov0 = torch::cov(obs, /*correction=*/0);
  EXPECT_TRUE(cov0.allclose(cov * 2.0 / 3.0));
  auto cc = torch::corrcoef(obs);
  EXPECT_NEAR(cc[0][1].item<double>(), 2.5 / std::sqrt(6.333333333333333), 1e-12);
  EXPECT_DOUBLE_EQ(cc[0][0].item<double>(), 1.0);

  auto la = torch::logaddexp(torch::tensor({0.0}, kDouble), torch::tensor({0.0}, kDouble));
  EXPECT_NEAR(la.item<double>(), std::log(2.0), 1e-15);
  EXPECT_TRUE(torch::logaddexp2(torch::tensor({1.0}, kDouble), torch::tensor({1.0}, kDouble)).allclose(torch::tensor({2.0}, kDouble)));
  EXPECT_NEAR(torch::cosine_similarity(torch::tensor({{1.0, 0.0}}), torch::tensor({{1.0, 1.0}})).item<float>(), 0.70710678f, 1e-6);
  auto h = torch::histc(torch::tensor({1.0f, 2.0f, 1.0f}), /*bins=*/4, /*min=*/0, /*max=*/3);
  EXPECT_TRUE(h.equal(torch::tensor({0.0f, 2.0f, 1.0f, 0.0f})));
  EXPECT_TRUE(torch::bincount(torch::tensor({0, 1, 1, 3})).equal(torch::tensor({1, 2, 0, 1})));
  EXPECT_TRUE(torch::bucketize(torch::tensor({0.5, 2.5}), torch::tensor({1.0, 2.0, 3.0})).equal(torch::tensor({0, 2})));
  EXPECT_TRUE(torch::searchsorted(torch::tensor({1, 3, 5}), torch::tensor({3}), /*out_int32=*/false, /*right=*/true).equal(torch::tensor({2})));
}

TEST(TensorOpsUsage, ElementwiseMath) {
  auto x = torch::tensor({0.25, 1.0, 4.0}, kDouble);
  EXPECT_TRUE(x.sqrt().equal(torch::tensor({0.5, 1.0, 2.0}, kDouble)));
  EXPECT_TRUE(x.rsqrt().allclose(torch::tensor({2.0, 1.0, 0.5}, kDouble)));
  EXPECT_TRUE(x.log2().equal(torch::tensor({-2.0, 0.0, 2.0}, kDouble)));
  EXPECT_TRUE(torch::exp(torch::tensor({0.0}, kDouble)).equal(torch::tensor({1.0}, kDouble)));
  EXPECT_TRUE(x.reciprocal().equal(torch::tensor({4.0, 1.0, 0.25}, kDouble)));
  EXPECT_TRUE(torch::tensor({-1.5, 0.5, 2.5}).round().equal(torch::tensor({-2.0f, 0.0f, 2.0f})));  // half to even
  EXPECT_TRUE(torch::tensor({1.2345}).round(2).allclose(torch::tensor({1.23})));
  EXPECT_TRUE(torch::tensor({-1.5, 1.5}).trunc().equal(torch::tensor({-1.0f, 1.0f})));
  EXPECT_TRUE(torch::tensor({-1.5, 1.5}).ceil().equal(torch::tensor({-1.0f, 2.0f})));
  EXPECT_TRUE(torch::tensor({-1.5, 1.5}).frac().equal(torch::tensor({-0.5f, 0.5f})));
  EXPECT_TRUE(torch::tensor({-3, 0, 2}).sign().equal(torch::tensor({-1, 0, 1})));
  EXPECT_TRUE(torch::tensor({-3.0}).abs().equal(torch::tensor({3.0f})));
  EXPECT_TRUE(torch::sigmoid(torch::tensor({0.0})).equal(torch::tensor({0.5f})));
  EXPECT_TRUE(torch::tanh(torch::tensor({0.0})).equal(torch::tensor({0.0f})));
  EXPECT_TRUE(torch::lerp(torch::tensor({0.0}), torch::tensor({10.0}), 0.3).allclose(torch::tensor({3.0})));
  EXPECT_TRUE(torch::addcmul(torch::ones({2}), torch::tensor({2.0, 3.0}), torch::tensor({4.0, 5.0}), 0.5).equal(torch::tensor({5.0f, 8.5f})));
  EXPECT_TRUE(torch::addcdiv(torch::zeros({1}), torch::tensor({3.0}), torch::tensor({2.0})).equal(torch::tensor({1.5f})));
  EXPECT_TRUE(torch::hypot(torch::tensor({3.0}), torch::tensor({4.0})).equal(torch::tensor({5.0f})));
  EXPECT_TRUE(torch::atan2(torch::tensor({1.0}), torch::tensor({1.0})).allclose(torch::tensor({M_PI / 4})));
  EXPECT_TRUE(torch::tensor({5, 3}).bitwise_and(torch::tensor({3, 1})).equal(torch::tensor({1, 1})));
  EXPECT_TRUE(torch::bitwise_left_shift(torch::tensor({1, 2}), 2).equal(torch::tensor({4, 8})));
  EXPECT_TRUE(torch::nan_to_num(torch::tensor({std::nan(""), std::numeric_limits<double>::infinity()}), 0.0, 100.0).equal(torch::tensor({0.0f, 100.0f})));
}

// NumPy-style aliases of the inverse trigonometric and hyperbolic functions, as functions,
// out= forms and methods; and the cases LibTorch refuses for integer and bool inputs.
TEST(TensorOpsUsage, ArcAliasesAndIntegerRefusals) {
  Tensor x = torch::tensor({0.25, 0.5, 0.75}, kDouble);
  EXPECT_TRUE(torch::allclose(torch::arcsinh(x), torch::asinh(x)));
  EXPECT_TRUE(torch::allclose(torch::arctanh(x), torch::atanh(x)));
  EXPECT_TRUE(torch::allclose(x.arcsin(), torch::asin(x)));
  Tensor y = x + 1;
  EXPECT_TRUE(torch::allclose(y.arccosh(), torch::acosh(y)));
  Tensor out = torch::empty_like(x);
  torch::arctan_out(out, x);
  EXPECT_TRUE(torch::allclose(out, torch::atan(x)));
  Tensor z = x.clone();
  z.arcsinh_();
  EXPECT_NEAR(z[1].item<double>(), std::asinh(0.5), 1e-15);

  Tensor i = torch::tensor({1, 2, 3});
  EXPECT_TRUE(torch::equal(torch::round(i), i));     // 0 decimals: allowed
  EXPECT_THROW(torch::round(i, 1), c10::Error);      // round_cpu: not implemented for 'Long'
  Tensor b = torch::tensor({true, false});
  EXPECT_THROW(torch::pow(b, b), c10::Error);        // "pow" not implemented for 'Bool'
  EXPECT_EQ(torch::pow(b, 2).scalar_type(), kLong);  // a Python-style scalar promotes to int64
  EXPECT_THROW(torch::igamma(i, i), c10::Error);     // igamma_cpu: not implemented for 'Long'
}

// torch::special::entr is an op of its own, with its own backward node.
TEST(TensorOpsUsage, SpecialEntr) {
  Tensor x = torch::tensor({0.5, 2.0, 0.0, -1.0}, kDouble).requires_grad_();
  Tensor y = torch::special::entr(x);
  EXPECT_EQ(y.grad_fn()->name(), "SpecialEntrBackward0");
  EXPECT_NEAR(y[0].item<double>(), -0.5 * std::log(0.5), 1e-15);
  EXPECT_EQ(y[2].item<double>(), 0.0);
  EXPECT_EQ(y[3].item<double>(), -std::numeric_limits<double>::infinity());
  y.narrow(0, 0, 2).sum().backward();
  EXPECT_NEAR(x.grad()[0].item<double>(), -(1 + std::log(0.5)), 1e-15);
  EXPECT_NEAR(x.grad()[1].item<double>(), -(1 + std::log(2.0)), 1e-15);
  EXPECT_TRUE(torch::equal(torch::special_entr(torch::tensor({1, 2})), torch::special::entr(torch::tensor({1.f, 2.f}))));
}
