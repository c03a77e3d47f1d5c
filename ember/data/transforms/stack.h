// Stack: collates a batch of examples into one example whose data (and target) is the
// examples' tensors stacked along a new first dimension (LibTorch's transforms::Stack).
#pragma once
#include <vector>

#include "ember/data/example.h"
#include "ember/data/transforms/collate.h"

namespace ember::data::transforms {

namespace detail {
// stack(tensors) with one copy per tensor straight into the result when it can (dense CPU
// tensors of one dtype, no autograd); `what` names the field in errors ("data", "target").
// Tensors of different shapes raise an error naming both shapes and example numbers.
Tensor stack_examples(const std::vector<Tensor>& tensors, const char* what);
}  // namespace detail

template <typename T = Example<>>
struct Stack;

template <>
struct Stack<Example<>> : public Collation<Example<>> {
  Example<> apply_batch(std::vector<Example<>> examples) override {
    std::vector<Tensor> data, targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (auto& example : examples) {
      data.push_back(std::move(example.data));
      targets.push_back(std::move(example.target));
    }
    return {detail::stack_examples(data, "data"), detail::stack_examples(targets, "target")};
  }
};

template <>
struct Stack<TensorExample> : public Collation<Example<Tensor, example::NoTarget>> {
  TensorExample apply_batch(std::vector<TensorExample> examples) override {
    std::vector<Tensor> data;
    data.reserve(examples.size());
    for (auto& example : examples) data.push_back(std::move(example.data));
    return detail::stack_examples(data, "data");
  }
};

}  // namespace ember::data::transforms
