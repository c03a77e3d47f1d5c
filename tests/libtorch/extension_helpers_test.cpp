// LibTorch-style usage of what extension and test code reaches for besides the ops:
// AT_DISPATCH_* and AT_FORALL_* macros, torch/csrc/utils/variadic.h and torch/detail/static.h
// helpers, torch::special's out= forms, make_variable, archives written through callbacks.
// Compiles unchanged against LibTorch 1.13 and ember.
#include <torch/torch.h>
#include <ATen/Dispatch.h>
#include <torch/csrc/utils/variadic.h>
#include <torch/detail/static.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace {

// A hand-written kernel, as extension code writes them.
template <typename scalar_t>
void scale_kernel(const scalar_t* in, scalar_t* out, int64_t n, double factor) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<scalar_t>(in[i] * static_cast<scalar_t>(factor));
}

torch::Tensor scale(const torch::Tensor& x, double factor) {
  auto in = x.contiguous();
  auto out = torch::empty_like(in);
  AT_DISPATCH_ALL_TYPES(in.scalar_type(), "scale", [&] {
    scale_kernel<scalar_t>(in.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), in.numel(), factor);
  });
  return out;
}

TEST(AtDispatch, RunsTheLambdaWithScalarT) {
  EXPECT_TRUE(torch::equal(scale(torch::arange(5, torch::kLong), 2), torch::arange(0, 10, 2, torch::kLong)));
  EXPECT_TRUE(torch::allclose(scale(torch::ones({3}, torch::kDouble), 0.5), torch::full({3}, 0.5, torch::kDouble)));
  try {
    scale(torch::ones({2}, torch::kBool), 1);
    FAIL() << "AT_DISPATCH_ALL_TYPES accepted Bool";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("\"scale\" not implemented for 'Bool'"), std::string::npos) << e.what();
  }
  // Returning a value, dispatching on a dtype() (a TypeMeta), the _AND variants and index_t.
  auto size_of = [](const torch::Tensor& t) {
    return AT_DISPATCH_FLOATING_TYPES_AND2(at::ScalarType::Half, at::ScalarType::BFloat16, t.scalar_type(), "size_of",
                                           [&] { return sizeof(scalar_t); });
  };
  EXPECT_EQ(size_of(torch::ones({1}, torch::kHalf)), 2u);
  EXPECT_EQ(size_of(torch::ones({1}, torch::kDouble)), 8u);
  EXPECT_THROW(size_of(torch::ones({1}, torch::kInt)), c10::Error);
  const bool is_complex = AT_DISPATCH_ALL_TYPES_AND_COMPLEX(torch::ones({1}, torch::kComplexFloat).scalar_type(), "c",
                                                            [&] { return std::is_same<scalar_t, c10::complex<float>>::value; });
  EXPECT_TRUE(is_complex);
  const bool bool_case = AT_DISPATCH_ALL_TYPES_AND(at::ScalarType::Bool, torch::ones({1}, torch::kBool).scalar_type(),
                                                   "b", [&] { return std::is_same<scalar_t, bool>::value; });
  EXPECT_TRUE(bool_case);
  auto idx = torch::tensor({2, 0, 1}, torch::kInt);
  int64_t total = 0;
  AT_DISPATCH_INDEX_TYPES(idx.scalar_type(), "sum_index", [&] {
    const index_t* p = idx.data_ptr<index_t>();
    for (int64_t i = 0; i < idx.numel(); ++i) total += p[i];
  });
  EXPECT_EQ(total, 3);
  const int integral = AT_DISPATCH_SWITCH(torch::kShort, "switch",
                                          AT_DISPATCH_CASE_INTEGRAL_TYPES([&] { return int(sizeof(scalar_t)); }));
  EXPECT_EQ(integral, 2);
}

// One overload per type, stamped out with AT_FORALL_SCALAR_TYPES_AND3.
#define DEFINE_NAME_OF(T, name) \
  std::string name_of(T) { return #name; }
AT_FORALL_SCALAR_TYPES_AND3(Bool, Half, BFloat16, DEFINE_NAME_OF)
#undef DEFINE_NAME_OF

TEST(AtForall, StampsOutOnePerType) {
  EXPECT_EQ(name_of(1.0f), "Float");
  EXPECT_EQ(name_of(int64_t(1)), "Long");
  EXPECT_EQ(name_of(true), "Bool");
  EXPECT_EQ(name_of(c10::Half(1.0f)), "Half");
  EXPECT_EQ(name_of(c10::BFloat16(1.0f)), "BFloat16");
  int count = 0;
#define COUNT(T, name) ++count;
  AT_FORALL_SCALAR_TYPES(COUNT)
#undef COUNT
  EXPECT_EQ(count, 7);
  static_assert(std::is_same<c10::impl::ScalarTypeToCPPTypeT<c10::ScalarType::Double>, double>::value, "");
}

struct HasForward : torch::nn::Module {
  float forward(torch::Tensor) { return 1; }
};
struct NoForward : torch::nn::Module {};

TEST(StaticHelpers, TraitsAndCounters) {
  EXPECT_TRUE((torch::all_of<true, true>::value));
  EXPECT_FALSE((torch::all_of<true, false>::value));
  EXPECT_TRUE((torch::any_of<false, true>::value));
  EXPECT_FALSE(torch::any_of<>::value);
  EXPECT_TRUE(torch::detail::has_forward<HasForward>::value);
  EXPECT_FALSE(torch::detail::has_forward<NoForward>::value);
  EXPECT_TRUE(torch::detail::is_module<torch::nn::LinearImpl>::value);
  EXPECT_FALSE(torch::detail::is_module<int>::value);
  EXPECT_TRUE((torch::detail::check_not_lvalue_references<int, const std::string&>()));
  EXPECT_FALSE((torch::detail::check_not_lvalue_references<int, std::string&>()));
  static_assert(std::is_same<torch::detail::return_type_of_forward_t<HasForward, torch::Tensor>, float>::value, "");
  static_assert(std::is_same<torch::detail::return_type_of_forward_t<NoForward>, void>::value, "");
  std::vector<int> seen;
  torch::apply([&](int x) { seen.push_back(x); }, 3, 1, 2);
  EXPECT_EQ(seen, (std::vector<int>{3, 1, 2}));
  auto a = torch::ones({1});
  std::vector<torch::Tensor> list{a, a};
  EXPECT_EQ(torch::count_tensors(a, list, c10::optional<torch::Tensor>()), 3u);
  EXPECT_EQ(torch::count_variables(a, a), 2u);
}

template <typename Op, typename OpOut>
void expect_out_matches(Op op, OpOut op_out, const torch::Tensor& x) {
  auto out = torch::empty({0}, x.options());
  op_out(out, x);
  EXPECT_TRUE(torch::allclose(out, op(x), 1e-12, 1e-12, /*equal_nan=*/true));
}

TEST(SpecialOut, OutFormsPassedByName) {
  const auto x = torch::rand({16}, torch::kDouble).add(0.1);
  expect_out_matches(torch::special::gammaln, torch::special::gammaln_out, x);
  expect_out_matches(torch::special::erf, torch::special::erf_out, x);
  expect_out_matches(torch::special::erfcx, torch::special::erfcx_out, x);
  expect_out_matches(torch::special::logit, torch::special::logit_out, x.mul(0.5));
  expect_out_matches(torch::special::expit, torch::special::expit_out, x);
  expect_out_matches(torch::special::i1e, torch::special::i1e_out, x);
  expect_out_matches(torch::special::ndtr, torch::special::ndtr_out, x);
  expect_out_matches(torch::special::entr, torch::special::entr_out, x);
  expect_out_matches(torch::special::bessel_j0, torch::special::bessel_j0_out, x);
  expect_out_matches(torch::special::spherical_bessel_j0, torch::special::spherical_bessel_j0_out, x);
  auto out = torch::empty({0}, torch::kDouble);
  torch::special::xlogy_out(out, 2.0, x);
  EXPECT_TRUE(torch::allclose(out, torch::special::xlogy(2.0, x)));
  torch::special::xlog1py_out(out, x, 0.5);
  EXPECT_TRUE(torch::allclose(out, torch::special::xlog1py(x, 0.5)));
  torch::special::chebyshev_polynomial_t_out(out, x, 3);
  EXPECT_TRUE(torch::allclose(out, torch::special::chebyshev_polynomial_t(x, 3)));
  torch::special::polygamma_out(out, 1, x);
  EXPECT_TRUE(torch::allclose(out, torch::special::polygamma(1, x)));
  torch::special::logsumexp_out(out, x.view({4, 4}), {1}, false);
  EXPECT_TRUE(torch::allclose(out, torch::logsumexp(x.view({4, 4}), {1})));
  torch::special::multigammaln_out(out, x.add(2), 2);
  EXPECT_TRUE(torch::allclose(out, torch::special::multigammaln(x.add(2), 2)));
}

TEST(Variables, MakeVariableAndAutoGradMode) {
  auto data = torch::ones({2, 2});
  auto v = torch::autograd::make_variable(data, /*requires_grad=*/true);
  EXPECT_TRUE(v.requires_grad());
  EXPECT_TRUE(v.is_leaf());
  EXPECT_TRUE(v.is_variable());
  EXPECT_FALSE(data.requires_grad());
  EXPECT_EQ(v.data_ptr(), data.data_ptr());  // shares the data
  (v * 3).sum().backward();
  EXPECT_TRUE(torch::allclose(v.grad(), torch::full({2, 2}, 3.0)));
  {
    torch::autograd::AutoGradMode off(false);
    EXPECT_FALSE((v * 2).requires_grad());
  }
  EXPECT_TRUE((v * 2).requires_grad());
  EXPECT_FALSE(torch::autograd::make_variable(data).requires_grad());
}

TEST(Archives, SaveToAndLoadFromCallbacks) {
  torch::serialize::OutputArchive out;
  out.write("w", torch::arange(6).reshape({2, 3}));
  std::string bytes;
  out.save_to([&](const void* data, size_t n) {
    bytes.append(static_cast<const char*>(data), n);
    return n;
  });
  ASSERT_FALSE(bytes.empty());
  torch::serialize::InputArchive in;
  in.load_from(
      [&](uint64_t pos, void* buf, size_t n) -> size_t {
        const size_t k = std::min<size_t>(n, bytes.size() - pos);
        std::memcpy(buf, bytes.data() + pos, k);
        return k;
      },
      [&]() -> size_t { return bytes.size(); });
  torch::Tensor w;
  in.read("w", w);
  EXPECT_TRUE(torch::equal(w, torch::arange(6).reshape({2, 3})));

  const std::vector<int64_t> storage{1, 2};
  c10::OptionalIntArrayRef dims = torch::IntArrayRef(storage);
  EXPECT_TRUE(dims == torch::IntArrayRef({1, 2}));
  EXPECT_FALSE(dims == torch::IntArrayRef({1}));
  EXPECT_FALSE(c10::OptionalIntArrayRef() == torch::IntArrayRef({1}));
}

}  // namespace
