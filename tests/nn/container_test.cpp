// ModuleList and ModuleDict (ember/nn/container.h) against their definitions.
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
