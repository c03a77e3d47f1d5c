// Random sampling: reproducibility (seeds, generators, thread counts), the distributions'
// moments against their closed forms, ranges, and the error cases.
#include <algorithm>
#include <cmath>
#include <set>

#include "ember/core/parallel.h"
#include "test_util.h"

namespace ember::test {
namespace {

constexpr int64_t kN = 200000;

// Mean and (population) variance in double.
std::pair<double, double> moments(const Tensor& t) {
  Tensor d = t.to(kDouble).flatten();
  double m = d.mean().item<double>();
  double v = d.sub(m).square().mean().item<double>();
  return {m, v};
}

// |sample mean - mu| within 6 standard errors.
void expect_mean(const Tensor& t, double mu, double sigma) {
  auto [m, v] = moments(t);
  EXPECT_NEAR(m, mu, 6 * sigma / std::sqrt(double(t.numel()))) << "variance " << v;
}

TEST(Random, ManualSeedReproduces) {
  manual_seed(7);
  Tensor a = randn({1000});
  Tensor b = rand({1000});
  manual_seed(7);
  EXPECT_TENSOR_EQ(randn({1000}), a);
  EXPECT_TENSOR_EQ(rand({1000}), b);
  EXPECT_FALSE(a.equal(randn({1000})));  // the stream moves on
}

TEST(Random, ExplicitGeneratorsAreIndependentOfTheDefault) {
  Generator g1(123), g2(123);
  Tensor a = randn({100}, g1);
  randn({5000});  // draws from the default generator do not disturb g2
  EXPECT_TENSOR_EQ(randn({100}, g2), a);
  EXPECT_FALSE(randn({100}, g1).equal(a));
  Generator g3(124);
  EXPECT_FALSE(randn({100}, g3).equal(a));
}

TEST(Random, ResultsDoNotDependOnTheThreadCount) {
  int saved = get_num_threads();
  set_num_threads(1);
  Generator g1(5);
  Tensor a = randn({300000}, g1);
  Tensor ai = randint(0, 1000, {300000}, g1);
  set_num_threads(2);
  Generator g2(5);
  Tensor b = randn({300000}, g2);
  Tensor bi = randint(0, 1000, {300000}, g2);
  set_num_threads(saved);
  EXPECT_TENSOR_EQ(a, b);
  EXPECT_TENSOR_EQ(ai, bi);
}

TEST(Random, UniformMomentsAndHalfOpenRange) {
  Generator g(1);
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    SCOPED_TRACE(torch_name(dt));
    Tensor t = empty({kN}, dtype(dt));
    t.uniform_(-2, 3, g);
    expect_mean(t, 0.5, 5 / std::sqrt(12.0));
    EXPECT_TRUE(t.ge(-2).all().item<bool>());
    EXPECT_TRUE(t.lt(3).all().item<bool>());  // rounding to a narrow dtype never reaches `to`
    auto [m, v] = moments(t);
    EXPECT_NEAR(v, 25.0 / 12, 0.05);
  }
  Tensor r = rand({kN}, g);
  EXPECT_TRUE(r.ge(0).all().item<bool>() && r.lt(1).all().item<bool>());
  expect_mean(r, 0.5, std::sqrt(1 / 12.0));
}

TEST(Random, NormalMoments) {
  Generator g(2);
  for (ScalarType dt : {kFloat, kDouble, kBFloat16}) {
    SCOPED_TRACE(torch_name(dt));
    Tensor t = empty({kN}, dtype(dt)).normal_(3, 2, g);
    expect_mean(t, 3, 2);
    auto [m, v] = moments(t);
    EXPECT_NEAR(v, 4, 4 * 0.03);
  }
  Tensor z = randn({kN}, g, dtype(kDouble));
  // Fourth moment of a standard normal is 3: checks the shape, not just the first two.
  EXPECT_NEAR(z.pow(4).mean().item<double>(), 3.0, 0.1);
  // Tensor-valued mean and std broadcast.
  Tensor mean = tensor({0.0, 10.0, -5.0}, dtype(kDouble)).unsqueeze(1).expand({3, 50000});
  Tensor std = tensor({1.0, 0.5, 3.0}, dtype(kDouble)).unsqueeze(1);
  Tensor s = normal(mean, std, g);
  EXPECT_EQ(s.sizes(), IntArrayRef({3, 50000}));
  expect_mean(s[0], 0, 1);
  expect_mean(s[1], 10, 0.5);
  expect_mean(s[2], -5, 3);
  EXPECT_EQ(normal(1.0, 2.0, {4, 5}, g).sizes(), IntArrayRef({4, 5}));
}

TEST(Random, ComplexNormalHasHalfTheVarianceInEachPart) {
  // torch.randn for complex dtypes: real and imaginary parts independent, each N(0, 1/2).
  Generator g(3);
  for (ScalarType dt : {kComplexFloat, kComplexDouble, kComplexHalf}) {
    SCOPED_TRACE(torch_name(dt));
    Tensor z = randn({kN}, g, dtype(dt));
    EXPECT_EQ(z.scalar_type(), dt);
    Tensor re = real(z), im = imag(z);
    auto [mr, vr] = moments(re);
    auto [mi, vi] = moments(im);
    EXPECT_NEAR(vr, 0.5, 0.02);
    EXPECT_NEAR(vi, 0.5, 0.02);
    expect_mean(re, 0, std::sqrt(0.5));
    expect_mean(im, 0, std::sqrt(0.5));
    // independent parts: correlation near zero
    double corr = re.to(kDouble).mul(im.to(kDouble)).mean().item<double>() / 0.5;
    EXPECT_NEAR(corr, 0, 0.02);
  }
  Tensor u = rand({kN}, g, dtype(kComplexFloat));
  EXPECT_TRUE(view_as_real(u).ge(0).all().item<bool>() && view_as_real(u).lt(1).all().item<bool>());
  expect_mean(imag(u), 0.5, std::sqrt(1 / 12.0));
}

TEST(Random, RandintRangeAndUniformity) {
  Generator g(4);
  Tensor t = randint(-3, 4, {kN}, g);
  EXPECT_EQ(t.scalar_type(), kLong);
  EXPECT_EQ(t.min().item<int64_t>(), -3);
  EXPECT_EQ(t.max().item<int64_t>(), 3);
  Tensor counts = bincount(t.add(3));
  ASSERT_EQ(counts.numel(), 7);
  double expect = double(kN) / 7, sd = std::sqrt(expect * 6 / 7);
  for (int64_t i = 0; i < 7; ++i) EXPECT_NEAR(counts[i].item<double>(), expect, 6 * sd) << i;
  EXPECT_EQ(randint(10, {3}, dtype(kFloat)).scalar_type(), kFloat);
  Tensor r = empty({5000}, dtype(kFloat)).random_(5, g);
  EXPECT_TRUE(r.ge(0).all().item<bool>() && r.lt(5).all().item<bool>());
  EXPECT_TRUE(r.eq(r.trunc()).all().item<bool>());
  Tensor u8 = empty({5000}, dtype(kByte)).random_(g);
  EXPECT_GT(u8.max().item<int64_t>(), 200);  // the whole uint8 range
  Tensor r2 = empty({5000}, dtype(kLong)).random_(-4, 4, g);
  EXPECT_EQ(r2.min().item<int64_t>(), -4);
  EXPECT_EQ(r2.max().item<int64_t>(), 3);
  Tensor b = randint(0, 2, {1000}, g, dtype(kByte));
  EXPECT_TRUE(b.le(1).all().item<bool>());
}

TEST(Random, RandpermIsAPermutation) {
  Generator g(5);
  Tensor p = randperm(1000, g);
  EXPECT_EQ(p.scalar_type(), kLong);
  EXPECT_TENSOR_EQ(std::get<0>(p.sort()), arange(1000));
  EXPECT_FALSE(p.equal(arange(1000)));
  // Each position is uniform over the values: position 0's mean over many draws ~ (n-1)/2.
  Tensor firsts = empty({4000}, dtype(kLong));
  for (int64_t i = 0; i < 4000; ++i) firsts[i].fill_(randperm(10, g)[0]);
  expect_mean(firsts, 4.5, std::sqrt(99 / 12.0));
  EXPECT_EQ(randperm(0).numel(), 0);
  EXPECT_EQ(randperm(5, dtype(kInt)).scalar_type(), kInt);
}

TEST(Random, BernoulliAndExponential) {
  Generator g(6);
  Tensor p = full({kN}, 0.3, dtype(kDouble));
  Tensor b = bernoulli(p, g);
  EXPECT_EQ(b.scalar_type(), kDouble);
  EXPECT_TRUE(b.eq(0).logical_or(b.eq(1)).all().item<bool>());
  expect_mean(b, 0.3, std::sqrt(0.3 * 0.7));
  Tensor b2 = empty({kN}).bernoulli_(0.8, g);
  expect_mean(b2, 0.8, std::sqrt(0.8 * 0.2));
  Tensor e = empty({kN}, dtype(kDouble)).exponential_(2.0, g);
  EXPECT_TRUE(e.ge(0).all().item<bool>());
  expect_mean(e, 0.5, 0.5);
}

TEST(Random, MultinomialFrequencies) {
  Generator g(7);
  Tensor probs = tensor({0.1, 0.0, 0.6, 0.3});
  Tensor s = multinomial(probs, 100000, /*replacement=*/true, g);
  EXPECT_EQ(s.sizes(), IntArrayRef({100000}));
  Tensor counts = bincount(s, {}, 4).to(kDouble).div(100000);
  EXPECT_EQ(counts[1].item<double>(), 0);  // zero probability is never drawn
  EXPECT_NEAR(counts[0].item<double>(), 0.1, 0.01);
  EXPECT_NEAR(counts[2].item<double>(), 0.6, 0.01);
  EXPECT_NEAR(counts[3].item<double>(), 0.3, 0.01);
  // Without replacement: distinct categories per row, never a zero-probability one.
  Tensor rows = tensor({{1.0, 2.0, 0.0, 3.0, 4.0}, {5.0, 0.0, 1.0, 1.0, 1.0}});
  for (int k = 0; k < 200; ++k) {
    Tensor d = multinomial(rows, 4, false, g);
    for (int64_t r = 0; r < 2; ++r) {
      std::set<int64_t> seen;
      for (int64_t j = 0; j < 4; ++j) seen.insert(d[r][j].item<int64_t>());
      EXPECT_EQ(seen.size(), 4u);
      EXPECT_EQ(seen.count(r == 0 ? 2 : 1), 0u);
    }
  }
  // The first draw without replacement follows the probabilities.
  Tensor w = tensor({0.7, 0.2, 0.1});
  Tensor draws = multinomial(w.unsqueeze(0).expand({20000, 3}), 1, false, g).squeeze(1);
  EXPECT_NEAR(draws.eq(0).to(kDouble).mean().item<double>(), 0.7, 0.02);
}

TEST(Random, GeneratorsAreHandlesWithPyTorchsState) {
  Generator undefined;
  EXPECT_FALSE(undefined.defined());
  EXPECT_ERROR_WITH(undefined.current_seed(), "the generator is undefined");
  EXPECT_EQ(randn({3}, undefined).numel(), 3);  // an undefined generator means the default one
  Generator g = make_generator<CPUGeneratorImpl>(42);
  EXPECT_EQ(g.current_seed(), 42u);
  {
    std::lock_guard<std::mutex> lock(g.mutex());
    EXPECT_EQ(g.get<CPUGeneratorImpl>()->random(), 1608637542u);  // std::mt19937(42)'s first output
  }
  Generator alias = g, copy = g.clone();
  EXPECT_TRUE(alias == g);
  EXPECT_FALSE(copy == g);
  EXPECT_TENSOR_EQ(randn({5}, alias), randn({5}, copy));  // the clone continues the same stream
  const Tensor state = g.get_state();
  EXPECT_EQ(state.scalar_type(), kByte);
  EXPECT_EQ(state.numel(), 5056);  // torch.get_rng_state()'s size
  const Tensor next = rand({7}, g);
  g.set_state(state);
  EXPECT_TENSOR_EQ(rand({7}, g), next);
  EXPECT_ERROR_WITH(g.set_state(zeros({5056})), "RNG state must be a torch.ByteTensor");
  EXPECT_ERROR_WITH(g.set_state(zeros({12}, dtype(kByte))), "but found the input RNG state size to be 12");
  EXPECT_ERROR_WITH(g.set_state(zeros({5056}, dtype(kByte))), "invalid mt19937 state");
}

TEST(Random, InPlaceSamplersFollowAutogradsRules) {
  Tensor leaf = zeros({4}, TensorOptions().requires_grad(true));
  EXPECT_ERROR_WITH(leaf.uniform_(), "a leaf Variable that requires grad is being used in an in-place operation");
  Tensor x = zeros({4}, TensorOptions().requires_grad(true));
  Tensor y = x.mul(2);
  y.normal_();  // a non-leaf: the old value gets no gradient
  y.sum().backward();
  EXPECT_TENSOR_EQ(x.grad(), zeros({4}));
  Tensor r = rand({3}, TensorOptions().requires_grad(true));
  EXPECT_TRUE(r.requires_grad() && r.is_leaf());
}

TEST(Random, Errors) {
  EXPECT_ERROR_WITH(empty({3}).uniform_(2, 1), "uniform_");
  EXPECT_ERROR_WITH(empty({3}).normal_(0, -1), "std >= 0.0");
  EXPECT_ERROR_WITH(empty({3}, dtype(kLong)).normal_(0, 1), "floating point");
  EXPECT_ERROR_WITH(randint(5, 5, {3}), "randint");
  EXPECT_ERROR_WITH(randperm(-1), "non-negative");
  EXPECT_ERROR_WITH(empty({3}).bernoulli_(1.5), "bernoulli_");
  EXPECT_ERROR_WITH(bernoulli(tensor({0.5, 2.0})), "probabilities in [0, 1]");
  EXPECT_ERROR_WITH(empty({3}).exponential_(-1), "lambda >= 0.0");
  EXPECT_ERROR_WITH(empty({3}).geometric_(1), "geometric_: expects p to be in (0, 1)");
  EXPECT_ERROR_WITH(empty({3}).log_normal_(0, 0), "log_normal_: expects std > 0.0");
  EXPECT_ERROR_WITH(empty({3}, dtype(kHalf)).bernoulli_(0.5), "bernoulli_: not implemented for");
  EXPECT_ERROR_WITH(empty({3}, dtype(kByte)).random_(-1, 5), "random_: from is out of bounds for");
  EXPECT_ERROR_WITH(empty({3}, dtype(kInt)).random_(std::numeric_limits<int64_t>::lowest(), std::optional<int64_t>()),
                    "full 64-bit range");
  EXPECT_ERROR_WITH(empty({3}).uniform_(0, 1e39), "uniform_: to is out of bounds for");
  EXPECT_ERROR_WITH(randperm(300, dtype(kByte)), "n is too large for result tensor type");
  EXPECT_ERROR_WITH(empty({3, 2}).bernoulli_(full({3}, 0.5)), "cannot be expanded to the shape of self");
  EXPECT_ERROR_WITH(multinomial(tensor({1.0, 2.0}, dtype(kHalf)), 1), "not implemented for half");
  EXPECT_ERROR_WITH(multinomial(tensor({0.5, -0.1}), 1), "element < 0");
  EXPECT_ERROR_WITH(multinomial(tensor({0.5, 0.5}), 3, false), "without replacement");
  EXPECT_ERROR_WITH(multinomial(tensor({0.0, 0.0}), 1, true), "sum of probabilities");
  EXPECT_ERROR_WITH(multinomial(tensor({1, 2}), 1), "floating-point");
  EXPECT_ERROR_WITH(normal(tensor({0.0}), tensor({-1.0})), "std >= 0.0");
}

}  // namespace
}  // namespace ember::test
