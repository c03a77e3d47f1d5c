// ember's samplers against PyTorch's, bit for bit: tests/golden/gen_random.py ran every sampler
// on python3-torch 1.13 after torch.manual_seed (each dtype, size class and layout, and
// sequences sharing the generator); this test replays each case's steps and compares
// (Note [PyTorch's CPU stream]).
#include <sstream>

#include "ember/nn/functional/dropout.h"
#include "ember/ops/random_transforms.h"
#include "ember/serialize/safetensors.h"
#include "ember/serialize/serialize.h"
#include "test_util.h"

namespace ember::test {
namespace {

const serialize::SafetensorsContents& random_golden_file() {
  static const auto f = serialize::load_file(std::string(EMBER_GOLDEN_DIR) + "/random.safetensors");
  return f;
}

std::vector<std::string> split_fields(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, sep);) out.push_back(part);
  return out;
}

ScalarType dtype_named(const std::string& name) {
  static const std::map<std::string, ScalarType> kNames = {
      {"f32", kFloat}, {"f64", kDouble}, {"f16", kHalf},  {"bf16", kBFloat16}, {"c64", kComplexFloat},
      {"c128", kComplexDouble}, {"i64", kLong}, {"i32", kInt}, {"i16", kShort}, {"i8", kChar},
      {"u8", kByte}, {"b", kBool}};
  return kNames.at(name);
}

std::vector<int64_t> shape_of(const std::string& s) {
  std::vector<int64_t> out;
  for (const std::string& d : split_fields(s, ',')) out.push_back(std::stoll(d));
  return out;
}

// gen_random.py's make(): an uninitialized tensor of the given layout.
Tensor empty_with_layout(ScalarType dt, const std::string& spec) {
  const auto colon = spec.find(':');
  std::vector<int64_t> shape = shape_of(spec.substr(0, colon));
  const std::string layout = colon == std::string::npos ? "" : spec.substr(colon + 1);
  const auto o = TensorOptions().dtype(dt);
  if (layout.empty()) return empty(shape, o);
  if (layout == "t") {
    std::vector<int64_t> rev(shape.rbegin(), shape.rend()), perm;
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) perm.push_back(d);
    return empty(rev, o).permute(perm);
  }
  if (layout == "cl") return empty(shape, o).contiguous(MemoryFormat::ChannelsLast);
  if (layout == "s") {
    std::vector<int64_t> wide = shape;
    wide.back() *= 2;
    return empty(wide, o).slice(-1, 0, wide.back(), 2);
  }
  ADD_FAILURE() << "layout " << layout;
  return {};
}

// gen_random.py's ramp(): deterministic values in [lo, hi].
Tensor ramp_between(IntArrayRef shape, ScalarType dt, double lo, double hi) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  Tensor v = arange(n, TensorOptions().dtype(kDouble)).mul(0.618034).remainder(1.0);
  return v.mul(hi - lo).add(lo).reshape(shape).to(dt);
}

Tensor run_step(const std::string& step) {
  const std::vector<std::string> w = split_fields(step, ' ');
  const std::string& op = w.at(0);
  const ScalarType dt = dtype_named(w.at(1));
  std::vector<double> a;
  for (size_t i = 3; i < w.size(); ++i)  // numeric arguments (bernoulli_t also names a dtype and a shape)
    if (w[i].find(',') == std::string::npos && !std::isalpha(static_cast<unsigned char>(w[i][0])))
      a.push_back(std::stod(w[i]));
  auto i64 = [&](size_t i) { return std::stoll(w.at(3 + i)); };
  Tensor t = empty_with_layout(dt, w.at(2));
  const std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());
  if (op == "uniform_") return a.empty() ? t.uniform_() : t.uniform_(a.at(0), a.at(1));
  if (op == "normal_") return a.empty() ? t.normal_() : t.normal_(a.at(0), a.at(1));
  if (op == "log_normal_") return t.log_normal_(a.at(0), a.at(1));
  if (op == "exponential_") return t.exponential_(a.at(0));
  if (op == "cauchy_") return t.cauchy_(a.at(0), a.at(1));
  if (op == "geometric_") return t.geometric_(a.at(0));
  if (op == "bernoulli_") return t.bernoulli_(a.at(0));
  if (op == "bernoulli_t") return t.bernoulli_(ramp_between(shape_of(w.at(4)), dtype_named(w.at(3)), 0, 1));
  if (op == "bernoulli") return bernoulli(ramp_between(shape, dt, 0, 1));
  if (op == "random_") {
    if (w.size() == 3) return t.random_();
    if (w.size() == 4) return t.random_(i64(0));
    return t.random_(i64(0), i64(1));
  }
  if (op == "random_full") return t.random_(std::numeric_limits<int64_t>::lowest(), std::optional<int64_t>());
  if (op == "rand") return rand(shape, TensorOptions().dtype(dt));
  if (op == "randn") return randn(shape, TensorOptions().dtype(dt));
  if (op == "randint") return randint(i64(0), i64(1), shape, TensorOptions().dtype(dt));
  if (op == "randperm") return randperm(i64(0), TensorOptions().dtype(dt));
  if (op == "multinomial") return multinomial(ramp_between(shape, dt, 0, 1).pow(2), i64(0), i64(1) != 0);
  if (op == "normal_tt") return normal(ramp_between(shape, dt, -2, 2), ramp_between(shape, dt, 0, 3));
  if (op == "normal_td") return normal(ramp_between(shape, dt, -2, 2), a.at(0));
  if (op == "normal_dt") return normal(a.at(0), ramp_between(shape, dt, 0, 3));
  if (op == "dropout") return nn::functional::dropout(ramp_between(shape, dt, -1, 1), a.at(0), true);
  if (op == "dropout2d") return nn::functional::dropout2d(ramp_between(shape, dt, -1, 1), a.at(0), true);
  if (op == "alpha_dropout") return nn::functional::alpha_dropout(ramp_between(shape, dt, -1, 1), a.at(0), true);
  if (op == "get_state") return get_rng_state();
  ADD_FAILURE() << "unknown step " << step;
  return {};
}

// Bitwise equality (NaN payloads included), with the first differing element on failure.
::testing::AssertionResult bits_equal(const Tensor& actual, const Tensor& expected) {
  if (actual.sizes() != expected.sizes() || actual.scalar_type() != expected.scalar_type())
    return ::testing::AssertionFailure() << "got " << actual.scalar_type() << actual.sizes() << ", expected "
                                         << expected.scalar_type() << expected.sizes();
  const Tensor x = actual.contiguous(), y = expected.contiguous();
  const size_t width = element_size(x.scalar_type());
  const auto* p = static_cast<const uint8_t*>(x.data_ptr());
  const auto* q = static_cast<const uint8_t*>(y.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i)
    if (std::memcmp(p + size_t(i) * width, q + size_t(i) * width, width) != 0)
      return ::testing::AssertionFailure()
             << "element " << i << " of " << x.numel() << ": " << x.flatten()[i].item<double>() << " != expected "
             << y.flatten()[i].item<double>();
  return ::testing::AssertionSuccess();
}

class RandomGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(RandomGolden, DrawsWhatPyTorchDraws) {
  const auto& g = random_golden_file();
  if (g.metadata.at("fused") != (sampling::fused_like_pytorch() ? "1" : "0"))
    GTEST_SKIP() << "the golden values come from a machine whose PyTorch "
                 << (g.metadata.at("fused") == "1" ? "fused" : "did not fuse")
                 << " multiply-adds (x86 with AVX2 and FMA or not); this one differs, so the floating values would too";
  const std::vector<std::string> steps = split_fields(g.metadata.at("case." + GetParam()), ';');
  manual_seed(std::stoull(steps.at(0)));
  for (size_t k = 1; k < steps.size(); ++k) {
    SCOPED_TRACE(steps[k]);
    Tensor r = run_step(steps[k]);
    if (r.is_complex()) r = view_as_real(r);
    EXPECT_TRUE(bits_equal(r, g.tensors.at(GetParam() + "." + std::to_string(k - 1))));
    if (steps[k].rfind("get_state", 0) == 0) set_rng_state(r);
  }
}

std::vector<std::string> random_case_names() {
  std::vector<std::string> names;
  for (const auto& [key, value] : random_golden_file().metadata)
    if (key.rfind("case.", 0) == 0) names.push_back(key.substr(5));
  return names;
}

INSTANTIATE_TEST_SUITE_P(PyTorch, RandomGolden, ::testing::ValuesIn(random_case_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace ember::test
