// Container misuse that LibTorch leaves undefined (at<T>() of the wrong type dereferences a
// null pointer there) throws an error naming the container and the index in ember.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include "test_util.h"

namespace {
struct Scale : torch::nn::Module {
  explicit Scale(double k) : k(k) {}
  torch::Tensor forward(torch::Tensor x) { return x * k; }
  double k;
};
}  // namespace

TEST(ContainerErrors, TypedAccessOfTheWrongTypeThrows) {
  torch::nn::ModuleList list(Scale(1));
  EXPECT_ERROR_WITH(list->at<torch::nn::LinearImpl>(0), "ModuleList::at: unable to cast module[0]");
  EXPECT_ERROR_WITH(list->insert(5, Scale(2)), "ModuleList::insert: index 5 is out of range (size 1)");
  torch::nn::ModuleDict dict;
  dict->insert("a", std::make_shared<Scale>(1));
  EXPECT_ERROR_WITH(dict->at<torch::nn::LinearImpl>("a"), "ModuleDict::at: unable to cast module['a']");
  torch::nn::AnyModule empty;
  EXPECT_ERROR_WITH(empty.get<Scale>(), "empty AnyModule");
  torch::nn::Sequential seq;
  EXPECT_ERROR_WITH(seq->push_back(torch::nn::AnyModule()), "the AnyModule is empty");
}
