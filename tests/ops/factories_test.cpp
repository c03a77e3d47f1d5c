// linspace / logspace edge cases against PyTorch's values.
#include "test_util.h"

namespace ember {
namespace {

TEST(Factories, LinspaceEdgeCases) {
  EXPECT_TENSOR_EQ(linspace(0.5, 1.5, 1, kDouble), tensor({0.5}).to(kDouble));  // torch.linspace(0.5, 1.5, 1) == [0.5]
  EXPECT_TENSOR_EQ(linspace(2, 4, 2, kDouble), tensor({2.0, 4.0}).to(kDouble));
  EXPECT_EQ(linspace(0, 1, 0).numel(), 0);
  const Tensor l = linspace(-1, 1, 7, kDouble);
  EXPECT_EQ(l[0].item<double>(), -1.0);
  EXPECT_EQ(l[6].item<double>(), 1.0);
#if defined(__x86_64__)
  EXPECT_EQ(l[3].item<double>(), 0.0);
#else
  // GCC fuses 1 - step * 3 into one multiply-add on 64-bit Arm (CMakeLists.txt): 5.6e-17.
  EXPECT_NEAR(l[3].item<double>(), 0.0, 1e-16);
#endif
  EXPECT_TENSOR_EQ(linspace(3, 3, 1, kLong), tensor({int64_t(3)}));
  EXPECT_TENSOR_EQ(logspace(1, 2, 1, 10.0, kDouble), tensor({10.0}).to(kDouble));  // torch.logspace(1, 2, 1) == [10.]
}

}  // namespace
}  // namespace ember
