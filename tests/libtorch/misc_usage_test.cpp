// Odds and ends LibTorch 1.13 programs rely on: seeding, device queries and parsing, scalar type
// names and sizes, the at::/torch:: interchange, c10 utilities (optional, ArrayRef, irange,
// TORCH_CHECK), at::parallel_for, and the torch::fft, torch::linalg and torch::special namespaces.
// Expected values are what LibTorch 1.13 produces.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <ATen/Version.h>
#include <c10/util/irange.h>

#include <atomic>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace {

int checked_div(int a, int b) {
  TORCH_CHECK(b != 0, "division by zero: ", a, " / ", b);
  return a / b;
}

int64_t sum_all(c10::ArrayRef<int64_t> values) {
  int64_t s = 0;
  for (auto v : values) s += v;
  return s;
}

double maybe_scale(double x, c10::optional<double> factor = c10::nullopt) { return x * factor.value_or(1.0); }

}  // namespace

TEST(MiscUsage, ManualSeedReproducibility) {
  torch::manual_seed(123);
  auto a = torch::randn({5});
  auto ai = torch::randint(0, 100, {5});
  torch::manual_seed(123);
  auto b = torch::randn({5});
  auto bi = torch::randint(0, 100, {5});
  EXPECT_TRUE(a.equal(b));
  EXPECT_TRUE(ai.equal(bi));
  torch::manual_seed(124);
  EXPECT_FALSE(torch::randn({5}).equal(a));
  torch::manual_seed(0);
  EXPECT_NEAR(torch::randn({1}).item<float>(), 1.54099607f, 1e-6);
  EXPECT_NEAR(torch::rand({1}).item<float>(), 0.307422817f, 1e-6);
  auto gen = at::detail::createCPUGenerator(7);
  auto g1 = torch::rand({3}, gen);
  gen.set_current_seed(7);
  EXPECT_TRUE(torch::rand({3}, gen).equal(g1));
}

TEST(MiscUsage, DevicesAndCuda) {
  EXPECT_FALSE(torch::cuda::is_available());
  EXPECT_EQ(torch::cuda::device_count(), 0u);
  EXPECT_FALSE(torch::cuda::cudnn_is_available());
  // Without a GPU: seeding is a no-op, using the device is an error.
  torch::cuda::manual_seed_all(0);
  EXPECT_THROW(torch::cuda::synchronize(), c10::Error);
  EXPECT_THROW(torch::zeros({2}, torch::kCUDA), c10::Error);
  EXPECT_THROW(torch::ones({2}).to(torch::kCUDA), c10::Error);
  torch::Device device = torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  EXPECT_TRUE(device.is_cpu());
  EXPECT_EQ(device.type(), torch::kCPU);
  EXPECT_FALSE(device.has_index());
  EXPECT_EQ(device.index(), -1);

  torch::Device cuda1("cuda:1");
  EXPECT_TRUE(cuda1.is_cuda());
  EXPECT_EQ(cuda1.index(), 1);
  EXPECT_EQ(cuda1.str(), "cuda:1");
  torch::Device cpu("cpu");
  EXPECT_EQ(cpu, torch::Device(torch::kCPU));
  EXPECT_NE(torch::Device("cuda:0"), torch::Device("cuda:1"));
  EXPECT_EQ(torch::Device(torch::kCUDA, 2).str(), "cuda:2");
  EXPECT_THROW(torch::Device("gpu:0"), c10::Error);
  EXPECT_THROW(torch::Device("cuda:-1"), c10::Error);
  std::ostringstream os;
  os << torch::Device("cuda") << " " << torch::kCUDA << " " << torch::DeviceType::CPU;
  EXPECT_EQ(os.str(), "cuda cuda cpu");
  EXPECT_EQ(c10::DeviceTypeName(torch::kCUDA), "CUDA");
  EXPECT_EQ(c10::DeviceTypeName(torch::kCPU, /*lower_case=*/true), "cpu");
  auto t = torch::ones({2}, torch::TensorOptions().device(device));
  EXPECT_EQ(t.device(), device);
  EXPECT_THROW(torch::ones({1}, torch::Device("cuda")), c10::Error);
}

TEST(MiscUsage, ScalarTypesNamesAndSizes) {
  EXPECT_EQ(torch::kFloat32, torch::kFloat);
  EXPECT_EQ(torch::kFloat64, torch::kDouble);
  EXPECT_EQ(torch::kInt64, torch::kLong);
  EXPECT_EQ(torch::kInt32, torch::kInt);
  EXPECT_EQ(torch::kInt16, torch::kShort);
  EXPECT_EQ(torch::kFloat16, torch::kHalf);
  EXPECT_EQ(torch::kUInt8, torch::kByte);
  EXPECT_EQ(c10::elementSize(torch::kFloat), 4u);
  EXPECT_EQ(c10::elementSize(torch::kDouble), 8u);
  EXPECT_EQ(c10::elementSize(torch::kHalf), 2u);
  EXPECT_EQ(c10::elementSize(torch::kBool), 1u);
  EXPECT_EQ(c10::elementSize(torch::kComplexFloat), 8u);
  EXPECT_STREQ(c10::toString(torch::kFloat), "Float");
  EXPECT_STREQ(c10::toString(torch::kLong), "Long");
  EXPECT_STREQ(c10::toString(torch::kBFloat16), "BFloat16");
  EXPECT_STREQ(c10::toString(torch::kComplexDouble), "ComplexDouble");
  std::ostringstream os;
  os << torch::kInt8 << "," << torch::kBool;
  EXPECT_EQ(os.str(), "Char,Bool");
  EXPECT_TRUE(c10::isFloatingType(torch::kHalf));
  EXPECT_FALSE(c10::isFloatingType(torch::kInt));
  EXPECT_TRUE(c10::isIntegralType(torch::kInt, /*includeBool=*/false));
  EXPECT_FALSE(c10::isIntegralType(torch::kBool, false));
  EXPECT_TRUE(c10::isIntegralType(torch::kBool, true));
  EXPECT_TRUE(c10::isComplexType(torch::kComplexFloat));
  EXPECT_EQ(c10::promoteTypes(torch::kInt, torch::kFloat), torch::kFloat);
  EXPECT_EQ(c10::promoteTypes(torch::kByte, torch::kChar), torch::kShort);
  EXPECT_EQ(torch::result_type(torch::tensor({1}), 2.5), torch::kFloat);
  EXPECT_TRUE(torch::can_cast(torch::kInt, torch::kFloat));
  EXPECT_FALSE(torch::can_cast(torch::kFloat, torch::kInt));
  EXPECT_EQ(torch::get_default_dtype(), caffe2::TypeMeta::Make<float>());
  EXPECT_EQ(c10::CppTypeToScalarType<double>::value, torch::kDouble);
  EXPECT_EQ(torch::zeros({1}, torch::kHalf).element_size(), 2);
}

TEST(MiscUsage, AtAndTorchTensorsInterchange) {
  at::Tensor a = at::ones({2, 2});
  torch::Tensor b = a;  // same type
  EXPECT_TRUE(b.is_same(a));
  EXPECT_FALSE(a.requires_grad());
  // torch:: factories know about autograd options, at:: factories take TensorOptions too
  torch::Tensor c = torch::ones({2}, torch::requires_grad());
  EXPECT_TRUE(c.requires_grad());
  at::Tensor d = at::zeros({2}, at::TensorOptions().dtype(at::kDouble));
  EXPECT_EQ(d.scalar_type(), torch::kDouble);
  auto e = at::add(a, b);
  EXPECT_TRUE(e.equal(torch::full({2, 2}, 2.0f)));
  auto f = at::matmul(a, torch::eye(2));
  EXPECT_TRUE(f.equal(a));
  static_assert(std::is_same<at::Tensor, torch::Tensor>::value, "one tensor type");
  static_assert(std::is_same<torch::Tensor, torch::autograd::Variable>::value, "Variable is Tensor");
  c10::IntArrayRef sizes = a.sizes();
  at::IntArrayRef also = sizes;
  EXPECT_EQ(also.size(), 2u);
  torch::Scalar s = 3;
  at::Scalar s2 = 2.5;
  EXPECT_TRUE(s.isIntegral(false));
  EXPECT_TRUE(s2.isFloatingPoint());
  EXPECT_DOUBLE_EQ((a * s2).sum().item<double>(), 10.0);
}

TEST(MiscUsage, C10Utilities) {
  c10::optional<int> none;
  EXPECT_FALSE(none.has_value());
  c10::optional<int> some = 4;
  EXPECT_EQ(*some, 4);
  EXPECT_EQ(none.value_or(9), 9);
  EXPECT_DOUBLE_EQ(maybe_scale(2.0), 2.0);
  EXPECT_DOUBLE_EQ(maybe_scale(2.0, 3.0), 6.0);
  none = c10::make_optional(5);
  EXPECT_TRUE(none);

  std::vector<int64_t> v{1, 2, 3, 4};
  EXPECT_EQ(sum_all(v), 10);
  EXPECT_EQ(sum_all({5, 6}), 11);
  c10::ArrayRef<int64_t> ref(v);
  EXPECT_EQ(ref.size(), 4u);
  EXPECT_EQ(ref.front(), 1);
  EXPECT_EQ(ref.slice(1, 2).vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(ref.equals({1, 2, 3, 4}));
  EXPECT_EQ(c10::multiply_integers(ref), 24);

  int64_t total = 0;
  for (const auto i : c10::irange(5)) total += i;
  EXPECT_EQ(total, 10);
  std::vector<int> seen;
  for (const auto i : c10::irange(2, 5)) seen.push_back(i);
  EXPECT_EQ(seen, (std::vector<int>{2, 3, 4}));
  for (const auto i : c10::irange(0)) FAIL() << i;

  EXPECT_EQ(c10::str("a", 1, "b", 2.5), "a1b2.5");
  EXPECT_EQ(c10::Join(", ", std::vector<std::string>{"x", "y"}), "x, y");
}

TEST(MiscUsage, TorchCheckMessages) {
  EXPECT_EQ(checked_div(6, 3), 2);
  try {
    checked_div(1, 0);
    FAIL() << "expected TORCH_CHECK to throw";
  } catch (const c10::Error& e) {
    EXPECT_EQ(e.msg(), "division by zero: 1 / 0");
    EXPECT_NE(std::string(e.what()).find("division by zero: 1 / 0"), std::string::npos);
    EXPECT_EQ(std::string(e.what_without_backtrace()).rfind("division by zero: 1 / 0", 0), 0u);
  }
  EXPECT_THROW(TORCH_CHECK(false), c10::Error);
  EXPECT_THROW(TORCH_CHECK_INDEX(false, "bad index"), c10::IndexError);
  EXPECT_THROW(TORCH_CHECK_VALUE(false, "bad value"), c10::ValueError);
  EXPECT_THROW(TORCH_CHECK_TYPE(false, "bad type"), c10::TypeError);
  EXPECT_THROW(TORCH_CHECK_NOT_IMPLEMENTED(false, "todo"), c10::NotImplementedError);
  EXPECT_THROW(TORCH_INTERNAL_ASSERT(1 == 2), c10::Error);
  // c10::Error is a std::exception
  try {
    torch::ones({2}).view({3});
    FAIL();
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("shape '[3]' is invalid for input of size 2"), std::string::npos);
  }
  try {
    torch::ones({2, 3}).matmul(torch::ones({2, 3}));
    FAIL();
  } catch (const c10::Error& e) {
    EXPECT_NE(e.msg().find("mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"), std::string::npos);
  }
  try {
    torch::ones({2}).index_select(0, torch::tensor({5}));
    FAIL();
  } catch (const c10::IndexError& e) {
    EXPECT_NE(e.msg().find("out of range"), std::string::npos);
  }
}

TEST(MiscUsage, ParallelForAndThreads) {
  EXPECT_GE(at::get_num_threads(), 1);
  const int before = at::get_num_threads();
  at::set_num_threads(2);
  EXPECT_EQ(at::get_num_threads(), 2);
  EXPECT_EQ(torch::get_num_threads(), 2);
  std::vector<int> out(1000, 0);
  at::parallel_for(0, 1000, /*grain_size=*/100, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = static_cast<int>(i * 2);
  });
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(out[i], i * 2);
  std::atomic<int64_t> chunks{0};
  at::parallel_for(0, 10, 100, [&](int64_t b, int64_t e) {
    chunks += 1;
    EXPECT_EQ(b, 0);
    EXPECT_EQ(e, 10);  // below the grain size: one chunk
  });
  EXPECT_EQ(chunks.load(), 1);
  auto total = at::parallel_reduce(
      0, 100, 10, int64_t(0),
      [](int64_t b, int64_t e, int64_t acc) {
        for (int64_t i = b; i < e; ++i) acc += i;
        return acc;
      },
      std::plus<int64_t>());
  EXPECT_EQ(total, 4950);
  EXPECT_FALSE(at::in_parallel_region());
  torch::set_num_threads(before);
  EXPECT_GE(at::get_num_interop_threads(), 1);
}

TEST(MiscUsage, FftBasics) {
  auto x = torch::tensor({1.0, 2.0, 3.0, 4.0}, torch::kDouble);
  auto X = torch::fft::fft(x);
  EXPECT_EQ(X.scalar_type(), torch::kComplexDouble);
  auto re = torch::real(X);
  auto im = torch::imag(X);
  EXPECT_TRUE(re.allclose(torch::tensor({10.0, -2.0, -2.0, -2.0}, torch::kDouble)));
  EXPECT_TRUE(im.allclose(torch::tensor({0.0, 2.0, 0.0, -2.0}, torch::kDouble)));
  EXPECT_TRUE(torch::real(torch::fft::ifft(X)).allclose(x));
  auto R = torch::fft::rfft(x);
  EXPECT_EQ(R.size(0), 3);
  EXPECT_TRUE(torch::fft::irfft(R, 4).allclose(x));
  auto f = torch::fft::fftfreq(4);
  EXPECT_TRUE(f.allclose(torch::tensor({0.0f, 0.25f, -0.5f, -0.25f})));
  EXPECT_TRUE(torch::fft::fftshift(torch::arange(4)).equal(torch::tensor({2, 3, 0, 1})));
  auto img = torch::ones({4, 4});
  auto F2 = torch::fft::fft2(img);
  EXPECT_NEAR(torch::abs(F2)[0][0].item<float>(), 16.0f, 1e-5);
  EXPECT_NEAR(torch::abs(F2).sum().item<float>(), 16.0f, 1e-4);
  auto ortho = torch::fft::fft(x, c10::nullopt, -1, "ortho");
  EXPECT_NEAR(torch::real(ortho)[0].item<double>(), 5.0, 1e-12);
}

TEST(MiscUsage, LinalgBasics) {
  // torch::linalg's C++ wrappers in 1.13 have no default arguments: every one is spelled out
  auto A = torch::tensor({{4.0, 1.0}, {2.0, 3.0}}, torch::kDouble);
  EXPECT_NEAR(torch::linalg::det(A).item<double>(), 10.0, 1e-12);
  auto inv = torch::linalg::inv(A);
  EXPECT_TRUE(inv.matmul(A).allclose(torch::eye(2, torch::kDouble)));
  auto b = torch::tensor({1.0, 2.0}, torch::kDouble);
  auto x = torch::linalg::solve(A, b, /*left=*/true);
  EXPECT_TRUE(A.matmul(x).allclose(b));
  EXPECT_NEAR(torch::linalg::norm(torch::tensor({3.0, 4.0}, torch::kDouble), c10::nullopt, c10::nullopt, false, c10::nullopt).item<double>(), 5.0, 1e-12);
  EXPECT_NEAR(torch::linalg::vector_norm(torch::tensor({3.0, 4.0}), 1, c10::nullopt, false, c10::nullopt).item<float>(), 7.0f, 1e-6);
  EXPECT_NEAR(torch::linalg::matrix_norm(torch::eye(3), "fro", {-2, -1}, false, c10::nullopt).item<float>(), std::sqrt(3.0f), 1e-6);
  auto sym = torch::tensor({{2.0, 1.0}, {1.0, 2.0}}, torch::kDouble);
  auto [evals, evecs] = torch::linalg::eigh(sym, "L");
  EXPECT_TRUE(evals.allclose(torch::tensor({1.0, 3.0}, torch::kDouble)));
  auto L = torch::linalg::cholesky(sym);
  EXPECT_TRUE(L.matmul(L.t()).allclose(sym));
  auto [U, S, Vh] = torch::linalg::svd(A, /*full_matrices=*/false, /*driver=*/c10::nullopt);
  EXPECT_TRUE(U.matmul(torch::diag(S)).matmul(Vh).allclose(A));
  auto [Q, R] = torch::linalg::qr(A, "reduced");
  EXPECT_TRUE(Q.matmul(R).allclose(A));
  EXPECT_EQ(torch::linalg::matrix_rank(torch::ones({3, 3}), /*tol=*/1e-5, /*hermitian=*/false).item<int64_t>(), 1);
  auto pinv = torch::linalg::pinv(torch::tensor({{1.0, 0.0}, {0.0, 0.0}}, torch::kDouble), 1e-15, false);
  EXPECT_TRUE(pinv.allclose(torch::tensor({{1.0, 0.0}, {0.0, 0.0}}, torch::kDouble)));
  auto [sign, logabsdet] = torch::linalg::slogdet(A);
  EXPECT_NEAR(logabsdet.item<double>(), std::log(10.0), 1e-12);
  EXPECT_DOUBLE_EQ(sign.item<double>(), 1.0);
  EXPECT_TRUE(torch::linalg_cross(torch::tensor({1.0, 0.0, 0.0}), torch::tensor({0.0, 1.0, 0.0})).equal(torch::tensor({0.0f, 0.0f, 1.0f})));
  EXPECT_THROW(torch::linalg::inv(torch::zeros({2, 2})), c10::Error);
  EXPECT_TRUE(torch::linalg::matrix_power(A, 2).allclose(A.matmul(A)));
}

TEST(MiscUsage, SpecialFunctions) {
  auto x = torch::tensor({0.0, 0.5, 1.0}, torch::kDouble);
  EXPECT_TRUE(torch::special::erf(x).allclose(torch::tensor({0.0, 0.5204998778130465, 0.8427007929497149}, torch::kDouble)));
  EXPECT_TRUE(torch::special::erfc(x).allclose(1 - torch::special::erf(x)));
  EXPECT_TRUE(torch::special::expit(torch::tensor({0.0})).allclose(torch::tensor({0.5})));
  EXPECT_TRUE(torch::special::logit(torch::tensor({0.5})).allclose(torch::tensor({0.0})));
  EXPECT_NEAR(torch::special::gammaln(torch::tensor({5.0}, torch::kDouble)).item<double>(), std::log(24.0), 1e-12);
  EXPECT_NEAR(torch::special::digamma(torch::tensor({1.0}, torch::kDouble)).item<double>(), -0.5772156649015329, 1e-12);
  EXPECT_NEAR(torch::special::i0(torch::tensor({0.0}, torch::kDouble)).item<double>(), 1.0, 1e-12);
  EXPECT_NEAR(torch::special::sinc(torch::tensor({0.5}, torch::kDouble)).item<double>(), 2.0 / M_PI, 1e-12);
  EXPECT_NEAR(torch::special::xlogy(torch::tensor({0.0}), torch::tensor({0.0})).item<float>(), 0.0f, 0);
  EXPECT_NEAR(torch::special::ndtr(torch::tensor({0.0})).item<float>(), 0.5f, 1e-7);
  EXPECT_NEAR(torch::special::log1p(torch::tensor({1e-10}, torch::kDouble)).item<double>(), 1e-10, 1e-20);
  EXPECT_NEAR(torch::special::expm1(torch::tensor({1e-10}, torch::kDouble)).item<double>(), 1e-10, 1e-20);
  auto sm = torch::special::softmax(torch::tensor({1.0, 1.0}), 0, c10::nullopt);
  EXPECT_TRUE(sm.allclose(torch::tensor({0.5, 0.5})));
  EXPECT_NEAR(torch::special::logsumexp(torch::tensor({0.0, 0.0}, torch::kDouble), {0}, false).item<double>(), std::log(2.0), 1e-12);
  EXPECT_NEAR(torch::special::entr(torch::tensor({0.5}, torch::kDouble)).item<double>(), 0.5 * std::log(2.0), 1e-12);
}

// at::show_config() (<ATen/Version.h>, Python's torch.__config__.show()): the build described
// one "  - " line per part, the CPU kernel instruction set in use among them.
TEST(MiscUsage, ShowConfigDescribesTheBuild) {
  const std::string config = at::show_config();
  EXPECT_NE(config.find(" built with:\n"), std::string::npos) << config;
  EXPECT_NE(config.find("\n  - CPU capability usage: "), std::string::npos) << config;
  EXPECT_NE(config.find("\n  - OpenMP "), std::string::npos) << config;
  EXPECT_NE(config.find("\n  - C++ Version: "), std::string::npos) << config;
  EXPECT_NE(config.find("\n  - Build settings: "), std::string::npos) << config;
  EXPECT_EQ(at::get_mkldnn_version().rfind("Intel(R) MKL-DNN v", 0), 0u) << at::get_mkldnn_version();
  EXPECT_EQ(at::get_openmp_version().rfind("OpenMP ", 0), 0u) << at::get_openmp_version();
}
