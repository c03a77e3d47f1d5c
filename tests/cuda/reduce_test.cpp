// Reductions on CUDA against the CPU: sum, mean, nansum, prod, all, any, amax, amin over
// every dtype they take, reduced dims innermost, outermost and in the middle, several dims,
// keepdim, strided inputs, and a full reduction large enough to be split across blocks.
// Skipped without a GPU.
#include <torch/torch.h>

#include <limits>

#include "cuda_test_util.h"
#include "test_util.h"

namespace ember::test {
namespace {

using Reduction = std::function<Tensor(const Tensor&)>;

void check_reduction(const std::string& what, const Reduction& f, const Tensor& x) {
  SCOPED_TRACE(what + " " + torch_name(x.scalar_type()) + " " + ::testing::PrintToString(x.sizes()));
  Tensor expected = f(x);
  Tensor got = f(x.cuda());
  ASSERT_TRUE(got.is_cuda());
  const double t = cuda_rtol(x.scalar_type());
  EXPECT_TENSOR_CLOSE(got.cpu(), expected, t, t * 10);
}

TEST(CudaReduce, MatchTheCpuOverDtypesAndLayouts) {
  EMBER_REQUIRE_GPU();
  for (int i = 0; i < kNumScalarTypes; ++i) {
    const ScalarType dt = ScalarType(i);
    if (!kAllTypes.contains(dt)) continue;
    Tensor x = random_tensor({6, 37, 41}, dt, 0, 3);
    const bool real = !isComplexType(dt);
    for (const Tensor& in : {x, x.transpose(0, 2), x.slice(1, 1, 37, 3)}) {
      check_reduction("sum all", [](const Tensor& t) { return t.sum(); }, in);
      check_reduction("sum inner", [](const Tensor& t) { return t.sum(2); }, in);
      check_reduction("sum outer", [](const Tensor& t) { return t.sum(0); }, in);
      check_reduction("sum middle keepdim", [](const Tensor& t) { return t.sum(1, true); }, in);
      check_reduction("sum two dims", [](const Tensor& t) { return t.sum({0, 2}); }, in);
      check_reduction("prod inner", [](const Tensor& t) { return t.prod(2); }, in.slice(2, 0, 5));
      check_reduction("all", [](const Tensor& t) { return t.all(1); }, in);
      check_reduction("any", [](const Tensor& t) { return t.any(0); }, in);
      if (isFloatingType(dt) || isComplexType(dt)) check_reduction("mean", [](const Tensor& t) { return t.mean({1, 2}); }, in);
      if (real) {
        check_reduction("amax", [](const Tensor& t) { return t.amax(2); }, in);
        check_reduction("amin", [](const Tensor& t) { return t.amin({0, 1}); }, in);
      }
    }
  }
}

TEST(CudaReduce, LargeFullReductionsSplitAcrossBlocks) {
  EMBER_REQUIRE_GPU();
  Tensor x = torch::rand({10000019}, kDouble);
  EXPECT_TENSOR_CLOSE(x.cuda().sum().cpu(), x.sum(), 1e-10, 1e-8);
  EXPECT_TENSOR_CLOSE(x.cuda().amax().cpu(), x.amax(), 0, 0);
  Tensor f = torch::ones({1 << 24});
  EXPECT_EQ(f.cuda().sum().item<float>(), float(1 << 24)) << "16M ones: exact in float partial sums";
  Tensor cols = torch::rand({100000, 3}, kFloat);
  EXPECT_TENSOR_CLOSE(cols.cuda().sum(0).cpu(), cols.sum(0), 1e-4, 1e-2);  // thread per output, split
}

TEST(CudaReduce, NansAndEmptyInputs) {
  EMBER_REQUIRE_GPU();
  Tensor x = torch::tensor({1.f, NAN, 2.f, 3.f});
  EXPECT_TRUE(std::isnan(x.cuda().sum().item<float>()));
  EXPECT_EQ(x.cuda().nansum().item<float>(), 6.f);
  EXPECT_TRUE(std::isnan(x.cuda().amax().item<float>())) << "NaN propagates";
  Tensor e = torch::empty({0, 4}, torch::kCUDA);
  EXPECT_TENSOR_EQ(e.sum(0).cpu(), torch::zeros({4}));
  EXPECT_TENSOR_EQ(e.prod(0).cpu(), torch::ones({4}));
  EXPECT_ERROR_WITH(e.amax(0), "amax");
}

TEST(CudaReduce, VarStdAndVarMean) {
  EMBER_REQUIRE_GPU();
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    Tensor x = random_tensor({6, 37, 41}, dt).add(3);  // a mean away from 0
    for (const Tensor& in : {x, x.transpose(0, 2)}) {
      check_reduction("var all", [](const Tensor& t) { return t.var(); }, in);
      check_reduction("var inner", [](const Tensor& t) { return torch::var(t, {2}); }, in);
      check_reduction("std outer", [](const Tensor& t) { return torch::std(t, {0}); }, in);
      check_reduction("var_mean var", [](const Tensor& t) { return std::get<0>(torch::var_mean(t, {1, 2})); }, in);
      check_reduction("var_mean mean", [](const Tensor& t) { return std::get<1>(torch::var_mean(t, {1, 2})); }, in);
    }
  }
  Tensor big = torch::randn({3000000}, kDouble);
  EXPECT_TENSOR_CLOSE(big.cuda().var().cpu(), big.var(), 1e-9, 1e-9);  // split across blocks
}

TEST(CudaReduce, VectorNorms) {
  EMBER_REQUIRE_GPU();
  for (ScalarType dt : {kFloat, kDouble, kHalf, kComplexFloat, kComplexDouble}) {
    Tensor x = random_tensor({7, 300}, dt);
    for (double ord : {0.0, 1.0, 2.0, 3.0, double(INFINITY), -double(INFINITY)}) {
      check_reduction("vector_norm ord " + std::to_string(ord),
                      [&](const Tensor& t) { return torch::linalg::vector_norm(t, ord, {1}, false, std::nullopt); }, x);
    }
    check_reduction("norm all", [](const Tensor& t) { return t.norm(); }, x);
  }
  // clip_grad_norm_ on device gradients: the total norm and the scaling.
  Tensor p = torch::ones({10}, torch::kCUDA), q = torch::ones({10});
  p.mutable_grad() = torch::full({10}, 3.0, torch::kCUDA);
  q.mutable_grad() = torch::full({10}, 3.0);
  EXPECT_NEAR(torch::nn::utils::clip_grad_norm_({p}, 1.0), torch::nn::utils::clip_grad_norm_({q}, 1.0), 1e-5);
  EXPECT_TENSOR_CLOSE(p.grad().cpu(), q.grad(), 1e-5, 1e-6);
}

TEST(CudaReduce, CumsumCumprodAndLogsumexp) {
  EMBER_REQUIRE_GPU();
  for (int i = 0; i < kNumScalarTypes; ++i) {
    const ScalarType dt = ScalarType(i);
    if (!kAllTypes.contains(dt)) continue;
    Tensor x = random_tensor({4, 9, 6}, dt, 0, 3);
    for (int64_t dim : {0, 1, 2}) {
      check_reduction("cumsum dim " + std::to_string(dim), [&](const Tensor& t) { return t.cumsum(dim); }, x);
      check_reduction("cumprod dim " + std::to_string(dim), [&](const Tensor& t) { return t.cumprod(dim); }, x);
    }
  }
  Tensor y = random_tensor({5, 300}, kFloat).mul(30);  // exp would overflow without the shift
  check_reduction("logsumexp", [](const Tensor& t) { return torch::logsumexp(t, {1}); }, y);
}

TEST(CudaReduce, SoftmaxAndLogSoftmax) {
  EMBER_REQUIRE_GPU();
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    Tensor x = random_tensor({5, 33, 70}, dt);
    for (int64_t dim : {2, 1, 0}) {
      check_reduction("softmax dim " + std::to_string(dim), [&](const Tensor& t) { return t.softmax(dim); }, x);
      check_reduction("log_softmax dim " + std::to_string(dim), [&](const Tensor& t) { return t.log_softmax(dim); }, x);
    }
  }
  // A long row (a vocabulary) and the gradient through sum on the device.
  Tensor logits = random_tensor({4, 50000}, kFloat);
  check_reduction("log_softmax long row", [](const Tensor& t) { return t.log_softmax(1); }, logits);
  Tensor g = logits.cuda().requires_grad_();
  g.log_softmax(1).sum().backward();
  Tensor c = logits.clone().requires_grad_();
  c.log_softmax(1).sum().backward();
  EXPECT_TENSOR_CLOSE(g.grad().cpu(), c.grad(), 1e-4, 1e-5);
}

TEST(CudaReduce, LongLinesScanInBlocks) {
  EMBER_REQUIRE_GPU();
  Tensor x = torch::rand({3000017}, kDouble);
  EXPECT_TENSOR_CLOSE(x.cuda().cumsum(0).cpu(), x.cumsum(0), 1e-12, 1e-9);
  Tensor i = torch::randint(-5, 5, {2000003}, kLong);
  EXPECT_TENSOR_CLOSE(i.cuda().cumsum(0).cpu(), i.cumsum(0), 0, 0);
  Tensor rows = torch::rand({3, 100000}, kFloat).add(0.5);
  EXPECT_TENSOR_CLOSE(rows.cuda().cumsum(1).cpu(), rows.cumsum(1), 1e-5, 1e-2);
  Tensor near_one = torch::rand({2, 5000}, kDouble).mul(1e-4).add(1);
  EXPECT_TENSOR_CLOSE(near_one.cuda().cumprod(1).cpu(), near_one.cumprod(1), 1e-12, 0);
  Tensor cols = torch::rand({5000, 3}, kDouble);  // a column scan: inner > 1, three long lines
  EXPECT_TENSOR_CLOSE(cols.cuda().cumsum(0).cpu(), cols.cumsum(0), 1e-12, 1e-9);
  // cummax / cummin (ties and NaNs across tiles) and logcumsumexp in blocks too.
  Tensor v = torch::randint(0, 50, {2, 200001}, kLong).to(kFloat);
  v.index_put_({0, 150000}, std::numeric_limits<float>::quiet_NaN());
  for (bool mx : {true, false}) {
    auto [gv, gi] = mx ? v.cuda().cummax(1) : v.cuda().cummin(1);
    auto [cv, ci] = mx ? v.cummax(1) : v.cummin(1);
    EXPECT_TENSOR_EQ(gv.cpu(), cv);
    EXPECT_TENSOR_EQ(gi.cpu(), ci);
  }
  Tensor l = torch::randn({3, 70001}, kDouble);
  EXPECT_TENSOR_CLOSE(l.cuda().logcumsumexp(1).cpu(), l.logcumsumexp(1), 1e-10, 1e-10);
}

}  // namespace
}  // namespace ember::test
