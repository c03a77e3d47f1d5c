// The containers of ember/nn/modules/container.h: ModuleList and ModuleDict against their
// definitions; ParameterList and ParameterDict.
#include <torch/torch.h>

#include "test_util.h"

namespace {

TEST(Extra, Containers) {
  torch::nn::ModuleList list(torch::nn::Linear(2, 3), torch::nn::ReLU());
  list->push_back(torch::nn::Linear(3, 1));
  EXPECT_EQ(list->size(), 3u);
  EXPECT_EQ(list->named_parameters().keys(), (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  torch::Tensor x = torch::randn({4, 2});
  for (const auto& m : *list) {
    if (auto* lin = m->as<torch::nn::Linear>()) x = lin->forward(x);
    else if (auto* relu = m->as<torch::nn::ReLU>()) x = relu->forward(x);
  }
  EXPECT_EQ(x.sizes(), torch::IntArrayRef({4, 1}));
  auto copy = std::dynamic_pointer_cast<torch::nn::ModuleListImpl>(list->clone());
  ASSERT_TRUE(copy);
  EXPECT_FALSE(copy->parameters()[0].is_same(list->parameters()[0]));
  EXPECT_TRUE(copy->parameters()[0].equal(list->parameters()[0]));
  torch::nn::ModuleDict dict;
  dict->insert("enc", torch::nn::Linear(2, 2).ptr());
  dict->insert("dec", torch::nn::Linear(2, 2).ptr());
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"enc", "dec"}));
  EXPECT_TRUE(dict->contains("dec"));
  dict->pop("enc");
  EXPECT_EQ(dict->size(), 1u);
  EXPECT_ERROR_WITH((*dict)["enc"], "Module 'enc' is not defined");
}

}  // namespace

namespace ember {
namespace {

TEST(ParameterList, LibTorchApi) {
  nn::ParameterList list(ones({2}), zeros({3}).requires_grad_());
  EXPECT_EQ(list->size(), 2u);
  EXPECT_FALSE(list[0].requires_grad());  // requires_grad is kept
  EXPECT_TRUE(list[1].requires_grad());
  list->append(full({4}, 2.0));
  list->extend(std::vector<Tensor>{full({1}, 3.0), full({1}, 4.0)});
  list->insert(1, full({5}, 7.0));
  EXPECT_EQ(list->size(), 6u);
  EXPECT_EQ(list->named_parameters().keys(), (std::vector<std::string>{"0", "1", "2", "3", "4", "5"}));
  EXPECT_EQ(list[1].size(0), 5);
  const Tensor popped = list->pop(0);
  EXPECT_TENSOR_EQ(popped, ones({2}));
  EXPECT_EQ(list->size(), 5u);
  EXPECT_EQ(list[0].size(0), 5);
  EXPECT_EQ(list->named_parameters().keys().back(), "4");
  int64_t total = 0;
  for (const auto& item : *list) total += item.value().numel();
  EXPECT_EQ(total, 5 + 3 + 4 + 1 + 1);
  EXPECT_ERROR_WITH(list->at(9), "Index out of range");
  // registered in a parent; deep clones
  struct Net : nn::Module {
    nn::ParameterList ps{nullptr};
    Net() { ps = register_module("ps", nn::ParameterList(ones({2}).requires_grad_())); }
  };
  auto net = std::make_shared<Net>();
  EXPECT_EQ(net->named_parameters().keys(), std::vector<std::string>{"ps.0"});
  auto copy = std::dynamic_pointer_cast<nn::ParameterListImpl>(list->clone());
  EXPECT_EQ(copy->size(), list->size());
  copy->at(0).data().fill_(-1);
  EXPECT_EQ(list[0][0].item<float>(), 7.0f);
  EXPECT_TRUE(copy->at(1).requires_grad());
  std::ostringstream s;
  s << *nn::ParameterList(ones({2, 3}));
  EXPECT_EQ(s.str(), "torch::nn::ParameterList(\n(0): Parameter containing: [Float of size [2, 3]]\n)");
}

TEST(ParameterDict, LibTorchApi) {
  nn::ParameterDict dict;
  dict->insert("a", ones({2}).requires_grad_());
  dict->insert("b", zeros({3}));
  EXPECT_TRUE(dict->contains("a"));
  EXPECT_FALSE(dict->contains("c"));
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(dict->values().size(), 2u);
  EXPECT_TRUE(dict["a"].requires_grad());
  EXPECT_FALSE(dict->get("b").requires_grad());
  dict->insert("a", full({4}, 2.0));  // replaces
  EXPECT_EQ(dict["a"].size(0), 4);
  EXPECT_EQ(dict->size(), 2u);
  OrderedDict<std::string, Tensor> more;
  more.insert("c", ones({1}));
  more.insert("b", ones({5}));
  dict->update(more);
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(dict["b"].size(0), 5);
  EXPECT_EQ(dict->pop("a").size(0), 4);
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(dict->named_parameters().keys(), (std::vector<std::string>{"b", "c"}));
  EXPECT_ERROR_WITH(dict->pop("zz"), "'zz' is not defined");
  auto copy = std::dynamic_pointer_cast<nn::ParameterDictImpl>(dict->clone());
  EXPECT_EQ(copy->keys(), dict->keys());
  EXPECT_FALSE(copy->get("b").is_same(dict->get("b")));
  dict->clear();
  EXPECT_TRUE(dict->empty());
  EXPECT_EQ(nn::ParameterDict(more)->size(), 2u);
}

}  // namespace
}  // namespace ember
