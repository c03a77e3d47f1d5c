// Sampling on CUDA (Note [Device sampling]): the numbers are Philox4x32-10 at counter
// offset + i under the generator's seed, checked bit for bit against the host's Philox; the
// distributions' moments over a million draws; seeding, consecutive calls, non-contiguous
// outputs, generators of the wrong device, dropout. Skipped without a GPU.
#include <torch/cuda.h>
#include <torch/torch.h>

#include <cmath>

#include "cuda_test_util.h"
#include "ember/core/generator.h"
#include "test_util.h"

namespace ember::test {
namespace {

TEST(CudaRandom, UniformIsPhiloxAtOffsetPlusIndex) {
  EMBER_REQUIRE_GPU();
  torch::cuda::manual_seed(20261206);
  Tensor a = torch::empty({1000}, torch::kCUDA).uniform_(-2, 6).cpu();
  Tensor b = torch::empty({1000}, torch::kCUDA).uniform_(-2, 6).cpu();  // counters 1000..1999
  const float* pa = a.data_ptr<float>();
  const float* pb = b.data_ptr<float>();
  for (int64_t i = 0; i < 1000; ++i) {
    const auto ra = Philox4x32::draw(20261206, uint64_t(i)), rb = Philox4x32::draw(20261206, 1000 + uint64_t(i));
    const float ua = float(ra[0] >> 8) * 0x1p-24f, ub = float(rb[0] >> 8) * 0x1p-24f;
    ASSERT_EQ(pa[i], -2.0f + ua * 8.0f) << i;
    ASSERT_EQ(pb[i], -2.0f + ub * 8.0f) << i;
  }
  torch::cuda::manual_seed(20261206);
  EXPECT_TENSOR_CLOSE(torch::empty({1000}, torch::kCUDA).uniform_(-2, 6).cpu(), a, 0, 0) << "reseeding repeats";
}

TEST(CudaRandom, TorchManualSeedSeedsTheGpusToo) {
  EMBER_REQUIRE_GPU();
  torch::manual_seed(99);  // as at::manual_seed: the CPU's and every GPU's default generator
  Tensor a = torch::rand({64}, torch::kCUDA).cpu();
  torch::cuda::manual_seed_all(99);
  EXPECT_TENSOR_CLOSE(torch::rand({64}, torch::kCUDA).cpu(), a, 0, 0);
  torch::manual_seed(100);
  EXPECT_FALSE(torch::equal(torch::rand({64}, torch::kCUDA).cpu(), a));
}

void expect_moments(const Tensor& x, double mean, double var, const char* what) {
  SCOPED_TRACE(what);
  Tensor d = x.to(kDouble).cpu();
  const double n = double(d.numel());
  const double m = d.mean().item<double>(), v = d.var().item<double>();
  // Five standard errors of the mean and (roughly) of the variance.
  EXPECT_NEAR(m, mean, 5 * std::sqrt(var / n) + 1e-12);
  EXPECT_NEAR(v, var, 5 * var * std::sqrt(2.0 / n) * 2 + 1e-12);
}

TEST(CudaRandom, DistributionsHaveTheirMoments) {
  EMBER_REQUIRE_GPU();
  torch::cuda::manual_seed(7);
  const int64_t n = 1 << 20;
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    SCOPED_TRACE(torch_name(dt));
    auto opts = torch::TensorOptions().dtype(dt).device(torch::kCUDA);
    Tensor u = torch::empty({n}, opts).uniform_(1, 3);
    EXPECT_GE(u.min().item<double>(), 1.0);
    EXPECT_LT(u.max().item<double>(), 3.0);
    if (dt == kFloat || dt == kDouble) expect_moments(u, 2.0, 4.0 / 12, "uniform");
    Tensor z = torch::randn({n}, opts);
    expect_moments(z, 0.0, 1.0, "randn");
    expect_moments(torch::empty({n}, opts).normal_(3, 0.5), 3.0, 0.25, "normal");
    expect_moments(torch::empty({n}, opts).exponential_(2), 0.5, 0.25, "exponential");
  }
  auto f = torch::TensorOptions().device(torch::kCUDA);
  Tensor b = torch::empty({n}, f).bernoulli_(0.3);
  expect_moments(b, 0.3, 0.21, "bernoulli");
  Tensor p = torch::rand({n}, f);
  Tensor bt = torch::bernoulli(p);
  EXPECT_NEAR(bt.sum().item<double>() / n, p.mean().item<double>(), 0.005) << "bernoulli with a p tensor";
  EXPECT_EQ(torch::bernoulli(torch::zeros({1000}, f)).sum().item<double>(), 0.0);
  EXPECT_EQ(torch::bernoulli(torch::ones({1000}, f)).sum().item<double>(), 1000.0);
  Tensor r = torch::randint(3, 13, {n}, f.dtype(kLong));
  EXPECT_EQ(r.min().item<int64_t>(), 3);
  EXPECT_EQ(r.max().item<int64_t>(), 12);
  expect_moments(r, 7.5, (100.0 - 1) / 12, "randint");
  Tensor g = torch::empty({n}, f).geometric_(0.25);
  EXPECT_GE(g.min().item<double>(), 1.0);
  expect_moments(g, 4.0, 0.75 / 0.0625, "geometric");
}

TEST(CudaRandom, NonContiguousOutputsGeneratorsAndDropout) {
  EMBER_REQUIRE_GPU();
  Tensor t = torch::zeros({64, 48}, torch::kCUDA).t();
  t.uniform_();
  EXPECT_GT(t.min().item<float>(), -1e-9f);
  EXPECT_EQ(t.eq(0).sum().item<int64_t>() < 5, true) << "every element written";
  // A generator of another device is refused, naming both.
  torch::Generator cpu_gen = torch::make_generator<torch::CPUGeneratorImpl>(1);
  EXPECT_ERROR_WITH(torch::empty({4}, torch::kCUDA).uniform_(0, 1, cpu_gen), "device type for generator");
  // Dropout: about p of the elements zeroed, the rest scaled by 1 / (1 - p).
  Tensor x = torch::ones({1 << 20}, torch::kCUDA);
  Tensor y = torch::dropout(x, 0.25, true);
  const double zeros = y.eq(0).sum().item<double>() / double(1 << 20);
  EXPECT_NEAR(zeros, 0.25, 0.005);
  EXPECT_NEAR(y.max().item<float>(), 1.0f / 0.75f, 1e-6);
  Tensor h = torch::dropout(x.to(kHalf), 0.5, true);
  EXPECT_NEAR(h.eq(0).sum().item<double>() / double(1 << 20), 0.5, 0.005);
}

}  // namespace
}  // namespace ember::test
