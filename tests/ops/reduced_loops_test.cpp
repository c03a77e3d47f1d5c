// The reduced-precision (bfloat16 / half) pointwise loop with several broadcast operands in
// one inner loop (a batch norm's per-channel scale and shift along W), against float math
// rounded once.
#include "test_util.h"

namespace ember {
namespace {

TEST(ReducedLoops, TernaryWithTwoBroadcastOperands) {
  manual_seed(4);
  for (ScalarType t : {kBFloat16, kHalf}) {
    for (bool channels_last : {false, true}) {
      SCOPED_TRACE(std::string(t == kHalf ? "half" : "bfloat16") + (channels_last ? " channels-last" : ""));
      Tensor x = randn({2, 3, 4, 300}).to(t);  // W = 300: full blocks of 256 and a tail
      if (channels_last) x = x.contiguous(MemoryFormat::ChannelsLast);
      const Tensor shift = randn({1, 3, 1, 1}).to(t), scale = randn({1, 3, 1, 1}).to(t);
      const Tensor got = addcmul(shift, x, scale);
      const Tensor want = addcmul(shift.to(kFloat), x.to(kFloat), scale.to(kFloat)).to(t);
      EXPECT_TENSOR_EQ(got, want);
      // Both operands broadcast at once and the scalar first.
      EXPECT_TENSOR_EQ(addcmul(x, shift, scale), addcmul(x.to(kFloat), shift.to(kFloat), scale.to(kFloat)).to(t));
      EXPECT_TENSOR_EQ(where(x.gt(0), shift, scale), where(x.gt(0), shift.to(kFloat), scale.to(kFloat)).to(t));
    }
  }
}

}  // namespace
}  // namespace ember
