// nn containers (Sequential, ModuleList, ModuleDict, AnyModule) as LibTorch 1.13 code uses
// them: modules passed by value, typed access, iteration, extend/insert/update.
// Compiles against ember and LibTorch alike.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace {

struct Scale : torch::nn::Module {
  explicit Scale(double k) : k(k) {}
  torch::Tensor forward(torch::Tensor x) { return x * k; }
  double k;
};

}  // namespace

TEST(Containers, SequentialTakesModulesByValue) {
  torch::nn::Sequential seq(Scale(2), Scale(3));
  seq->push_back(Scale(5));
  seq->push_back(torch::nn::Functional(torch::relu));
  EXPECT_EQ(seq->size(), 4u);
  auto y = seq->forward(torch::tensor({1.0, -1.0}));
  EXPECT_TRUE(y.equal(torch::tensor({30.0, 0.0})));
  EXPECT_DOUBLE_EQ(seq->ptr<Scale>(1)->k, 3.0);
  EXPECT_DOUBLE_EQ(seq->at<Scale>(2).k, 5.0);
  size_t n = 0;
  for (const auto& m : *seq) n += m.ptr() != nullptr;
  EXPECT_EQ(n, 4u);
  torch::nn::Sequential more(Scale(7));
  seq->extend(*more);
  EXPECT_EQ(seq->size(), 5u);
  EXPECT_TRUE(seq->forward(torch::tensor({1.0})).equal(torch::tensor({210.0})));
  seq->push_back("named", torch::nn::AnyModule(Scale(0.5)));
  EXPECT_EQ(seq->named_children()[5].key(), "named");
}

TEST(Containers, AnyModuleHoldsAnyModule) {
  torch::nn::AnyModule any(Scale(4));
  EXPECT_TRUE(any.forward(torch::ones({1})).equal(torch::full({1}, 4.0f)));
  EXPECT_DOUBLE_EQ(any.get<Scale>().k, 4.0);
  EXPECT_EQ(any.type_info().hash_code(), typeid(Scale).hash_code());
  any = std::make_shared<Scale>(6);
  EXPECT_DOUBLE_EQ(any.get<Scale>().k, 6.0);
  EXPECT_THROW(any.get<torch::nn::LinearImpl>(), c10::Error);
  torch::nn::AnyModule linear(torch::nn::Linear(2, 3));
  EXPECT_EQ(linear.forward(torch::ones({1, 2})).sizes(), (std::vector<int64_t>{1, 3}));
}

TEST(Containers, ModuleListInsertExtendAt) {
  torch::nn::ModuleList list(Scale(1), Scale(2));
  list->push_back(Scale(3));
  list->insert(0, Scale(0));
  ASSERT_EQ(list->size(), 4u);
  for (size_t i = 0; i < list->size(); ++i) EXPECT_DOUBLE_EQ(list->at<Scale>(i).k, double(i));
  EXPECT_EQ(list->named_children()[0].key(), "0");
  EXPECT_DOUBLE_EQ(std::dynamic_pointer_cast<Scale>(list->named_children()[0].value())->k, 0.0);
  EXPECT_DOUBLE_EQ(list->ptr<Scale>(3)->k, 3.0);
  torch::nn::ModuleList other(Scale(4));
  list->extend(*other);
  EXPECT_EQ(list->size(), 5u);
  // (at<T>() of the wrong type: LibTorch dereferences a null pointer; ember throws, tested in
  // tests/compat/container_errors_test.cpp.)
  double sum = 0;
  for (const auto& m : *list) sum += std::dynamic_pointer_cast<Scale>(m)->k;
  EXPECT_DOUBLE_EQ(sum, 10.0);
}

TEST(Containers, ModuleDictFromOrderedDictAndUpdate) {
  torch::OrderedDict<std::string, std::shared_ptr<torch::nn::Module>> ordered;
  ordered.insert("a", std::make_shared<Scale>(1));
  ordered.insert("b", std::make_shared<Scale>(2));
  torch::nn::ModuleDict dict(ordered);
  EXPECT_EQ(dict->size(), 2u);
  EXPECT_FALSE(dict->empty());
  EXPECT_DOUBLE_EQ(dict->at<Scale>("b").k, 2.0);
  std::vector<std::pair<std::string, std::shared_ptr<torch::nn::Module>>> more = {
      {"c", std::make_shared<Scale>(3)}, {"a", std::make_shared<Scale>(10)}};
  dict->update(more);
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_DOUBLE_EQ(dict->at<Scale>("a").k, 10.0);  // updated in place
  std::vector<std::string> seen;
  for (const auto& item : *dict) seen.push_back(item.key());
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_EQ(dict->items().size(), 3u);
  auto popped = dict->pop("b");
  EXPECT_DOUBLE_EQ(std::dynamic_pointer_cast<Scale>(popped)->k, 2.0);
  dict->clear();
  EXPECT_TRUE(dict->empty());
}
