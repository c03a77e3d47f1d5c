// Shared by the LibTorch-style tests. Written against LibTorch 1.13's API only: these files are
// also compiled against LibTorch itself (tests/CMakeLists.txt, libtorch_reference_tests).
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace libtorch_test {

inline std::vector<int64_t> dims(const torch::Tensor& t) { return t.sizes().vec(); }

}  // namespace libtorch_test
