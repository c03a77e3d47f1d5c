// set_default_device / get_default_device (PyTorch's torch.set_default_device): factories
// without a device in their options follow it, explicit devices and from_blob do not, it is
// per thread, and Module::to moves parameters' device along with their memory.
#include <torch/torch.h>

#include <thread>

#include "test_util.h"

namespace ember::test {
namespace default_device {  // named: the tests build as one unity file

struct Restore {
  ~Restore() { set_default_device(kCPU); }
};

TEST(DefaultDevice, FactoriesFollowIt) {
  Restore restore;
  EXPECT_TRUE(get_default_device().is_cpu());
  set_default_device(kMeta);
  EXPECT_TRUE(get_default_device().is_meta());
  EXPECT_TRUE(empty({2, 3}).is_meta());
  EXPECT_TRUE(zeros({2}).is_meta());
  EXPECT_TRUE(ones({2}).is_meta());
  EXPECT_TRUE(full({2}, 3.0).is_meta());
  EXPECT_TRUE(randn({4}).is_meta());
  EXPECT_TRUE(arange(5).is_meta());
  EXPECT_TRUE(empty({2}, TensorOptions().device(kCPU)).device().is_cpu());  // an explicit device wins
  float data[2] = {1, 2};
  EXPECT_TRUE(from_blob(data, {2}).device().is_cpu());  // memory that exists is where it is
  bool other_thread_cpu = false;
  std::thread([&] { other_thread_cpu = empty({1}).device().is_cpu(); }).join();
  EXPECT_TRUE(other_thread_cpu);
  // A module built so has parameters without memory; initialization on them does nothing.
  torch::nn::Linear lin(1000, 1000);
  EXPECT_TRUE(lin->weight.is_meta());
  EXPECT_EQ(lin->weight.sizes(), IntArrayRef({1000, 1000}));
  set_default_device(kCPU);
  EXPECT_TRUE(empty({1}).device().is_cpu());
}

TEST(DefaultDevice, ModuleToMovesTheParametersDevice) {
  torch::nn::Linear lin(3, 2);
  lin->to(kMeta);
  EXPECT_TRUE(lin->weight.is_meta());
  EXPECT_TRUE(lin->named_parameters()["bias"].is_meta());
}

}  // namespace default_device
}  // namespace ember::test
