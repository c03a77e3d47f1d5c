// torch::fft against PyTorch 1.13 (tests/golden/gen_fft.py: every function with its size, dim
// and norm arguments, real and complex, float and double, including the calls PyTorch refuses),
// and the derivatives of the three primitives and of composite transforms against finite
// differences, in both modes.
#include <sstream>

#include "ember/autograd/functional.h"
#include "ember/ops/fft.h"
#include "ember/serialize/safetensors.h"
#include "test_util.h"

namespace ember::test {
namespace {

const serialize::SafetensorsContents& golden() {
  static const auto f = serialize::load_file(std::string(EMBER_GOLDEN_DIR) + "/fft.safetensors");
  return f;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, sep);) out.push_back(part);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}
std::vector<int64_t> ints(const std::string& s) {
  std::vector<int64_t> out;
  if (s.empty()) return out;
  for (const std::string& v : split(s, ',')) out.push_back(std::stoll(v));
  return out;
}

ScalarType dtype_of(const std::string& s) {
  static const std::map<std::string, ScalarType> kNames = {
      {"f32", kFloat}, {"f64", kDouble}, {"c64", kComplexFloat}, {"c128", kComplexDouble}, {"i64", kLong}};
  return kNames.at(s);
}

// gen_fft.py's ramp().
Tensor ramp(IntArrayRef shape, ScalarType dt) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  Tensor i = arange(n, TensorOptions().dtype(kDouble));
  Tensor v = i.mul(0.7).sin().add(i.remainder(5).mul(0.1));
  if (isComplexType(dt)) return complex(v, i.mul(1.3).cos()).reshape(shape).to(dt);
  if (dt == kLong) return arange(n).remainder(7).sub(3).reshape(shape);
  return v.reshape(shape).to(dt);
}

Tensor run(const std::vector<std::string>& spec) {
  const std::string& fn = spec.at(0);
  const ScalarType dt = dtype_of(spec.at(1));
  const std::vector<int64_t> shape = ints(spec.at(2)), size = ints(spec.at(3)), dim = ints(spec.at(4));
  const OptionalNorm norm = spec.at(5).empty() ? OptionalNorm{} : OptionalNorm{spec[5]};
  if (fn == "fftfreq") return fft::fftfreq(shape[0], 0.5, TensorOptions().dtype(dt));
  if (fn == "rfftfreq") return fft::rfftfreq(shape[0], 0.5, TensorOptions().dtype(dt));
  const Tensor x = ramp(shape, dt);
  const OptionalIntArrayRef d = dim.empty() ? OptionalIntArrayRef{} : OptionalIntArrayRef{dim};
  if (fn == "fftshift") return fft::fftshift(x, d);
  if (fn == "ifftshift") return fft::ifftshift(x, d);
  using OneD = Tensor (*)(const Tensor&, std::optional<int64_t>, int64_t, OptionalNorm);
  static const std::map<std::string, OneD> kOneD = {{"fft", fft::fft},     {"ifft", fft::ifft},
                                                     {"rfft", fft::rfft},   {"irfft", fft::irfft},
                                                     {"hfft", fft::hfft},   {"ihfft", fft::ihfft}};
  if (auto it = kOneD.find(fn); it != kOneD.end())
    return it->second(x, size.empty() ? std::optional<int64_t>{} : size[0], dim.empty() ? -1 : dim[0], norm);
  const OptionalIntArrayRef s = size.empty() ? OptionalIntArrayRef{} : OptionalIntArrayRef{size};
  using TwoD = Tensor (*)(const Tensor&, OptionalIntArrayRef, IntArrayRef, OptionalNorm);
  static const std::map<std::string, TwoD> kTwoD = {{"fft2", fft::fft2},   {"ifft2", fft::ifft2},
                                                     {"rfft2", fft::rfft2}, {"irfft2", fft::irfft2},
                                                     {"hfft2", fft::hfft2}, {"ihfft2", fft::ihfft2}};
  if (auto it = kTwoD.find(fn); it != kTwoD.end())
    return dim.empty() ? it->second(x, s, {-2, -1}, norm) : it->second(x, s, dim, norm);
  using ND = Tensor (*)(const Tensor&, OptionalIntArrayRef, OptionalIntArrayRef, OptionalNorm);
  static const std::map<std::string, ND> kND = {{"fftn", fft::fftn},   {"ifftn", fft::ifftn},
                                                 {"rfftn", fft::rfftn}, {"irfftn", fft::irfftn},
                                                 {"hfftn", fft::hfftn}, {"ihfftn", fft::ihfftn}};
  if (auto it = kND.find(fn); it != kND.end()) {
    if (dim.empty() && (fn == "hfftn" || fn == "ihfftn")) return it->second(x, s, IntArrayRef{-2, -1}, norm);
    return it->second(x, s, d, norm);
  }
  ADD_FAILURE() << "unknown function " << fn;
  return {};
}

class FftGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(FftGolden, MatchesPyTorch) {
  const auto& g = golden();
  const std::vector<std::string> spec = split(g.metadata.at("case." + GetParam()), ';');
  if (auto err = g.metadata.find("error." + GetParam()); err != g.metadata.end()) {
    EXPECT_ERROR_WITH(run(spec), err->second);
    return;
  }
  Tensor r = run(spec);
  if (r.is_complex()) r = view_as_real(r);
  const Tensor& want = g.tensors.at(GetParam() + ".out");
  ASSERT_EQ(r.scalar_type(), want.scalar_type());
  ASSERT_EQ(r.sizes(), want.sizes());
  // Different FFT algorithms round differently: errors relative to the largest value.
  const double scale = std::max(1.0, want.abs().max().item<double>());
  const double tol = want.scalar_type() == kFloat ? 2e-6 : 1e-13;
  EXPECT_TENSOR_CLOSE(r, want, 0, tol * scale);
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& [key, value] : golden().metadata)
    if (key.rfind("case.", 0) == 0) names.push_back(key.substr(5));
  return names;
}
INSTANTIATE_TEST_SUITE_P(PyTorch, FftGolden, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

autograd::GradcheckOptions both_modes() {
  autograd::GradcheckOptions o;
  o.check_forward_ad = true;
  return o;
}

TEST(Fft, PrimitivesHaveExactDerivatives) {
  const Tensor c = ramp({3, 5}, kComplexDouble).requires_grad_(true);
  const Tensor r = ramp({3, 6}, kDouble).requires_grad_(true);
  const Tensor h = ramp({3, 4}, kComplexDouble).requires_grad_(true);
  for (int64_t norm : {0, 1, 2}) {
    for (bool forward : {true, false})
      EXPECT_TRUE(autograd::gradcheck([&](const autograd::variable_list& v) {
        return autograd::variable_list{_fft_c2c(v[0], {0, 1}, norm, forward)};
      }, {c}, both_modes()));
    for (bool onesided : {true, false})
      EXPECT_TRUE(autograd::gradcheck([&](const autograd::variable_list& v) {
        return autograd::variable_list{_fft_r2c(v[0], {1}, norm, onesided)};
      }, {r}, both_modes()));
    for (int64_t last : {6, 7})  // even and odd real lengths from 4 bins
      EXPECT_TRUE(autograd::gradcheck([&](const autograd::variable_list& v) {
        return autograd::variable_list{_fft_c2r(v[0], {0, 1}, norm, last)};
      }, {h}, both_modes()));
  }
  EXPECT_TRUE(autograd::gradcheck([&](const autograd::variable_list& v) {
    return autograd::variable_list{_fft_r2c(v[0], {0, 1}, 2, true)};
  }, {r}, both_modes()));
}

TEST(Fft, CompositeTransformsDifferentiate) {
  const Tensor x = ramp({4, 6}, kDouble).requires_grad_(true);
  const Tensor z = ramp({4, 5}, kComplexDouble).requires_grad_(true);
  auto check = [&](const Tensor& in, auto f) {
    EXPECT_TRUE(autograd::gradcheck([&](const autograd::variable_list& v) { return autograd::variable_list{f(v[0])}; },
                                    {in}, both_modes()));
  };
  check(x, [](const Tensor& t) { return fft::rfft(t, 9); });
  check(x, [](const Tensor& t) { return fft::fft(t, std::nullopt, 0, "ortho"); });
  check(z, [](const Tensor& t) { return fft::irfft(t, 7); });
  check(z, [](const Tensor& t) { return fft::hfft(t, std::nullopt, 0, "forward"); });
  check(x, [](const Tensor& t) { return fft::ihfft(t); });
  check(z, [](const Tensor& t) { return fft::fftn(t, IntArrayRef{3, 8}); });
  check(x, [](const Tensor& t) { return fft::rfft2(t); });
  check(z, [](const Tensor& t) { return fft::irfftn(t, std::nullopt, IntArrayRef{0, 1}); });
  check(z, [](const Tensor& t) { return fft::hfft2(t); });
  check(x, [](const Tensor& t) { return fft::ihfft2(t); });
  // Second order, through the transforms' own derivatives.
  EXPECT_TRUE(autograd::gradgradcheck(
      [](const autograd::variable_list& v) { return autograd::variable_list{fft::rfft(v[0]).abs().pow(2)}; }, {x}));
}

TEST(Fft, RoundTripsAndTheoremsHold) {
  const Tensor x = randn({5, 64}, TensorOptions().dtype(kDouble));
  EXPECT_TENSOR_CLOSE(fft::irfft(fft::rfft(x), 64), x, 1e-12, 1e-12);
  EXPECT_TENSOR_CLOSE(fft::ifft(fft::fft(x)), x.to(kComplexDouble), 1e-12, 1e-12);
  EXPECT_TENSOR_CLOSE(fft::ifftshift(fft::fftshift(x)), x, 0, 0);
  // Parseval with norm="ortho".
  EXPECT_NEAR(fft::fft(x, std::nullopt, -1, "ortho").abs().pow(2).sum().item<double>(),
              x.pow(2).sum().item<double>(), 1e-9);
  // A non-contiguous input transforms like its contiguous copy.
  const Tensor t = randn({64, 5}, TensorOptions().dtype(kDouble)).t();
  EXPECT_TENSOR_CLOSE(fft::rfft(t), fft::rfft(t.contiguous()), 0, 0);
}

TEST(Fft, BadArgumentsAreRefusedByName) {
  const Tensor x = randn({4, 6});
  EXPECT_ERROR_WITH(fft::rfft(x.to(kComplexFloat)), "rfft: expects a real input tensor");
  EXPECT_ERROR_WITH(fft::fft(x, 0), "fft: Invalid number of data points (0) specified");
  EXPECT_ERROR_WITH(fft::fft(x, std::nullopt, 2), "fft");
  EXPECT_ERROR_WITH(fft::fft(x, std::nullopt, -1, "sideways"), "Invalid normalization mode: \"sideways\"");
  EXPECT_ERROR_WITH(fft::fftn(x, IntArrayRef{3, 4, 5}), "Got shape with 3 values but input tensor only has 2");
  EXPECT_ERROR_WITH(fft::fftn(x, std::nullopt, IntArrayRef{0, 0}), "FFT dims must be unique");
  EXPECT_ERROR_WITH(fft::fftn(x, IntArrayRef{3}, IntArrayRef{0, 1}), "dim and shape arguments must have the same");
  EXPECT_ERROR_WITH(fft::fft(x.to(kHalf)), "Unsupported dtype");
  EXPECT_ERROR_WITH(fft::fftfreq(4, TensorOptions().dtype(kLong)), "fftfreq requires a floating point or complex");
  EXPECT_ERROR_WITH(fft::fft(Tensor()), "fft");
}

}  // namespace
}  // namespace ember::test
