// Shared by the torch::nn::functional options tests (func_options_*_test.cpp): seeded random inputs.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace ember::test {

inline torch::Tensor sample(std::vector<int64_t> shape, uint64_t seed = 0) {
  torch::manual_seed(seed);
  return torch::randn(shape, torch::kDouble);
}

}  // namespace ember::test
