// LibTorch-style usage: Tensor::dtype() as a caffe2::TypeMeta (printed, sized, passed on),
// InferenceMode's rules for inference tensors, clamp with tensor bounds.
// Compiles unchanged against LibTorch 1.13 and ember.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <sstream>
#include <string>

// (A program that reopens torch::nn to add its own modules does not compile against ember:
// torch::nn is ember::nn found through a using-directive, so that `using namespace torch;
// nn::Linear` resolves; a reopened torch::nn would be a second namespace and make that
// ambiguous. LibTorch's own examples use the latter.)

namespace {

std::string printed(const caffe2::TypeMeta& meta) {
  std::ostringstream out;
  out << meta;
  return out.str();
}

TEST(DtypeIsTypeMeta, PrintsItemsizeAndConverts) {
  // LibTorch prints a TypeMeta as the C++ element type, a ScalarType by its enum name.
  EXPECT_EQ(printed(torch::ones({1}).dtype()), "float");
  EXPECT_EQ(printed(torch::ones({1}, torch::kDouble).dtype()), "double");
  EXPECT_EQ(printed(torch::ones({1}, torch::kLong).dtype()), "long int");
  EXPECT_EQ(printed(torch::ones({1}, torch::kInt).dtype()), "int");
  EXPECT_EQ(printed(torch::ones({1}, torch::kShort).dtype()), "short int");
  EXPECT_EQ(printed(torch::ones({1}, torch::kChar).dtype()), "signed char");
  EXPECT_EQ(printed(torch::ones({1}, torch::kByte).dtype()), "unsigned char");
  EXPECT_EQ(printed(torch::ones({1}, torch::kBool).dtype()), "bool");
  EXPECT_EQ(printed(torch::ones({1}, torch::kHalf).dtype()), "c10::Half");
  EXPECT_EQ(printed(torch::ones({1}, torch::kBFloat16).dtype()), "c10::BFloat16");
  EXPECT_EQ(printed(torch::ones({1}, torch::kComplexFloat).dtype()), "c10::complex<float>");
  EXPECT_EQ(printed(torch::ones({1}, torch::kComplexDouble).dtype()), "c10::complex<double>");
  std::ostringstream scalar_type;
  scalar_type << torch::ones({1}).scalar_type();
  EXPECT_EQ(scalar_type.str(), "Float");
  EXPECT_EQ(c10::str(torch::zeros({1}, torch::kDouble).dtype()), "double");

  auto t = torch::zeros({2, 3}, torch::kDouble);
  EXPECT_EQ(t.dtype().itemsize(), 8u);
  EXPECT_EQ(std::string(t.dtype().name()), "double");
  EXPECT_EQ(t.dtype().toScalarType(), torch::kDouble);
  EXPECT_TRUE(t.dtype().Match<double>());
  EXPECT_TRUE(t.dtype() == torch::kDouble);
  EXPECT_TRUE(torch::kDouble == t.dtype());
  EXPECT_FALSE(t.dtype() != torch::kDouble);
  EXPECT_EQ(t.dtype(), caffe2::TypeMeta::Make<double>());
  EXPECT_EQ(t.options().dtype(), torch::kDouble);
  EXPECT_EQ(torch::TensorOptions().dtype<int>().dtype(), torch::kInt);
  EXPECT_EQ(torch::dtype<float>().dtype(), torch::kFloat);
  EXPECT_EQ(torch::get_default_dtype(), torch::kFloat);
  EXPECT_EQ(printed(torch::get_default_dtype()), "float");

  // Passed on where a TensorOptions or a dtype is taken.
  EXPECT_EQ(torch::ones({2}, t.dtype()).scalar_type(), torch::kDouble);
  EXPECT_EQ(torch::ones({2}).to(t.dtype()).scalar_type(), torch::kDouble);
  EXPECT_EQ(torch::empty({1}, torch::TensorOptions().dtype(t.dtype())).scalar_type(), torch::kDouble);
  EXPECT_EQ(torch::zeros_like(t, torch::TensorOptions(torch::ones({1}, torch::kLong).dtype())).scalar_type(),
            torch::kLong);
  EXPECT_EQ(c10::typeMetaToScalarType(t.dtype()), torch::kDouble);
  EXPECT_EQ(c10::scalarTypeToTypeMeta(torch::kFloat), torch::ones({1}).dtype());
}

TEST(Printing, TensorOptionsAndPrint) {
  std::ostringstream a, b, c, d;
  a << torch::TensorOptions();
  EXPECT_EQ(a.str(), "TensorOptions(dtype=float (default), device=cpu (default), layout=Strided (default), "
                     "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))");
  b << torch::TensorOptions().dtype(torch::kLong).device(torch::kCPU).memory_format(torch::MemoryFormat::ChannelsLast)
           .requires_grad(false);
  EXPECT_EQ(b.str(), "TensorOptions(dtype=long int, device=cpu, layout=Strided (default), requires_grad=false, "
                     "pinned_memory=false (default), memory_format=ChannelsLast)");
  c << torch::ones({2}, torch::kDouble).options();
  EXPECT_EQ(c.str(), "TensorOptions(dtype=double, device=cpu, layout=Strided, requires_grad=false (default), "
                     "pinned_memory=false (default), memory_format=(nullopt))");
  auto t = torch::arange(6).reshape({2, 3});
  torch::print(d, t, 80);
  std::ostringstream e;
  e << t;
  EXPECT_EQ(d.str(), e.str());
  EXPECT_NE(d.str().find("[ CPULongType{2,3} ]"), std::string::npos) << d.str();
  testing::internal::CaptureStdout();
  torch::print(t);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), e.str());
  std::ostringstream layout;
  layout << torch::kStrided;
  EXPECT_EQ(layout.str(), "Strided");
}

TEST(InferenceTensors, InPlaceUpdatesAndVersions) {
  torch::Tensor normal = torch::ones({2, 2});
  torch::Tensor inference;
  {
    c10::InferenceMode guard;
    inference = torch::ones({2, 2});
    inference.add_(1);        // allowed inside InferenceMode
    normal.mul_(2);           // a normal tensor may be updated in place there too
    EXPECT_TRUE(inference.is_inference());
    EXPECT_FALSE(normal.is_inference());
  }
  EXPECT_EQ(inference.sum().item<float>(), 8.0f);
  EXPECT_EQ(normal.sum().item<float>(), 8.0f);

  // Outside, reading an inference tensor is fine, writing it in place is not.
  EXPECT_TRUE(torch::allclose(inference * 2, torch::full({2, 2}, 4.0)));
  try {
    inference.add_(1);
    FAIL() << "add_ on an inference tensor outside InferenceMode did not throw";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("Inplace update to inference tensor outside InferenceMode"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(inference.zero_(), c10::Error);
  EXPECT_THROW(inference.copy_(normal), c10::Error);
  EXPECT_THROW(inference.view({4}).fill_(0), c10::Error);  // a view of one is one too
  // (LibTorch raises after its kernel has written; ember before. Neither is promised.)
  EXPECT_THROW(torch::add_out(inference, normal, normal), c10::Error);
  EXPECT_THROW(inference.uniform_(), c10::Error);

  // Inference tensors have no version counter; normal ones do.
  EXPECT_THROW(inference._version(), c10::Error);
  const auto before = normal._version();
  normal.add_(1);
  EXPECT_EQ(normal._version(), before + 1);

  // A clone is a normal tensor and may be updated.
  auto copy = inference.clone();
  EXPECT_FALSE(copy.is_inference());
  copy.add_(1);
  EXPECT_TRUE(torch::equal(copy, inference + 1));
}

// clamp with tensor bounds records one ClampBackward0 node (an edge per bound, none where a
// bound is missing); gradients and tangents follow where(): PyTorch 1.13's values.
TEST(ClampTensorBounds, ValuesGradientsAndNodes) {
  auto x = torch::tensor({0.0, 3.0, 1.5, -1.0}, torch::requires_grad());
  auto lo = torch::tensor({2.0, 0.0, 1.0, -1.0}, torch::requires_grad());
  auto hi = torch::tensor({1.0, 2.0, 2.0, 0.0}, torch::requires_grad());
  auto y = torch::clamp(x, lo, hi);  // lo > hi in the first element: the result is hi
  EXPECT_TRUE(torch::equal(y.detach(), torch::tensor({1.0, 2.0, 1.5, -1.0})));
  EXPECT_EQ(y.grad_fn()->name(), "ClampBackward0");
  y.backward(torch::tensor({1.0, 2.0, 4.0, 8.0}));
  EXPECT_TRUE(torch::equal(x.grad(), torch::tensor({0.0, 0.0, 4.0, 8.0})));
  EXPECT_TRUE(torch::equal(lo.grad(), torch::tensor({0.0, 0.0, 0.0, 0.0})));
  EXPECT_TRUE(torch::equal(hi.grad(), torch::tensor({1.0, 2.0, 0.0, 0.0})));

  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto a = torch::tensor({0.0, 1.0, -1.0, nan}, torch::requires_grad());
  auto m = torch::tensor({0.0, 0.5, nan, 0.0}, torch::requires_grad());
  auto b = a.clamp(m);
  EXPECT_EQ(b.grad_fn()->name(), "ClampBackward0");
  ASSERT_EQ(b.grad_fn()->next_edges().size(), 3u);
  EXPECT_FALSE(b.grad_fn()->next_edges()[2].is_valid());  // no max
  EXPECT_EQ(b[0].item<double>(), 0.0);
  EXPECT_EQ(b[1].item<double>(), 1.0);
  EXPECT_TRUE(std::isnan(b[2].item<double>()));
  EXPECT_TRUE(std::isnan(b[3].item<double>()));
  b.sum().backward();
  EXPECT_TRUE(torch::equal(a.grad(), torch::tensor({1.0, 1.0, 0.0, 0.0})));  // a tie goes to self
  EXPECT_TRUE(torch::equal(m.grad(), torch::zeros({4}, torch::kDouble)));

  auto u = torch::tensor({0.0, 3.0, 1.5}, torch::requires_grad());
  auto top = torch::tensor({1.0, 2.0, 2.0}, torch::requires_grad());
  auto c = torch::clamp(u, c10::nullopt, top);
  EXPECT_FALSE(c.grad_fn()->next_edges()[1].is_valid());  // no min
  c.backward(torch::tensor({1.0, 2.0, 4.0}));
  EXPECT_TRUE(torch::equal(u.grad(), torch::tensor({1.0, 0.0, 4.0})));
  EXPECT_TRUE(torch::equal(top.grad(), torch::tensor({0.0, 2.0, 0.0})));

  // Integer tensors keep their dtype; a 0-dim float bound promotes as a scalar would.
  auto flags = torch::tensor({true, false, true});
  EXPECT_TRUE(torch::equal(torch::clamp(flags, torch::tensor({false, true, false})), torch::ones({3}, torch::kBool)));
  EXPECT_TRUE(torch::equal(flags.clamp(c10::nullopt, torch::zeros({3}, torch::kBool)), torch::zeros({3}, torch::kBool)));
  auto i = torch::tensor({5, -3, 2}, torch::kLong);
  auto ci = torch::clamp(i, torch::zeros({3}, torch::kLong));
  EXPECT_EQ(ci.scalar_type(), torch::kLong);
  EXPECT_TRUE(torch::equal(ci, torch::tensor({5, 0, 2}, torch::kLong)));
  EXPECT_EQ(torch::clamp(i, torch::tensor(1.5)).scalar_type(), torch::kFloat);
  auto in_place = i.clone();
  in_place.clamp_(c10::nullopt, torch::full({3}, 3, torch::kLong));
  EXPECT_TRUE(torch::equal(in_place, torch::tensor({3, -3, 2}, torch::kLong)));
}

TEST(ClampTensorBounds, ForwardModeTangents) {
  const uint64_t level = torch::autograd::forward_ad::enter_dual_level();
  auto x = torch::_make_dual(torch::tensor({0.0, 3.0, 1.5}), torch::ones({3}), level);
  auto lo = torch::_make_dual(torch::tensor({2.0, 0.0, 1.0}), torch::full({3}, 10.0), level);
  auto hi = torch::_make_dual(torch::tensor({1.0, 2.0, 2.0}), torch::full({3}, 100.0), level);
  auto tangent = std::get<1>(torch::_unpack_dual(torch::clamp(x, lo, hi), level));
  EXPECT_TRUE(torch::equal(tangent, torch::tensor({100.0, 100.0, 1.0})));  // lo > hi: hi's tangent
  auto only_lo = std::get<1>(torch::_unpack_dual(torch::clamp(x, lo), level));
  EXPECT_TRUE(torch::equal(only_lo, torch::tensor({10.0, 1.0, 1.0})));
  auto plain = std::get<1>(torch::_unpack_dual(torch::ones({2}), level));
  EXPECT_FALSE(plain.defined());
  torch::autograd::forward_ad::exit_dual_level(level);
}

}  // namespace
