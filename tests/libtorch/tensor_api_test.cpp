// Tensor methods, free functions and small utility types as LibTorch 1.13 programs use them,
// with the results LibTorch gives. Compiles against ember and LibTorch alike.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

using torch::indexing::None;
using torch::indexing::Slice;

TEST(TensorApi, VarAndStdOfAnIntReduceOverThatDim) {
  auto t = torch::tensor({{1.0, 2.0, 3.0}, {4.0, 6.0, 8.0}});
  EXPECT_TRUE(t.var(1).allclose(torch::tensor({1.0, 4.0})));  // not var(unbiased = true)
  EXPECT_TRUE(t.std(0).allclose(torch::tensor({3.0, 4.0, 5.0}).div(std::sqrt(2.0))));
  EXPECT_TRUE(torch::var(t, 1).allclose(torch::tensor({1.0, 4.0})));
  EXPECT_TRUE(std::get<1>(torch::var_mean(t, 1)).allclose(torch::tensor({2.0, 6.0})));
  EXPECT_EQ(t.var(true).dim(), 0);
}

TEST(TensorApi, IsNonzeroNeedsOneElement) {
  EXPECT_TRUE(torch::tensor({2.5}).is_nonzero());
  EXPECT_FALSE(torch::tensor(0).is_nonzero());
  EXPECT_THROW(torch::tensor({1, 2}).is_nonzero(), c10::Error);
  EXPECT_THROW(torch::empty({0}).is_nonzero(), c10::Error);
}

TEST(TensorApi, MultinomialIsAMethod) {
  auto probs = torch::tensor({0.0, 0.0, 1.0, 0.0});
  auto s = probs.multinomial(5, /*replacement=*/true);
  EXPECT_EQ(s.sizes(), (std::vector<int64_t>{5}));
  EXPECT_TRUE(s.eq(2).all().item<bool>());
}

TEST(TensorApi, DevicesAndDtypes) {
  auto x = torch::ones({2}, torch::kInt);
  EXPECT_EQ(x.to(torch::kCPU).device(), torch::Device(torch::kCPU));  // to(DeviceType) is not ambiguous
  EXPECT_EQ(x.get_device(), -1);
  auto y = x.type_as(torch::zeros({1}, torch::kDouble));
  EXPECT_EQ(y.scalar_type(), torch::kDouble);
  EXPECT_EQ(x.dtype(), torch::scalarTypeToTypeMeta(torch::kInt));
  EXPECT_EQ(torch::typeMetaToScalarType(y.dtype()), torch::kDouble);
  EXPECT_EQ(caffe2::TypeMeta::Make<float>(), torch::kFloat);
  EXPECT_EQ(caffe2::TypeMeta::Make<double>().itemsize(), 8u);
  EXPECT_EQ(std::string(caffe2::TypeMeta::Make<float>().name()), "float");
}

TEST(TensorApi, InferenceTensors) {
  auto normal = torch::ones({2, 2});
  EXPECT_FALSE(normal.is_inference());
  torch::Tensor made, view_of_normal;
  {
    c10::InferenceMode guard;
    EXPECT_TRUE(c10::InferenceMode::is_enabled());
    made = torch::ones({2, 2}) * 3;
    view_of_normal = normal.view({4});
  }
  EXPECT_FALSE(c10::InferenceMode::is_enabled());
  EXPECT_TRUE(made.is_inference());
  EXPECT_TRUE(made[0].is_inference());  // a view of an inference tensor
  EXPECT_FALSE(view_of_normal.is_inference());
  EXPECT_FALSE((made + 1).is_inference());  // made outside inference mode
  EXPECT_FALSE(made.requires_grad());
  // Outside inference mode, autograd may not save an inference tensor; a clone is a normal one.
  auto w = torch::ones({2, 2}, torch::requires_grad());
  try {
    (w * made).sum().backward();
    ADD_FAILURE() << "an inference tensor was saved for backward";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("Inference tensors cannot be saved for backward"), std::string::npos)
        << e.what();
  }
  (w * made.clone()).sum().backward();
  EXPECT_TRUE(w.grad().allclose(made));
  (w + made).sum().backward();  // add saves neither operand
  EXPECT_TRUE(w.grad().allclose(made + 1));
}

TEST(TensorApi, SlicesNormalizeTheirBounds) {
  Slice all;
  EXPECT_EQ(all.start(), 0);
  EXPECT_EQ(all.stop(), torch::indexing::INDEX_MAX);
  EXPECT_EQ(all.step(), 1);
  Slice tail(2, None);
  EXPECT_EQ(tail.start(), 2);
  EXPECT_EQ(tail.stop(), torch::indexing::INDEX_MAX);
  auto t = torch::arange(6);
  EXPECT_TRUE(t.index({Slice(1, None, 2)}).equal(torch::tensor({1, 3, 5})));
  std::ostringstream out;
  out << torch::indexing::TensorIndex(Slice(1, 4));
  EXPECT_EQ(out.str(), "1:4:1");
}

TEST(TensorApi, OrderedDictFromAnInitializerList) {
  torch::OrderedDict<std::string, int> dict = {{"a", 1}, {"b", 2}};
  ASSERT_EQ(dict.size(), 2u);
  EXPECT_EQ(dict.front().key(), "a");
  EXPECT_EQ(dict.back().value(), 2);
  EXPECT_EQ(dict["b"], 2);
  EXPECT_TRUE(dict.contains("a"));
  torch::OrderedDict<std::string, int> more = {{"c", 3}};
  dict.update(more);
  EXPECT_EQ(dict.keys(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_THROW(dict.update(more), c10::Error);  // "c" is already defined
  dict.erase("a");
  EXPECT_EQ(dict[0].key(), "b");
  EXPECT_THROW(dict.erase("zz"), c10::Error);
  torch::OrderedDict<std::string, int> empty;
  EXPECT_THROW(empty.front(), c10::Error);
}

TEST(TensorApi, ExpandingArray) {
  torch::ExpandingArray<3> one(5);
  EXPECT_EQ((*one)[2], 5);
  EXPECT_EQ(one.size(), 3u);
  torch::ExpandingArray<3> list({1, 2, 3});
  EXPECT_EQ((*list)[1], 2);
  torch::ExpandingArray<2, double> ratios({0.5, 0.25});
  EXPECT_EQ((*ratios)[1], 0.25);
  try {
    torch::ExpandingArray<3>(std::vector<int64_t>{1, 2, 3, 4});
    FAIL() << "4 values were accepted for 3";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("Expected 3 values, but instead got 4"), std::string::npos) << e.what();
  }
}

TEST(TensorApi, VariableIsATensor) {
  torch::autograd::Variable v = torch::ones({2}, torch::requires_grad());
  (v * v).sum().backward();
  EXPECT_TRUE(v.grad().allclose(torch::full({2}, 2.0f)));
}

TEST(TensorApi, AtenBinaryCrossEntropyPairsSqueezedShapes) {
  auto input = torch::full({4, 1, 1, 1}, 0.25);
  auto target = torch::tensor({1.0, 0.0, 1.0, 0.0});
  auto loss = torch::binary_cross_entropy(input, target);
  const double expected = -(std::log(0.25) + std::log(0.75)) / 2;
  EXPECT_NEAR(loss.item<double>(), expected, 1e-6);
  auto none = torch::binary_cross_entropy(input, target, {}, at::Reduction::None);
  EXPECT_EQ(none.sizes(), input.sizes());
}
